/* SPDX-License-Identifier: GPL-2.0 */
/*
 * backend.h - how upcd acts: the mechanisms a stock kernel offers to drop
 * clean, unmapped page cache, cold pages first.
 *
 * Every backend obeys the same rules: never unmap a mapped page, never start
 * writeback of a dirty page, never swap.  A backend that cannot keep them on
 * this kernel does not probe as usable.
 */
#ifndef UPCC_BACKEND_H
#define UPCC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/scope.h"

struct upcc_backend;

/* A `why` holds a few mount paths and the backends passed over. */
#define UPCC_BACKEND_WHY_LEN 1024

/* What one reclaim call did. */
struct upcc_action_result {
	uint64_t requested_pages;
	uint64_t reclaimed_pages;	/* measured drop in the scope's unmapped pages,
					 * or the backend's own count where it has one */
	uint64_t scanned_items;		/* files, regions: what the backend looked at */
	uint64_t skipped_dirty;		/* files left alone because dirty/writeback */
	uint64_t elapsed_usec;
	/* CPU a kernel thread spent for the backend since its last step:
	 * the damon backend's kdamond (utime + stime), which works between
	 * steps too, and whose CPU is none of upcd's.
	 */
	uint64_t kernel_cpu_usec;
	int error;			/* 0 or a negative errno */
	/* Non-empty: the backend declined to act this step, and why (e.g.
	 * memcg while its scope has dirty pages).  Not an error: counted
	 * apart, in the run's refused_steps_total.
	 */
	char refused[160];
	/* Non-empty: what the backend works on changed this step (for
	 * fadvise, a disk mounted or unmounted); upcd logs it.
	 */
	char note[512];
	/* What the backend's own walk could not count (fadvise on the system
	 * scope, whose sample is /proc/meminfo's): upcd logs it as it does a
	 * path scope's sample's.
	 */
	uint64_t skipped_depth;		/* directories below the walk's depth cap */
	uint64_t skipped_raced;		/* entries that changed while walked */
	uint64_t walk_errors;		/* entries that could not be read */
};

struct upcc_backend_ops {
	const char *name;		/* "fadvise", "memcg", "damon", "dropcache" */
	/*
	 * Can this backend act on @scope on this kernel?  Fills @why (a short
	 * human sentence for `upcc status`) either way.  0 if usable, else a
	 * negative errno.  Must not change any system state.
	 */
	int (*probe)(const struct upcc_scope *scope, char *why, size_t why_len);
	int (*init)(struct upcc_backend *backend, const struct upcc_scope *scope);
	/*
	 * Ask for @nr_pages of the scope's clean unmapped cache, coldest first.
	 * @round numbers the control round the call belongs to (steps of one
	 * round share it): a backend may reuse, within a round, what it
	 * learnt for the round's first step.
	 */
	int (*reclaim)(struct upcc_backend *backend, const struct upcc_scope *scope,
		       uint64_t round, uint64_t nr_pages, struct upcc_action_result *result);
	void (*fini)(struct upcc_backend *backend);
	/*
	 * Optional: measure @scope from what the backend refreshes for its own
	 * work anyway, when that is as complete as upcc_measure() (fadvise on
	 * a path scope: the inventory measured every file of the tree), so a
	 * step passes over the scope once, not twice.  The next reclaim() then
	 * works on that refresh.  -EOPNOTSUPP: use upcc_measure().
	 */
	int (*sample)(struct upcc_backend *backend, const struct upcc_scope *scope,
		      uint64_t round, struct upcc_sample *sample);
	/*
	 * Optional: the sampling tick's cheap sample (control.h), from what
	 * the backend knows without a walk (fadvise on a path scope: the
	 * inventory's known files through cachestat).  -EOPNOTSUPP: the
	 * scope's own sample if that is cheap (not a path scope), else none.
	 */
	int (*tick_sample)(struct upcc_backend *backend, const struct upcc_scope *scope,
			   struct upcc_sample *sample);
	/*
	 * Optional, after init: line @index of what the backend works on (for
	 * fadvise, one inventory root per line), for upcd to log whole; `why`
	 * is a summary that may be cut.  False past the last line.
	 */
	bool (*detail)(const struct upcc_backend *backend, size_t index, char *line, size_t len);
	/*
	 * The kernel mechanism may unmap cold mapped file pages (memcg's
	 * memory.reclaim runs reclaim with may_unmap=1): it breaks "never
	 * unmap", so auto never picks it; only an explicit name does.
	 */
	bool may_unmap;
	/* Order for auto, lower first (see docs/backends.md for why). */
	int auto_rank;
};

struct upcc_backend {
	const struct upcc_backend_ops *ops;
	void *priv;
	char why[UPCC_BACKEND_WHY_LEN];	/* why this one was chosen (auto) */
	bool dry_run;			/* decide and report, reclaim nothing */
	bool allow_dropcache;		/* the crude baseline needs an explicit yes */
	uint64_t damon_min_age_ms;	/* damon: unused this long before it is cold */
};

/* Look a backend up by name ("auto" is not one: see upcc_backend_select). */
const struct upcc_backend_ops *upcc_backend_find(const char *name);

/*
 * The opening and the close every ops->reclaim shares: the result zeroed
 * with the request in it and the clock started; false when there is
 * nothing to do (no pages, or a dry run: control.c never calls reclaim in
 * one, a direct caller such as a test may).  _end times it and records
 * @err, which it returns.
 */
bool upcc_reclaim_begin(const struct upcc_backend *backend, uint64_t nr_pages,
			struct upcc_action_result *result, uint64_t *start_usec);
int upcc_reclaim_end(struct upcc_action_result *result, uint64_t start_usec, int err);

/*
 * Pick the backend for @scope: @name, or for "auto" the best that probes as
 * usable, in the order the benchmark (bench/) measured as best.  Fills
 * backend->why.  0 or a negative errno.  Only probes: the caller then calls
 * ops->init (and later ops->fini); backend->dry_run and ->allow_dropcache
 * are read, so set them first.
 */
int upcc_backend_select(struct upcc_backend *backend, const char *name,
			const struct upcc_scope *scope);

/* Every registered backend, NULL-terminated, in auto order. */
extern const struct upcc_backend_ops *const upcc_backends[];

extern const struct upcc_backend_ops upcc_backend_fadvise;
extern const struct upcc_backend_ops upcc_backend_memcg;
extern const struct upcc_backend_ops upcc_backend_damon;
extern const struct upcc_backend_ops upcc_backend_dropcache;

#endif /* UPCC_BACKEND_H */
