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

/* The scope's own backend, else the config's. */
static const char *backend_name_of(const struct upcc_config *config,
				   const struct upcc_config_scope *entry)
{
	return entry->backend_name[0] ? entry->backend_name : config->backend_name;
}

/* The length of an exclude list: its strings and the empty one that ends it. */
static size_t exclude_len(const char *list, size_t size)
{
	size_t at = 0;

	while (at < size && list[at]) {
		size_t len = strnlen(list + at, size - at);

		at += len + 1;
	}
	return at < size ? at + 1 : size;
}

/*
 * Does the running backend of @old work on exactly what @run's would, with
 * the same settings?  Only the policy (target, trigger, steps) may differ:
 * the backend does not read it.  Names, kinds, trees and excludes must be
 * the same, and the backend must be running (never in a dry run).
 */
static bool backend_same(const struct upcc_scope_run *old, const struct upcc_config *config,
			 const struct upcc_config_scope *entry, bool dry_run)
{
	const struct upcc_scope *a = &old->scope, *b = &entry->scope;
	size_t len = exclude_len(a->exclude, sizeof(a->exclude));

	return old->backend_initialised && !dry_run &&
	       strcmp(old->backend_name, backend_name_of(config, entry)) == 0 &&
	       strcmp(a->name, b->name) == 0 && a->kind == b->kind && a->node_id == b->node_id &&
	       strcmp(a->path, b->path) == 0 && a->cross_mounts == b->cross_mounts &&
	       len == exclude_len(b->exclude, sizeof(b->exclude)) &&
	       memcmp(a->exclude, b->exclude, len) == 0 &&
	       old->backend.allow_dropcache == config->allow_dropcache &&
	       old->backend.damon_min_age_ms == config->damon_min_age_ms;
}

/* The old run whose backend @entry's run can take over, or NULL. */
static struct upcc_scope_run *backend_to_keep(const struct upcc_config *config,
					      const struct upcc_config_scope *entry,
					      struct upcc_scope_run *old_runs, size_t nr_old,
					      bool dry_run)
{
	for (size_t i = 0; i < nr_old; i++)
		if (backend_same(&old_runs[i], config, entry, dry_run))
			return &old_runs[i];
	return NULL;
}

/*
 * A reload that leaves a scope's backend as it was keeps the backend
 * running: what it learnt is the point of some of them (DAMON's access
 * history, the inventory's files and working set), and a new one would
 * start from nothing.  The old run gives it up, so releasing it later
 * releases nothing.
 */
static void keep_backend(struct upcc_scope_run *run, struct upcc_scope_run *old)
{
	run->backend = old->backend;
	run->backend_initialised = true;
	run->backend_ready = true;
	old->backend_initialised = false;
	old->backend_ready = false;
	upcc_log(LOG_INFO, "scope %s: backend %s kept across the reload, with what it learnt",
		 run->scope.name, run->backend.ops->name);
}

void upcc_runs_release_changed(const struct upcc_config *config, struct upcc_run_mode mode,
			       struct upcc_scope_run *old_runs, size_t nr_old)
{
	for (size_t i = 0; i < nr_old; i++) {
		bool kept = false;

		for (size_t j = 0; j < config->nr_scopes && !kept; j++)
			kept = backend_same(&old_runs[i], config, &config->scopes[j], mode.dry_run);
		if (!kept)
			upcc_run_release(&old_runs[i]);
	}
}

int upcc_runs_build(const struct upcc_config *config, struct upcc_run_mode mode,
		    struct upcc_scope_run *old_runs, size_t nr_old,
		    struct upcc_scope_run **runs_out)
{
	struct upcc_scope_run *runs = calloc(config->nr_scopes, sizeof(*runs));
	size_t ready = 0;

	*runs_out = NULL;
	if (!runs)
		return -ENOMEM;
	for (size_t i = 0; i < config->nr_scopes; i++) {
		const struct upcc_config_scope *entry = &config->scopes[i];

		struct upcc_scope_run *old;

		runs[i].scope = entry->scope;
		snprintf(runs[i].backend_name, sizeof(runs[i].backend_name), "%s",
			 backend_name_of(config, entry));
		carry_state(&runs[i], old_runs, nr_old);
		/* --once reclaims now: as if kswapd had just been woken. */
		if (mode.once)
			runs[i].state.phase = UPCC_PHASE_RECLAIMING;
		old = backend_to_keep(config, entry, old_runs, nr_old, mode.dry_run);
		if (old)
			keep_backend(&runs[i], old);
		else
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
