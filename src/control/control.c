// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - the control of a scope: steps, rounds, ticks; see control.h.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "control.h"
#include "lib/clock.h"
#include "lib/pace.h"

static void account(struct upcc_scope_counters *counters, const struct upcc_action_result *result)
{
	counters->actions_total++;
	counters->reclaimed_pages_total += result->reclaimed_pages;
	counters->action_usec_total += result->elapsed_usec;
	counters->kernel_cpu_usec_total += result->kernel_cpu_usec;
	if (result->error)
		counters->action_errors_total++;
}

static void act(struct upcc_scope_run *run, struct upcc_step_report *report)
{
	struct upcc_backend *backend = &run->backend;
	uint64_t start = upcc_monotonic_usec();
	int err;

	report->outcome = UPCC_STEP_ACTED;
	report->result.requested_pages = report->requested_pages;
	err = backend->ops->reclaim(backend, &run->scope, run->state.round,
				    report->requested_pages, &report->result);
	/* A backend that does not time itself still gets its wall time counted. */
	if (!report->result.elapsed_usec)
		report->result.elapsed_usec = upcc_monotonic_usec() - start;
	if (err && !report->result.error)
		report->result.error = err;
	report->error = report->result.error;
	/* A refusal (e.g. memcg with dirty pages in scope) acted on nothing:
	 * counted apart from actions, so it is seen, not mistaken for one.
	 */
	if (report->result.refused[0] && !report->error) {
		report->outcome = UPCC_STEP_REFUSED;
		report->result.reclaimed_pages = 0;
		run->state.counters.refused_steps_total++;
		return;
	}
	account(&run->state.counters, &report->result);
}

/* The backend's own measure where it has one: one pass over the scope per step. */
static int take_sample(struct upcc_scope_run *run, upcc_sample_fn sample_fn,
		       struct upcc_sample *sample)
{
	const struct upcc_backend_ops *ops = run->backend.ops;
	int err;

	if (run->backend_ready && ops && ops->sample) {
		err = ops->sample(&run->backend, &run->scope, run->state.round,
				  sample);
		if (err != -EOPNOTSUPP)
			return err;
	}
	return sample_fn(&run->scope, sample);
}

/* The tick's aim: the last policy with the effective target for @sample. */
static struct upcc_policy aim_for(struct upcc_scope_state *state, const struct upcc_sample *sample)
{
	struct upcc_policy aim = upcc_plan_aim(&state->policy, sample, &state->wset,
					       upcc_monotonic_usec());

	state->effective_target_pages = aim.target_pages;
	return aim;
}

int upcc_control_step(struct upcc_scope_run *run, upcc_sample_fn sample_fn,
		      uint64_t page_size, struct upcc_step_report *report)
{
	struct upcc_scope_state *state = &run->state;
	struct upcc_sample sample;
	struct upcc_plan plan;
	int err;

	memset(report, 0, sizeof(*report));
	err = take_sample(run, sample_fn, &sample);
	state->sample_error = err;
	if (err) {
		report->outcome = UPCC_STEP_SAMPLE_FAILED;
		report->error = err;
		return err;
	}
	/* The effective target: the target, raised while the working set
	 * refaults (wset.h).
	 */
	plan = upcc_plan_step(&run->scope.config, &sample, &state->phase, &state->wset,
			      upcc_monotonic_usec(), page_size);
	state->last = sample;
	state->measured_unix_usec = upcc_realtime_usec();
	state->policy = plan.policy;
	state->effective_target_pages = plan.aim.target_pages;
	report->unmapped_before = sample.unmapped_pages;
	report->requested_pages = plan.step;
	if (!plan.step)
		report->outcome = UPCC_STEP_IDLE;
	else if (run->backend.dry_run)
		report->outcome = UPCC_STEP_DRY_RUN;
	else if (!run->backend_ready || !run->backend.ops || !run->backend.ops->reclaim)
		report->outcome = UPCC_STEP_NO_BACKEND;
	else
		act(run, report);
	return 0;
}

/* Does the round end after @step?  If so, @end says why. */
static bool step_ends_round(const struct upcc_scope_run *run, const struct upcc_step_report *step,
			    enum upcc_round_end *end)
{
	if (step->outcome == UPCC_STEP_IDLE)
		*end = UPCC_ROUND_IDLE;
	else if (step->outcome != UPCC_STEP_ACTED || step->error)
		*end = UPCC_ROUND_STOPPED;
	else if (!step->result.reclaimed_pages)
		*end = UPCC_ROUND_NO_PROGRESS;
	else if (run->state.phase != UPCC_PHASE_RECLAIMING)
		*end = UPCC_ROUND_IDLE;	/* upcc_decide() says the target is reached */
	else
		return false;
	return true;
}

int upcc_control_round(struct upcc_scope_run *run, upcc_sample_fn sample_fn,
		       uint64_t page_size, const struct upcc_round_limits *limits,
		       struct upcc_round_report *report)
{
	unsigned int max_steps = limits->max_steps ? limits->max_steps :
			       UPCC_ROUND_DEFAULT_MAX_STEPS;
	uint64_t start = upcc_monotonic_usec();
	int err;

	memset(report, 0, sizeof(*report));
	run->state.round++;
	for (;;) {
		err = upcc_control_step(run, sample_fn, page_size, &report->last);
		report->steps++;
		report->reclaimed_pages += report->last.result.reclaimed_pages;
		if (limits->on_step)
			limits->on_step(run, &report->last, limits->context);
		report->elapsed_usec = upcc_monotonic_usec() - start;
		if (err) {
			report->end = UPCC_ROUND_STOPPED;
			return err;
		}
		if (step_ends_round(run, &report->last, &report->end))
			return 0;
		if (report->elapsed_usec >= limits->budget_usec) {
			report->end = UPCC_ROUND_BUDGET;
			return 0;
		}
		if (report->steps >= max_steps) {
			report->end = UPCC_ROUND_MAX_STEPS;
			return 0;
		}
		if (upcc_pace_stop_now()) {
			report->end = UPCC_ROUND_STOPPED;	/* a signal waits */
			return 0;
		}
	}
}

/* The tick's sample: the backend's cheap one, or the scope's own where
 * that reads only a /proc or cgroup file; a path scope without one has none.
 */
static int take_tick_sample(struct upcc_scope_run *run, upcc_sample_fn sample_fn,
			    struct upcc_sample *sample)
{
	const struct upcc_backend_ops *ops = run->backend.ops;
	int err;

	if (run->backend_ready && ops && ops->tick_sample) {
		err = ops->tick_sample(&run->backend, &run->scope, sample);
		if (err != -EOPNOTSUPP)
			return err;
	}
	if (run->scope.kind == UPCC_SCOPE_PATH)
		return -EOPNOTSUPP;
	return sample_fn(&run->scope, sample);
}

/*
 * Is the scope still as the last round left it, stuck (nothing more came
 * off, a refusal)?  A tick would only refresh again for nothing, unless
 * the scope grew by the target's worth or more since: new cache came in
 * (a stream past a working set held at the effective target), which the
 * next round may take, and waiting for the interval's would let a 64 MiB/s
 * stream add 64 MiB a second.
 */
static bool still_stuck(const struct upcc_scope_state *state, const struct upcc_sample *sample)
{
	uint64_t grown = sample->unmapped_pages > state->stuck_unmapped_pages ?
			 sample->unmapped_pages - state->stuck_unmapped_pages : 0;

	return state->tick_blocked && (!state->policy.target_pages ||
				       grown < state->policy.target_pages);
}

int upcc_control_tick(struct upcc_scope_run *run, upcc_sample_fn sample_fn, uint64_t page_size,
		      uint64_t interval_usec, const struct upcc_round_limits *limits,
		      struct upcc_tick_report *report)
{
	struct upcc_scope_state *state = &run->state;
	uint64_t now = upcc_monotonic_usec();
	bool due = !state->last_round_usec || now - state->last_round_usec >= interval_usec;
	int err;

	memset(report, 0, sizeof(*report));
	if (state->last_round_usec && !state->round_pending) {
		struct upcc_sample sample;
		struct upcc_policy aim;

		err = take_tick_sample(run, sample_fn, &sample);
		if (err == -EOPNOTSUPP && !due)
			return 0;	/* nothing cheap to read: the interval's round */
		if (err != -EOPNOTSUPP) {
			state->counters.ticks_total++;
			report->sampled = true;
		}
		if (err && err != -EOPNOTSUPP) {
			report->error = err;
			if (!due)
				return 0;	/* the interval's round says why */
		} else if (!err) {
			state->measured_unix_usec = upcc_realtime_usec();
			report->unmapped = sample.unmapped_pages;
			aim = aim_for(state, &sample);
			/* Nothing read, opened or grown since the last refresh:
			 * a refresh would find the same, so even the interval's
			 * is left out (the idle cost is the tick's).
			 */
			if (due && sample.unchanged &&
			    (state->tick_blocked || !upcc_should_wake(&aim, sample.unmapped_pages)))
				return 0;
			if (!due && (still_stuck(state, &sample) ||
				     !upcc_should_wake(&aim, sample.unmapped_pages)))
				return 0;
			if (!due) {
				report->above_trigger = true;
				state->counters.tick_rounds_total++;
			}
		}
	}
	report->round = true;
	state->counters.rounds_total++;
	state->last_round_usec = now;
	err = upcc_control_round(run, sample_fn, page_size, limits, &report->round_report);
	state->round_pending = !err && (report->round_report.end == UPCC_ROUND_BUDGET ||
				       report->round_report.end == UPCC_ROUND_MAX_STEPS);
	/* Stuck above the target (nothing more comes off, a refusal): a tick
	 * would only refresh again for nothing; the interval's round retries.
	 */
	state->tick_blocked = err || report->round_report.end == UPCC_ROUND_NO_PROGRESS ||
			      report->round_report.end == UPCC_ROUND_STOPPED;
	/* A round that could not measure knows no level to grow from: blocked
	 * until the interval's round, not "grown from nothing" at every tick.
	 */
	state->stuck_unmapped_pages = err ? UINT64_MAX : report->round_report.last.unmapped_before;
	return err;
}
