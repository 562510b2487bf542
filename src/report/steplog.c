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

/* What the working set holds, for a round's end: ", 96Mi held as working
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

/*
 * A round's one line: at INFO if it acted (asked, took, time, why it
 * ended) or, dry, what it would do for the whole excess, not only the
 * first step; an idle round at debug (--once: INFO, its only word).  A
 * round that acted and took nothing more, above the target, would say
 * the same every interval for as long as the rest stays dirty: it is
 * said once, then at debug while it says the same (stuck_repeats) for
 * up to STUCK_LOG_USEC, then again with the count of rounds not said.
 */
void upcd_log_round(const struct upcd_round_log *log, const struct upcc_scope_run *run,
		    const struct upcc_round_report *report)
{
	const struct upcc_scope *scope = &run->scope;
	const struct upcc_scope_state *state = &run->state;
	const char *backend = run->backend_ready ? run->backend.ops->name : NULL;
	struct upcd_scope_log *slog = log->scope;
	uint64_t page = log->page_size, now;
	char more[160], end[384];
	bool raised = state->effective_target_pages > state->policy.target_pages;
	int level = LOG_INFO;
	const char *tail;

	if (report->last.outcome != UPCC_STEP_SAMPLE_FAILED && !round_stuck(log, report) &&
	    slog->stuck)
		end_stuck(slog, run, page);
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
				 UPCD_SIZE(upcd_excess_pages(report->last.unmapped_before, &state->policy), page),
				 UPCD_SIZE(report->last.requested_pages, page),
				 UPCD_SIZE(report->last.unmapped_before, page),
				 UPCD_SIZE(state->policy.target_pages, page),
				 UPCD_SIZE(state->policy.trigger_pages, page));
		else
			upcc_log(LOG_WARNING, "scope %s: %s over the target would not be reclaimed: no usable backend: unmapped %s, target %s",
				 scope->name,
				 UPCD_SIZE(upcd_excess_pages(report->last.unmapped_before, &state->policy), page),
				 UPCD_SIZE(report->last.unmapped_before, page),
				 UPCD_SIZE(state->policy.target_pages, page));
		return;
	case UPCC_STEP_IDLE:
		if (report->steps == 1) {
			upcc_log(log->once ? LOG_INFO : LOG_DEBUG,
				 "scope %s: idle: unmapped %s, target %s, trigger %s", scope->name,
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
	tail = "";
	if (round_stuck(log, report)) {
		now = upcc_monotonic_usec();
		if (stuck_repeats(slog, log, run, report, now)) {
			level = LOG_DEBUG;
			slog->stuck_unlogged++;
			slog->stuck_unlogged_reclaimed += report->reclaimed_pages;
		} else {
			if (slog->stuck)
				tail = stuck_unlogged_text(more, sizeof(more), slog, page);
			else if (!log->once)
				tail = "; said again when this changes, else in "
				       STRING(STUCK_LOG_MINUTES) " min";
			slog->stuck = true;
			slog->stuck_logged = now;
			slog->stuck_unmapped = log->unmapped;
			slog->stuck_target = state->policy.target_pages;
			slog->stuck_unlogged = 0;
			slog->stuck_unlogged_reclaimed = 0;
		}
	}
	/* An idle last step measured what the round left: "16Mi -> 1.0Mi". */
	upcc_log(level, "scope %s: %s reclaimed %s in %u step%s, %.1f ms (asked for %s): %s; unmapped %s%s%s%s, target %s%s%s%s",
		 scope->name, backend ? backend : "none", UPCD_SIZE(report->reclaimed_pages, page),
		 log->acted, log->acted == 1 ? "" : "s",
		 (double)report->elapsed_usec / 1000.0, UPCD_SIZE(log->asked, page),
		 round_end_text(end, sizeof(end), report, run, page),
		 report->last.outcome == UPCC_STEP_IDLE ? "" : "was ",
		 UPCD_SIZE(log->unmapped, page),
		 report->last.outcome == UPCC_STEP_IDLE ? " -> " : "",
		 report->last.outcome == UPCC_STEP_IDLE ? UPCD_SIZE(report->last.unmapped_before, page) : "",
		 UPCD_SIZE(state->policy.target_pages, page),
		 raised ? ", effective " : "",
		 raised ? UPCD_SIZE(state->effective_target_pages, page) : "", tail);
}

void upcd_round_log_begin(struct upcd_round_log *log, struct upcd_scope_log *scope_log)
{
	log->scope = scope_log;
	log->step = 0;
	log->acted = 0;
	log->asked = 0;
	log->unmapped = 0;
}
