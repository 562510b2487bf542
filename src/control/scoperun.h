/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scoperun.h - a scope as upcd runs it: the scope (its settings, constant),
 * its backend, and what the control learns while it runs; runs chosen,
 * started, carried over a reload, released.
 */
#ifndef UPCC_SCOPERUN_H
#define UPCC_SCOPERUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "act/backend.h"
#include "core/config.h"
#include "core/policy.h"
#include "core/wset.h"

/* What a scope's run has done since upcd started (a reload keeps them). */
struct upcc_scope_counters {
	uint64_t reclaimed_pages_total;	/* what actions reported dropping */
	uint64_t actions_total;
	uint64_t action_errors_total;
	uint64_t action_usec_total;	/* wall time spent acting */
	uint64_t refused_steps_total;	/* steps the backend declined (result.refused) */
	uint64_t kernel_cpu_usec_total;	/* the backend's kernel thread (kdamond) */
	uint64_t ticks_total;		/* sampling ticks: cheap samples taken */
	uint64_t rounds_total;		/* control rounds (each refreshes the scope) */
	uint64_t tick_rounds_total;	/* of those, started by a tick above the trigger */
};

/* What the control learns of a scope while it runs, and only the control writes. */
struct upcc_scope_state {
	enum upcc_phase phase;		/* the seed's hysteresis: a reload keeps it */
	struct upcc_policy policy;	/* the config resolved against the last sample */
	struct upcc_sample last;	/* the last step's sample */
	struct upcc_scope_counters counters;
	/* The effective target (wset.h): the target, raised while the
	 * scope's refaulting working set does not fit in it.
	 */
	struct upcc_wset wset;
	uint64_t effective_target_pages;
	/* The last step's sample: 0 if it measured the scope, else why not
	 * (negative errno); and when a step or a tick's sample last measured
	 * it (wall clock, microseconds since the epoch; 0 = never): an idle
	 * scope whose tick finds nothing changed gets no round, and is no
	 * less watched.  The metrics' upcc_scope_up and
	 * upcc_last_round_timestamp_seconds.
	 */
	int sample_error;
	uint64_t measured_unix_usec;
	/* Which round the steps belong to, numbered by upcc_control_round:
	 * the backend's @round (backend.h), whoever starts the round (a
	 * tick, --once, a test).
	 */
	uint64_t round;
	/* The sampling tick (control.h, upcc_control_tick). */
	uint64_t last_round_usec;	/* monotonic; 0 = never */
	bool round_pending;		/* the last round ran out of time: go on */
	bool tick_blocked;		/* the last round could not reach the target:
					 * no tick round before the interval's ... */
	uint64_t stuck_unmapped_pages;	/* ... unless the scope grew a target's worth
					 * past what that round left */
};

/* A scope as the daemon runs it: the scope, its state, the backend acting on it. */
struct upcc_scope_run {
	struct upcc_scope scope;	/* as configured: the control never writes it */
	struct upcc_scope_state state;
	char backend_name[UPCC_BACKEND_NAME_LEN];	/* asked for: "auto", ... */
	struct upcc_backend backend;
	bool backend_ready;		/* selected (and, unless dry run, initialised) */
	bool backend_initialised;	/* ops->init succeeded: fini is owed */
	char backend_error[UPCC_BACKEND_WHY_LEN + 128];	/* why not, when !backend_ready */
};

/* How the runs of a config are set up. */
struct upcc_run_mode {
	bool dry_run;			/* select backends, start none */
	bool once;			/* every scope starts reclaiming */
};

/*
 * A run for every scope of @config, into *@runs_out (config->nr_scopes of
 * them, freed with upcc_runs_free even on error).  Scopes also in
 * @old_runs (a reload) keep their counters and phase, found by name, and
 * an old backend that works on exactly the same scope with the same
 * settings is taken over, running, with what it learnt (DAMON's access
 * history, the inventory): the old run no longer holds it.  0, or -ENODEV
 * if a scope has no usable backend (never in a dry run), -ENOMEM.
 */
int upcc_runs_build(const struct upcc_config *config, struct upcc_run_mode mode,
		    struct upcc_scope_run *old_runs, size_t nr_old,
		    struct upcc_scope_run **runs_out);

/*
 * Before a reload builds its runs: let go of the old backends @config will
 * not take over, so that two backends (two inventories, two DAMON
 * contexts) for one scope never coexist.
 */
void upcc_runs_release_changed(const struct upcc_config *config, struct upcc_run_mode mode,
			       struct upcc_scope_run *old_runs, size_t nr_old);

/* Choose and (unless dry run) initialise @run's backend; logs the outcome. */
void upcc_run_setup(struct upcc_scope_run *run, const struct upcc_config *config, bool dry_run);

/* Let go of @run's backend (fini if init succeeded). */
void upcc_run_release(struct upcc_scope_run *run);

/* Release and free @nr_runs runs; NULL is fine. */
void upcc_runs_free(struct upcc_scope_run *runs, size_t nr_runs);

#endif /* UPCC_SCOPERUN_H */
