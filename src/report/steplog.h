/* SPDX-License-Identifier: GPL-2.0 */
/*
 * steplog.h - what upcd logs about its control steps and rounds: a line a
 * step and a line a round at debug (-v); at INFO the first round of a
 * reclaiming spell, a summary of the spell's rounds every
 * UPCD_SUMMARY_MINUTES while it lasts, and its end (docs/upcd.md, "Log");
 * measuring failures, walk skips and a scope stuck above its target
 * rate-limited.  Round lines and summaries carry journal fields (SCOPE=,
 * BACKEND=, RECLAIMED_BYTES=, ...: lib/journal.h).
 */
#ifndef UPCC_STEPLOG_H
#define UPCC_STEPLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "control/control.h"
#include "core/policy.h"
#include "core/size.h"

/* Pages for people ("40Ki", "1.5Gi"), in a buffer of the caller's block. */
#define UPCD_SIZE(pages, page) \
	upcc_size_format((char[UPCC_SIZE_TEXT_LEN]){ 0 }, UPCC_SIZE_TEXT_LEN, \
			 upcc_mul_saturating((pages), (page)))

/*
 * What the log remembers of one scope from round to round, to say a
 * lasting problem once and not every round.  The log's own, not the
 * control's: upcd keeps one per scope, anew at a reload.
 */
struct upcd_scope_log {
	int sample_error;		/* the last failure's -errno, 0 once measured */
	uint64_t sample_error_logged;	/* when it was last logged, monotonic usec */
	uint64_t sample_errors_unlogged;	/* failures since */
	uint64_t walk_skips_logged;	/* when the walk's skips were last logged */
	uint64_t excluded_logged;	/* when "exclude =" skips were last logged */
	/* A round that ends above the target with nothing more to take
	 * (dirty, mapped or in use) says so once, then again only when
	 * what it says moves or after a while (steplog.c), not every round.
	 */
	bool stuck;			/* the last round that acted ended so */
	uint64_t stuck_logged;		/* when such a round's line was last at INFO */
	uint64_t stuck_unmapped;	/* what that line said, in pages: unmapped, */
	uint64_t stuck_target;		/* the target */
	uint64_t stuck_unlogged;	/* such rounds since, at debug only */
	uint64_t stuck_unlogged_reclaimed;	/* and what they took, pages */
	/* A reclaiming spell: rounds that acted (or, dry, would have), with
	 * no UPCD_SUMMARY_MINUTES between two of them.  Its first round is
	 * said at INFO; the rest at debug, summed here for the summary.
	 */
	bool spell;			/* in one */
	bool spell_dry;			/* its rounds only decided (dry run, no backend) */
	uint64_t spell_said;		/* when it was last said at INFO (start or summary) */
	uint64_t spell_last;		/* when a round of it last acted */
	uint64_t sum_rounds;		/* since spell_said, not said yet: rounds, */
	uint64_t sum_steps;		/* their backend calls, */
	uint64_t sum_reclaimed;		/* what they took (dry: would take, the excess), pages, */
	uint64_t sum_usec;		/* their time, */
	uint64_t sum_unmapped_min;	/* the unmapped cache before them, least */
	uint64_t sum_unmapped_max;	/* and most */
};

/* How often a reclaiming spell's summary is said at INFO; also how long
 * without a round that acts ends the spell.
 */
#define UPCD_SUMMARY_MINUTES	5

/* The round under way, for its one log line (upcd_log_round). */
struct upcd_round_log {
	struct upcd_scope_log *scope;	/* the scope's, from upcd_round_log_begin */
	uint64_t page_size;
	bool once;			/* --once: an idle round's line is its only word */
	unsigned int step;
	unsigned int acted;		/* steps that called the backend */
	uint64_t asked;			/* pages the steps asked the backend for */
	uint64_t unmapped;		/* unmapped before the first step */
};

/* Before a round (or a tick that may start one) of the scope @scope_log
 * is for: its log line's counts.
 */
void upcd_round_log_begin(struct upcd_round_log *log, struct upcd_scope_log *scope_log);

/* upcc_round_limits.on_step: count and log one step; @context is the
 * struct upcd_round_log.
 */
void upcd_log_round_step(struct upcc_scope_run *run, const struct upcc_step_report *report,
			 void *context);

/* After a round: its one line. */
void upcd_log_round(const struct upcd_round_log *log, const struct upcc_scope_run *run,
		    const struct upcc_round_report *report);

/* The pages above the target: what a round that reaches it takes off. */
static inline uint64_t upcd_excess_pages(uint64_t unmapped, const struct upcc_policy *policy)
{
	return unmapped > policy->target_pages ? unmapped - policy->target_pages : 0;
}

#endif /* UPCC_STEPLOG_H */
