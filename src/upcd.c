// SPDX-License-Identifier: GPL-2.0
/*
 * upcd - the unmapped page cache control daemon.
 *
 * Wires the modules together: config (what to control), backend (how to
 * act), control (one step: measure, decide, act), reports (log, metrics,
 * state, sd_notify), driven by an epoll loop over a timerfd (the control
 * interval), a second timerfd (the systemd watchdog) and a signalfd
 * (SIGHUP reloads, SIGTERM/SIGINT stop).  Exit codes: docs/upcd.md.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "common.h"
#include "compact.h"
#include "config.h"
#include "control.h"
#include "log.h"
#include "measure.h"
#include "metrics.h"
#include "notify.h"
#include "pace.h"
#include "size.h"
#include "state.h"
#include "walk.h"

/* A bound on --once even if the cache refills as fast as it is dropped. */
#define ONCE_MAX_STEPS		1000u

/* What the command line says, applied on top of the config file. */
struct upcd_options {
	const char *config_path;	/* NULL: the default, optional */
	bool once, dry_run, verbose, check;
	const char *backend;
	const char *scopes[UPCC_MAX_SCOPES];
	size_t nr_scopes;
	const char *target, *trigger, *interval, *metrics, *state;
	const char *tick;
};

struct upcd {
	struct upcd_options options;
	struct upcc_config config;
	struct upcc_scope_run *runs;
	size_t nr_runs;
	uint64_t page_size;
	bool state_warned, metrics_warned;
	bool reports_failed;		/* the last round's state or metrics write failed */
	/* The round under way, for its one log line (log_round_step). */
	unsigned int round_step;
	unsigned int round_acted;	/* steps that called the backend */
	uint64_t round_asked;		/* pages the steps asked the backend for */
	uint64_t round_unmapped;	/* unmapped before the first step */
	uint64_t watchdog_usec;		/* WATCHDOG_USEC, 0 without a watchdog */
	uint64_t last_ping_usec;	/* the last WATCHDOG=1, monotonic */
	struct upcc_compact compact;	/* under a reporting balloon only */
	uint64_t last_report_usec;	/* the last state/metrics write, monotonic */
	uint64_t last_report_aim;	/* the effective targets then, summed */
};

/* Between rounds the reports are rewritten at least this often. */
#define REPORT_HEARTBEAT_USEC	(60ull * 1000 * 1000)

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
		"  --target AMOUNT      pages (1000), bytes (64M) or percent (1%%)\n"
		"  --trigger AMOUNT     multiple of the target (16x) or an amount\n"
		"  --interval TIME      control interval (500ms, 1s, 2m)\n"
		"  --tick TIME          sampling tick, cheap reads only (default 100ms)\n"
		"  --metrics FILE       Prometheus textfile to write\n"
		"  --state FILE         state file for upcc status (default " UPCC_DEFAULT_STATE_PATH ")\n"
		"  -v, --verbose        also log every step and idle tick (debug)\n"
		"  -h, --help           this help\n"
		"  -V, --version        version\n\n"
		"Exit codes: 0 ok; 1 runtime error (a report not written, no usable backend);\n"
		"2 bad usage or config;\n"
		"3 (--once) a scope is still above its target and nothing more could be reclaimed.\n");
}

static int parse_options(int argc, char **argv, struct upcd_options *options)
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
	/* As in the config file: a relative path would depend on the
	 * directory upcd happens to be started from.
	 */
	if (options->metrics && options->metrics[0] != '/') {
		snprintf(error, error_len, "--metrics=%s: expected an absolute path", options->metrics);
		return -EINVAL;
	}
	if (options->state && options->state[0] != '/') {
		snprintf(error, error_len, "--state=%s: expected an absolute path", options->state);
		return -EINVAL;
	}
	if (options->metrics)
		snprintf(config->metrics_path, sizeof(config->metrics_path), "%s", options->metrics);
	if (options->state)
		snprintf(config->state_path, sizeof(config->state_path), "%s", options->state);
	if (options->nr_scopes) {
		upcc_config_free(config);
		for (size_t i = 0; i < options->nr_scopes; i++)
			if (upcc_config_add_scope_spec(config, options->scopes[i], error, error_len))
				return -EINVAL;
	}
	return apply_scope_options(options, config, error, error_len);
}

/* The config file (if any) plus the command line, into @config. */
static int build_config(const struct upcd_options *options, struct upcc_config *config)
{
	const char *path = options->config_path ? options->config_path : UPCC_DEFAULT_CONFIG_PATH;
	char error[512] = "";
	int err;

	upcc_config_init(config);
	if (!options->config_path && access(path, F_OK) != 0)
		err = upcc_config_parse("", "(built-in defaults)", config, error, sizeof(error));
	else
		err = upcc_config_load(path, config, error, sizeof(error));
	if (!err)
		err = apply_daemon_options(options, config, error, sizeof(error));
	/* What can never be measured here is a usage error now, not a
	 * "cannot measure" every round.
	 */
	for (size_t i = 0; !err && i < config->nr_scopes; i++) {
		const struct upcc_scope *scope = &config->scopes[i].scope;
		char why[384];

		err = upcc_scope_check(scope, why, sizeof(why));
		if (err)
			snprintf(error, sizeof(error), "scope %s: %s", scope->name, why);
	}
	/* A dry run writes reports only where the command line says: not the
	 * config file's paths, nor the default state file, here and on reload.
	 */
	if (!err && options->dry_run) {
		if (!options->state)
			config->state_path[0] = '\0';
		if (!options->metrics)
			config->metrics_path[0] = '\0';
	}
	/* The state file is the running daemon's, read by upcc status: a
	 * --once run (a process that exits) writes one only where --state says.
	 */
	if (!err && options->once && !options->state)
		config->state_path[0] = '\0';
	if (err) {
		upcc_log(LOG_ERR, "%s", error);
		upcc_config_free(config);
	}
	return err;
}

static void release_backend(struct upcc_scope_run *run)
{
	if (run->backend_initialised && run->backend.ops->fini)
		run->backend.ops->fini(&run->backend);
	run->backend_initialised = false;
	run->backend_ready = false;
}

/* `why` is a summary; what the backend works on is logged whole, a line each. */
static void log_backend_detail(const struct upcc_scope_run *run)
{
	const struct upcc_backend *backend = &run->backend;
	char line[PATH_MAX + 64];

	if (!backend->ops->detail || !run->backend_initialised)
		return;
	for (size_t i = 0; backend->ops->detail(backend, i, line, sizeof(line)); i++)
		upcc_log(LOG_INFO, "scope %s: %s", run->scope.name, line);
}

/* What to do about a backend that cannot be used (@err from select or init). */
static const char *backend_hint(const char *name, int err)
{
	if (err == -EBUSY && strcmp(name, "damon") == 0)
		return "stop the other DAMON user (kdamonds/nr_kdamonds is not 0) or choose "
		       "backend auto";
	if (err == -EPERM && strcmp(name, "dropcache") == 0)
		return "set allow_dropcache = yes, or choose another backend";
	if (strcmp(name, "auto") != 0)
		return "choose backend auto to let upcd pick one that works here";
	return "no backend can keep upcd's rules for this scope here (see upcd(8))";
}

/* Choose and (unless dry run) initialise @run's backend; logs the outcome. */
static void setup_backend(struct upcc_scope_run *run, const struct upcc_config *config,
			  bool dry_run)
{
	struct upcc_backend *backend = &run->backend;
	int err;

	memset(backend, 0, sizeof(*backend));
	backend->dry_run = dry_run;
	backend->allow_dropcache = config->allow_dropcache;
	err = upcc_backend_select(backend, run->backend_name, &run->scope);
	if (!err && !dry_run && backend->ops->init) {
		err = backend->ops->init(backend, &run->scope);
		run->backend_initialised = !err;
	}
	if (err || !backend->ops) {
		snprintf(run->backend_error, sizeof(run->backend_error), "%s; %s",
			 backend->why[0] ? backend->why : strerror(err < 0 ? -err : EINVAL),
			 backend_hint(run->backend_name, err));
		upcc_log(LOG_WARNING, "scope %s: no usable backend: %s", run->scope.name,
			 run->backend_error);
		return;
	}
	run->backend_ready = true;
	upcc_log(LOG_INFO, "scope %s: backend %s (%s)", run->scope.name, backend->ops->name,
		 backend->why);
	log_backend_detail(run);
}

/* Scopes carried over a reload keep their counters, found by name. */
static void carry_counters(struct upcc_scope *scope, const struct upcc_scope_run *old_runs,
			   size_t nr_old)
{
	for (size_t i = 0; i < nr_old; i++) {
		const struct upcc_scope *old = &old_runs[i].scope;

		if (strcmp(old->name, scope->name) != 0)
			continue;
		scope->reclaimed_pages_total = old->reclaimed_pages_total;
		scope->actions_total = old->actions_total;
		scope->action_errors_total = old->action_errors_total;
		scope->action_usec_total = old->action_usec_total;
		scope->refused_steps_total = old->refused_steps_total;
		scope->phase = old->phase;
		scope->ticks_total = old->ticks_total;
		scope->rounds_total = old->rounds_total;
		scope->tick_rounds_total = old->tick_rounds_total;
	}
}

static int build_runs(struct upcd *upcd, struct upcc_scope_run **runs_out)
{
	const struct upcc_config *config = &upcd->config;
	struct upcc_scope_run *runs = calloc(config->nr_scopes, sizeof(*runs));
	size_t ready = 0;

	*runs_out = NULL;
	if (!runs)
		return -ENOMEM;
	for (size_t i = 0; i < config->nr_scopes; i++) {
		const struct upcc_config_scope *entry = &config->scopes[i];

		runs[i].scope = entry->scope;
		snprintf(runs[i].backend_name, sizeof(runs[i].backend_name), "%s",
			 entry->backend_name[0] ? entry->backend_name : config->backend_name);
		carry_counters(&runs[i].scope, upcd->runs, upcd->nr_runs);
		/* --once reclaims now: as if kswapd had just been woken. */
		if (upcd->options.once)
			runs[i].scope.phase = UPCC_PHASE_RECLAIMING;
		setup_backend(&runs[i], config, upcd->options.dry_run);
		ready += runs[i].backend_ready;
	}
	*runs_out = runs;
	return ready == config->nr_scopes || upcd->options.dry_run ? 0 : -ENODEV;
}

static void free_runs(struct upcc_scope_run *runs, size_t nr_runs)
{
	if (!runs)
		return;
	for (size_t i = 0; i < nr_runs; i++)
		release_backend(&runs[i]);
	free(runs);
}

/* Pages for people ("40Ki", "1.5Gi"), in a buffer of the caller's block. */
#define SIZE(pages, page) \
	upcc_size_format((char[UPCC_SIZE_TEXT_LEN]){ 0 }, UPCC_SIZE_TEXT_LEN, \
			 upcc_mul_saturating((pages), (page)))

/* How often a scope that cannot be measured says so again. */
#define SAMPLE_ERROR_LOG_USEC	(60ull * 1000 * 1000)

/*
 * A scope that cannot be measured fails every round: say so when it
 * starts, when the reason changes, once a minute meanwhile (with the
 * count) and when it recovers, not every round.
 */
static void log_sample_error(struct upcc_scope_run *run, int error)
{
	uint64_t now = upcc_monotonic_usec();
	char why[PATH_MAX + 128];

	if (error == -EINTR)
		return;		/* cut short by a signal, which is handled next */

	if (error == run->sample_error && now - run->sample_error_logged < SAMPLE_ERROR_LOG_USEC) {
		run->sample_errors_unlogged++;
		return;
	}
	upcc_measure_explain(&run->scope, error, why, sizeof(why));
	if (run->sample_errors_unlogged)
		upcc_log(LOG_ERR, "scope %s: cannot measure: %s (%llu times since the last message)",
			 run->scope.name, why, (unsigned long long)run->sample_errors_unlogged + 1);
	else
		upcc_log(LOG_ERR, "scope %s: cannot measure: %s", run->scope.name, why);
	run->sample_error = error;
	run->sample_error_logged = now;
	run->sample_errors_unlogged = 0;
}

/* How often a walk that keeps leaving files out says so again. */
#define WALK_SKIPS_LOG_USEC	(10ull * 60 * 1000 * 1000)

/*
 * A path scope's walk that could not count everything says what and why:
 * when it starts, when the counts change after a quiet spell of
 * WALK_SKIPS_LOG_USEC, not every round.
 */
static void log_walk_skips(struct upcc_scope_run *run, const struct upcc_sample *sample)
{
	uint64_t skips = sample->skipped_depth + sample->skipped_raced + sample->walk_errors;
	uint64_t now = upcc_monotonic_usec();

	if (!skips || (run->walk_skips_logged &&
		       now - run->walk_skips_logged < WALK_SKIPS_LOG_USEC))
		return;
	upcc_log(LOG_WARNING,
		 "scope %s: the walk left out %llu directories deeper than %u levels, %llu entries that changed while walked, %llu unreadable entries",
		 run->scope.name, (unsigned long long)sample->skipped_depth,
		 UPCC_WALK_DEFAULT_MAX_DEPTH, (unsigned long long)sample->skipped_raced,
		 (unsigned long long)sample->walk_errors);
	run->walk_skips_logged = now;
}

/*
 * One step, at debug (-v): the round it belongs to gets one INFO line
 * (log_round).  Errors and refusals keep their own level.
 */
static void log_step(struct upcd *upcd, struct upcc_scope_run *run,
		     const struct upcc_step_report *report)
{
	const struct upcc_scope *scope = &run->scope;
	const char *backend = run->backend_ready ? run->backend.ops->name : "none";
	uint64_t page = upcd->page_size;

	if (report->outcome != UPCC_STEP_SAMPLE_FAILED && run->sample_error) {
		upcc_log(LOG_NOTICE, "scope %s: measured again", scope->name);
		run->sample_error = 0;
		run->sample_errors_unlogged = 0;
	}
	if (report->outcome != UPCC_STEP_SAMPLE_FAILED)
		log_walk_skips(run, &scope->last);
	switch (report->outcome) {
	case UPCC_STEP_SAMPLE_FAILED:
		log_sample_error(run, report->error);
		break;
	case UPCC_STEP_IDLE:
		upcc_log(LOG_DEBUG, "scope %s: idle: unmapped %s, target %s, trigger %s",
			 scope->name, SIZE(report->unmapped_before, page),
			 SIZE(scope->policy.target_pages, page),
			 SIZE(scope->policy.trigger_pages, page));
		break;
	case UPCC_STEP_DRY_RUN:
	case UPCC_STEP_NO_BACKEND:
		upcc_log(LOG_DEBUG, "scope %s: step %u: %s: would ask %s for %s: unmapped %s, target %s",
			 scope->name, upcd->round_step,
			 report->outcome == UPCC_STEP_DRY_RUN ? "dry run" : "no usable backend",
			 backend, SIZE(report->requested_pages, page),
			 SIZE(report->unmapped_before, page),
			 SIZE(scope->policy.target_pages, page));
		break;
	case UPCC_STEP_REFUSED:
		upcc_log(LOG_NOTICE,
			 "scope %s: %s refused to act (%llu steps refused so far): %s; unmapped %s, target %s",
			 scope->name, backend, (unsigned long long)scope->refused_steps_total,
			 report->result.refused, SIZE(report->unmapped_before, page),
			 SIZE(scope->policy.target_pages, page));
		break;
	case UPCC_STEP_ACTED:
		/* A backend drops what it drops (fadvise: whole files), so a
		 * step may take more or less than it asked for.
		 */
		upcc_log(report->error ? LOG_WARNING : LOG_DEBUG,
			 "scope %s: step %u: asked %s for %s, it took %s in %.1f ms (scanned %llu, skipped %llu dirty); unmapped was %s, target %s%s%s",
			 scope->name, upcd->round_step, backend,
			 SIZE(report->requested_pages, page),
			 SIZE(report->result.reclaimed_pages, page),
			 (double)report->result.elapsed_usec / 1000.0,
			 (unsigned long long)report->result.scanned_items,
			 (unsigned long long)report->result.skipped_dirty,
			 SIZE(report->unmapped_before, page),
			 SIZE(scope->policy.target_pages, page),
			 report->error ? ": " : "", report->error ? strerror(-report->error) : "");
		break;
	}
	if (report->result.note[0])
		upcc_log(LOG_NOTICE, "scope %s: %s", scope->name, report->result.note);
}

/* Make the parent directory of a report file (e.g. /run/upcc) if missing. */
static void ensure_parent(const char *path)
{
	char parent[PATH_MAX];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return;
	*slash = '\0';
	mkdir(parent, 0755);
}

static void write_reports(struct upcd *upcd)
{
	const struct upcc_config *config = &upcd->config;
	int err;

	upcd->reports_failed = false;
	if (config->state_path[0]) {
		ensure_parent(config->state_path);
		err = upcc_state_write(config->state_path, upcd->runs, upcd->nr_runs,
				       upcd->page_size, upcd->options.dry_run, &upcd->compact);
		if (err && !upcd->state_warned)
			upcc_log(LOG_WARNING, "cannot write state %s: %s", config->state_path,
				 strerror(-err));
		upcd->state_warned = err != 0;
		upcd->reports_failed |= err != 0;
	}
	if (config->metrics_path[0]) {
		err = upcc_metrics_write(config->metrics_path, upcd->runs, upcd->nr_runs,
					 upcd->page_size, &upcd->compact);
		if (err && !upcd->metrics_warned)
			upcc_log(LOG_WARNING, "cannot write metrics %s: %s", config->metrics_path,
				 strerror(-err));
		upcd->metrics_warned = err != 0;
		upcd->reports_failed |= err != 0;
	}
}

/*
 * Daemon mode's time budget per scope round: half the interval, shared by
 * the scopes, so the loop keeps its rhythm; and at most a quarter of the
 * watchdog period, so a long interval cannot starve the watchdog.
 */
static uint64_t round_budget_usec(const struct upcd *upcd)
{
	uint64_t budget = upcd->config.interval_ms * 1000 / 2;
	uint64_t watchdog_usec = upcc_notify_watchdog_usec();

	if (watchdog_usec && budget > watchdog_usec / 4)
		budget = watchdog_usec / 4;
	return upcd->nr_runs ? budget / upcd->nr_runs : budget;
}

static void log_round_step(struct upcc_scope_run *run, const struct upcc_step_report *report,
			   void *context)
{
	struct upcd *upcd = context;

	if (!upcd->round_step++)
		upcd->round_unmapped = report->unmapped_before;
	if (report->outcome == UPCC_STEP_ACTED) {
		upcd->round_acted++;
		upcd->round_asked += report->requested_pages;
	}
	log_step(upcd, run, report);
}

static const char *round_end_name(const struct upcc_round_report *report)
{
	switch (report->end) {
	case UPCC_ROUND_IDLE: return "at the target";
	case UPCC_ROUND_NO_PROGRESS: return "nothing more came off (dirty, mapped or in use)";
	case UPCC_ROUND_BUDGET: return "time budget spent, the next round goes on";
	case UPCC_ROUND_MAX_STEPS: return "step bound reached";
	case UPCC_ROUND_STOPPED: break;
	}
	if (report->last.outcome == UPCC_STEP_REFUSED)
		return "the backend refused";
	if (report->last.error)
		return "the backend failed";
	return "stopped by a signal";
}

/* The pages above the target: what a round that reaches it takes off. */
static uint64_t excess_pages(uint64_t unmapped, const struct upcc_policy *policy)
{
	return unmapped > policy->target_pages ? unmapped - policy->target_pages : 0;
}

/*
 * A round's one line: at INFO if it acted (asked, took, time, why it
 * ended) or, dry, what it would do for the whole excess, not only the
 * first step; an idle round at debug (--once: INFO, its only word).
 */
static void log_round(const struct upcd *upcd, const struct upcc_scope_run *run,
		      const struct upcc_round_report *report)
{
	const struct upcc_scope *scope = &run->scope;
	const char *backend = run->backend_ready ? run->backend.ops->name : NULL;
	uint64_t page = upcd->page_size;

	switch (report->last.outcome) {
	case UPCC_STEP_SAMPLE_FAILED:
		return;		/* log_sample_error() said it, rate-limited */
	case UPCC_STEP_DRY_RUN:
	case UPCC_STEP_NO_BACKEND:
		if (report->steps != 1)
			break;
		if (backend)
			upcc_log(LOG_NOTICE, "scope %s: dry run: would have %s reclaim %s, down to the target, in steps of at most %s: unmapped %s, target %s, trigger %s",
				 scope->name, backend,
				 SIZE(excess_pages(report->last.unmapped_before, &scope->policy), page),
				 SIZE(report->last.requested_pages, page),
				 SIZE(report->last.unmapped_before, page),
				 SIZE(scope->policy.target_pages, page),
				 SIZE(scope->policy.trigger_pages, page));
		else
			upcc_log(LOG_WARNING, "scope %s: %s over the target would not be reclaimed: no usable backend: unmapped %s, target %s",
				 scope->name,
				 SIZE(excess_pages(report->last.unmapped_before, &scope->policy), page),
				 SIZE(report->last.unmapped_before, page),
				 SIZE(scope->policy.target_pages, page));
		return;
	case UPCC_STEP_IDLE:
		if (report->steps == 1) {
			upcc_log(upcd->options.once ? LOG_INFO : LOG_DEBUG,
				 "scope %s: idle: unmapped %s, target %s, trigger %s", scope->name,
				 SIZE(report->last.unmapped_before, page),
				 SIZE(scope->policy.target_pages, page),
				 SIZE(scope->policy.trigger_pages, page));
			return;
		}
		break;
	default:
		break;
	}
	if (!upcd->round_acted)
		return;		/* refused: log_step() said so */
	/* An idle last step measured what the round left: "16Mi -> 1.0Mi". */
	upcc_log(LOG_INFO, "scope %s: %s reclaimed %s in %u step%s, %.1f ms (asked for %s): %s; unmapped %s%s%s%s, target %s",
		 scope->name, backend ? backend : "none", SIZE(report->reclaimed_pages, page),
		 upcd->round_acted, upcd->round_acted == 1 ? "" : "s",
		 (double)report->elapsed_usec / 1000.0, SIZE(upcd->round_asked, page),
		 round_end_name(report),
		 report->last.outcome == UPCC_STEP_IDLE ? "" : "was ",
		 SIZE(upcd->round_unmapped, page),
		 report->last.outcome == UPCC_STEP_IDLE ? " -> " : "",
		 report->last.outcome == UPCC_STEP_IDLE ? SIZE(report->last.unmapped_before, page) : "",
		 SIZE(scope->policy.target_pages, page));
}

/*
 * --once: did the round leave @run above its target?  At the target, or a
 * dry run that decided, is done; a round that ended otherwise (nothing
 * more came off, the backend refused or failed, no backend, the step
 * bound) missed it.
 */
static bool round_missed_target(const struct upcc_round_report *report)
{
	if (report->end == UPCC_ROUND_IDLE)
		return false;
	return !(report->end == UPCC_ROUND_STOPPED && report->last.outcome == UPCC_STEP_DRY_RUN);
}

/*
 * The control loop, for the daemon and --once alike: a round for every
 * scope.  A scope above its trigger (with --once: above its target) gets
 * steps until it is at its target, nothing more comes off, or @limits
 * end it (upcc_control_round, as kswapd keeps going until the node is
 * balanced).  Then the reports are written.  Returns how many scopes
 * failed to measure; *@missed counts those --once would call missed.
 */
/*
 * What the rounds freed is scattered order-0 pages; under a balloon that
 * reports free pages, compaction turns it into blocks the host can take
 * (compact.h).  Its CPU is logged, and counted, apart from upcd's own.
 */
static void compact_after_round(struct upcd *upcd, uint64_t freed_pages)
{
	struct upcc_compact *compact = &upcd->compact;
	uint64_t cpu_before = compact->cpu_usec_total;

	if (upcd->options.dry_run ||
	    !upcc_compact_after_round(compact, freed_pages, upcd->page_size,
				      upcc_monotonic_usec()))
		return;
	if (compact->last_error)
		upcc_log(LOG_WARNING, "compacting memory for free page reporting: %s",
			 strerror(-compact->last_error));
	else
		upcc_log(LOG_INFO, "compacted memory for free page reporting in %.1f ms of CPU",
			 (double)(compact->cpu_usec_total - cpu_before) / 1000.0);
}

/* Before a round (or a tick that may start one): its log line's counts. */
static void round_begin(struct upcd *upcd)
{
	upcd->round_step = 0;
	upcd->round_acted = 0;
	upcd->round_asked = 0;
	upcd->round_unmapped = 0;
}

/*
 * After a round: its one log line, and what it freed for compaction.
 * Compaction is a guest-wide decision: a path or cgroup scope bounds part
 * of the cache, and is how upcd runs on a host it shares (the tests on a
 * build machine among them), so only system and node scopes count.
 */
static uint64_t round_end(struct upcd *upcd, const struct upcc_scope_run *run,
			  const struct upcc_round_report *report)
{
	log_round(upcd, run, report);
	if (run->scope.kind == UPCC_SCOPE_SYSTEM || run->scope.kind == UPCC_SCOPE_NODE)
		return report->reclaimed_pages;
	return 0;
}

static int control_round(struct upcd *upcd, const struct upcc_round_limits *limits,
			 unsigned int *missed)
{
	uint64_t freed_pages = 0;
	int failures = 0;

	for (size_t i = 0; i < upcd->nr_runs; i++) {
		struct upcc_scope_run *run = &upcd->runs[i];
		struct upcc_round_report report;

		if (i && upcc_pace_stop_now())
			break;		/* a signal waits: the next scopes wait for the next round */
		round_begin(upcd);
		if (upcc_control_round(run, upcc_measure, upcd->page_size, limits, &report))
			failures++;
		else if (round_missed_target(&report))
			(*missed)++;
		freed_pages += round_end(upcd, run, &report);
	}
	compact_after_round(upcd, freed_pages);
	write_reports(upcd);
	return failures;
}

/*
 * The daemon's tick: every scope samples what is cheap; a round (the
 * costly refresh) runs where the interval is up, the sample is above the
 * trigger, or the last round ran out of time (upcc_control_tick).  The
 * reports are written after any round.
 */
static void daemon_tick(struct upcd *upcd)
{
	struct upcc_round_limits limits = {
		.budget_usec = round_budget_usec(upcd),
		.on_step = log_round_step,
		.context = upcd,
	};
	uint64_t freed_pages = 0;
	bool rounds = false;

	for (size_t i = 0; i < upcd->nr_runs; i++) {
		struct upcc_scope_run *run = &upcd->runs[i];
		struct upcc_tick_report tick;

		if (i && upcc_pace_stop_now())
			break;
		round_begin(upcd);
		upcc_control_tick(run, upcc_measure, upcd->page_size,
				  upcd->config.interval_ms * 1000, &limits, &tick);
		rounds |= tick.round;
		if (!tick.round)
			continue;
		if (tick.above_trigger)
			upcc_log(LOG_DEBUG, "scope %s: round started by a tick above the trigger",
				 run->scope.name);
		freed_pages += round_end(upcd, run, &tick.round_report);
	}
	if (rounds)
		compact_after_round(upcd, freed_pages);
	/* After a round; between rounds only the effective target moves (it
	 * decays on ticks alone): at most once an interval when it did, else
	 * once a minute.  An idle daemon writes next to nothing.
	 */
	uint64_t now = upcc_monotonic_usec(), since = now - upcd->last_report_usec, aim = 0;

	for (size_t i = 0; i < upcd->nr_runs; i++)
		aim += upcd->runs[i].scope.effective_target_pages;
	if (rounds || since >= REPORT_HEARTBEAT_USEC ||
	    (aim != upcd->last_report_aim && since >= upcd->config.interval_ms * 1000)) {
		write_reports(upcd);
		upcd->last_report_usec = now;
		upcd->last_report_aim = aim;
	}
}

/* The tick's period: --tick, never longer than the interval. */
static uint64_t tick_usec(const struct upcd *upcd)
{
	uint64_t tick = upcd->config.tick_ms;

	return (tick < upcd->config.interval_ms ? tick : upcd->config.interval_ms) * 1000;
}

/* --once: one round with no time budget (the step bound still holds). */
static int run_once(struct upcd *upcd)
{
	struct upcc_round_limits limits = {
		.budget_usec = UINT64_MAX,
		.max_steps = ONCE_MAX_STEPS,
		.on_step = log_round_step,
		.context = upcd,
	};
	unsigned int missed = 0;
	int failures = control_round(upcd, &limits, &missed);
	size_t unusable = 0;

	if (upcc_pace_stop_now()) {
		upcc_log(LOG_NOTICE, "signal: stopping");
		return UPCC_EXIT_OK;
	}
	/* A dry run that shows what a scope with no backend "would" do has
	 * not shown that the real run could: it fails as the real one would.
	 */
	for (size_t i = 0; i < upcd->nr_runs; i++)
		unusable += !upcd->runs[i].backend_ready;
	if (unusable) {
		upcc_log(LOG_ERR, "%zu of %zu scope(s) have no usable backend", unusable,
			 upcd->nr_runs);
		return UPCC_EXIT_FAILURE;
	}
	/* --once is run by scripts and timers: a report it could not write
	 * is a failure they must see, not only a log line.
	 */
	if (failures || upcd->reports_failed)
		return UPCC_EXIT_FAILURE;
	return missed ? UPCC_EXIT_TARGET_MISSED : UPCC_EXIT_OK;
}

/*
 * --check: the config is valid (else build_config failed, exit 2); for
 * each scope say which backend would act and why (or why none and what
 * to do), measure it and say what upcd would do for the whole excess.
 * 0, or 1 if a scope has no usable backend or cannot be measured.
 */
static int check_config(struct upcd *upcd)
{
	const char *config_path = upcd->options.config_path;
	uint64_t page = upcd->page_size;
	size_t bad = 0;

	if (!config_path)
		config_path = access(UPCC_DEFAULT_CONFIG_PATH, F_OK) == 0 ?
			      UPCC_DEFAULT_CONFIG_PATH : "(built-in defaults)";
	printf("config %s: valid: %zu scope%s, interval %llu ms\n", config_path, upcd->nr_runs,
	       upcd->nr_runs == 1 ? "" : "s", (unsigned long long)upcd->config.interval_ms);
	for (size_t i = 0; i < upcd->nr_runs; i++) {
		struct upcc_scope_run *run = &upcd->runs[i];
		struct upcc_scope *scope = &run->scope;
		enum upcc_phase phase = UPCC_PHASE_RECLAIMING;
		struct upcc_policy policy;
		struct upcc_sample sample;
		char why[PATH_MAX + 128];
		uint64_t step, excess;
		int err;

		if (!run->backend_ready) {
			printf("scope %s: no usable backend: %s\n", scope->name, run->backend_error);
			bad++;
		} else {
			printf("scope %s: backend %s (%s)\n", scope->name, run->backend.ops->name,
			       run->backend.why);
		}
		err = upcc_measure(scope, &sample);
		if (err) {
			printf("scope %s: cannot measure: %s\n", scope->name,
			       upcc_measure_explain(scope, err, why, sizeof(why)));
			bad += run->backend_ready;
			continue;
		}
		policy = upcc_policy_resolve(&scope->config, &sample, page);
		excess = excess_pages(sample.unmapped_pages, &policy);
		step = upcc_decide(&policy, &phase, sample.unmapped_pages);
		step = upcc_step_cap(&scope->config, step, sample.total_pages, page);
		printf("scope %s: unmapped %s, target %s, trigger %s, dirty %s: ", scope->name,
		       SIZE(sample.unmapped_pages, page), SIZE(policy.target_pages, page),
		       SIZE(policy.trigger_pages, page),
		       SIZE(sample.dirty_pages + sample.writeback_pages, page));
		if (!excess)
			printf("at or below the target: nothing to do\n");
		else if (sample.unmapped_pages > policy.trigger_pages)
			printf("over the trigger: would reclaim %s, down to the target, in steps of at most %s\n",
			       SIZE(excess, page), SIZE(step, page));
		else
			printf("below the trigger: nothing to do until it passes it (--once now: would reclaim %s, down to the target)\n",
			       SIZE(excess, page));
	}
	if (bad) {
		printf("check: %zu of %zu scope%s cannot be controlled\n", bad, upcd->nr_runs,
		       upcd->nr_runs == 1 ? "" : "s");
		return UPCC_EXIT_FAILURE;
	}
	printf("check: ok\n");
	return UPCC_EXIT_OK;
}

static int arm_timer(int fd, uint64_t period_usec)
{
	struct itimerspec spec = {
		.it_interval = { (time_t)(period_usec / 1000000), (long)(period_usec % 1000000) * 1000 },
	};

	spec.it_value = spec.it_interval;
	if (!spec.it_value.tv_sec && !spec.it_value.tv_nsec)
		spec.it_value.tv_nsec = 1;
	return timerfd_settime(fd, 0, &spec, NULL);
}

static void watchdog_ping(struct upcd *upcd)
{
	upcc_notify("WATCHDOG=1");
	upcd->last_ping_usec = upcc_monotonic_usec();
}

/*
 * The pace hook (pace.h), run by walks and per-file loops every few dozen
 * files: a walk of a big tree can take longer than the watchdog period,
 * so the ping is sent from inside it when half the period has passed, and
 * a waiting SIGTERM, SIGINT or SIGHUP cuts the work short (the signals are
 * blocked for the signalfd, so they wait in the pending set).
 */
static bool pace_check(void *ctx)
{
	struct upcd *upcd = ctx;
	sigset_t pending;

	if (upcd->watchdog_usec &&
	    upcc_monotonic_usec() - upcd->last_ping_usec >= upcd->watchdog_usec / 2)
		watchdog_ping(upcd);
	if (sigpending(&pending))
		return false;
	return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1 ||
	       sigismember(&pending, SIGHUP) == 1;
}

/* SIGHUP: a new config replaces the old only if it parses and its backends work. */
static void reload(struct upcd *upcd)
{
	struct upcc_config new_config, old_config = upcd->config;
	struct upcc_scope_run *new_runs = NULL;
	int err;

	upcc_notify("RELOADING=1");
	if (build_config(&upcd->options, &new_config)) {
		upcc_log(LOG_ERR, "reload: keeping the old configuration");
		upcc_notify("READY=1");
		return;
	}
	/* The old backends let go first: two fadvise inventories or two
	 * DAMON contexts for one scope must never coexist.
	 */
	for (size_t i = 0; i < upcd->nr_runs; i++)
		release_backend(&upcd->runs[i]);
	upcd->config = new_config;
	err = build_runs(upcd, &new_runs);
	if (err) {
		upcc_log(LOG_ERR, "reload: a scope has no backend: keeping the old configuration");
		free_runs(new_runs, upcd->config.nr_scopes);
		upcc_config_free(&upcd->config);
		upcd->config = old_config;
		for (size_t i = 0; i < upcd->nr_runs; i++)
			setup_backend(&upcd->runs[i], &upcd->config, upcd->options.dry_run);
	} else {
		free(upcd->runs);
		upcc_config_free(&old_config);
		upcd->runs = new_runs;
		upcd->nr_runs = upcd->config.nr_scopes;
		upcc_log(LOG_NOTICE, "reloaded: %zu scope(s), interval %llu ms", upcd->nr_runs,
			 (unsigned long long)upcd->config.interval_ms);
	}
	upcc_notify("READY=1");
}

static int add_fd(int epoll_fd, int fd)
{
	struct epoll_event event = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

static int drain_fd(int fd, void *buffer, size_t size)
{
	return read(fd, buffer, size) < 0 && errno != EAGAIN ? -errno : 0;
}

static int event_loop(struct upcd *upcd, int signal_fd)
{
	uint64_t watchdog_usec = upcc_notify_watchdog_usec();
	int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	int tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int watchdog_fd = watchdog_usec ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	uint64_t interval_ms = upcd->config.interval_ms, period_usec = tick_usec(upcd);
	bool running = true;
	int rc = 0;

	if (epoll_fd < 0 || tick_fd < 0 || (watchdog_usec && watchdog_fd < 0) ||
	    add_fd(epoll_fd, signal_fd) || add_fd(epoll_fd, tick_fd) ||
	    arm_timer(tick_fd, period_usec) ||
	    (watchdog_fd >= 0 && (add_fd(epoll_fd, watchdog_fd) ||
				  arm_timer(watchdog_fd, watchdog_usec / 2)))) {
		upcc_log(LOG_ERR, "cannot set up the event loop: %s", strerror(errno));
		rc = UPCC_EXIT_FAILURE;
		running = false;
	}
	if (running) {
		/* Ready once set up: the first round may walk a big tree. */
		upcc_notify("READY=1");
		upcc_notify_status("controlling %zu scope(s) every %llu ms, sampling every %llu ms",
				   upcd->nr_runs, (unsigned long long)interval_ms,
				   (unsigned long long)(period_usec / 1000));
		watchdog_ping(upcd);
		daemon_tick(upcd);
	}
	while (running) {
		struct epoll_event event;
		int ready = epoll_wait(epoll_fd, &event, 1, -1);

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0) {
			upcc_log(LOG_ERR, "epoll_wait: %s", strerror(errno));
			rc = UPCC_EXIT_FAILURE;
			break;
		}
		if (event.data.fd == signal_fd) {
			struct signalfd_siginfo info;

			if (drain_fd(signal_fd, &info, sizeof(info)))
				continue;
			if (info.ssi_signo == SIGHUP) {
				reload(upcd);
				if (upcd->config.interval_ms != interval_ms ||
				    tick_usec(upcd) != period_usec) {
					interval_ms = upcd->config.interval_ms;
					period_usec = tick_usec(upcd);
					arm_timer(tick_fd, period_usec);
				}
			} else {
				upcc_log(LOG_NOTICE, "signal %u: stopping", info.ssi_signo);
				running = false;
			}
		} else if (event.data.fd == tick_fd) {
			uint64_t expirations;

			drain_fd(tick_fd, &expirations, sizeof(expirations));
			daemon_tick(upcd);
		} else {
			uint64_t expirations;

			drain_fd(watchdog_fd, &expirations, sizeof(expirations));
			watchdog_ping(upcd);
		}
	}
	upcc_notify("STOPPING=1");
	if (watchdog_fd >= 0)
		close(watchdog_fd);
	if (tick_fd >= 0)
		close(tick_fd);
	if (epoll_fd >= 0)
		close(epoll_fd);
	return rc;
}

/* Signals arrive through a signalfd, so they must not be delivered the old way. */
static int block_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -1;
	return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

int main(int argc, char **argv)
{
	struct upcd upcd = { .page_size = upcc_page_size() };
	int rc, signal_fd;

	rc = parse_options(argc, argv, &upcd.options);
	if (rc)
		return rc;
	upcc_log_init(upcd.options.verbose);
	if (build_config(&upcd.options, &upcd.config))
		return UPCC_EXIT_USAGE;
	if (build_runs(&upcd, &upcd.runs)) {
		upcd.nr_runs = upcd.config.nr_scopes;
		upcc_log(LOG_ERR, "a scope has no usable backend: not starting");
		free_runs(upcd.runs, upcd.nr_runs);
		upcc_config_free(&upcd.config);
		return UPCC_EXIT_FAILURE;
	}
	upcd.nr_runs = upcd.config.nr_scopes;
	if (upcd.options.check) {
		rc = check_config(&upcd);
		free_runs(upcd.runs, upcd.nr_runs);
		upcc_config_free(&upcd.config);
		return rc;
	}
	upcc_compact_probe(&upcd.compact);
	upcc_log(LOG_INFO, "compaction for free page reporting %s%s", upcd.compact.why,
		 upcd.compact.enabled && upcd.options.dry_run ? " (but not in a dry run)" : "");
	upcd.watchdog_usec = upcc_notify_watchdog_usec();
	signal_fd = block_signals();
	upcc_pace_set(pace_check, &upcd);
	if (signal_fd < 0) {
		upcc_log(LOG_ERR, "signalfd: %s", strerror(errno));
		rc = UPCC_EXIT_FAILURE;
	} else {
		rc = upcd.options.once ? run_once(&upcd) : event_loop(&upcd, signal_fd);
		close(signal_fd);
	}
	free_runs(upcd.runs, upcd.nr_runs);
	upcc_config_free(&upcd.config);
	return rc;
}
