// SPDX-License-Identifier: GPL-2.0
/*
 * inventory.c - the bounded table of a scope's cached files, its roots and
 * refresh, and the path scope's sample.  The mapped-file set is mapped.c,
 * per-file eviction evict.c, fanotify learning fanotify.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_NOATIME, O_PATH, getline, makedev */
#endif
#include "inventory.h"
#include "hooks.h"
#include "size.h"
#include "clock.h"
#include "pace.h"
#include "summary.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

/* ---- the table ---------------------------------------------------------- */

static size_t hash_id(dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h ^ (h >> 29));
}

static size_t slot_of(const struct upcc_inventory *inv, dev_t dev, ino_t ino)
{
	size_t mask = inv->nr_slots - 1;
	size_t slot = hash_id(dev, ino) & mask;

	for (;;) {
		uint32_t index = inv->slots[slot];

		if (!index)
			return slot;
		if (inv->entries[index - 1].dev == dev && inv->entries[index - 1].ino == ino)
			return slot;
		slot = (slot + 1) & mask;
	}
}

static void rebuild_index(struct upcc_inventory *inv)
{
	memset(inv->slots, 0, inv->nr_slots * sizeof(*inv->slots));
	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		inv->slots[slot_of(inv, e->dev, e->ino)] = (uint32_t)(i + 1);
	}
}

static int fan_learn(void *ctx, int fd, const struct stat *st, const char *path);
static bool fan_known(void *ctx, dev_t dev, ino_t ino);

/* What fanotify sees of the inventory: the roots, and how to note a file. */
static struct upcc_fanotify_view fan_view(struct upcc_inventory *inv)
{
	return (struct upcc_fanotify_view){ .roots = inv->roots, .nr_roots = inv->nr_roots,
					    .learn = fan_learn, .known = fan_known, .ctx = inv };
}

/* fanotify marks the roots' filesystems, or says why not. */
static void start_learning(struct upcc_inventory *inv)
{
	struct upcc_fanotify_view view = fan_view(inv);

	upcc_fanotify_start(&inv->fan, &view);
}

/* The table, empty, with no roots yet. */
static int inventory_alloc(struct upcc_inventory *inv, size_t capacity)
{
	if (!capacity)
		capacity = UPCC_INVENTORY_DEFAULT_CAPACITY;
	if (capacity > (1u << 30))
		return -EINVAL;
	inv->capacity = capacity;
	inv->nr_slots = 1;
	while (inv->nr_slots < 2 * capacity)
		inv->nr_slots <<= 1;
	upcc_fanotify_init(&inv->fan);
	inv->entries = calloc(capacity, sizeof(*inv->entries));
	inv->slots = calloc(inv->nr_slots, sizeof(*inv->slots));
	if (!inv->entries || !inv->slots) {
		upcc_inventory_fini(inv);
		return -ENOMEM;
	}
	return 0;
}

/* Add a root by its resolved path; a path that does not resolve (gone
 * since mountinfo was read) is left out, as is one whose device changed.
 */
static int add_root(struct upcc_inventory *inv, const char *path, dev_t dev, bool check_dev)
{
	struct upcc_fanotify_root *roots, *r;
	char *real = realpath(path, NULL), *listed = NULL, **listed_roots;
	struct stat st;

	if (!real)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (stat(real, &st) < 0 || (check_dev && st.st_dev != dev)) {
		free(real);
		return 0;
	}
	roots = realloc(inv->roots, (inv->nr_roots + 1) * sizeof(*roots));
	if (roots)
		inv->roots = roots;
	listed_roots = realloc(inv->listed, (inv->nr_roots + 1) * sizeof(*listed_roots));
	if (listed_roots)
		inv->listed = listed_roots;
	if (check_dev)
		listed = strdup(path);
	if (!roots || !listed_roots || (check_dev && !listed)) {
		free(real);
		free(listed);
		return -ENOMEM;
	}
	listed_roots[inv->nr_roots] = listed;
	r = &roots[inv->nr_roots++];
	memset(r, 0, sizeof(*r));
	r->path = real;
	r->dev = st.st_dev;
	r->mount_fd = -1;
	return 0;
}

int upcc_inventory_init(struct upcc_inventory *inv, const char *root, bool cross_mounts,
			size_t capacity)
{
	int err;

	memset(inv, 0, sizeof(*inv));
	if (!root || strlen(root) >= sizeof(inv->root))
		return -EINVAL;
	err = inventory_alloc(inv, capacity);
	if (err)
		return err;
	strcpy(inv->root, root);
	inv->walk_options.cross_mounts = cross_mounts;
	/* The walk itself reports a root that is not there: keep the path
	 * scope's behaviour (an error from refresh), so only fanotify needs
	 * the resolved root.
	 */
	err = add_root(inv, root, 0, false);
	if (err) {
		upcc_inventory_fini(inv);
		return err;
	}
	start_learning(inv);
	return 0;
}

int upcc_inventory_init_mounts(struct upcc_inventory *inv, const struct upcc_mount_list *mounts,
			       size_t capacity)
{
	int err;

	memset(inv, 0, sizeof(*inv));
	err = inventory_alloc(inv, capacity);
	if (err)
		return err;
	strcpy(inv->root, "mounts");
	inv->from_mounts = true;
	inv->walk_options.cross_mounts = false;	/* every mount is a root of its own */
	for (size_t i = 0; i < mounts->count && !err; i++)
		err = add_root(inv, mounts->mounts[i].mount_point, mounts->mounts[i].dev, true);
	if (err) {
		upcc_inventory_fini(inv);
		return err;
	}
	start_learning(inv);
	return 0;
}

/* Compared as mountinfo lists them: a root's resolved path may differ. */
static bool same_mount(const struct upcc_inventory *inv, size_t index, const struct upcc_mount *m)
{
	const char *listed = inv->listed[index];

	return listed && inv->roots[index].dev == m->dev && strcmp(listed, m->mount_point) == 0;
}

static bool root_listed(const struct upcc_inventory *inv, size_t index,
			const struct upcc_mount_list *mounts)
{
	for (size_t i = 0; i < mounts->count; i++)
		if (same_mount(inv, index, &mounts->mounts[i]))
			return true;
	return false;
}

static bool mount_known(const struct upcc_inventory *inv, const struct upcc_mount *m)
{
	for (size_t i = 0; i < inv->nr_roots; i++)
		if (same_mount(inv, i, m))
			return true;
	return false;
}

static void remove_root(struct upcc_inventory *inv, size_t index)
{
	struct upcc_fanotify_root *r = &inv->roots[index];
	char **listed = &inv->listed[index];

	if (r->mount_fd >= 0)
		close(r->mount_fd);
	free(r->path);
	free(*listed);
	memmove(r, r + 1, (inv->nr_roots - index - 1) * sizeof(*r));
	memmove(listed, listed + 1, (inv->nr_roots - index - 1) * sizeof(*listed));
	inv->nr_roots--;
}

/*
 * The system scope follows the mount table, re-read every refresh (a few
 * lines of /proc, cheap beside re-measuring the files): a disk mounted
 * after start joins, is marked (unless fanotify is off) and the refresh
 * walks everything once; one unmounted leaves, and its files go with the
 * walk that no longer sees them.  A table that cannot be read keeps the
 * roots there are.
 */
static int sync_mount_roots(struct upcc_inventory *inv)
{
	struct upcc_mount_list mounts;
	size_t nr_before;
	int err;

	if (upcc_mounts_load(&mounts, NULL))
		return 0;
	for (size_t i = inv->nr_roots; i-- > 0;) {
		if (!root_listed(inv, i, &mounts)) {
			upcc_text_append(inv->roots_changed, sizeof(inv->roots_changed), "%sunmounted %s",
					 *inv->roots_changed ? "; " : "", inv->roots[i].path);
			remove_root(inv, i);
			inv->mounts_left++;
			inv->fan.need_walk = true;	/* only a walk forgets its files */
		}
	}
	err = 0;
	for (size_t i = 0; i < mounts.count && !err; i++) {
		if (mount_known(inv, &mounts.mounts[i]))
			continue;
		nr_before = inv->nr_roots;
		err = add_root(inv, mounts.mounts[i].mount_point, mounts.mounts[i].dev, true);
		if (err || inv->nr_roots == nr_before)
			continue;
		inv->mounts_joined++;
		inv->fan.need_walk = true;
		if (!upcc_hooks.no_fanotify) {
			struct upcc_fanotify_view view = fan_view(inv);

			upcc_fanotify_mark_root(&inv->fan, &view, inv->nr_roots - 1);
		}
		upcc_text_append(inv->roots_changed, sizeof(inv->roots_changed), "%smounted %s (%s)",
				 *inv->roots_changed ? "; " : "", inv->roots[inv->nr_roots - 1].path,
				 upcc_fanotify_root_learning(&inv->roots[inv->nr_roots - 1]));
	}
	upcc_mounts_free(&mounts);
	return err;
}

void upcc_inventory_fini(struct upcc_inventory *inv)
{
	upcc_fanotify_fini(&inv->fan);
	for (size_t i = 0; i < inv->nr_roots; i++) {
		if (inv->roots[i].mount_fd >= 0)
			close(inv->roots[i].mount_fd);
		free(inv->roots[i].path);
		free(inv->listed[i]);
	}
	free(inv->roots);
	free(inv->listed);
	for (size_t i = 0; i < inv->count; i++) {
		free(inv->entries[i].path);
		upcc_ranges_free(inv->entries[i].ranges);
	}
	free(inv->entries);
	free(inv->slots);
	upcc_mapped_set_free(&inv->mapped);
	memset(inv, 0, sizeof(*inv));
}

static int compare_by_cached_desc(const void *a, const void *b)
{
	const struct upcc_inventory_entry *x = a, *y = b;

	if (x->cached_pages != y->cached_pages)
		return x->cached_pages > y->cached_pages ? -1 : 1;
	return 0;
}

/* Full: keep the half that holds the most cache, forget the rest. */
static void shed_smallest_half(struct upcc_inventory *inv)
{
	size_t keep = inv->capacity / 2;

	qsort(inv->entries, inv->count, sizeof(*inv->entries), compare_by_cached_desc);
	for (size_t i = keep; i < inv->count; i++) {
		free(inv->entries[i].path);
		inv->entries[i].path = NULL;
		upcc_ranges_free(inv->entries[i].ranges);
		inv->entries[i].ranges = NULL;
	}
	inv->dropped_full += inv->count - keep;
	inv->dropped_since_walk += inv->count - keep;
	inv->count = keep;
	rebuild_index(inv);
}

static void update_coldness(struct upcc_inventory_entry *e, const struct upcc_residency *res,
			    int64_t atime_sec)
{
	if (res->cached_pages > e->cached_pages || atime_sec > e->atime_sec)
		e->idle_scans = 0;
	else if (e->idle_scans < UINT32_MAX)
		e->idle_scans++;
}

static int add_entry(struct upcc_inventory *inv, dev_t dev, ino_t ino, const char *path,
		     struct upcc_inventory_entry **out)
{
	struct upcc_inventory_entry *e;
	char *copy;

	if (inv->count == inv->capacity)
		shed_smallest_half(inv);
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	e = &inv->entries[inv->count];
	memset(e, 0, sizeof(*e));
	e->dev = dev;
	e->ino = ino;
	e->path = copy;
	inv->count++;
	inv->slots[slot_of(inv, dev, ino)] = (uint32_t)inv->count;
	*out = e;
	return 0;
}

/* @keep_empty: a file just opened (fanotify) is kept with no cache yet, so
 * that the sampling tick sees a stream read into it before it is closed.
 */
static int note_entry(struct upcc_inventory *inv, dev_t dev, ino_t ino, const char *path,
		      const struct upcc_residency *res, int64_t atime_sec, bool mapped,
		      bool keep_empty)
{
	uint32_t index = inv->slots[slot_of(inv, dev, ino)];
	struct upcc_inventory_entry *e;
	int err;

	if (!index && !res->cached_pages && !keep_empty)
		return 0;	/* nothing cached: nothing to remember */
	if (index) {
		e = &inv->entries[index - 1];
		update_coldness(e, res, atime_sec);
		if (strcmp(e->path, path)) {	/* renamed, or a second link */
			char *copy = strdup(path);

			if (!copy)
				return -ENOMEM;
			free(e->path);
			e->path = copy;
		}
	} else {
		err = add_entry(inv, dev, ino, path, &e);
		if (err)
			return err;
	}
	e->cached_pages = res->cached_pages;
	e->file_pages = res->file_pages;
	e->atime_sec = atime_sec;
	e->mapped = mapped;
	e->seen_scan = inv->scan;
	e->measured_scan = inv->scan;
	e->dirty = res->dirty_pages || res->writeback_pages;
	if (keep_empty)
		e->opened_scan = inv->scan;
	return 0;
}

int upcc_inventory_note(struct upcc_inventory *inv, dev_t dev, ino_t ino, const char *path,
			const struct upcc_residency *res, int64_t atime_sec, bool mapped)
{
	return note_entry(inv, dev, ino, path, res, atime_sec, mapped, false);
}

bool upcc_inventory_entry_hot(const struct upcc_inventory_entry *entry, uint64_t now_usec)
{
	return entry->hot_until_usec > now_usec;
}

/*
 * What of a hot file, @cached pages now, is the working set: all of it,
 * or for a file judged by ranges only its hot ranges (none before they
 * were judged: its first drops find them).
 */
static uint64_t entry_hot_pages(const struct upcc_inventory_entry *e, uint64_t cached,
				uint64_t now_usec)
{
	uint64_t hot;

	if (!upcc_inventory_entry_hot(e, now_usec))
		return 0;
	if (!upcc_ranges_apply(e->file_pages))
		return cached;
	hot = e->ranges ? upcc_ranges_hot_pages(e->ranges, now_usec) : 0;
	return hot < cached ? hot : cached;
}

bool upcc_inventory_note_refault(struct upcc_inventory *inv, struct upcc_inventory_entry *e,
				 uint64_t back_pages, uint64_t now_usec)
{
	bool hot = back_pages && back_pages >= (e->drop_pages + 3) / 4;

	if (hot) {
		e->hot_until_usec = now_usec + UPCC_INVENTORY_HOT_USEC;
		inv->last.refaulted_pages += back_pages < e->drop_pages ? back_pages : e->drop_pages;
		inv->last.hot_in_use = true;
		inv->hot_used_usec = now_usec;
	}
	/* Judged once it came back, or given up after the watch: a stream
	 * read past never comes back.
	 */
	if (hot || inv->scan - e->drop_scan >= UPCC_INVENTORY_DROP_WATCH_SCANS ||
	    now_usec - e->drop_usec >= UPCC_INVENTORY_DROP_WATCH_USEC)
		e->drop_watch_pages = e->drop_pages = e->drop_left_pages = 0;
	return hot;
}

/* Forget files the last walk did not see (deleted, moved out) or that hold
 * no cache any more.
 */
static void drop_stale(struct upcc_inventory *inv)
{
	size_t kept = 0;

	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		/* A file dropped and watched for refaults, or just opened,
		 * is kept with no cache; it was seen this refresh all the same.
		 */
		bool keep_empty = e->drop_watch_pages || e->opened_scan + 2 >= inv->scan;

		if (e->seen_scan != inv->scan || (!e->cached_pages && !keep_empty)) {
			free(e->path);
			upcc_ranges_free(e->ranges);
			continue;
		}
		inv->entries[kept++] = *e;
	}
	inv->count = kept;
	rebuild_index(inv);
}

static void add_totals(struct upcc_inventory_totals *totals, const struct upcc_residency *res,
		       bool mapped)
{
	totals->files++;
	totals->cached_pages += res->cached_pages;
	totals->dirty_pages += res->dirty_pages;
	totals->writeback_pages += res->writeback_pages;
	if (mapped)
		totals->mapped_pages += res->cached_pages;
}

/*
 * A file still being read is dropped only below half of where its cache
 * ends: its reader's read in progress and the readahead it had not
 * consumed (several MiB with large reads) are near the end.
 */
static uint64_t behind_reader_end(uint64_t end_page)
{
	return end_page / 2;
}

/*
 * Pages [0, this) of a drop are watched for refaults, @end_page being where
 * the cache ended before it.  A reader coming back starts from the
 * beginning; a reader going on brings back what was dropped ahead of it,
 * and that is not a re-read.  So the first half only, and below the run of
 * cached pages that ends at @end_page when that is short of the file's
 * end: a reader still in the file is somewhere in that run, whose
 * readahead can be most of it (two 2.5 MiB windows on a loop device).
 */
static uint64_t refault_watch_end(uint64_t end_page, uint64_t run_start, uint64_t file_pages)
{
	uint64_t watch = behind_reader_end(end_page);

	if (end_page < file_pages && run_start < watch)
		watch = run_start;
	return watch;
}

static void check_working_set(struct upcc_inventory *inv, struct upcc_inventory_entry *e, int fd,
			      const struct stat *st, uint64_t cached_before, bool touched)
{
	uint64_t now = upcc_monotonic_usec(), cached;

	if (e->drop_watch_pages && e->drop_scan != inv->scan &&
	    !upcc_residency_range(fd, st, 0, e->drop_watch_pages, &cached))
		upcc_inventory_note_refault(inv, e, cached > e->drop_left_pages ?
						    cached - e->drop_left_pages : 0, now);
	if (!upcc_inventory_entry_hot(e, now))
		return;
	/* Its ranges' refaults are its use, as the whole file's are. */
	if (touched || e->cached_pages > cached_before ||
	    (e->ranges && upcc_ranges_watch(e->ranges, fd, st, now))) {
		e->hot_until_usec = now + UPCC_INVENTORY_HOT_USEC;
		inv->last.hot_in_use = true;
		inv->hot_used_usec = now;
	}
	inv->last.hot_pages += entry_hot_pages(e, e->cached_pages, now);
	inv->last.hot_files++;
}

static void note_use(struct upcc_inventory *inv, struct upcc_inventory_entry *e)
{
	uint64_t now = upcc_monotonic_usec();

	e->idle_scans = 0;
	if (upcc_inventory_entry_hot(e, now)) {
		e->hot_until_usec = now + UPCC_INVENTORY_HOT_USEC;
		inv->last.hot_in_use = true;
		inv->hot_used_usec = now;
	}
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
	index = inv->slots[slot_of(inv, st->st_dev, st->st_ino)];
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
	add_totals(&inv->last, &res, mapped);
	/* Without fanotify, the tick knows only the files of the table: a
	 * small tree's files are all kept, cached or not, so that a stream
	 * into any of them is seen by the tick.
	 */
	err = note_entry(inv, st->st_dev, st->st_ino, path, &res, st->st_atim.tv_sec, mapped,
			 touched || (inv->fan.fd < 0 && !inv->from_mounts &&
				     inv->count < UPCC_INVENTORY_TICK_MAX_FILES));
	index = err ? 0 : inv->slots[slot_of(inv, st->st_dev, st->st_ino)];
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

/* fanotify's learn: measure and note a file a close event named. */
static int fan_learn(void *ctx, int fd, const struct stat *st, const char *path)
{
	return measure_and_note(ctx, fd, st, path, true);
}

/* fanotify's known: an event for (@dev, @ino), known and measured this
 * refresh, noted as a use.  False: learn it.
 */
static bool fan_known(void *ctx, dev_t dev, ino_t ino)
{
	struct upcc_inventory *inv = ctx;
	uint32_t index = inv->slots[slot_of(inv, dev, ino)];

	/* Not measured yet this refresh: the caller learns it (measures it). */
	if (!index || inv->entries[index - 1].seen_scan != inv->scan)
		return false;
	note_use(inv, &inv->entries[index - 1]);
	inv->entries[index - 1].active = true;
	return true;
}

static int refresh_one(void *ctx, int fd, const struct stat *st, const char *path)
{
	int err = measure_and_note(ctx, fd, st, path, false);

	return err == -ENOMEM ? 1 : 0;
}

/* Is @e's path still the same regular file, of the size it was measured at? */
static bool same_size_as_measured(const struct upcc_inventory_entry *e)
{
	struct stat st;

	if (fstatat(AT_FDCWD, e->path, &st, AT_SYMLINK_NOFOLLOW) < 0)
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
	return same_size_as_measured(e);
}

/* Count @e as last measured, as measure_and_note() would a file found unchanged. */
static void note_unchanged(struct upcc_inventory *inv, struct upcc_inventory_entry *e)
{
	struct upcc_residency res = { .cached_pages = e->cached_pages,
				      .file_pages = e->file_pages };

	e->mapped = upcc_mapped_set_has(&inv->mapped, e->dev, e->ino);
	add_totals(&inv->last, &res, e->mapped);
	update_coldness(e, &res, e->atime_sec);
	e->seen_scan = inv->scan;
	e->active = false;
	if (upcc_inventory_entry_hot(e, upcc_monotonic_usec())) {
		inv->last.hot_pages += entry_hot_pages(e, e->cached_pages, upcc_monotonic_usec());
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
		fd = upcc_open_regular(AT_FDCWD, e->path, &expect, &st);
		if (fd < 0)
			continue;	/* gone or replaced: drop_stale forgets it */
		measure_and_note(inv, fd, &st, e->path, false);
		close(fd);
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

static bool hot_in_use(const struct upcc_inventory *inv, uint64_t now_usec)
{
	return inv->hot_used_usec && now_usec - inv->hot_used_usec < UPCC_INVENTORY_IN_USE_USEC;
}

int upcc_inventory_refresh(struct upcc_inventory *inv)
{
	struct upcc_fanotify *fan = &inv->fan;
	uint64_t start_usec;
	int err;

	start_usec = upcc_monotonic_usec();
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
	inv->scan++;
	if (inv->follow_mount_table && inv->scan > 1) {
		err = sync_mount_roots(inv);	/* sets need_walk on a change */
		if (err)
			return err;
	}
	if (fan->fd >= 0) {
		struct upcc_fanotify_view view = fan_view(inv);

		/* may set need_walk on overflow */
		upcc_fanotify_drain(fan, &view, 2 * (uint64_t)inv->capacity);
	}
	/* A table that was full forgot files: only a walk finds them again,
	 * and only a walk's totals then cover the whole tree.
	 */
	inv->last_walked_all = fan->fd < 0 || fan->need_walk || inv->dropped_since_walk ||
			       inv->scan % UPCC_INVENTORY_REWALK_EVERY == 0;
	if (inv->last_walked_all) {
		inv->dropped_since_walk = 0;
		err = walk_refresh(inv, true);
		if (err)
			goto interrupted;
		fan->need_walk = false;
	} else {
		/* Mounts fanotify could not mark are still walked every time. */
		err = inv->from_mounts ? walk_refresh(inv, false) : 0;
		if (!err)
			err = remeasure_known(inv);
		if (err)
			goto interrupted;
	}
	drop_stale(inv);
	inv->events_at_refresh = fan->events;
	inv->last.hot_in_use = hot_in_use(inv, upcc_monotonic_usec());
	inv->last.elapsed_usec = upcc_monotonic_usec() - start_usec;
	return 0;
interrupted:
	/* Half a refresh forgets nothing: the next one walks the whole tree. */
	inv->last_walked_all = false;
	fan->need_walk = true;
	return err;
}

static int compare_coldest(const void *a, const void *b)
{
	const struct upcc_inventory_entry *x = *(struct upcc_inventory_entry *const *)a;
	const struct upcc_inventory_entry *y = *(struct upcc_inventory_entry *const *)b;

	if (x->idle_scans != y->idle_scans)
		return x->idle_scans > y->idle_scans ? -1 : 1;
	if (x->atime_sec != y->atime_sec)
		return x->atime_sec < y->atime_sec ? -1 : 1;
	if (x->cached_pages != y->cached_pages)
		return x->cached_pages > y->cached_pages ? -1 : 1;
	return 0;
}

size_t upcc_inventory_coldest(struct upcc_inventory *inv, struct upcc_inventory_entry **order,
			      size_t max)
{
	uint64_t now = upcc_monotonic_usec();
	size_t n = 0;

	size_t cold;

	for (size_t i = 0; i < inv->count && n < max; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		/* A file that refaulted is the working set: not evicted again. */
		if (e->cached_pages && !e->mapped && !upcc_inventory_entry_hot(e, now))
			order[n++] = e;
	}
	qsort(order, n, sizeof(*order), compare_coldest);
	/* ... except, last, the cold ranges of a large one (ranges.h). */
	cold = n;
	for (size_t i = 0; i < inv->count && n < max; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		if (e->cached_pages && !e->mapped && upcc_inventory_entry_hot(e, now) &&
		    upcc_ranges_apply(e->file_pages))
			order[n++] = e;
	}
	qsort(order + cold, n - cold, sizeof(*order), compare_coldest);
	return n;
}

/*
 * Watch what one drop of @e took, @watch being where its watch ends.  A
 * second drop in one refresh (a round takes the coldest file again) finds
 * the run its first drop cut, which the reader may be below: the watch
 * never grows in a refresh.
 */
static void note_drop(struct upcc_inventory *inv, struct upcc_inventory_entry *e, int fd,
		      const struct stat *st, uint64_t watch, uint64_t dropped)
{
	uint64_t left = 0;

	if (e->drop_scan == inv->scan && watch > e->drop_watch_pages)
		watch = e->drop_watch_pages;
	if (watch && upcc_residency_range(fd, st, 0, watch, &left))
		watch = 0;
	e->drop_usec = upcc_monotonic_usec();
	e->drop_watch_pages = watch;
	e->drop_pages = watch ? dropped : 0;
	e->drop_left_pages = left;
	e->drop_scan = inv->scan;
}

/* A hot large file loses only its ranges that may go (ranges.h). */
static int evict_ranges(struct upcc_inventory *inv, struct upcc_inventory_entry *entry, int fd,
			const struct stat *st, uint64_t limit_pages, struct upcc_evict_result *result)
{
	struct upcc_ranges *ranges = upcc_ranges_resize(entry->ranges,
							upcc_residency_file_pages(st));
	int err;

	if (!ranges)
		return -ENOMEM;
	entry->ranges = ranges;
	err = upcc_evict_fd_ranges(fd, st, &inv->mapped, ranges, limit_pages,
				   upcc_monotonic_usec(), result);
	if (!err)
		entry->cached_pages = result->after_pages;
	return err;
}

int upcc_inventory_evict(struct upcc_inventory *inv, struct upcc_inventory_entry *entry,
			 uint64_t limit_pages, struct upcc_evict_result *result)
{
	struct stat expect = { 0 }, st;
	uint64_t end_page = 0, run_start = 0, file_pages, watch;
	bool short_of_eof;
	int fd, err;

	memset(result, 0, sizeof(*result));
	expect.st_dev = entry->dev;
	expect.st_ino = entry->ino;
	fd = upcc_open_regular(AT_FDCWD, entry->path, &expect, &st);
	if (fd < 0)
		return fd;
	if (upcc_inventory_entry_hot(entry, upcc_monotonic_usec()) &&
	    upcc_ranges_apply(upcc_residency_file_pages(&st))) {
		err = evict_ranges(inv, entry, fd, &st, limit_pages, result);
		close(fd);
		return err;
	}
	/* Where the cache ends before the drop, and where the run of pages
	 * ending there begins: a sequential reader is in that run or past it.
	 */
	if (upcc_residency_last_cached(fd, &st, &end_page))
		end_page = 0;
	file_pages = upcc_residency_file_pages(&st);
	short_of_eof = end_page && end_page < file_pages;
	if (short_of_eof && upcc_residency_run_start(fd, &st, end_page, &run_start))
		run_start = 0;
	/* A file growing (a reader going through it) loses what is behind
	 * its reader, not the readahead ahead of it, and only once it holds
	 * twice that much: a drop near its reader would come back and make a
	 * stream look like a working set.  One whose cache stops short of its
	 * end may have a reader not seen growing yet (readahead comes in
	 * windows): it loses its head first.  Others from the tail.
	 */
	if (entry->active && end_page < 2 * UPCC_INVENTORY_READAHEAD_PAGES)
		err = upcc_evict_fd_head(fd, &st, &inv->mapped, limit_pages, 0, result);
	else if (entry->active)
		err = upcc_evict_fd_head(fd, &st, &inv->mapped, limit_pages,
					 behind_reader_end(end_page), result);
	else if (short_of_eof)
		err = upcc_evict_fd_head(fd, &st, &inv->mapped, limit_pages, end_page, result);
	else
		err = upcc_evict_fd_limit(fd, &st, &inv->mapped, limit_pages, result);
	/* A cache just as our last drop left it is our leftover (the head a
	 * tail drop kept), not a reader's run: no reader added to it.
	 */
	if (!err && result->before_pages == entry->drop_after_pages)
		run_start = end_page;
	watch = refault_watch_end(end_page, run_start, file_pages);
	if (!err && result->before_pages > result->after_pages) {
		note_drop(inv, entry, fd, &st, watch, result->before_pages - result->after_pages);
		entry->drop_after_pages = result->after_pages;
	}
	close(fd);
	if (!err)
		entry->cached_pages = result->after_pages;
	return err;
}

/* ---- the path scope's sample ------------------------------------------- */

struct sample_ctx {
	struct upcc_mapped_set mapped;
	struct upcc_inventory_totals totals;
};

static int sample_one(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct sample_ctx *sc = ctx;
	struct upcc_residency res;

	(void)path;
	if (upcc_residency_fd(fd, st, &res))
		return 0;
	add_totals(&sc->totals, &res, upcc_mapped_set_has(&sc->mapped, st->st_dev, st->st_ino));
	return 0;
}

static uint64_t mem_total_pages(void)
{
	const char *root = upcc_hooks.proc_root;
	char path[PATH_MAX];
	struct upcc_meminfo info;

	snprintf(path, sizeof(path), "%s/proc/meminfo", root ? root : "");
	if (upcc_meminfo_read(path, &info) || !UPCC_HAS(&info, UPCC_MI_MEM_TOTAL))
		return 0;
	return info.kb[UPCC_MI_MEM_TOTAL] * 1024u / upcc_page_size();
}

static void sample_from_totals(const struct upcc_inventory_totals *totals,
			       struct upcc_sample *sample, uint64_t total_pages)
{
	memset(sample, 0, sizeof(*sample));
	sample->total_pages = total_pages ? total_pages : mem_total_pages();
	sample->file_lru_pages = totals->cached_pages;
	sample->mapped_pages = totals->mapped_pages;
	sample->unmapped_pages = upcc_unmapped_file_pages(sample->file_lru_pages,
							  sample->mapped_pages);
	sample->dirty_pages = totals->dirty_pages;
	sample->writeback_pages = totals->writeback_pages;
	sample->skipped_depth = totals->walk.skipped_depth;
	sample->skipped_raced = totals->walk.skipped_raced;
	sample->walk_errors = totals->walk.errors;
	sample->hot_pages = totals->hot_pages;
	sample->refaulted_pages = totals->refaulted_pages;
	sample->hot_in_use = totals->hot_in_use;
}

int upcc_path_sample(struct upcc_scope *scope, struct upcc_sample *sample)
{
	struct upcc_walk_options options = { .cross_mounts = scope->cross_mounts };
	struct sample_ctx sc;
	int err;

	if (scope->kind != UPCC_SCOPE_PATH)
		return -EINVAL;
	memset(&sc, 0, sizeof(sc));
	err = upcc_mapped_set_load(&sc.mapped);
	if (!err)
		err = upcc_walk(scope->path, &options, sample_one, &sc, &sc.totals.walk);
	upcc_mapped_set_free(&sc.mapped);
	if (err)
		return err < 0 ? err : -EIO;
	sample_from_totals(&sc.totals, sample, 0);
	return 0;
}

/*
 * A file the last measure found wholly cached cannot gain cache by being
 * read, only by growing: a touch of it (a hot set re-read, the commonest
 * event) costs the tick one stat instead of two opens and a cachestat.
 * Pages it lost since are still counted: the next refresh sees them gone.
 */
static bool tick_still_full(const struct upcc_inventory_entry *e)
{
	return e->file_pages && e->cached_pages >= e->file_pages && same_size_as_measured(e);
}

int upcc_inventory_tick_sample(struct upcc_inventory *inv, struct upcc_sample *sample)
{
	struct upcc_inventory_totals totals;
	uint64_t now = upcc_monotonic_usec();
	/* With fanotify, a file can gain cache only if it was opened (an
	 * event) or was growing at the last refresh: only those are measured
	 * again, the rest counted as the refresh (or an eviction since) left
	 * them.  Without it, every known file is measured.
	 */
	bool watched = inv->fan.fd >= 0;
	size_t active = 0;

	if (inv->from_mounts)
		return -EOPNOTSUPP;	/* the system scope reads /proc/meminfo */
	if (!watched && inv->count > UPCC_INVENTORY_TICK_MAX_FILES)
		return -EOPNOTSUPP;	/* too dear a tick: the interval's rounds only */
	/* Files opened since: a stream is seen while it is read. */
	if (watched) {
		struct upcc_fanotify_view view = fan_view(inv);

		upcc_fanotify_drain(&inv->fan, &view, 2 * (uint64_t)inv->capacity);
	}
	memset(&totals, 0, sizeof(totals));
	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];
		struct stat expect = { 0 }, st;
		struct upcc_residency res;
		int fd;

		if (watched && (!e->active || tick_still_full(e))) {
			active += e->active;
			res.cached_pages = e->cached_pages;
			res.dirty_pages = res.writeback_pages = 0;
			add_totals(&totals, &res, e->mapped);
			totals.hot_pages += entry_hot_pages(e, e->cached_pages, now);
			continue;
		}
		active++;
		expect.st_dev = e->dev;
		expect.st_ino = e->ino;
		fd = upcc_open_regular(AT_FDCWD, e->path, &expect, &st);
		if (fd < 0)
			continue;	/* gone: the next refresh forgets it */
		if (!upcc_residency_fd(fd, &st, &res)) {
			add_totals(&totals, &res, e->mapped);
			totals.hot_pages += entry_hot_pages(e, res.cached_pages, now);
		}
		close(fd);
	}
	totals.hot_in_use = hot_in_use(inv, now);
	/* MemTotal as the last refresh read it: no /proc read per tick. */
	sample_from_totals(&totals, sample, inv->total_pages);
	sample->unchanged = watched && !active && inv->fan.events == inv->events_at_refresh &&
			    !inv->fan.need_walk;
	return 0;
}

int upcc_inventory_sample(const struct upcc_inventory *inv, struct upcc_sample *sample)
{
	/* A table that overflowed forgot files: its totals are the whole
	 * tree's only when this refresh walked it (every file the walk met
	 * was counted, kept in the table or not).
	 */
	if (inv->from_mounts || (inv->dropped_since_walk && !inv->last_walked_all))
		return -EOPNOTSUPP;
	sample_from_totals(&inv->last, sample, 0);
	((struct upcc_inventory *)inv)->total_pages = sample->total_pages;	/* for the tick */
	return 0;
}
