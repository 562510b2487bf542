// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - upcc status: a live sample of each scope beside what the
 * daemon said of it (the state file); see status.h.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/common.h"
#include "core/config.h"
#include "coltable.h"
#include "core/resolve.h"
#include "lib/jsonstr.h"
#include "cli.h"
#include "status.h"
#include "sys/measure.h"
#include "report/state.h"
#include "lib/text.h"

#define MAX_STATUS_SCOPES	(UPCC_MAX_SCOPES + 64)

/* One row of `upcc status`: a live sample plus what the daemon said. */
struct status_row {
	struct upcc_scope scope;
	struct upcc_sample sample;
	int sample_error;
	struct upcc_policy policy;
	const struct upcc_state_scope *daemon;	/* NULL: not in the state file */
};

static void status_usage(FILE *out)
{
	fprintf(out,
		"Usage: upcc status [--json] [--bytes] [--state FILE | --config FILE]\n"
		"Measure every scope now and show its memory, file LRU, mapped, unmapped\n"
		"(file LRU - mapped), dirty (dirty + writeback: what no backend can drop\n"
		"until it is written), target and trigger, as sizes (Ki, Mi, Gi: powers\n"
		"of 1024); plus the backend upcd chose and why, and how much it\n"
		"reclaimed so far.  The scopes are the daemon's (its state file's pid\n"
		"and start time are checked); without a state file, the system and each\n"
		"NUMA node with the default target.\n\n"
		"  --json         the state file's JSON (pages as *_pages, with *_bytes)\n"
		"  --bytes        exact byte counts instead of sizes\n"
		"  --state FILE   upcd's state file; a FILE named here must be readable\n"
		"  --config FILE  where to find it without --state: the config's\n"
		"                 \"state =\" (default " UPCC_DEFAULT_CONFIG_PATH ", if\n"
		"                 present; else " UPCC_DEFAULT_STATE_PATH ")\n"
		"  -h, --help     this help\n\n"
		"Exit codes: 0 upcd runs and every scope was measured; 1 a scope could\n"
		"not be measured, or the --state FILE cannot be read; 2 bad usage, or\n"
		"the --config FILE cannot be read; 3 upcd is not running (no state\n"
		"file, its pid is gone) or its state is stale (not rewritten for 3\n"
		"heartbeats + 10 s): 3 wins over 1.\n");
}

static void human_bytes(char *buffer, size_t size, uint64_t pages, uint64_t page_size, bool exact)
{
	upcc_size_text(buffer, size, upcc_mul_saturating(pages, page_size), exact);
}

/* What the state file says of its daemon. */
enum daemon_state {
	DAEMON_NONE,		/* no state file (or unreadable default one) */
	DAEMON_RUNNING,		/* its pid runs, with the recorded start time */
	DAEMON_STALE,		/* it runs, but missed its heartbeats (stopped, stuck) */
	DAEMON_GONE,		/* a stale state: that process is not running */
};

static void add_row(struct status_row *rows, size_t *nr_rows, enum upcc_scope_kind kind,
		    const char *name, int node_id, const char *path)
{
	struct status_row *row = &rows[(*nr_rows)++];

	memset(row, 0, sizeof(*row));
	row->scope.kind = kind;
	row->scope.node_id = node_id;
	snprintf(row->scope.name, sizeof(row->scope.name), "%s", name);
	snprintf(row->scope.path, sizeof(row->scope.path), "%s", path);
	upcc_scope_config_default(&row->scope.config);
}

/* Without a daemon: the system, and each node when there is NUMA sysfs. */
static void default_rows(struct status_row *rows, size_t *nr_rows)
{
	int nodes[64];
	int nr_nodes = upcc_measure_nodes(nodes, 64);

	add_row(rows, nr_rows, UPCC_SCOPE_SYSTEM, "system", -1, "");
	for (int i = 0; i < nr_nodes && *nr_rows < MAX_STATUS_SCOPES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "node%d", nodes[i]);
		add_row(rows, nr_rows, UPCC_SCOPE_NODE, name, nodes[i], "");
	}
}

static void daemon_rows(struct status_row *rows, size_t *nr_rows,
			const struct upcc_state_scope *scopes, size_t nr_scopes)
{
	for (size_t i = 0; i < nr_scopes && *nr_rows < MAX_STATUS_SCOPES; i++) {
		enum upcc_scope_kind kind;

		if (upcc_scope_kind_parse(scopes[i].kind, &kind))
			continue;
		add_row(rows, nr_rows, kind, scopes[i].name, scopes[i].node_id, scopes[i].path);
		rows[*nr_rows - 1].daemon = &scopes[i];
	}
}

/* Measure live; the daemon's target and trigger win over the defaults. */
static int measure_rows(struct status_row *rows, size_t nr_rows, uint64_t page_size)
{
	int failures = 0;

	for (size_t i = 0; i < nr_rows; i++) {
		struct status_row *row = &rows[i];

		row->sample_error = upcc_measure(&row->scope, &row->sample);
		if (row->sample_error) {
			failures++;
			continue;
		}
		row->policy = upcc_policy_resolve(&row->scope.config, &row->sample, page_size);
		if (row->daemon && row->daemon->target_pages) {
			row->policy.target_pages = row->daemon->target_pages;
			row->policy.trigger_pages = row->daemon->trigger_pages;
		}
	}
	return failures;
}

/* Strings from the state file or the system, made safe for a terminal. */
struct printable_row {
	char name[4 * 64];
	char backend[4 * UPCC_BACKEND_NAME_LEN];
	char why[4 * UPCC_BACKEND_WHY_LEN];
};

static void printable_row(const struct status_row *row, struct printable_row *out)
{
	upcc_text_printable(out->name, sizeof(out->name), row->scope.name);
	upcc_text_printable(out->backend, sizeof(out->backend),
			    row->daemon ? row->daemon->backend : "-");
	upcc_text_printable(out->why, sizeof(out->why), row->daemon ? row->daemon->backend_why : "");
}

static void print_daemon_line(const struct upcc_state_header *header, enum daemon_state daemon,
			      const char *state_path)
{
	long long age = (long long)time(NULL) - header->updated;
	uint64_t heartbeat_s = header->heartbeat_ms / 1000 + (header->heartbeat_ms % 1000 != 0);

	switch (daemon) {
	case DAEMON_RUNNING:
		printf("upcd: running, pid %ld, state updated %llds ago%s (", header->pid, age,
		       header->dry_run ? ", dry run" : "");
		upcc_fputs_printable(state_path, stdout);
		puts(")");
		if (header->compaction_enabled)
			printf("upcd: compacts for free page reporting: %" PRIu64
			       " compactions, %.1f ms of CPU\n", header->compactions_total,
			       (double)header->compaction_cpu_usec_total / 1000.0);
		break;
	case DAEMON_STALE:
		printf("upcd: stale (pid %ld runs, but its state ", header->pid);
		upcc_fputs_printable(state_path, stdout);
		printf(" was last updated %llds ago, promised every %" PRIu64 "s); its scopes measured now\n",
		       age, heartbeat_s);
		break;
	case DAEMON_GONE:
		printf("upcd: not running (stale state ");
		upcc_fputs_printable(state_path, stdout);
		printf(" of pid %ld, last updated %llds ago); its scopes measured now\n",
		       header->pid, age);
		break;
	case DAEMON_NONE:
		/* "upcd:" names what the line is about: upcc's own messages,
		 * on stderr, say "upcc status:".
		 */
		printf("upcd: not running (no state file at ");
		upcc_fputs_printable(state_path, stdout);
		puts("); defaults shown");
		break;
	}
}

/* The working set the daemon holds (core/wset.h), its cap, and the
 * effective target with its reason, where there is one or it was raised.
 */
static void print_effective_targets(const struct status_row *rows,
				    const struct printable_row *shown, size_t nr_rows,
				    uint64_t page_size, bool exact)
{
	char cell[32], held[32], cap[32], why[64];

	for (size_t i = 0; i < nr_rows; i++) {
		const struct upcc_state_scope *d = rows[i].daemon;

		if (!d || rows[i].sample_error || !d->effective_target_pages ||
		    (d->effective_target_pages == d->target_pages && !d->working_set_pages))
			continue;
		human_bytes(cell, sizeof(cell), d->effective_target_pages, page_size, exact);
		human_bytes(held, sizeof(held), d->working_set_pages, page_size, exact);
		human_bytes(cap, sizeof(cap), d->working_set_cap_pages, page_size, exact);
		upcc_text_printable(why, sizeof(why), d->effective_target_reason);
		printf("  %s: effective target %s (%s); working set %s held in %llu files/ranges, cap %s above the target\n",
		       shown[i].name, cell, why, held, (unsigned long long)d->working_set_items,
		       cap);
	}
}

/* upcc status' columns, after the daemon's line. */
enum { COL_SCOPE, COL_MEMORY, COL_FILE_LRU, COL_MAPPED, COL_UNMAPPED, COL_DIRTY, COL_TARGET,
       COL_TRIGGER, COL_BACKEND, COL_RECLAIMED, NR_COLS };

static const struct upcc_column status_columns[NR_COLS] = {
	[COL_SCOPE] = { .header = "SCOPE", .type = UPCC_COLUMN_TEXT, .width = 16, .left = true },
	[COL_MEMORY] = { .header = "MEMORY", .type = UPCC_COLUMN_PAGES },
	[COL_FILE_LRU] = { .header = "FILE_LRU", .type = UPCC_COLUMN_PAGES },
	[COL_MAPPED] = { .header = "MAPPED", .type = UPCC_COLUMN_PAGES },
	[COL_UNMAPPED] = { .header = "UNMAPPED", .type = UPCC_COLUMN_PAGES },
	[COL_DIRTY] = { .header = "DIRTY", .type = UPCC_COLUMN_PAGES },
	[COL_TARGET] = { .header = "TARGET", .type = UPCC_COLUMN_PAGES },
	[COL_TRIGGER] = { .header = "TRIGGER", .type = UPCC_COLUMN_PAGES },
	[COL_BACKEND] = { .header = "BACKEND", .type = UPCC_COLUMN_TEXT, .width = 10, .left = true },
	[COL_RECLAIMED] = { .header = "RECLAIMED", .type = UPCC_COLUMN_PAGES },
};

static void status_cells(const struct status_row *row, const struct printable_row *shown,
			 struct upcc_cell cells[NR_COLS])
{
	cells[COL_SCOPE] = (struct upcc_cell){ 0, shown->name };
	cells[COL_MEMORY] = (struct upcc_cell){ row->sample.total_pages, NULL };
	cells[COL_FILE_LRU] = (struct upcc_cell){ row->sample.file_lru_pages, NULL };
	cells[COL_MAPPED] = (struct upcc_cell){ row->sample.mapped_pages, NULL };
	cells[COL_UNMAPPED] = (struct upcc_cell){ row->sample.unmapped_pages, NULL };
	cells[COL_DIRTY] = (struct upcc_cell){
		row->sample.dirty_pages + row->sample.writeback_pages, NULL };
	cells[COL_TARGET] = (struct upcc_cell){ row->policy.target_pages, NULL };
	cells[COL_TRIGGER] = (struct upcc_cell){ row->policy.trigger_pages, NULL };
	cells[COL_BACKEND] = (struct upcc_cell){ 0, shown->backend };
	cells[COL_RECLAIMED] = row->daemon ?
		(struct upcc_cell){ row->daemon->reclaimed_pages_total, NULL } :
		(struct upcc_cell){ 0, "-" };
}

static void print_table(const struct status_row *rows, size_t nr_rows,
			const struct upcc_state_header *header, enum daemon_state daemon,
			const char *state_path, uint64_t page_size, bool exact)
{
	static struct printable_row shown[MAX_STATUS_SCOPES];
	struct upcc_cell cells[NR_COLS];
	struct upcc_coltable table;

	print_daemon_line(header, daemon, state_path);
	upcc_coltable_init(&table, status_columns, NR_COLS, page_size, exact);
	/* Path and cgroup scope names are long: the column fits the longest. */
	for (size_t i = 0; i < nr_rows; i++) {
		printable_row(&rows[i], &shown[i]);
		upcc_coltable_fit(&table, COL_SCOPE, shown[i].name);
	}
	upcc_coltable_header(&table, stdout);
	for (size_t i = 0; i < nr_rows; i++) {
		if (rows[i].sample_error) {
			printf("%-*s cannot measure: %s\n", table.widths[COL_SCOPE], shown[i].name,
			       strerror(-rows[i].sample_error));
			continue;
		}
		status_cells(&rows[i], &shown[i], cells);
		upcc_coltable_row(&table, cells, stdout);
	}
	for (size_t i = 0; i < nr_rows; i++)
		if (rows[i].daemon && rows[i].daemon->backend_why[0])
			printf("  %s: backend %s: %s\n", shown[i].name, shown[i].backend,
			       shown[i].why);
	print_effective_targets(rows, shown, nr_rows, page_size, exact);
}

/*
 * A row as the state file's scope record (state.h): the daemon's fields
 * where it has the scope, the live sample and policy measured now; so
 * status --json has the state file's keys.
 */
static void row_record(const struct status_row *row, struct upcc_state_scope *out)
{
	if (row->daemon) {
		*out = *row->daemon;
	} else {
		memset(out, 0, sizeof(*out));
		snprintf(out->name, sizeof(out->name), "%s", row->scope.name);
		snprintf(out->kind, sizeof(out->kind), "%s", upcc_scope_kind_name(row->scope.kind));
		out->node_id = row->scope.node_id;
		snprintf(out->path, sizeof(out->path), "%s", row->scope.path);
	}
	out->error[0] = '\0';
	if (row->sample_error) {
		snprintf(out->error, sizeof(out->error), "%s", strerror(-row->sample_error));
		return;
	}
	if (!row->daemon)
		out->effective_target_pages = 0;	/* the target, set below */
	upcc_state_scope_measured(out, &row->sample, &row->policy);
}

/* The state file's shape: version, page size, daemon (or null), scopes. */
static void print_json(const struct status_row *rows, size_t nr_rows,
		       const struct upcc_state_header *header, enum daemon_state daemon,
		       uint64_t page_size)
{
	static struct upcc_state_scope record;

	printf("{\"version\":%d,\"page_size\":%" PRIu64 ",\"daemon\":", UPCC_STATE_VERSION,
	       page_size);
	if (daemon != DAEMON_NONE)
		printf("{\"pid\":%ld,\"start_time\":%llu,\"updated\":%lld,\"heartbeat_ms\":%" PRIu64
		       ",\"dry_run\":%s,\"running\":%s,\"stale\":%s"
		       ",\"compaction_enabled\":%s,\"compactions_total\":%" PRIu64
		       ",\"compaction_cpu_usec_total\":%" PRIu64 "}",
		       header->pid, header->start_time, header->updated, header->heartbeat_ms,
		       header->dry_run ? "true" : "false",
		       daemon == DAEMON_RUNNING || daemon == DAEMON_STALE ? "true" : "false",
		       daemon == DAEMON_STALE ? "true" : "false",
		       header->compaction_enabled ? "true" : "false", header->compactions_total,
		       header->compaction_cpu_usec_total);
	else
		fputs("null", stdout);
	fputs(",\"scopes\":[\n", stdout);
	for (size_t i = 0; i < nr_rows; i++) {
		row_record(&rows[i], &record);
		upcc_state_scope_json(stdout, &record, page_size);
		fputs(i + 1 < nr_rows ? ",\n" : "\n", stdout);
	}
	fputs("]}\n", stdout);
}

static void state_read_error(const char *state_path, int err)
{
	fputs("upcc status: cannot read state file ", stderr);
	upcc_fputs_printable(state_path, stderr);
	fprintf(stderr, ": %s\n", err == -ENOENT ? "no such file (is upcd running with --state "
		"naming it?)" : err == -EINVAL ? "not an upcd state file (version 2)"
		: strerror(-err));
}

/*
 * Without --state: the state file upcd writes is the config file's
 * "state =", from the file upcd reads (--config FILE, else the default
 * one if it exists), parsed by upcd's own parser.  A named config that
 * cannot be used is an error (2).  The default one, broken, is only a
 * warning: upcd keeps running on its last good config after a reload
 * refuses a bad file, and status must still show it.
 */
int upcc_status_find_state(const char *config_path, char *state_path, size_t size)
{
	const char *path = config_path ? config_path : UPCC_DEFAULT_CONFIG_PATH;
	struct upcc_config config;
	char error[512] = "";
	int err;

	snprintf(state_path, size, "%s", UPCC_DEFAULT_STATE_PATH);
	if (!config_path && access(path, F_OK) != 0)
		return 0;
	upcc_config_init(&config);
	err = upcc_config_load(path, &config, error, sizeof(error));
	if (!err)
		snprintf(state_path, size, "%s", config.state_path);
	upcc_config_free(&config);
	if (err && config_path) {
		fputs("upcc status: ", stderr);
		upcc_fputs_printable(error, stderr);
		fputc('\n', stderr);
		return UPCC_EXIT_USAGE;
	}
	if (err) {
		fputs("upcc status: ", stderr);
		upcc_fputs_printable(error, stderr);
		fprintf(stderr, "; looking for the state file at %s\n", state_path);
	}
	return 0;
}

/* The state's daemon: gone, running, or running but no longer reporting. */
static enum daemon_state daemon_state(const struct upcc_state_header *header)
{
	if (!upcc_state_daemon_alive(header))
		return DAEMON_GONE;
	return upcc_state_stale(header, (long long)time(NULL)) ? DAEMON_STALE : DAEMON_RUNNING;
}

int upcc_status_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "state", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct upcc_state_scope daemon_scopes[UPCC_MAX_SCOPES];
	static struct status_row rows[MAX_STATUS_SCOPES];
	static char found_state[PATH_MAX];
	const char *state_path = NULL, *config_path = NULL;
	struct upcc_state_header header = { 0 };
	uint64_t page_size = upcc_page_size();
	size_t nr_daemon = 0, nr_rows = 0;
	bool json = false, exact = false, named;
	enum daemon_state daemon = DAEMON_NONE;
	int opt, failures, err;

	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'b': exact = true; break;
		case 's': state_path = optarg; break;
		case 'c': config_path = optarg; break;
		case 'h': status_usage(stdout); return 0;
		default: status_usage(stderr); return UPCC_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "upcc status: unexpected argument \"%s\"\n", argv[optind]);
		return UPCC_EXIT_USAGE;
	}
	named = state_path != NULL;
	if (!named) {
		err = upcc_status_find_state(config_path, found_state, sizeof(found_state));
		if (err)
			return err;
		state_path = found_state;
	}
	err = upcc_state_read(state_path, &header, daemon_scopes, UPCC_MAX_SCOPES, &nr_daemon);
	if (err && named) {
		/* A file asked for by name is never silently replaced by defaults. */
		state_read_error(state_path, err);
		return UPCC_EXIT_FAILURE;
	}
	/* Absent is "not running"; anything else is worth a word. */
	if (err && err != -ENOENT)
		state_read_error(state_path, err);
	if (!err)
		daemon = daemon_state(&header);
	if (daemon != DAEMON_NONE && nr_daemon)
		daemon_rows(rows, &nr_rows, daemon_scopes, nr_daemon);
	else
		default_rows(rows, &nr_rows);
	failures = measure_rows(rows, nr_rows, page_size);
	if (json)
		print_json(rows, nr_rows, &header, daemon, page_size);
	else
		print_table(rows, nr_rows, &header, daemon, state_path, page_size, exact);
	/* A health check asks first whether upcd is at work: 3 wins over 1. */
	if (daemon != DAEMON_RUNNING)
		return UPCC_EXIT_NOT_RUNNING;
	return failures ? UPCC_EXIT_FAILURE : 0;
}
