// SPDX-License-Identifier: GPL-2.0
/*
 * cmdline.c - upcd's command line laid over the config file; see cmdline.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act/backend.h"
#include "cmdline.h"
#include "core/common.h"
#include "fscheck.h"
#include "lib/log.h"
#include "sys/measure.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: upcd [OPTION]...\n"
		"Bound unmapped page cache (file LRU pages no process maps) so that the\n"
		"memory goes back to the host.  Runs in the foreground.\n\n"
		"  --config FILE        config file (default " UPCC_DEFAULT_CONFIG_PATH ", if present)\n"
		"  --once               step until every scope is at or below its target,\n"
		"                       or nothing more can be reclaimed, then exit\n"
		"  --dry-run            decide and report, reclaim nothing (with --once:\n"
		"                       exit 1 if a scope has no usable backend)\n"
		"  --check              check the config, probe each scope's backend, say\n"
		"                       what upcd would do now, then exit (1: a scope has\n"
		"                       no usable backend or cannot be measured)\n"
		"  --backend NAME       auto|fadvise|damon|memcg|dropcache (all scopes)\n"
		"  --scope SPEC         system|node:N|cgroup:/PATH|path:/DIR (repeatable;\n"
		"                       replaces the config file's scopes)\n"
		"  --target AMOUNT      pages (1000), bytes (64Mi, 1.5Gi: as upcc prints\n"
		"                       them) or percent (1%%)\n"
		"  --trigger AMOUNT     multiple of the target (16x) or an amount\n"
		"  --interval TIME      control interval (500ms, 1s, 2m)\n"
		"  --tick TIME          sampling tick, cheap reads only (default 100ms)\n"
		"  --metrics FILE       Prometheus textfile to write\n"
		"  --state FILE         state file for upcc status (default " UPCC_DEFAULT_STATE_PATH ")\n"
		"  -v, --verbose        also log every step and idle tick (debug)\n"
		"  -h, --help           this help\n"
		"  -V, --version        version\n\n"
		"Exit codes: 0 ok; 1 runtime error (a report not written, no usable backend,\n"
		"another upcd on the state file: FILE.lock);\n"
		"2 bad usage or config (also a state FILE.lock that cannot be made);\n"
		"3 (--once) a scope is still above its target and nothing more could be reclaimed.\n");
}

int upcd_parse_options(int argc, char **argv, struct upcd_options *options)
{
	enum { OPT_CONFIG = 256, OPT_ONCE, OPT_DRY_RUN, OPT_BACKEND, OPT_SCOPE, OPT_TARGET,
	       OPT_TRIGGER, OPT_INTERVAL, OPT_METRICS, OPT_STATE, OPT_CHECK, OPT_TICK };
	static const struct option long_options[] = {
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "scope", required_argument, NULL, OPT_SCOPE },
		{ "target", required_argument, NULL, OPT_TARGET },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "tick", required_argument, NULL, OPT_TICK },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "vhV", long_options, NULL)) != -1) {
		switch (opt) {
		case OPT_CONFIG: options->config_path = optarg; break;
		case OPT_ONCE: options->once = true; break;
		case OPT_DRY_RUN: options->dry_run = true; break;
		case OPT_CHECK: options->check = true; break;
		case OPT_BACKEND: options->backend = optarg; break;
		case OPT_SCOPE:
			if (options->nr_scopes >= UPCC_MAX_SCOPES) {
				fprintf(stderr, "upcd: at most %d --scope\n", UPCC_MAX_SCOPES);
				return UPCC_EXIT_USAGE;
			}
			options->scopes[options->nr_scopes++] = optarg;
			break;
		case OPT_TARGET: options->target = optarg; break;
		case OPT_TRIGGER: options->trigger = optarg; break;
		case OPT_INTERVAL: options->interval = optarg; break;
		case OPT_TICK: options->tick = optarg; break;
		case OPT_METRICS: options->metrics = optarg; break;
		case OPT_STATE: options->state = optarg; break;
		case 'v': options->verbose = true; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("upcd %s\n", UPCC_VERSION); exit(0);
		default: usage(stderr); return UPCC_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "upcd: unexpected argument \"%s\"\n", argv[optind]);
		return UPCC_EXIT_USAGE;
	}
	if (options->check && options->once) {
		fprintf(stderr, "upcd: --check and --once: choose one (--check acts on nothing)\n");
		return UPCC_EXIT_USAGE;
	}
	/* --check writes nothing and reclaims nothing: a dry run's rules. */
	if (options->check)
		options->dry_run = true;
	return 0;
}

/* Scope settings from the command line override every scope's. */
static int apply_scope_options(const struct upcd_options *options, struct upcc_config *config,
			       char *error, size_t error_len)
{
	for (size_t i = 0; i < config->nr_scopes; i++) {
		struct upcc_config_scope *entry = &config->scopes[i];

		if (options->target && upcc_parse_target(options->target, &entry->scope.config)) {
			snprintf(error, error_len, "--target=%s: expected pages, bytes (64M) or percent (1%%)",
				 options->target);
			return -EINVAL;
		}
		if (options->trigger && upcc_parse_trigger(options->trigger, &entry->scope.config)) {
			snprintf(error, error_len, "--trigger=%s: expected 16x, pages, bytes or percent",
				 options->trigger);
			return -EINVAL;
		}
		if (options->backend)
			snprintf(entry->backend_name, sizeof(entry->backend_name), "%s",
				 options->backend);
	}
	return 0;
}

/*
 * --metrics, --state: as in the config file, an absolute path (a relative
 * one would depend on the directory upcd happens to be started from) that
 * names a file, not a directory.
 */
static int report_path_option(const char *option, const char *value, char *path, size_t size,
			      char *error, size_t error_len)
{
	int err = upcc_parse_file_path(value, path, size);

	if (err == -EISDIR)
		snprintf(error, error_len, "--%s=%s: names a directory; expected a file's absolute path",
			 option, value);
	else if (err == -ENAMETOOLONG)
		snprintf(error, error_len, "--%s=%s: path too long", option, value);
	else if (err)
		snprintf(error, error_len, "--%s=%s: expected an absolute path", option, value);
	return err;
}

static int apply_daemon_options(const struct upcd_options *options, struct upcc_config *config,
				char *error, size_t error_len)
{
	if (options->backend && !upcc_backend_name_valid(options->backend)) {
		snprintf(error, error_len, "--backend=%s: expected " UPCC_BACKEND_NAMES_TEXT,
			 options->backend);
		return -EINVAL;
	}
	if (options->backend && strcmp(options->backend, "dropcache") == 0)
		config->allow_dropcache = true;	/* asking by name is the explicit yes */
	if (options->interval && upcc_parse_interval_ms(options->interval, &config->interval_ms)) {
		snprintf(error, error_len, "--interval=%s: expected 10ms..24h (500ms, 1s, 2m)",
			 options->interval);
		return -EINVAL;
	}
	if (options->tick && upcc_parse_interval_ms(options->tick, &config->tick_ms)) {
		snprintf(error, error_len, "--tick=%s: expected 10ms..24h (100ms, 1s)",
			 options->tick);
		return -EINVAL;
	}
	if (options->metrics &&
	    report_path_option("metrics", options->metrics, config->metrics_path,
			       sizeof(config->metrics_path), error, error_len))
		return -EINVAL;
	if (options->state &&
	    report_path_option("state", options->state, config->state_path,
			       sizeof(config->state_path), error, error_len))
		return -EINVAL;
	if (options->nr_scopes) {
		upcc_config_free(config);
		for (size_t i = 0; i < options->nr_scopes; i++)
			if (upcc_config_add_scope_spec(config, options->scopes[i], error, error_len))
				return -EINVAL;
	}
	return apply_scope_options(options, config, error, error_len);
}

/*
 * --check lists every error of the config file, not only the first (a
 * start or a reload says the first: what to fix before anything runs).
 * The later ones are kept here to be logged after it.
 */
#define MORE_ERRORS_SHOWN	20

struct more_errors {
	unsigned int count;
	char lines[MORE_ERRORS_SHOWN][512];
};

static void keep_error(const char *message, void *context)
{
	struct more_errors *more = context;

	if (more->count < MORE_ERRORS_SHOWN)
		snprintf(more->lines[more->count], sizeof(more->lines[0]), "%s", message);
	more->count++;
}

static void log_more_errors(const struct more_errors *more)
{
	for (unsigned int i = 0; i < more->count && i < MORE_ERRORS_SHOWN; i++)
		upcc_log(LOG_ERR, "%s", more->lines[i]);
	if (more->count > MORE_ERRORS_SHOWN)
		upcc_log(LOG_ERR, "%u more errors", more->count - MORE_ERRORS_SHOWN);
}

/* The config file (if any) plus the command line, into @config. */
int upcd_build_config(const struct upcd_options *options, struct upcc_config *config)
{
	const char *path = options->config_path ? options->config_path : UPCC_DEFAULT_CONFIG_PATH;
	char error[1024] = "";	/* up to three paths (upcd_check_scope_roots) */
	struct more_errors more = { 0 };
	int err;

	upcc_config_init(config);
	if (!options->config_path && access(path, F_OK) != 0)
		err = upcc_config_parse("", "(built-in defaults)", config, error, sizeof(error));
	else
		err = upcc_config_load_all(path, config, error, sizeof(error),
					   options->check ? keep_error : NULL, &more);
	if (!err)
		err = apply_daemon_options(options, config, error, sizeof(error));
	/* What can never be measured here is a usage error now, not a
	 * "cannot measure" every round.
	 */
	for (size_t i = 0; !err && i < config->nr_scopes; i++) {
		const struct upcc_scope *scope = &config->scopes[i].scope;
		char why[384];

		err = upcc_measure_check(scope, why, sizeof(why));
		if (err)
			snprintf(error, sizeof(error), "scope %s: %s", scope->name, why);
	}
	/* Before a dry run drops the config's report files below: --check
	 * says what the real start would refuse.
	 */
	if (!err)
		err = upcd_check_report_files(options, config, path, error, sizeof(error));
	if (!err)
		err = upcd_check_scope_roots(config, path, error, sizeof(error));
	/* A dry run writes reports only where the command line says: not the
	 * config file's paths, nor the default state file, here and on reload.
	 * --check keeps them, to check them (check.c): it writes nothing.
	 */
	if (!err && options->dry_run && !options->check) {
		if (!options->state)
			config->state_path[0] = '\0';
		if (!options->metrics)
			config->metrics_path[0] = '\0';
	}
	/* --dry-run wins over the file's "dry_run = no".  The file's yes,
	 * unlike --dry-run, keeps the report files: observing a fleet
	 * before letting upcd act is what it is for (issue 31).
	 */
	if (!err && options->dry_run)
		config->dry_run = true;
	/* The state file is the running daemon's, read by upcc status: a
	 * --once run (a process that exits) writes one only where --state says.
	 */
	if (!err && options->once && !options->state)
		config->state_path[0] = '\0';
	if (err) {
		upcc_log(LOG_ERR, "%s", error);
		log_more_errors(&more);
		upcc_config_free(config);
	}
	return err;
}
