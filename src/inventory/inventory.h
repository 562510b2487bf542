/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inventory.h - the cached files of a scope, coldest first, in bounded memory.
 *
 * A fixed-capacity table keyed by (dev, ino), kept by refreshes.  A
 * refresh walks the scope's tree (sys/walk.h) only when it must: the
 * first, every UPCC_INVENTORY_REWALK_EVERY-th, all without fanotify, and
 * any after fanotify lost track (enum upcc_inv_walk_why).  The others
 * learn the files opened since from fanotify (sys/fanotify.h) and measure
 * again those the table knows that can have changed.  Each file measured
 * (sys/residency.h) updates the table; files with no cached pages are not
 * kept.
 *
 * Coldness is "scans in a row in which the file's cached pages did not
 * grow and its atime did not move": a file that is being read keeps
 * growing or has its pages refaulted in, a file nobody touches only ever
 * shrinks.  Ties go to the older atime, then to the larger cache (more
 * pages per syscall).  When the table is full the half with the fewest
 * cached pages is dropped: the files that matter to reclaim are the big
 * ones.
 *
 * Files some process maps (from /proc/PID/maps) are counted as mapped and
 * never evicted.
 */
#ifndef UPCC_INVENTORY_H
#define UPCC_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sys/evict.h"
#include "sys/fanotify.h"
#include "lib/idset.h"
#include "sys/mapped.h"
#include "sys/residency.h"
#include "core/scope.h"
#include "core/wset.h"
#include "ranges.h"
#include "sys/walk.h"

#define UPCC_INVENTORY_DEFAULT_CAPACITY	65536u

struct upcc_inventory_entry {
	dev_t dev;
	ino_t ino;
	uint64_t cached_pages;		/* at the last refresh */
	uint64_t file_pages;
	int64_t atime_sec;
	uint32_t idle_scans;		/* coldness: refreshes without use */
	uint32_t seen_scan;		/* refresh number that last saw it */
	uint32_t measured_scan;		/* ... and that last measured it */
	bool dirty;			/* dirty or under writeback then */
	bool mapped;
	char *path;			/* as the walk reached it */
	/* Working set: what upcd last dropped of it, watched for refaults. */
	uint64_t drop_watch_pages;	/* pages [0, this) watched for refaults; 0 = none */
	uint64_t drop_pages;		/* how many were dropped */
	uint64_t drop_left_pages;	/* cached in [0, watch) right after the drop */
	uint32_t drop_scan;		/* the refresh it was dropped in */
	uint64_t drop_after_pages;	/* cached right after its last drop */
	uint64_t hot_until_usec;	/* protected (refaulted) until then, monotonic */
	uint32_t opened_scan;		/* a fanotify open event named it then */
	struct upcc_wset_drop drop;	/* when it was dropped, by both clocks */
	uint64_t wset_distance;		/* its refault distance, when it proved hot */
	uint64_t inflow_seen_pages;	/* its cache as last measured (refresh, tick or drop):
					 * what the inflow last counted */
	uint64_t tick_next_usec;	/* the tick measures it again from then on */
	bool active;			/* grew at the last refresh, or an event since:
					 * the tick measures it again */
	/* A large file in use is judged range by range (ranges.h): its
	 * ranges' state, made at its first drop while hot; NULL before.
	 */
	struct upcc_ranges *ranges;
};

/* A refresh that does not walk takes a known file that nothing can have
 * grown (no event, no growth, the same size) as it was last measured: one
 * stat instead of a measure.  What the kernel's reclaim took from it since
 * is only seen by a measure, so one is made at least every this many
 * refreshes.
 */
#define UPCC_INVENTORY_REMEASURE_SCANS	8u
/* A file's drop is watched for refaults until more than the scope may
 * hold came in since (core/wset.h), and this many refreshes and
 * UPCC_WSET_WATCH_USEC at most; a file that came back in them at a refault
 * distance within the hold is hot, never evicted for UPCC_WSET_HOT_USEC
 * after its last refault or use.
 */
#define UPCC_INVENTORY_DROP_WATCH_SCANS	64u
/* A file still being read is dropped only below half of where its cache
 * ends (its reader and readahead are near the end), and only once it
 * holds twice this much (8 MiB).  In bytes, as readahead is sized
 * (read_ahead_kb); drop.c counts it in pages of upcc_page_size().
 */
#define UPCC_INVENTORY_READAHEAD_BYTES	(4ull << 20)
/* A file an open event named is kept with no cache yet until this many
 * refreshes after the one its open was noted in, so that the sampling
 * tick sees a stream read into it before it is closed.
 */
#define UPCC_INVENTORY_OPENED_KEEP_SCANS	2u
/* The working set counts as in use (core/wset.h) this long after its last use. */
#define UPCC_INVENTORY_IN_USE_USEC	(2ull * 1000 * 1000)

/* What one refresh saw, summed over the tree's files, in pages. */
struct upcc_inventory_totals {
	struct upcc_residency_sum sum;	/* every file measured */
	uint64_t elapsed_usec;
	struct upcc_walk_stats walk;
	uint64_t hot_pages;		/* cached pages of protected (hot) files */
	uint64_t refaulted_pages;	/* dropped pages found back this refresh */
	uint64_t hot_files;
	uint64_t hot_items;		/* files and ranges held as working set */
	uint64_t unheld_pages;		/* working set past the hold: not protected */
	bool hot_in_use;		/* a hot file refaulted or was used again */
};

/* Walk anyway every this many refreshes: a file kept open and read for
 * long sends no close event, and other filesystems are not marked.
 * Roots whose filesystem could not be marked are walked every refresh.
 */
#define UPCC_INVENTORY_REWALK_EVERY	64u

/* Without fanotify (a path scope whose root is not a mount point) every
 * refresh would walk the whole tree: 1-2 s of CPU a refresh at 200 000
 * files.  Such walks are paced by what they cost: the next one waits
 * until the last one's CPU time is at most 1/UPCC_INVENTORY_WALK_PACE of
 * the time since it began (0.5%, so that with the rounds between walks
 * an idle scope stays under 1% of a core), and
 * UPCC_INVENTORY_WALK_GAP_MAX_USEC at most.  A refresh in between does not walk: its totals are the last
 * walk's less what upcd dropped since, and what was read in since is seen
 * at the next walk.
 */
#define UPCC_INVENTORY_WALK_PACE	200u
#define UPCC_INVENTORY_WALK_GAP_MAX_USEC (5ull * 60 * 1000 * 1000)
/* A walk cheaper than this is not paced: at the default 1 s interval it
 * costs 1% of a core at most, and a small tree is seen at every refresh.
 */
#define UPCC_INVENTORY_WALK_PACE_MIN_USEC (10ull * 1000)

/* A measure costs in proportion to the file's cache (cachestat walks its
 * pages), and the tick runs ten times a second: a file measured (by the
 * tick, a refresh or a drop: upcc_inv_measured) is measured by the tick
 * again only this long per MiB it holds later (a stream's 8 MiB window at
 * every 100 ms tick, a database's 256 MiB of relation file about once a
 * second at most, and not when a refresh measured it meanwhile).
 */
#define UPCC_INVENTORY_TICK_USEC_PER_MIB	4000u

/* Without fanotify the tick measures every file of the table: it does
 * so only for a table this small (and then keeps uncached files in it).
 */
#define UPCC_INVENTORY_TICK_MAX_FILES	4096u

/* A drain of fanotify's queue (the refresh's and the tick's) reads at most
 * this many events per entry the table holds: a file's open and its close
 * can come as two events, so about a table's worth of files; on a busy
 * filesystem the rest wait for the next drain.
 */
#define UPCC_INVENTORY_DRAIN_EVENTS_PER_ENTRY	2u

/* /proc/PID/maps of every process is read again at most this often: it
 * was a fifth of upcd's CPU on W5 at every 2 s, and what it decides is
 * small (DONTNEED never drops a mapped page; the set only keeps mapped
 * files out of the count and the order).
 */
#define UPCC_INVENTORY_MAPPED_RELOAD_USEC	(10ull * 1000 * 1000)

/* Why a refresh walked every root (fanotify learns the files otherwise). */
enum upcc_inv_walk_why {
	UPCC_INV_WALK_NONE,		/* it did not */
	UPCC_INV_WALK_NO_FANOTIFY,	/* every refresh walks */
	UPCC_INV_WALK_FIRST,
	UPCC_INV_WALK_PERIODIC,		/* every UPCC_INVENTORY_REWALK_EVERY-th */
	UPCC_INV_WALK_MOUNTS,		/* the system scope's mounts changed */
	/* Lost track: what fanotify reported is not the whole story. */
	UPCC_INV_WALK_INTERRUPTED,	/* the last refresh was */
	UPCC_INV_WALK_TABLE_FULL,	/* it forgot files */
	UPCC_INV_WALK_OVERFLOW,		/* the fanotify queue overflowed */
};

/* "the fanotify queue overflowed", for logs. */
const char *upcc_inv_walk_why_name(enum upcc_inv_walk_why why);

struct upcc_inventory {
	char root[PATH_MAX];		/* the path scope's root, or "mounts" */
	/* The trees walked: the path scope's root, or one root per local
	 * disk mount of the system scope (walked as its own root, never
	 * across mounts), each as fanotify marks it.
	 */
	struct upcc_fanotify_root *roots;
	char **listed;			/* system scope: each root's mount point as
					 * mountinfo has it (else NULLs) */
	size_t nr_roots;
	bool from_mounts;		/* roots are the system scope's mounts */
	uint64_t root_errors;		/* system scope: mounts that failed to walk */
	/* Roots came from upcc_mounts_load(): every refresh reloads it, so
	 * mounts made or gone since start join or leave.  Set by the caller.
	 */
	bool follow_mount_table;
	uint64_t mounts_joined;		/* system scope: mounted since start, now roots */
	uint64_t mounts_left;		/* system scope: roots unmounted since start */
	char roots_changed[512];	/* the last refresh's: "mounted /a; unmounted /b" */
	bool root_gone;			/* path scope: its root was unmounted (the
					 * refresh fails until it is back) */
	bool root_back;			/* ... it is back: the next refresh says so */
	struct upcc_walk_options walk_options;
	char exclude[PATH_MAX];		/* path scope: upcc_scope.exclude ("": none) */
	size_t capacity;
	size_t count;
	struct upcc_inventory_entry *entries;
	uint32_t *slots;		/* open-addressing index: entry + 1, 0 = empty */
	size_t nr_slots;		/* power of two, >= 2 x capacity */
	uint32_t scan;
	uint64_t dropped_full;		/* entries given up because the table was full */
	uint64_t dropped_since_walk;	/* of those, since the last walk of every root */
	/* Why the last refresh walked every root whole; NONE: it did not. */
	enum upcc_inv_walk_why walk_why;
	uint64_t overflows_at_walk;	/* fan.overflows when that walk began */
	struct upcc_mapped_set mapped;
	struct upcc_inventory_totals last;
	struct upcc_fanotify fan;	/* learning: fanotify.h; fd -1 without */
	uint64_t walks;			/* refreshes that walked the tree */
	uint64_t events_at_refresh;	/* fan.events when the last refresh ended */
	uint64_t hot_used_usec;		/* a hot file last refaulted or was used, monotonic */
	uint64_t mapped_loaded_usec;	/* when `mapped` was last read from /proc */
	uint64_t total_pages;		/* MemTotal at the last sample, for the tick */
	/* The working set by refault distance (core/wset.h): the pages seen
	 * entering the scope's cache so far (each file's growth between two
	 * measures, and before each drop), and what the scope may hold, set
	 * by the caller before each refresh (UINT64_MAX until then).
	 */
	uint64_t inflow_pages;
	uint64_t wset_hold_pages;
	/* Walks without fanotify, paced (UPCC_INVENTORY_WALK_PACE). */
	uint64_t walk_started_usec;	/* monotonic, when the last walk began */
	uint64_t walk_cpu_usec;		/* the CPU time its refresh took */
	uint64_t walks_paced;		/* refreshes that did not walk for it */
	bool paced;			/* the last refresh was one */
};

/* 0 or -errno.  @capacity 0 = default.  Tries fanotify learning unless
 * upcc_hooks.no_fanotify is set (then, or if the kernel or privileges do not
 * allow it, every refresh walks).
 */
int upcc_inventory_init(struct upcc_inventory *inv, const char *root, bool cross_mounts,
			size_t capacity);

/* The system and node scopes: one root per mount of @mounts (see
 * upcc_mounts_load), each walked without crossing into other mounts, each
 * filesystem fanotify-marked once.  No mounts is not an error: the
 * inventory is then empty.  0 or -errno.
 */
/*
 * The path scope's "exclude =" (upcc_scope.exclude, copied): never
 * walked into, nor learnt from fanotify, so never in the table to evict.
 * After upcc_inventory_init, before the first refresh.
 */
void upcc_inventory_set_exclude(struct upcc_inventory *inv, const char *exclude);

int upcc_inventory_init_mounts(struct upcc_inventory *inv, const struct upcc_mount_list *mounts,
			       size_t capacity);
void upcc_inventory_fini(struct upcc_inventory *inv);

/* Update the table and inv->last: walk the tree when it must (above,
 * inv->walk_why says why), else re-measure the known files that can have
 * changed and add those fanotify reported.  inv->last then covers the
 * files the table knows.  0 or -errno.
 */
int upcc_inventory_refresh(struct upcc_inventory *inv);

/* Is @entry protected now (it came back, core/wset.h)? */
bool upcc_inventory_entry_hot(const struct upcc_inventory_entry *entry, uint64_t now_usec);

/*
 * Note that @back_pages of what was dropped from @entry are cached again
 * (the refresh's refault check; exposed for tests): a quarter or more of
 * the dropped pages back at a refault distance within the hold
 * (upcc_wset_judge) makes the file hot until @now plus UPCC_WSET_HOT_USEC.
 * Returns whether it did.
 */
bool upcc_inventory_note_refault(struct upcc_inventory *inv, struct upcc_inventory_entry *entry,
				 uint64_t back_pages, const struct upcc_wset_now *now);

/* Where the working set's judge stands now (core/wset.h): the clock, the
 * scope's inflow, its hold.
 */
struct upcc_wset_now upcc_inventory_wset_now(const struct upcc_inventory *inv);

/*
 * The sampling tick's cheap sample of a path scope (no walk, no /proc
 * maps): queued fanotify events are read, then every file the table knows
 * is measured again (cachestat, or mincore), the mapped flags of the last
 * refresh kept.  The table is not changed.  0 or -errno.
 */
int upcc_inventory_tick_sample(struct upcc_inventory *inv, struct upcc_sample *sample);

/* Record one file's measurement (the refresh's per-file step; exposed for tests). */
int upcc_inventory_note(struct upcc_inventory *inv, dev_t dev, ino_t ino, const char *path,
			const struct upcc_residency *res, int64_t atime_sec, bool mapped);

/* Fill @order with up to @max pointers to evictable (cached, unmapped,
 * not hot) entries, coldest first, then the hot files large enough to be
 * judged by ranges (their cold ranges go last).  Returns how many.
 */
size_t upcc_inventory_coldest(struct upcc_inventory *inv, struct upcc_inventory_entry **order,
			      size_t max);

/* Reopen @entry by its path (same dev/ino, never a special file) and evict
 * up to @limit_pages of it (0 = all): of a hot large file, only the ranges
 * that may go (ranges.h).
 */
int upcc_inventory_evict(struct upcc_inventory *inv, struct upcc_inventory_entry *entry,
			 uint64_t limit_pages, struct upcc_evict_result *result);

/*
 * The same sample from the last upcc_inventory_refresh() of a path scope's
 * inventory, which measured every file it knows: no second pass over the
 * tree.  -EOPNOTSUPP where that would not be the whole scope (a system
 * scope's inventory).  A table that overflowed makes every refresh walk
 * the tree until it fits again, so its sample is still the walk's.
 */
int upcc_inventory_sample(const struct upcc_inventory *inv, struct upcc_sample *sample);

#endif /* UPCC_INVENTORY_H */
