/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scope.h - what upcd controls: a set of page cache it can measure and act on.
 *
 * A scope is the whole system, one NUMA node, one cgroup v2, or one directory
 * tree.  Each is measured the way the kernel's node_unmapped_file_pages()
 * measures a node: file LRU pages minus mapped file pages, clamped at 0.
 */
#ifndef UPCC_SCOPE_H
#define UPCC_SCOPE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "policy.h"
#include "size.h"
#include "wset.h"

enum upcc_scope_kind {
	UPCC_SCOPE_SYSTEM,	/* /proc/meminfo */
	UPCC_SCOPE_NODE,	/* /sys/devices/system/node/nodeN/meminfo */
	UPCC_SCOPE_CGROUP,	/* <cgroup>/memory.stat */
	UPCC_SCOPE_PATH,	/* the page cache of a directory tree's files */
};

/* One measurement of a scope, in pages. */
struct upcc_sample {
	uint64_t total_pages;		/* the scope's memory: what "%" is of */
	uint64_t file_lru_pages;	/* Active(file) + Inactive(file) */
	uint64_t mapped_pages;		/* Mapped / file_mapped */
	uint64_t unmapped_pages;	/* upcc_unmapped_file_pages(file_lru, mapped) */
	uint64_t dirty_pages;
	uint64_t writeback_pages;
	uint64_t free_pages;		/* MemFree where the scope has one, else 0 */
	/* A path scope's walk: what it could not count (upcd logs it). */
	uint64_t skipped_depth;		/* directories below the walk's depth cap */
	uint64_t skipped_raced;		/* entries that changed while walked */
	uint64_t walk_errors;		/* entries that could not be read */
	/* Working set (efftarget.h), where the backend measures it (fadvise). */
	uint64_t hot_pages;		/* cached pages of files protected: they refaulted */
	uint64_t refaulted_pages;	/* dropped pages that came back since the last sample */
	bool hot_in_use;		/* a protected file refaulted or was read again */
	bool unchanged;			/* tick sample: nothing opened, read or grown since
					 * the last refresh (a refresh would find the same) */
};

/* Per-scope settings, as the config file and command line give them. */
struct upcc_scope_config {
	struct upcc_amount target;	/* default: 1% (min_unmapped_ratio) */
	struct upcc_amount trigger;	/* default: 16 x target */
	bool trigger_is_ratio;		/* trigger given as "Nx" of target */
	unsigned int trigger_ratio;	/* the N of "Nx"; default 16 */
	unsigned int step_shift;	/* default 3: ask for excess >> 3 */
	struct upcc_amount max_step;	/* cap per step; value 0 = none */
};

/*
 * A scope's run-time counters and phase, owned by the control loop: one
 * list, so that the named struct (assigned whole) and the anonymous one
 * (read field by field) below are the same members.
 */
#define UPCC_SCOPE_COUNTERS \
	enum upcc_phase phase; \
	uint64_t reclaimed_pages_total;	/* what actions reported dropping */ \
	uint64_t actions_total; \
	uint64_t action_errors_total; \
	uint64_t action_usec_total;	/* wall time spent acting */ \
	uint64_t refused_steps_total;	/* steps the backend declined (result.refused) */ \
	uint64_t ticks_total;		/* sampling ticks: cheap samples taken */ \
	uint64_t rounds_total;		/* control rounds (each refreshes the scope) */ \
	uint64_t tick_rounds_total;	/* of those, started by a tick above the trigger */

struct upcc_scope {
	enum upcc_scope_kind kind;
	char name[64];			/* "system", "node0", "cgroup:work", "path:/srv" */
	int node_id;			/* UPCC_SCOPE_NODE */
	char path[PATH_MAX];		/* cgroup directory or tree root */
	bool cross_mounts;		/* UPCC_SCOPE_PATH: walk into other filesystems */
	struct upcc_scope_config config;

	/* Run-time state, owned by the daemon's control loop. */
	struct upcc_policy policy;	/* config resolved against the last sample */
	struct upcc_sample last;
	/* What a reload carries over: scope->counters = old->counters, and
	 * each read by its name (scope->actions_total).
	 */
	union {
		struct upcc_scope_counters { UPCC_SCOPE_COUNTERS } counters;
		struct { UPCC_SCOPE_COUNTERS };
	};
	/* The effective target (efftarget.h): the target, raised while the
	 * scope's refaulting working set does not fit in it.
	 */
	struct upcc_wset wset;
	uint64_t effective_target_pages;
	/* The sampling tick (control.h, upcc_control_tick). */
	uint64_t last_round_usec;	/* monotonic; 0 = never */
	bool round_pending;		/* the last round ran out of time: go on */
	bool tick_blocked;		/* the last round could not reach the target:
					 * no tick round before the interval's */
};

/* "system", "node", "cgroup", "path"; and back (0 or -EINVAL). */
const char *upcc_scope_kind_name(enum upcc_scope_kind kind);
int upcc_scope_kind_parse(const char *name, enum upcc_scope_kind *kind);

#endif /* UPCC_SCOPE_H */
