/* SPDX-License-Identifier: GPL-2.0 */
/*
 * control.h - the control of a scope: a step (sample, resolve the config
 * against it (resolve.h), decide (policy.h), act through the backend,
 * account), the round of steps, the sampling tick that starts rounds.
 */
#ifndef UPCC_CONTROL_H
#define UPCC_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "act/backend.h"
#include "core/resolve.h"
#include "core/scope.h"
#include "scoperun.h"

/* How a scope is sampled; upcc_measure() in the daemon, a fake in tests. */
typedef int (*upcc_sample_fn)(const struct upcc_scope *scope, struct upcc_sample *sample);

enum upcc_step_outcome {
	UPCC_STEP_SAMPLE_FAILED,	/* could not measure: nothing decided */
	UPCC_STEP_IDLE,			/* at or below the trigger (or target) */
	UPCC_STEP_DRY_RUN,		/* would have asked for requested_pages */
	UPCC_STEP_NO_BACKEND,		/* would act, but no backend is usable */
	UPCC_STEP_ACTED,		/* the backend was called */
	UPCC_STEP_REFUSED,		/* the backend declined: result.refused says why */
};

struct upcc_step_report {
	enum upcc_step_outcome outcome;
	int error;			/* sampling or backend error, negative errno */
	uint64_t unmapped_before;
	uint64_t requested_pages;
	struct upcc_action_result result;
};

/*
 * Run one step on @run.  Updates run->state: policy, phase, last sample,
 * effective target and counters.  Returns 0 unless sampling failed (then the negative errno);
 * a backend error is counted and reported in @report, not returned.
 */
int upcc_control_step(struct upcc_scope_run *run, upcc_sample_fn sample_fn,
		      uint64_t page_size, struct upcc_step_report *report);

/*
 * A control round: like kswapd, which once woken keeps reclaiming until
 * the node is balanced, a scope in the reclaiming phase gets step after
 * step until one of these ends it.  One step per interval cannot keep up
 * with a stream: at excess >> 3 per second, a 64 MiB/s reader outruns it.
 */
enum upcc_round_end {
	UPCC_ROUND_IDLE,		/* at or below the target (or never above the trigger) */
	UPCC_ROUND_NO_PROGRESS,		/* a step reclaimed nothing: nothing more to take */
	UPCC_ROUND_BUDGET,		/* the time budget is spent: the next round goes on */
	UPCC_ROUND_MAX_STEPS,		/* the step bound, in case the clock does not move */
	UPCC_ROUND_STOPPED,		/* no act possible: sample failed, error, refused,
					 * dry run, no backend */
};

struct upcc_round_limits {
	uint64_t budget_usec;		/* no new step once this much time is spent */
	unsigned int max_steps;		/* 0: UPCC_ROUND_DEFAULT_MAX_STEPS */
	/* Called after every step (upcd logs it); may be NULL. */
	void (*on_step)(struct upcc_scope_run *run, const struct upcc_step_report *report,
			void *context);
	void *context;
};

#define UPCC_ROUND_DEFAULT_MAX_STEPS	1000u

struct upcc_round_report {
	enum upcc_round_end end;
	unsigned int steps;		/* control steps taken (each sampled once) */
	uint64_t reclaimed_pages;	/* summed over the round's steps */
	uint64_t elapsed_usec;
	struct upcc_step_report last;	/* the step that ended the round */
};

/*
 * Run steps on @run until the round ends (see upcc_round_end).  The first
 * step always runs; a further one only while the previous step acted,
 * reclaimed something without error, the scope is still reclaiming (the
 * policy, upcc_decide(), did not say the target is reached) and the
 * budget is not spent.  Returns 0, or the sampling error that ended it.
 */
int upcc_control_round(struct upcc_scope_run *run, upcc_sample_fn sample_fn,
		       uint64_t page_size, const struct upcc_round_limits *limits,
		       struct upcc_round_report *report);

/* What one sampling tick did (upcc_control_tick). */
struct upcc_tick_report {
	bool sampled;			/* a cheap sample was taken (counted in ticks_total) */
	bool above_trigger;		/* ... and it was above the trigger */
	bool round;			/* a round ran: round_report is its */
	int error;			/* the cheap sample's error */
	uint64_t unmapped;		/* the cheap sample's unmapped pages */
	struct upcc_round_report round_report;
};

/*
 * The sampling tick (upcd: every tick_ms, default UPCC_DEFAULT_TICK_MS in
 * config.h).  A round (a refresh: walks, the inventory, the step's sample)
 * runs at most every @interval_usec, or when this tick's cheap sample (the
 * backend's tick_sample, else the scope's sample unless it is a path
 * scope) is above the trigger, or to go on with a round that ran out of
 * time.  A round that could not reach the target blocks tick rounds until
 * the interval's.  Returns the round's error, or 0.
 */
int upcc_control_tick(struct upcc_scope_run *run, upcc_sample_fn sample_fn, uint64_t page_size,
		      uint64_t interval_usec, const struct upcc_round_limits *limits,
		      struct upcc_tick_report *report);

#endif /* UPCC_CONTROL_H */
