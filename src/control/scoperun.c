// SPDX-License-Identifier: GPL-2.0
/*
 * scoperun.c - each scope's backend run in upcd; see scoperun.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "scoperun.h"

void upcc_run_release(struct upcc_scope_run *run)
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

void upcc_run_setup(struct upcc_scope_run *run, const struct upcc_config *config, bool dry_run)
{
	struct upcc_backend *backend = &run->backend;
	int err;

	memset(backend, 0, sizeof(*backend));
	backend->dry_run = dry_run;
	backend->allow_dropcache = config->allow_dropcache;
	backend->damon_min_age_ms = config->damon_min_age_ms;
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

/*
 * A scope carried over a reload, found by name, keeps its counters (the
 * metrics are counters: they never go back) and its phase (a reload in
 * the middle of reclaiming goes on to the target, as the seed's
 * hysteresis would), and when it was last measured (the metrics'
 * timestamp must not fall back to "never" until the next round).  The
 * rest it learns again: the policy and the effective target from the
 * new settings, at its first step.
 */
static void carry_state(struct upcc_scope_run *run, const struct upcc_scope_run *old_runs,
			size_t nr_old)
{
	for (size_t i = 0; i < nr_old; i++) {
		if (strcmp(old_runs[i].scope.name, run->scope.name) == 0) {
			run->state.counters = old_runs[i].state.counters;
			run->state.phase = old_runs[i].state.phase;
			run->state.sample_error = old_runs[i].state.sample_error;
			run->state.measured_unix_usec = old_runs[i].state.measured_unix_usec;
		}
	}
}

int upcc_runs_build(const struct upcc_config *config, struct upcc_run_mode mode,
		    const struct upcc_scope_run *old_runs, size_t nr_old,
		    struct upcc_scope_run **runs_out)
{
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
		carry_state(&runs[i], old_runs, nr_old);
		/* --once reclaims now: as if kswapd had just been woken. */
		if (mode.once)
			runs[i].state.phase = UPCC_PHASE_RECLAIMING;
		upcc_run_setup(&runs[i], config, mode.dry_run);
		ready += runs[i].backend_ready;
	}
	*runs_out = runs;
	return ready == config->nr_scopes || mode.dry_run ? 0 : -ENODEV;
}

void upcc_runs_free(struct upcc_scope_run *runs, size_t nr_runs)
{
	if (!runs)
		return;
	for (size_t i = 0; i < nr_runs; i++)
		upcc_run_release(&runs[i]);
	free(runs);
}
