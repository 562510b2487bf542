// SPDX-License-Identifier: GPL-2.0
/*
 * refresh.c - the inventory's refresh: the tree walked (or the files it
 * knows measured again, and those fanotify names), each file noted in the
 * table (inventory.c) with its coldness and its refaults.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* fstatat, st_atim */
#endif
#include "inventory.h"
#include "internal.h"
#include "lib/clock.h"
#include "lib/pace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

/* @e came back, or was used again while hot: it is hot for
 * UPCC_WSET_HOT_USEC from @now_usec on, and the working set is in use.
 */
static void keep_hot(struct upcc_inventory *inv, struct upcc_inventory_entry *e,
		     uint64_t now_usec)
{
	e->hot_until_usec = now_usec + UPCC_WSET_HOT_USEC;
	inv->last.hot_in_use = true;
	inv->hot_used_usec = now_usec;
}

bool upcc_inventory_note_refault(struct upcc_inventory *inv, struct upcc_inventory_entry *e,
				 uint64_t back_pages, const struct upcc_wset_now *now)
{
	enum upcc_wset_verdict v = upcc_wset_judge(&e->drop, e->drop_pages, back_pages, now,
						   &e->wset_distance);
	bool hot = v == UPCC_WSET_WORKING_SET;

	if (hot) {
		keep_hot(inv, e, now->usec);
		inv->last.refaulted_pages += back_pages < e->drop_pages ? back_pages : e->drop_pages;
	}
	/* Judged once it came back, or given up: a stream read past never
	 * comes back, or only after more than the scope may hold came in.
	 */
	if (v != UPCC_WSET_WATCHING || inv->scan - e->drop_scan >= UPCC_INVENTORY_DROP_WATCH_SCANS)
		e->drop_watch_pages = e->drop_pages = e->drop_left_pages = 0;
	return hot;
}

static void check_working_set(struct upcc_inventory *inv, struct upcc_inventory_entry *e, int fd,
			      const struct stat *st, uint64_t cached_before, bool touched)
{
	struct upcc_wset_now now = upcc_inventory_wset_now(inv);
	uint64_t cached;

	if (e->drop_watch_pages && e->drop_scan != inv->scan &&
	    !upcc_residency_range(fd, st, 0, e->drop_watch_pages, &cached))
		upcc_inventory_note_refault(inv, e, cached > e->drop_left_pages ?
						    cached - e->drop_left_pages : 0, &now);
	if (!upcc_inventory_entry_hot(e, now.usec))
		return;
	/* Its ranges' refaults are its use, as the whole file's are. */
	if (touched || e->cached_pages > cached_before ||
	    (e->ranges && upcc_ranges_watch(e->ranges, fd, st, &now)))
		keep_hot(inv, e, now.usec);
	inv->last.hot_pages += upcc_inv_entry_hot_pages(e, e->cached_pages, now.usec);
	inv->last.hot_files++;
}

static void note_use(struct upcc_inventory *inv, struct upcc_inventory_entry *e)
{
	uint64_t now = upcc_monotonic_usec();

	e->idle_scans = 0;
	if (upcc_inventory_entry_hot(e, now))
		keep_hot(inv, e, now);
}

static int measure_and_note(struct upcc_inventory *inv, int fd, const struct stat *st,
			    const char *path, bool touched)
{
	uint32_t index;
	struct upcc_residency res;
	uint64_t cached_before;
	bool mapped, known;
	int err;

	if (upcc_residency_fd(fd, st, &res))
		return -EIO;	/* unreadable: leave it out */
	index = upcc_inv_index(inv, st->st_dev, st->st_ino);
	if (index && inv->entries[index - 1].seen_scan == inv->scan) {
		/* Counted already this refresh (a second link, an event); an
		 * event between refreshes (the tick reads them) is still a use.
		 */
		if (touched) {
			note_use(inv, &inv->entries[index - 1]);
			inv->entries[index - 1].active = true;
		}
		return 0;
	}
	cached_before = index ? inv->entries[index - 1].cached_pages : 0;
	known = index != 0;
	mapped = upcc_mapped_set_has(&inv->mapped, st->st_dev, st->st_ino);
	upcc_residency_add(&inv->last.sum, &res, mapped);
	/* Without fanotify, the tick knows only the files of the table: a
	 * small tree's files are all kept, cached or not, so that a stream
	 * into any of them is seen by the tick.
	 */
	err = upcc_inv_note_entry(inv, st->st_dev, st->st_ino, path, &res, st->st_atim.tv_sec,
				  mapped, touched || (inv->fan.fd < 0 && !inv->from_mounts &&
						      inv->count < UPCC_INVENTORY_TICK_MAX_FILES));
	index = err ? 0 : upcc_inv_index(inv, st->st_dev, st->st_ino);
	if (!index)
		return err;
	/* A close (or open) event is a use: the file is hot now. */
	if (touched)
		inv->entries[index - 1].idle_scans = 0;
	/* Opened, or grown since the last refresh (a file met for the first
	 * time has not been seen growing): the tick watches it until a
	 * refresh that finds it still.
	 */
	inv->entries[index - 1].active = touched ||
					 (known && inv->entries[index - 1].cached_pages > cached_before);
	check_working_set(inv, &inv->entries[index - 1], fd, st, cached_before, touched);
	return 0;
}

/*
 * fanotify's learn: measure and note a file a close event named, unless
 * "exclude =" names it: the walk never meets it, and an event must not
 * bring it in.  The event's path is the real one, as is the path
 * scope's marked root (one root: never the system scope's mounts).
 */
static int fan_learn(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct upcc_inventory *inv = ctx;

	if (inv->exclude[0] && !inv->from_mounts && inv->nr_roots == 1) {
		char rel[PATH_MAX];

		if (upcc_scope_relative(inv->roots[0].path, path, rel, sizeof(rel)) == 0 &&
		    upcc_scope_excluded(inv->exclude, rel))
			return -EPERM;
	}
	return measure_and_note(ctx, fd, st, path, true);
}

/* fanotify's known: an event for (@dev, @ino), known and measured this
 * refresh, noted as a use.  False: learn it.
 */
static bool fan_known(void *ctx, dev_t dev, ino_t ino)
{
	struct upcc_inventory *inv = ctx;
	uint32_t index = upcc_inv_index(inv, dev, ino);

	/* Not measured yet this refresh: the caller learns it (measures it). */
	if (!index || inv->entries[index - 1].seen_scan != inv->scan)
		return false;
	note_use(inv, &inv->entries[index - 1]);
	inv->entries[index - 1].active = true;
	return true;
}

/* What fanotify sees of the inventory: the roots, and how to note a file. */
static struct upcc_fanotify_view fan_view(struct upcc_inventory *inv)
{
	return (struct upcc_fanotify_view){ .roots = inv->roots, .nr_roots = inv->nr_roots,
					    .learn = fan_learn, .known = fan_known, .ctx = inv };
}

void upcc_inv_drain_events(struct upcc_inventory *inv)
{
	struct upcc_fanotify_view view;

	if (inv->fan.fd < 0)
		return;
	view = fan_view(inv);
	upcc_fanotify_drain(&inv->fan, &view,
			    UPCC_INVENTORY_DRAIN_EVENTS_PER_ENTRY * (uint64_t)inv->capacity);
}

void upcc_inv_note_own_open(struct upcc_inventory *inv)
{
	struct upcc_fanotify_view view = fan_view(inv);

	upcc_fanotify_note_own_open(&inv->fan, &view, inv->capacity - inv->count);
}

static int refresh_one(void *ctx, int fd, const struct stat *st, const char *path)
{
	int err = measure_and_note(ctx, fd, st, path, false);

	upcc_inv_note_own_open(ctx);
	return err == -ENOMEM ? 1 : 0;
}

/* Is @e's path still the same regular file, of the size it was measured at? */
bool upcc_inv_same_size_as_measured(const struct upcc_inventory_entry *e)
{
	struct stat st;

	if (upcc_lstat_path(e->path, &st) < 0)
		return false;
	return S_ISREG(st.st_mode) && st.st_dev == e->dev && st.st_ino == e->ino &&
	       upcc_residency_file_pages(&st) == e->file_pages;
}

/*
 * Can @e have gained cache since it was measured?  Only by a reader, which
 * an open event or its growth at the last refresh shows (e->active), or
 * by growing in size; a file already wholly cached not even then.  One
 * stat answers, where a measure is two opens, a cachestat and two closes.
 * What it may have lost since (the kernel's own reclaim) is corrected by
 * a measure at least every UPCC_INVENTORY_REMEASURE_SCANS refreshes, and
 * by any eviction of it.  A dropped file watched for refaults, and one
 * with dirty pages (writeback changes them), are always measured.
 */
static bool unchanged_since_measured(const struct upcc_inventory *inv,
				     const struct upcc_inventory_entry *e)
{
	if (e->drop_watch_pages || e->dirty ||
	    inv->scan - e->measured_scan >= UPCC_INVENTORY_REMEASURE_SCANS ||
	    (e->active && e->cached_pages < e->file_pages))
		return false;
	return upcc_inv_same_size_as_measured(e);
}

/* Count @e as last measured, as measure_and_note() would a file found unchanged. */
static void note_unchanged(struct upcc_inventory *inv, struct upcc_inventory_entry *e)
{
	struct upcc_residency res = { .cached_pages = e->cached_pages,
				      .file_pages = e->file_pages };

	e->mapped = upcc_mapped_set_has(&inv->mapped, e->dev, e->ino);
	upcc_residency_add(&inv->last.sum, &res, e->mapped);
	upcc_inv_update_coldness(e, &res, e->atime_sec);
	e->seen_scan = inv->scan;
	e->active = false;
	if (upcc_inventory_entry_hot(e, upcc_monotonic_usec())) {
		inv->last.hot_pages += upcc_inv_entry_hot_pages(e, e->cached_pages,
								upcc_monotonic_usec());
		inv->last.hot_files++;
	}
}

/* Re-measure the files the table knows that this refresh has not seen. */
static int remeasure_known(struct upcc_inventory *inv)
{
	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];
		struct stat expect = { 0 }, st;
		int fd;

		if (e->seen_scan == inv->scan)
			continue;
		if (upcc_pace_stop())
			return -EINTR;
		if (unchanged_since_measured(inv, e)) {
			note_unchanged(inv, e);
			continue;
		}
		expect.st_dev = e->dev;
		expect.st_ino = e->ino;
		fd = upcc_open_regular_path(e->path, &expect, &st);
		if (fd < 0)
			continue;	/* gone or replaced: upcc_inv_drop_stale() forgets it */
		measure_and_note(inv, fd, &st, e->path, false);
		close(fd);
		upcc_inv_note_own_open(inv);
	}
	return 0;
}

static void add_walk_stats(struct upcc_walk_stats *sum, const struct upcc_walk_stats *one)
{
	sum->files += one->files;
	sum->dirs += one->dirs;
	sum->skipped_special += one->skipped_special;
	sum->skipped_mounts += one->skipped_mounts;
	sum->skipped_pseudo += one->skipped_pseudo;
	sum->skipped_depth += one->skipped_depth;
	sum->skipped_raced += one->skipped_raced;
	sum->skipped_duplicate += one->skipped_duplicate;
	sum->skipped_excluded += one->skipped_excluded;
	sum->errors += one->errors;
}

/* Walk the path scope's root, or each mount (@all_roots) or only those
 * fanotify does not watch.  A mount that cannot be walked any more
 * (unmounted since) is counted and passed over; the path scope's root
 * failing is the refresh's error, as before.
 */
static int walk_refresh(struct upcc_inventory *inv, bool all_roots)
{
	size_t nr = inv->from_mounts ? inv->nr_roots : 1, walked = 0;

	for (size_t i = 0; i < nr; i++) {
		/* The path scope walks its root as given: the walk reports a
		 * missing one, and entries keep the paths the user named.
		 */
		const char *root = inv->from_mounts ? inv->roots[i].path : inv->root;
		struct upcc_walk_stats stats;
		int err;

		if (inv->from_mounts && !all_roots && inv->roots[i].marked)
			continue;
		walked++;
		err = upcc_walk(root, &inv->walk_options, refresh_one, inv, &stats);
		add_walk_stats(&inv->last.walk, &stats);
		if (err > 0)
			return -ENOMEM;
		if (err < 0 && (!inv->from_mounts || err == -EINTR))
			return err;
		if (err < 0)
			inv->root_errors++;
	}
	if (walked)
		inv->walks++;
	return 0;
}

/* Why this refresh must walk every root, or NONE: fanotify knows the rest. */
static enum upcc_inv_walk_why why_walk_all(const struct upcc_inventory *inv)
{
	const struct upcc_fanotify *fan = &inv->fan;

	if (fan->fd < 0)
		return UPCC_INV_WALK_NO_FANOTIFY;
	/* A table that was full forgot files: only a walk finds them again,
	 * and only a walk's totals then cover the whole tree.
	 */
	if (inv->dropped_since_walk)
		return UPCC_INV_WALK_TABLE_FULL;
	/* Events were lost, since (or during) the last walk. */
	if (fan->overflows != inv->overflows_at_walk)
		return UPCC_INV_WALK_OVERFLOW;
	if (inv->roots_changed[0])
		return UPCC_INV_WALK_MOUNTS;
	if (fan->need_walk)
		return inv->walks ? UPCC_INV_WALK_INTERRUPTED : UPCC_INV_WALK_FIRST;
	if (inv->scan % UPCC_INVENTORY_REWALK_EVERY == 0)
		return UPCC_INV_WALK_PERIODIC;
	return UPCC_INV_WALK_NONE;
}

enum { HOLD_FILE, HOLD_RANGE };

/* The working set's pieces: hot files whole, and the hot ranges of the hot
 * files judged by ranges (their other ranges are not the working set).
 * Into @items if not NULL; returns how many there are.
 */
static size_t working_set_items(struct upcc_inventory *inv, uint64_t now_usec,
				struct upcc_wset_item *items)
{
	size_t n = 0;

	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		if (!upcc_inventory_entry_hot(e, now_usec))
			continue;
		if (!upcc_ranges_apply(e->file_pages)) {
			if (items)
				items[n] = (struct upcc_wset_item){ e->wset_distance,
					e->cached_pages, e, HOLD_FILE, false };
			n++;
			continue;
		}
		for (uint64_t k = 0; e->ranges && k < e->ranges->nr; k++) {
			struct upcc_range *r = &e->ranges->range[k];

			if (r->hot_until_usec <= now_usec || !r->cached)
				continue;
			if (items)
				items[n] = (struct upcc_wset_item){ r->distance, r->cached, r,
								    HOLD_RANGE, false };
			n++;
		}
	}
	return n;
}

/*
 * More working set than the scope may hold: the shortest refault distances
 * are held (core/wset.h, upcc_wset_keep), the rest is no longer protected
 * and goes coldest first, as any cache.  Then the totals say what is held.
 */
static void hold_working_set(struct upcc_inventory *inv)
{
	uint64_t now = upcc_monotonic_usec();
	size_t nr = working_set_items(inv, now, NULL);
	struct upcc_wset_item *items;

	inv->last.hot_items = nr;
	if (inv->last.hot_pages <= inv->wset_hold_pages || !nr)
		return;
	items = malloc(nr * sizeof(*items));
	if (!items)
		return;		/* held as it is until the next refresh */
	working_set_items(inv, now, items);
	upcc_wset_keep(items, nr, inv->wset_hold_pages);
	inv->last.hot_items = 0;
	for (size_t i = 0; i < nr; i++) {
		if (items[i].keep) {
			inv->last.hot_items++;
			continue;
		}
		inv->last.unheld_pages += items[i].pages;
		if (items[i].kind == HOLD_FILE)
			((struct upcc_inventory_entry *)items[i].ref)->hot_until_usec = 0;
		else
			((struct upcc_range *)items[i].ref)->hot_until_usec = 0;
	}
	free(items);
	inv->last.hot_pages = inv->last.hot_files = 0;
	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		if (!upcc_inventory_entry_hot(e, now))
			continue;
		inv->last.hot_pages += upcc_inv_entry_hot_pages(e, e->cached_pages, now);
		inv->last.hot_files++;
	}
}

/*
 * A path scope without fanotify walks its tree at every refresh: is it too
 * soon for the next walk (UPCC_INVENTORY_WALK_PACE)?  The first walk, and
 * a root that came back, are never paced.
 */
static bool walk_paced(const struct upcc_inventory *inv, uint64_t now_usec)
{
	uint64_t gap;

	if (inv->fan.fd >= 0 || inv->from_mounts || !inv->walks || inv->root_back ||
	    inv->walk_cpu_usec < UPCC_INVENTORY_WALK_PACE_MIN_USEC)
		return false;
	gap = inv->walk_cpu_usec * UPCC_INVENTORY_WALK_PACE;
	if (gap > UPCC_INVENTORY_WALK_GAP_MAX_USEC)
		gap = UPCC_INVENTORY_WALK_GAP_MAX_USEC;
	return now_usec - inv->walk_started_usec < gap;
}

int upcc_inventory_refresh(struct upcc_inventory *inv)
{
	struct upcc_fanotify *fan = &inv->fan;
	uint64_t start_usec, start_cpu;
	int err;

	start_usec = upcc_monotonic_usec();
	inv->paced = walk_paced(inv, start_usec);
	if (inv->paced) {
		/* The last walk's totals stand (drops since taken off them). */
		inv->walks_paced++;
		inv->scan++;
		inv->last.elapsed_usec = 0;
		return 0;
	}
	memset(&inv->last, 0, sizeof(inv->last));
	inv->roots_changed[0] = '\0';
	/* Reading every process's maps is the refresh's dearest part: at
	 * most every UPCC_INVENTORY_MAPPED_RELOAD_USEC (the tick's rounds
	 * refresh more often).  Safe meanwhile: DONTNEED never drops a mapped
	 * page, the set only keeps mapped files out of the count and order.
	 */
	if (!inv->mapped_loaded_usec ||
	    start_usec - inv->mapped_loaded_usec >= UPCC_INVENTORY_MAPPED_RELOAD_USEC) {
		err = upcc_mapped_set_load(&inv->mapped);
		if (err)
			return err;
		inv->mapped_loaded_usec = start_usec;
	}
	/* The walk's cost, not the maps' (their reload has its own bound):
	 * a small tree on a machine of many processes is not paced for it.
	 */
	start_cpu = upcc_thread_cpu_usec();
	inv->scan++;
	if (inv->follow_mount_table && inv->scan > 1) {
		err = upcc_inv_sync_mount_roots(inv);	/* sets need_walk on a change */
		if (err)
			return err;
	} else if (!inv->from_mounts) {
		err = upcc_inv_follow_path_root(inv);	/* unmounted: not measured */
		if (err)
			goto interrupted;
	}
	upcc_inv_drain_events(inv);	/* may set need_walk on overflow */
	inv->walk_why = why_walk_all(inv);
	if (inv->walk_why != UPCC_INV_WALK_NONE) {
		inv->dropped_since_walk = 0;
		inv->overflows_at_walk = fan->overflows;
		err = walk_refresh(inv, true);
		if (err)
			goto interrupted;
		fan->need_walk = false;
		inv->walk_started_usec = start_usec;
		inv->walk_cpu_usec = 0;		/* set below, the refresh's whole */
	} else {
		/* Mounts fanotify could not mark are still walked every time. */
		err = inv->from_mounts ? walk_refresh(inv, false) : 0;
		if (!err)
			err = remeasure_known(inv);
		if (err)
			goto interrupted;
	}
	upcc_inv_drop_stale(inv);
	hold_working_set(inv);
	inv->events_at_refresh = fan->events;
	inv->last.hot_in_use = upcc_inv_hot_in_use(inv, upcc_monotonic_usec());
	inv->last.elapsed_usec = upcc_monotonic_usec() - start_usec;
	if (inv->walk_started_usec == start_usec)
		inv->walk_cpu_usec = upcc_thread_cpu_usec() - start_cpu;
	return 0;
interrupted:
	/* Half a refresh forgets nothing: the next one walks the whole tree. */
	inv->walk_why = UPCC_INV_WALK_NONE;
	fan->need_walk = true;
	return err;
}
