// SPDX-License-Identifier: GPL-2.0
/*
 * steplog.c - what upcd logs about its control steps and rounds; see
 * steplog.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/hooks.h"
#include "lib/log.h"
#include "sys/measure.h"
#include "steplog.h"
#include "sys/walk.h"

/* How often a scope that cannot be measured says so again. */
#define SAMPLE_ERROR_LOG_USEC	(60ull * 1000 * 1000)

/*
 * A scope that cannot be measured fails every round: say so when it
 * starts, when the reason changes, once a minute meanwhile (with the
 * count) and when it recovers, not every round.
 */
static void log_sample_error(struct upcd_scope_log *slog, const struct upcc_scope_run *run,
			     int error)
{
	uint64_t now = upcc_monotonic_usec();
	char why[PATH_MAX + 128];

	if (error == -EINTR)
		return;		/* cut short by a signal, which is handled next */

	if (error == slog->sample_error && now - slog->sample_error_logged < SAMPLE_ERROR_LOG_USEC) {
		slog->sample_errors_unlogged++;
		return;
	}
	upcc_measure_explain(&run->scope, error, why, sizeof(why));
	if (slog->sample_errors_unlogged)
		upcc_log(LOG_ERR, "scope %s: cannot measure: %s (%llu times since the last message)",
			 run->scope.name, why, (unsigned long long)slog->sample_errors_unlogged + 1);
	else
		upcc_log(LOG_ERR, "scope %s: cannot measure: %s", run->scope.name, why);
	slog->sample_error = error;
	slog->sample_error_logged = now;
	slog->sample_errors_unlogged = 0;
}

/* How often a walk that keeps leaving files out says so again. */
#define WALK_SKIPS_LOG_USEC	(10ull * 60 * 1000 * 1000)

/*
 * A walk that could not count everything says what and why: when it
 * starts, when the counts change after a quiet spell of
 * WALK_SKIPS_LOG_USEC, not every round.  A path scope's walk is its
 * sample's; the system scope's is the fadvise backend's, in its result.
 */
static void log_walk_skips(struct upcd_scope_log *slog, const struct upcc_scope_run *run,
			   const struct upcc_step_report *report)
{
	const struct upcc_sample *sample = &run->state.last;
	const struct upcc_action_result *result = &report->result;
	uint64_t depth = sample->skipped_depth + result->skipped_depth;
	uint64_t raced = sample->skipped_raced + result->skipped_raced;
	uint64_t errors = sample->walk_errors + result->walk_errors;
	uint64_t now = upcc_monotonic_usec();

	/* Left out on purpose: said at info, as often, apart from the rest. */
	if (sample->skipped_excluded &&
	    (!slog->excluded_logged || now - slog->excluded_logged >= WALK_SKIPS_LOG_USEC)) {
		upcc_log(LOG_INFO, "scope %s: excluded: the walk did not enter %llu entries \"exclude =\" names",
			 run->scope.name, (unsigned long long)sample->skipped_excluded);
		slog->excluded_logged = now;
	}
	if (!(depth + raced + errors) || (slog->walk_skips_logged &&
					  now - slog->walk_skips_logged < WALK_SKIPS_LOG_USEC))
		return;
	upcc_log(LOG_WARNING,
		 "scope %s: the walk left out %llu directories deeper than %u levels, %llu entries that changed while walked, %llu unreadable entries",
		 run->scope.name, (unsigned long long)depth, UPCC_WALK_DEFAULT_MAX_DEPTH,
		 (unsigned long long)raced, (unsigned long long)errors);
	slog->walk_skips_logged = now;
}

/*
 * One step, at debug (-v): the round it belongs to gets one INFO line
 * (upcd_log_round).  Errors and refusals keep their own level.
 */
static void log_step(const struct upcd_round_log *log, const struct upcc_scope_run *run,
		     const struct upcc_step_report *report)
{
	const struct upcc_scope *scope = &run->scope;
	const struct upcc_scope_state *state = &run->state;
	struct upcd_scope_log *slog = log->scope;
	const char *backend = run->backend_ready ? run->backend.ops->name : "none";
	uint64_t page = log->page_size;

	if (report->outcome != UPCC_STEP_SAMPLE_FAILED && slog->sample_error) {
		upcc_log(LOG_NOTICE, "scope %s: measured again", scope->name);
		slog->sample_error = 0;
		slog->sample_errors_unlogged = 0;
	}
	if (report->outcome != UPCC_STEP_SAMPLE_FAILED)
		log_walk_skips(slog, run, report);
	switch (report->outcome) {
	case UPCC_STEP_SAMPLE_FAILED:
		log_sample_error(slog, run, report->error);
		break;
	case UPCC_STEP_IDLE:
		upcc_log(LOG_DEBUG, "scope %s: idle: unmapped %s, target %s, trigger %s",
			 scope->name, UPCD_SIZE(report->unmapped_before, page),
			 UPCD_SIZE(state->policy.target_pages, page),
			 UPCD_SIZE(state->policy.trigger_pages, page));
		break;
	case UPCC_STEP_DRY_RUN:
	case UPCC_STEP_NO_BACKEND:
		upcc_log(LOG_DEBUG, "scope %s: step %u: %s: would ask %s for %s: unmapped %s, target %s",
			 scope->name, log->step,
			 report->outcome == UPCC_STEP_DRY_RUN ? "dry run" : "no usable backend",
			 backend, UPCD_SIZE(report->requested_pages, page),
			 UPCD_SIZE(report->unmapped_before, page),
			 UPCD_SIZE(state->policy.target_pages, page));
		break;
	case UPCC_STEP_REFUSED:
		upcc_log(LOG_NOTICE,
			 "scope %s: %s refused to act (%llu steps refused so far): %s; unmapped %s, target %s",
			 scope->name, backend, (unsigned long long)state->counters.refused_steps_total,
			 report->result.refused, UPCD_SIZE(report->unmapped_before, page),
			 UPCD_SIZE(state->policy.target_pages, page));
		break;
	case UPCC_STEP_ACTED:
		/* A backend drops what it drops (fadvise: whole files), so a
		 * step may take more or less than it asked for.
		 */
		upcc_log(report->error ? LOG_WARNING : LOG_DEBUG,
			 "scope %s: step %u: asked %s for %s, it took %s in %.1f ms (scanned %llu, skipped %llu dirty); unmapped was %s, target %s%s%s",
			 scope->name, log->step, backend,
			 UPCD_SIZE(report->requested_pages, page),
			 UPCD_SIZE(report->result.reclaimed_pages, page),
			 (double)report->result.elapsed_usec / 1000.0,
			 (unsigned long long)report->result.scanned_items,
			 (unsigned long long)report->result.skipped_dirty,
			 UPCD_SIZE(report->unmapped_before, page),
			 UPCD_SIZE(state->policy.target_pages, page),
			 report->error ? ": " : "", report->error ? strerror(-report->error) : "");
		break;
	}
	if (report->result.note[0])
		upcc_log(LOG_NOTICE, "scope %s: %s", scope->name, report->result.note);
}


void upcd_log_round_step(struct upcc_scope_run *run, const struct upcc_step_report *report,
			 void *context)
{
	struct upcd_round_log *log = context;

	if (!log->step++)
		log->unmapped = report->unmapped_before;
	if (report->outcome == UPCC_STEP_ACTED) {
		log->acted++;
		log->asked += report->requested_pages;
	}
	log_step(log, run, report);
}

/*
 * How often a scope that stays above its target with nothing more to
 * take says so again, and by how much what it says must move to be
 * news before that: a tenth of it, and at least STUCK_CHANGE_BYTES (a
 * working set's target drifts, a writer's dirty pages come and go).
 */
#define STUCK_LOG_MINUTES	5
#define STUCK_LOG_USEC		(STUCK_LOG_MINUTES * 60ull * 1000 * 1000)
#define STRINGIFY(x)		#x
#define STRING(x)		STRINGIFY(x)
#define STUCK_CHANGE_DIVISOR	10
#define STUCK_CHANGE_BYTES	(4ull << 20)

/* Has @now moved away from @then, in pages, by more than is news? */
static bool moved(uint64_t then, uint64_t now, uint64_t page)
{
	uint64_t slack = then / STUCK_CHANGE_DIVISOR;
	uint64_t floor = STUCK_CHANGE_BYTES / (page ? page : 1);

	if (slack < floor)
		slack = floor;
	return (now > then ? now - then : then - now) > slack;
}

/* Is a round the kind that can repeat every interval unchanged: it
 * acted, and the last step took nothing?
 */
static bool round_stuck(const struct upcd_round_log *log, const struct upcc_round_report *report)
{
	return log->acted && report->end == UPCC_ROUND_NO_PROGRESS;
}

/* Would this stuck round's line say what the last one at INFO said? */
static bool stuck_repeats(const struct upcd_scope_log *slog, const struct upcd_round_log *log,
			  const struct upcc_scope_run *run, const struct upcc_round_report *report,
			  uint64_t now)
{
	uint64_t page = log->page_size;

	return slog->stuck && now - slog->stuck_logged < STUCK_LOG_USEC &&
	       !moved(slog->stuck_unmapped, log->unmapped, page) &&
	       !moved(slog->stuck_target, run->state.policy.target_pages, page) &&
	       !moved(0, report->reclaimed_pages, page);
}

/*
 * The stuck rounds not logged at INFO since the last one that was, for
 * the end of the next line that is: "" if none.
 */
static const char *stuck_unlogged_text(char *buf, size_t len, const struct upcd_scope_log *slog,
				       uint64_t page)
{
	if (!slog->stuck_unlogged)
		return "";
	snprintf(buf, len, "; %llu more round%s like it since the last message (%s reclaimed in them)",
		 (unsigned long long)slog->stuck_unlogged, slog->stuck_unlogged == 1 ? "" : "s",
		 UPCD_SIZE(slog->stuck_unlogged_reclaimed, page));
	return buf;
}

/*
 * A round that did not end stuck ends a stuck spell: the rounds of it not
 * logged are counted in a line of their own, and the next stuck round
 * is news again.
 */
static void end_stuck(struct upcd_scope_log *slog, const struct upcc_scope_run *run,
		      uint64_t page)
{
	if (slog->stuck_unlogged)
		upcc_log(LOG_INFO,
			 "scope %s: %llu more round%s took nothing more after the last message (%s reclaimed in them)",
			 run->scope.name, (unsigned long long)slog->stuck_unlogged,
			 slog->stuck_unlogged == 1 ? "" : "s",
			 UPCD_SIZE(slog->stuck_unlogged_reclaimed, page));
	slog->stuck = false;
	slog->stuck_unlogged = 0;
	slog->stuck_unlogged_reclaimed = 0;
}

/* What the working set holds, for a round's end: "96Mi held as working
 * set in 40 files/ranges (cap 128Mi)", or "" without one.
 */
static void working_set_text(char *buf, size_t len, const struct upcc_scope_run *run,
			     uint64_t page)
{
	const struct upcc_sample *last = &run->state.last;

	buf[0] = '\0';
	if (!last->hot_pages)
		return;
	snprintf(buf, len, "%s held as working set in %llu files/ranges (cap %s%s)",
		 UPCD_SIZE(last->hot_pages, page), (unsigned long long)last->hot_items,
		 UPCD_SIZE(run->state.policy.wset_cap_pages, page),
		 last->unheld_pages ? ", more not held" : "");
}

/*
 * Why a round ended, said whole: the target (or the target raised by the
 * working set) reached; nothing more came off, and what stayed (the
 * working set held, dirty pages, the rest mapped or being read); a time
 * or step bound; a refusal, an error, a signal.
 */
static const char *round_end_text(char *buf, size_t len, const struct upcc_round_report *report,
				  const struct upcc_scope_run *run, uint64_t page)
{
	const struct upcc_sample *last = &run->state.last;
	char wset[160];

	working_set_text(wset, sizeof(wset), run, page);
	switch (report->end) {
	case UPCC_ROUND_IDLE:
		if (run->state.effective_target_pages <= run->state.policy.target_pages || !wset[0])
			return "at the target";
		snprintf(buf, len, "at the target raised by the working set: %s", wset);
		return buf;
	case UPCC_ROUND_NO_PROGRESS:
		snprintf(buf, len, "nothing more came off: %s%s%s dirty or under writeback, the rest mapped or being read",
			 wset[0] ? wset : "no working set held", ", ",
			 UPCD_SIZE(last->dirty_pages + last->writeback_pages, page));
		return buf;
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

/* The summary's period, UPCD_SUMMARY_MINUTES unless a test shortens it. */
static uint64_t summary_usec(void)
{
	if (upcc_hooks.log_summary_usec)
		return upcc_hooks.log_summary_usec;
	return UPCD_SUMMARY_MINUTES * 60ull * 1000 * 1000;
}

/* A field's value: pages as bytes, or a count, in decimal. */
static const char *bytes_text(char buf[24], uint64_t pages, uint64_t page)
{
	snprintf(buf, 24, "%llu", (unsigned long long)upcc_mul_saturating(pages, page));
	return buf;
}

static const char *count_text(char buf[24], uint64_t n)
{
	snprintf(buf, 24, "%llu", (unsigned long long)n);
	return buf;
}

/* "40 s", "5 min": how long a summary covers. */
static const char *span_text(char buf[24], uint64_t usec)
{
	uint64_t s = usec / 1000000;

	if (s < 120)
		snprintf(buf, 24, "%llu s", (unsigned long long)s);
	else
		snprintf(buf, 24, "%llu min", (unsigned long long)(s / 60));
	return buf;
}

static void sums_clear(struct upcd_scope_log *slog)
{
	slog->sum_rounds = 0;
	slog->sum_steps = 0;
	slog->sum_reclaimed = 0;
	slog->sum_usec = 0;
	slog->sum_unmapped_min = UINT64_MAX;
	slog->sum_unmapped_max = 0;
}

static void sums_add(struct upcd_scope_log *slog, uint64_t unmapped, uint64_t reclaimed,
		     unsigned int steps, uint64_t usec)
{
	slog->sum_rounds++;
	slog->sum_steps += steps;
	slog->sum_reclaimed += reclaimed;
	slog->sum_usec += usec;
	if (unmapped < slog->sum_unmapped_min)
		slog->sum_unmapped_min = unmapped;
	if (unmapped > slog->sum_unmapped_max)
		slog->sum_unmapped_max = unmapped;
}

/*
 * The rounds of the spell since it was last said (up to @until: the
 * spell's last round, when it ended), in one INFO line with their sums as
 * journal fields; nothing if there were none.
 */
static void say_sums(struct upcd_scope_log *slog, const struct upcc_scope_run *run,
		     uint64_t page, uint64_t now, uint64_t until, const char *event)
{
	const char *backend = run->backend_ready ? run->backend.ops->name : "none";
	const uint64_t target = run->state.policy.target_pages;
	char b[6][24];
	const struct upcc_journal_field fields[] = {
		{ "SCOPE", run->scope.name },
		{ "BACKEND", backend },
		{ "UPCC_EVENT", event },
		{ slog->spell_dry ? "WOULD_RECLAIM_BYTES" : "RECLAIMED_BYTES",
		  bytes_text(b[0], slog->sum_reclaimed, page) },
		{ "ROUNDS", count_text(b[1], slog->sum_rounds) },
		{ "UNMAPPED_MIN_BYTES", bytes_text(b[2], slog->sum_unmapped_min, page) },
		{ "UNMAPPED_MAX_BYTES", bytes_text(b[3], slog->sum_unmapped_max, page) },
		{ "TARGET_BYTES", bytes_text(b[4], target, page) },
		{ NULL, NULL },
	};

	if (!slog->sum_rounds)
		return;
	span_text(b[5], until - slog->spell_said);
	if (slog->spell_dry)
		upcc_log_fields(LOG_INFO, fields,
				"scope %s: dry run, in the last %s: %llu round%s would have had %s reclaim %s in all; unmapped %s to %s before them, target %s",
				run->scope.name, b[5], (unsigned long long)slog->sum_rounds,
				slog->sum_rounds == 1 ? "" : "s", backend,
				UPCD_SIZE(slog->sum_reclaimed, page),
				UPCD_SIZE(slog->sum_unmapped_min, page),
				UPCD_SIZE(slog->sum_unmapped_max, page), UPCD_SIZE(target, page));
	else
		upcc_log_fields(LOG_INFO, fields,
				"scope %s: in the last %s: %s reclaimed %s in %llu round%s (%llu steps, %.1f ms); unmapped %s to %s before them, target %s",
				run->scope.name, b[5], backend, UPCD_SIZE(slog->sum_reclaimed, page),
				(unsigned long long)slog->sum_rounds,
				slog->sum_rounds == 1 ? "" : "s",
				(unsigned long long)slog->sum_steps, (double)slog->sum_usec / 1000.0,
				UPCD_SIZE(slog->sum_unmapped_min, page),
				UPCD_SIZE(slog->sum_unmapped_max, page), UPCD_SIZE(target, page));
	slog->spell_said = now;
	sums_clear(slog);
}

/*
 * A spell with no round that acted for a summary's period is over: what
 * it did since its last line, then a line that says it ended, so the
 * next spell's first round is news again.
 */
static void spell_end_if_quiet(struct upcd_scope_log *slog, const struct upcc_scope_run *run,
			       uint64_t page, uint64_t now)
{
	const struct upcc_journal_field fields[] = {
		{ "SCOPE", run->scope.name },
		{ "BACKEND", run->backend_ready ? run->backend.ops->name : "none" },
		{ "UPCC_EVENT", "spell-end" }, { NULL, NULL },
	};
	char span[24];

	if (!slog->spell || now - slog->spell_last < summary_usec())
		return;
	say_sums(slog, run, page, now, slog->spell_last, "summary");
	upcc_log_fields(LOG_INFO, fields, "scope %s: %s over: no round %s for %s", run->scope.name,
			slog->spell_dry ? "dry run's reclaiming spell" : "reclaiming spell",
			slog->spell_dry ? "above the trigger" : "acted",
			span_text(span, now - slog->spell_last));
	slog->spell = false;
}

/*
 * A round that acts (@dry: that would): is it the first of a spell, to
 * be said at INFO?  Else it is summed for the spell's next summary.
 * A dry spell that turns real (a reload ended the dry run) starts anew.
 */
static bool spell_round(struct upcd_scope_log *slog, const struct upcd_round_log *log,
			const struct upcc_round_report *report, bool dry, uint64_t now)
{
	bool starts = !slog->spell || slog->spell_dry != dry;

	if (starts) {
		if (slog->spell)
			slog->spell = false;	/* the other kind's sums are dropped */
		slog->spell = true;
		slog->spell_dry = dry;
		slog->spell_said = now;
		sums_clear(slog);
	} else {
		sums_add(slog, log->unmapped, report->reclaimed_pages, log->acted,
			 report->elapsed_usec);
	}
	slog->spell_last = now;
	return starts || log->once;
}

/* After a round's line: the summary, when its period is up. */
static void spell_summary_due(struct upcd_scope_log *slog, const struct upcc_scope_run *run,
			      uint64_t page, uint64_t now)
{
	if (slog->spell && now - slog->spell_said >= summary_usec())
		say_sums(slog, run, page, now, now, "summary");
}

/*
 * A dry round (a dry run, or no usable backend): what it would do for
 * the whole excess, not only the first step; at NOTICE (no backend: a
 * warning) when it starts a spell, else at debug and summed.
 */
static void log_dry_round(const struct upcd_round_log *log, const struct upcc_scope_run *run,
			  const struct upcc_round_report *report)
{
	const struct upcc_scope *scope = &run->scope;
	const struct upcc_policy *policy = &run->state.policy;
	const char *backend = run->backend_ready ? run->backend.ops->name : NULL;
	struct upcd_scope_log *slog = log->scope;
	uint64_t page = log->page_size, now = upcc_monotonic_usec();
	uint64_t excess = upcd_excess_pages(report->last.unmapped_before, policy);
	struct upcd_round_log sums = *log;
	struct upcc_round_report would = *report;
	char b[3][24];
	const struct upcc_journal_field fields[] = {
		{ "SCOPE", scope->name },
		{ "BACKEND", backend ? backend : "none" },
		{ "UPCC_EVENT", "round" },
		{ "WOULD_RECLAIM_BYTES", bytes_text(b[0], excess, page) },
		{ "UNMAPPED_BYTES", bytes_text(b[1], report->last.unmapped_before, page) },
		{ "TARGET_BYTES", bytes_text(b[2], policy->target_pages, page) },
		{ NULL, NULL },
	};
	bool starts;

	spell_end_if_quiet(slog, run, page, now);
	sums.unmapped = report->last.unmapped_before;
	sums.acted = 0;
	would.reclaimed_pages = excess;
	starts = spell_round(slog, &sums, &would, true, now);
	if (backend)
		upcc_log_fields(starts ? LOG_NOTICE : LOG_DEBUG, fields,
				"scope %s: dry run: would have %s reclaim %s, down to the target, in steps of at most %s: unmapped %s, target %s, trigger %s",
				scope->name, backend, UPCD_SIZE(excess, page),
				UPCD_SIZE(report->last.requested_pages, page),
				UPCD_SIZE(report->last.unmapped_before, page),
				UPCD_SIZE(policy->target_pages, page),
				UPCD_SIZE(policy->trigger_pages, page));
	else
		upcc_log_fields(starts ? LOG_WARNING : LOG_DEBUG, fields,
				"scope %s: %s over the target would not be reclaimed: no usable backend: unmapped %s, target %s",
				scope->name, UPCD_SIZE(excess, page),
				UPCD_SIZE(report->last.unmapped_before, page),
				UPCD_SIZE(policy->target_pages, page));
	spell_summary_due(slog, run, page, now);
}

/*
 * A round that acted: at INFO if it starts a reclaiming spell (or is
 * --once's only word), else at debug and summed for the spell's summary
 * every UPCD_SUMMARY_MINUTES (a streaming reader makes a round a second,
 * 85k lines a day at INFO before issue 31).  A round that acted and took
 * nothing more, above the target, is news the first time and when what
 * it says moves or after a while (stuck_repeats), whatever the spell.
 */
static void log_acted_round(const struct upcd_round_log *log, const struct upcc_scope_run *run,
			    const struct upcc_round_report *report)
{
	const struct upcc_scope *scope = &run->scope;
	const struct upcc_scope_state *state = &run->state;
	const char *backend = run->backend_ready ? run->backend.ops->name : "none";
	struct upcd_scope_log *slog = log->scope;
	uint64_t page = log->page_size, now = upcc_monotonic_usec();
	bool idle_end = report->last.outcome == UPCC_STEP_IDLE, news;
	char more[160], b[4][24], end[384];
	bool raised = state->effective_target_pages > state->policy.target_pages;
	const struct upcc_journal_field fields[] = {
		{ "SCOPE", scope->name },
		{ "BACKEND", backend },
		{ "UPCC_EVENT", "round" },
		{ "RECLAIMED_BYTES", bytes_text(b[0], report->reclaimed_pages, page) },
		{ "UNMAPPED_BYTES", bytes_text(b[1], log->unmapped, page) },
		{ "TARGET_BYTES", bytes_text(b[2], state->policy.target_pages, page) },
		{ "STEPS", count_text(b[3], log->acted) },
		{ NULL, NULL },
	};
	const char *tail = "";

	spell_end_if_quiet(slog, run, page, now);
	news = spell_round(slog, log, report, false, now);
	if (round_stuck(log, report)) {
		if (stuck_repeats(slog, log, run, report, now)) {
			slog->stuck_unlogged++;
			slog->stuck_unlogged_reclaimed += report->reclaimed_pages;
		} else {
			if (slog->stuck)
				tail = stuck_unlogged_text(more, sizeof(more), slog, page);
			else if (!log->once)
				tail = "; said again when this changes, else in "
				       STRING(STUCK_LOG_MINUTES) " min";
			/* A stream's rounds may take nothing, then something,
			 * then nothing (a file still being written): within a
			 * spell a stuck stretch that starts again is news only
			 * STUCK_LOG_USEC after the last one said; the summary
			 * has the rest.  One that lasts and moves is news.
			 */
			news = news || slog->stuck || now - slog->stuck_logged >= STUCK_LOG_USEC;
			slog->stuck = true;
			if (news)
				slog->stuck_logged = now;
			slog->stuck_unmapped = log->unmapped;
			slog->stuck_target = state->policy.target_pages;
			slog->stuck_unlogged = 0;
			slog->stuck_unlogged_reclaimed = 0;
		}
	}
	/* An idle last step measured what the round left: "16Mi -> 1.0Mi". */
	upcc_log_fields(news ? LOG_INFO : LOG_DEBUG, fields,
			"scope %s: %s reclaimed %s in %u step%s, %.1f ms (asked for %s): %s; unmapped %s%s%s%s, target %s%s%s%s",
			scope->name, backend, UPCD_SIZE(report->reclaimed_pages, page),
			log->acted, log->acted == 1 ? "" : "s",
			(double)report->elapsed_usec / 1000.0, UPCD_SIZE(log->asked, page),
			round_end_text(end, sizeof(end), report, run, page), idle_end ? "" : "was ",
			UPCD_SIZE(log->unmapped, page), idle_end ? " -> " : "",
			idle_end ? UPCD_SIZE(report->last.unmapped_before, page) : "",
			UPCD_SIZE(state->policy.target_pages, page),
			raised ? ", effective " : "",
			raised ? UPCD_SIZE(state->effective_target_pages, page) : "", tail);
	spell_summary_due(slog, run, page, now);
}

/*
 * A round's one line (log_acted_round, log_dry_round); an idle round's
 * at debug (--once: INFO, its only word), and it may end a spell.
 */
void upcd_log_round(const struct upcd_round_log *log, const struct upcc_scope_run *run,
		    const struct upcc_round_report *report)
{
	const struct upcc_scope_state *state = &run->state;
	struct upcd_scope_log *slog = log->scope;
	uint64_t page = log->page_size;

	if (report->last.outcome != UPCC_STEP_SAMPLE_FAILED && !round_stuck(log, report) &&
	    slog->stuck)
		end_stuck(slog, run, page);
	switch (report->last.outcome) {
	case UPCC_STEP_SAMPLE_FAILED:
		return;		/* log_sample_error() said it, rate-limited */
	case UPCC_STEP_DRY_RUN:
	case UPCC_STEP_NO_BACKEND:
		if (report->steps == 1) {
			log_dry_round(log, run, report);
			return;
		}
		break;
	case UPCC_STEP_IDLE:
		if (report->steps == 1) {
			spell_end_if_quiet(slog, run, page, upcc_monotonic_usec());
			upcc_log(log->once ? LOG_INFO : LOG_DEBUG,
				 "scope %s: idle: unmapped %s, target %s, trigger %s", run->scope.name,
				 UPCD_SIZE(report->last.unmapped_before, page),
				 UPCD_SIZE(state->policy.target_pages, page),
				 UPCD_SIZE(state->policy.trigger_pages, page));
			return;
		}
		break;
	default:
		break;
	}
	if (!log->acted)
		return;		/* refused: log_step() said so */
	log_acted_round(log, run, report);
}

void upcd_round_log_begin(struct upcd_round_log *log, struct upcd_scope_log *scope_log)
{
	log->scope = scope_log;
	log->step = 0;
	log->acted = 0;
	log->asked = 0;
	log->unmapped = 0;
}
