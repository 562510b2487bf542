// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - Prometheus textfile; see metrics.h and docs/upcd.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "core/common.h"
#include "lib/atomicfile.h"
#include "metrics.h"

enum metric_kind { GAUGE, COUNTER };

/* One metric: how to read it from a scope, in which unit. */
struct metric {
	const char *name;
	enum metric_kind kind;
	const char *help;
	uint64_t (*value)(const struct upcc_scope_run *run);
	bool in_pages;		/* exported as bytes (x page size) */
	bool in_usec;		/* exported as seconds */
};

#define SCOPE_FIELD(fn, expr) \
	static uint64_t fn(const struct upcc_scope_run *run) { return (expr); }

SCOPE_FIELD(total, run->state.last.total_pages)
SCOPE_FIELD(file_lru, run->state.last.file_lru_pages)
SCOPE_FIELD(mapped, run->state.last.mapped_pages)
SCOPE_FIELD(unmapped, run->state.last.unmapped_pages)
SCOPE_FIELD(dirty, run->state.last.dirty_pages)
SCOPE_FIELD(writeback, run->state.last.writeback_pages)
SCOPE_FIELD(target, run->state.policy.target_pages)
SCOPE_FIELD(trigger, run->state.policy.trigger_pages)
SCOPE_FIELD(reclaiming, run->state.phase == UPCC_PHASE_RECLAIMING)
SCOPE_FIELD(reclaimed, run->state.counters.reclaimed_pages_total)
SCOPE_FIELD(actions, run->state.counters.actions_total)
SCOPE_FIELD(errors, run->state.counters.action_errors_total)
SCOPE_FIELD(action_usec, run->state.counters.action_usec_total)
SCOPE_FIELD(refused, run->state.counters.refused_steps_total)
SCOPE_FIELD(kernel_cpu, run->state.counters.kernel_cpu_usec_total)
SCOPE_FIELD(effective_target, run->state.effective_target_pages ?
			      run->state.effective_target_pages : run->state.policy.target_pages)
SCOPE_FIELD(working_set, run->state.last.hot_pages)
SCOPE_FIELD(working_set_cap, run->state.policy.wset_cap_pages)
SCOPE_FIELD(ticks, run->state.counters.ticks_total)
SCOPE_FIELD(rounds, run->state.counters.rounds_total)
SCOPE_FIELD(tick_rounds, run->state.counters.tick_rounds_total)
SCOPE_FIELD(up, run->state.measured_unix_usec && !run->state.sample_error)
SCOPE_FIELD(measured_at, run->state.measured_unix_usec)

static const struct metric metrics[] = {
	{ "upcc_memory_bytes", GAUGE, "Memory of the scope (what percentages are of).", total, true, false },
	{ "upcc_file_lru_bytes", GAUGE, "File pages on the LRU lists.", file_lru, true, false },
	{ "upcc_mapped_bytes", GAUGE, "Mapped file pages.", mapped, true, false },
	{ "upcc_unmapped_bytes", GAUGE, "Unmapped page cache: file LRU minus mapped.", unmapped, true, false },
	{ "upcc_dirty_bytes", GAUGE, "Dirty file pages.", dirty, true, false },
	{ "upcc_writeback_bytes", GAUGE, "File pages under writeback.", writeback, true, false },
	{ "upcc_target_bytes", GAUGE, "Reclaim brings unmapped cache down to this.", target, true, false },
	{ "upcc_effective_target_bytes", GAUGE, "What reclaim aims at now: the target, raised while the working set refaults.", effective_target, true, false },
	{ "upcc_working_set_bytes", GAUGE, "Cache held as working set: dropped, and back within a refault distance the scope may hold.", working_set, true, false },
	{ "upcc_working_set_cap_bytes", GAUGE, "How far the working set may raise the target (working_set_cap).", working_set_cap, true, false },
	{ "upcc_trigger_bytes", GAUGE, "Reclaim starts above this.", trigger, true, false },
	{ "upcc_reclaiming", GAUGE, "1 while the scope is between trigger and target.", reclaiming, false, false },
	{ "upcc_reclaimed_bytes_total", COUNTER, "Unmapped cache the backend reported dropping.", reclaimed, true, false },
	{ "upcc_actions_total", COUNTER, "Backend reclaim calls.", actions, false, false },
	{ "upcc_action_errors_total", COUNTER, "Backend reclaim calls that failed.", errors, false, false },
	{ "upcc_refused_steps_total", COUNTER, "Steps the backend declined (e.g. memcg with dirty pages in scope).", refused, false, false },
	{ "upcc_action_seconds_total", COUNTER, "Wall time spent in backend reclaim calls.", action_usec, false, true },
	{ "upcc_backend_kernel_cpu_seconds_total", COUNTER, "CPU the backend's kernel thread spent (damon: kdamond), counted at each step.", kernel_cpu, false, true },
	{ "upcc_ticks_total", COUNTER, "Cheap samples taken by the sampling tick.", ticks, false, false },
	{ "upcc_rounds_total", COUNTER, "Control rounds (each refreshes the scope).", rounds, false, false },
	{ "upcc_tick_rounds_total", COUNTER, "Rounds started by a tick above the trigger.", tick_rounds, false, false },
	{ "upcc_scope_up", GAUGE, "1 if the scope's last control step measured it, 0 if it could not (the log says why) or none ran yet.", up, false, false },
	{ "upcc_last_round_timestamp_seconds", GAUGE, "When upcd last measured the scope, in a round or a tick's sample (unix time; 0: never).", measured_at, false, true },
};

/* Label values escape backslash, quote and newline (exposition format). */
static void label_value(FILE *out, const char *text)
{
	fputc('"', out);
	for (; *text; text++) {
		if (*text == '\\' || *text == '"')
			fprintf(out, "\\%c", *text);
		else if (*text == '\n')
			fputs("\\n", out);
		else
			fputc(*text, out);
	}
	fputc('"', out);
}

static void sample_line(FILE *out, const struct metric *metric, const struct upcc_scope_run *run,
			uint64_t page_size)
{
	uint64_t value = metric->value(run);

	fprintf(out, "%s{scope=", metric->name);
	label_value(out, run->scope.name);
	if (metric->in_usec)
		fprintf(out, "} %" PRIu64 ".%06" PRIu64 "\n", value / 1000000, value % 1000000);
	else if (metric->in_pages && value > UINT64_MAX / page_size)
		fprintf(out, "} %.17g\n", (double)value * (double)page_size);
	else
		fprintf(out, "} %" PRIu64 "\n",
			metric->in_pages ? upcc_mul_saturating(value, page_size) : value);
}

static void backend_info(FILE *out, const struct upcc_scope_run *runs, size_t nr_runs)
{
	fputs("# HELP upcc_backend_info The backend acting on each scope (1).\n"
	      "# TYPE upcc_backend_info gauge\n", out);
	for (size_t i = 0; i < nr_runs; i++) {
		const struct upcc_scope_run *run = &runs[i];

		fputs("upcc_backend_info{scope=", out);
		label_value(out, run->scope.name);
		fputs(",backend=", out);
		label_value(out, run->backend_ready && run->backend.ops ? run->backend.ops->name
									  : "none");
		fputs("} 1\n", out);
	}
}

/*
 * The daemon's compaction (compact.h), not a scope's: its CPU is the
 * kernel's work on upcd's behalf, reported apart from upcd's control.
 */
static void compact_metrics(FILE *out, const struct upcc_compact *compact)
{
	fputs("# HELP upcc_compaction_enabled 1 if a balloon reports free pages and upcd compacts after reclaim.\n"
	      "# TYPE upcc_compaction_enabled gauge\n", out);
	fprintf(out, "upcc_compaction_enabled %d\n", compact->enabled ? 1 : 0);
	fputs("# HELP upcc_compactions_total Compactions upcd asked for, so that freed memory can be reported to the host.\n"
	      "# TYPE upcc_compactions_total counter\n", out);
	fprintf(out, "upcc_compactions_total %" PRIu64 "\n", compact->runs_total);
	fputs("# HELP upcc_compaction_cpu_seconds_total CPU the kernel spent compacting in upcd's thread.\n"
	      "# TYPE upcc_compaction_cpu_seconds_total counter\n", out);
	fprintf(out, "upcc_compaction_cpu_seconds_total %" PRIu64 ".%06" PRIu64 "\n",
		compact->cpu_usec_total / 1000000u, compact->cpu_usec_total % 1000000u);
}

/* The process: which build, since when, whether it only says what it would do. */
static void daemon_metrics(FILE *out, const struct upcc_metrics_daemon *daemon)
{
	fputs("# HELP upcc_start_time_seconds When upcd started (unix time).\n"
	      "# TYPE upcc_start_time_seconds gauge\n", out);
	fprintf(out, "upcc_start_time_seconds %" PRIu64 ".%06" PRIu64 "\n",
		daemon->start_unix_usec / 1000000u, daemon->start_unix_usec % 1000000u);
	fputs("# HELP upcc_dry_run 1 if upcd decides and reports but reclaims nothing (dry_run = yes or --dry-run).\n"
	      "# TYPE upcc_dry_run gauge\n", out);
	fprintf(out, "upcc_dry_run %d\n", daemon->dry_run ? 1 : 0);
	if (daemon->compact)
		compact_metrics(out, daemon->compact);
}

int upcc_metrics_format(FILE *out, const struct upcc_scope_run *runs, size_t nr_runs,
			uint64_t page_size, const struct upcc_metrics_daemon *daemon)
{
	fputs("# HELP upcc_build_info The version of upcd writing these metrics (1).\n"
	      "# TYPE upcc_build_info gauge\n", out);
	fputs("upcc_build_info{version=", out);
	label_value(out, UPCC_VERSION);
	fputs("} 1\n", out);
	for (size_t m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
		fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", metrics[m].name, metrics[m].help,
			metrics[m].name, metrics[m].kind == GAUGE ? "gauge" : "counter");
		for (size_t i = 0; i < nr_runs; i++)
			sample_line(out, &metrics[m], &runs[i], page_size);
	}
	backend_info(out, runs, nr_runs);
	if (daemon)
		daemon_metrics(out, daemon);
	return ferror(out) ? -EIO : 0;
}

struct metrics_format {
	const struct upcc_scope_run *runs;
	size_t nr_runs;
	uint64_t page_size;
	const struct upcc_metrics_daemon *daemon;
};

static int format_metrics(FILE *out, void *ctx)
{
	const struct metrics_format *f = ctx;

	return upcc_metrics_format(out, f->runs, f->nr_runs, f->page_size, f->daemon);
}

int upcc_metrics_write(const char *path, const struct upcc_scope_run *runs, size_t nr_runs,
		       uint64_t page_size, const struct upcc_metrics_daemon *daemon,
		       char *why, size_t why_len)
{
	struct metrics_format f = { runs, nr_runs, page_size, daemon };

	return upcc_atomic_write_formatted(path, 0, format_metrics, &f, why, why_len);
}
