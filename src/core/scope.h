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

#include "size.h"

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
	uint64_t skipped_excluded;	/* entries under "exclude =", not entered */
	/* Working set (wset.h), where the backend measures it (fadvise). */
	uint64_t hot_pages;		/* cached pages of files protected: they refaulted */
	uint64_t refaulted_pages;	/* dropped pages that came back since the last sample */
	uint64_t hot_items;		/* the files and ranges hot_pages is of */
	uint64_t unheld_pages;		/* working set past what the scope may hold */
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
	/* The working set's raise above the target at most (wset.h). */
	struct upcc_amount wset_cap;	/* default: 4 x target */
	bool wset_cap_is_ratio;		/* given as "Nx" of target */
	unsigned int wset_cap_ratio;	/* the N of "Nx"; default 4, 0 = no raise */
};

/*
 * A scope: what it is and its settings, as config.c makes it; constant
 * afterwards.  What the control learns of it while upcd runs is the run's
 * (control/scoperun.h, struct upcc_scope_state).
 */
struct upcc_scope {
	enum upcc_scope_kind kind;
	char name[64];			/* "system", "node0", "cgroup:work", "path:/srv" */
	int node_id;			/* UPCC_SCOPE_NODE */
	char path[PATH_MAX];		/* cgroup directory or tree root */
	bool cross_mounts;		/* UPCC_SCOPE_PATH: walk into other mounts (bind mounts too) */
	/* UPCC_SCOPE_PATH: what "exclude =" names, relative to path, each
	 * NUL-ended, an empty one last ("" alone: none).  Never walked,
	 * never learnt, so never evicted (upcc_scope_excluded).
	 */
	char exclude[PATH_MAX];
	struct upcc_scope_config config;
};

/*
 * Is @rel (a path relative to the scope's root, "a/b", no "." or "..",
 * no doubled or trailing '/') one of @exclude's (upcc_scope.exclude) or
 * below one?  Compared as text: a symlink is never followed to tell.
 */
bool upcc_scope_excluded(const char *exclude, const char *rel);

/*
 * The part of @path (absolute) below @root (absolute), as
 * upcc_scope_excluded takes it, into @rel: 0; -EINVAL for a ".." in
 * either or @path not strictly below @root; -ENAMETOOLONG.  Spelling is
 * forgiven ("//", "/./", a trailing '/').
 */
int upcc_scope_relative(const char *root, const char *path, char *rel, size_t size);

/* "system", "node", "cgroup", "path"; and back (0 or -EINVAL). */
const char *upcc_scope_kind_name(enum upcc_scope_kind kind);
int upcc_scope_kind_parse(const char *name, enum upcc_scope_kind *kind);

/*
 * Are @a and @b two path scopes, or two cgroup scopes, whose paths are
 * one directory spelled differently ("/d1", "/d1/", "//d1/./")?  Two
 * controllers would then measure and evict the same pages.  ".." is left
 * as written: "/a/link/.." is not "/a" when link is a symlink, which only
 * the filesystem can tell (upcd resolves the roots at start-up,
 * upcd/fscheck.h).
 */
bool upcc_scope_same_root(const struct upcc_scope *a, const struct upcc_scope *b);

#endif /* UPCC_SCOPE_H */
