/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scoperun.h - each scope's backend run in upcd: chosen, started, carried
 * over a reload, released.
 */
#ifndef UPCC_SCOPERUN_H
#define UPCC_SCOPERUN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/config.h"
#include "control.h"

/* How the runs of a config are set up. */
struct upcd_run_mode {
	bool dry_run;			/* select backends, start none */
	bool once;			/* every scope starts reclaiming */
};

/*
 * A run for every scope of @config, into *@runs_out (config->nr_scopes of
 * them, freed with upcd_runs_free even on error).  Scopes also in
 * @old_runs (a reload) keep their counters, found by name.  0, or -ENODEV
 * if a scope has no usable backend (never in a dry run), -ENOMEM.
 */
int upcd_runs_build(const struct upcc_config *config, struct upcd_run_mode mode,
		    const struct upcc_scope_run *old_runs, size_t nr_old,
		    struct upcc_scope_run **runs_out);

/* Choose and (unless dry run) initialise @run's backend; logs the outcome. */
void upcd_run_setup(struct upcc_scope_run *run, const struct upcc_config *config, bool dry_run);

/* Let go of @run's backend (fini if init succeeded). */
void upcd_run_release(struct upcc_scope_run *run);

/* Release and free @nr_runs runs; NULL is fine. */
void upcd_runs_free(struct upcc_scope_run *runs, size_t nr_runs);

#endif /* UPCC_SCOPERUN_H */
