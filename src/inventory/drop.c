// SPDX-License-Identifier: GPL-2.0
/*
 * drop.c - eviction from the inventory: its files in the order they
 * go, coldest first, each dropped behind its reader and watched for
 * refaults (the refresh, refresh.c, checks the watch).
 */
#include "inventory.h"
#include "internal.h"
#include "core/size.h"
#include "lib/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* UPCC_INVENTORY_READAHEAD_BYTES in pages: 1024 of 4 KiB. */
static uint64_t readahead_pages(void)
{
	return UPCC_INVENTORY_READAHEAD_BYTES / upcc_page_size();
}

/*
 * Where a file still being read is dropped up to.  A stream (its cache
 * one run ending where the reader is, short of the file's end or at it:
 * a reader going through it, or one that just got to its end) keeps a
 * window of twice the readahead at its reader, whatever the file's size:
 * half of what it read, as any other reader keeps, would hold 50 GiB of a
 * 100 GiB image being backed up, and half of every file a backup just
 * finished.  Another reader (random: its cache in pieces) keeps the upper
 * half of its cache, where its read in progress and the readahead it had
 * not consumed are.
 */
static uint64_t reader_keep_end(uint64_t end_page, uint64_t run_start)
{
	uint64_t window = 2 * readahead_pages();

	if (end_page - run_start > window)
		return end_page - window;
	return behind_reader_end(end_page);
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
	struct upcc_wset_now now = upcc_inventory_wset_now(inv);

	if (watch && upcc_residency_range(fd, st, 0, watch, &left))
		watch = 0;
	upcc_wset_drop_start(&e->drop, &now);
	e->drop_watch_pages = watch;
	e->drop_pages = watch ? dropped : 0;
	e->drop_left_pages = left;
	e->drop_scan = inv->scan;
}

/*
 * The refresh's totals less what a drop took: what a refresh that does
 * not walk (a paced one, inventory.h) reports is the last walk's, so what
 * upcd dropped since must not be counted again.
 */
static void take_from_totals(struct upcc_inventory *inv, const struct upcc_evict_result *result)
{
	uint64_t took = result->before_pages > result->after_pages ?
			result->before_pages - result->after_pages : 0;
	struct upcc_residency_sum *sum = &inv->last.sum;

	sum->cached_pages = sum->cached_pages > took ? sum->cached_pages - took : 0;
}

/*
 * A hot large file loses only its ranges that may go (ranges.h), under the
 * rules every eviction keeps (evict.h), until @limit_pages are gone.  The
 * ranges' look measures the file (its ranges summed), once a refresh: a
 * round's later steps drop what that look found, each range measured
 * again just before it goes.
 */
static int evict_ranges(struct upcc_inventory *inv, struct upcc_inventory_entry *entry, int fd,
			const struct stat *st, uint64_t limit_pages, struct upcc_evict_result *result)
{
	struct upcc_ranges *ranges = upcc_ranges_resize(entry->ranges,
							upcc_residency_file_pages(st));
	struct upcc_wset_now now = upcc_inventory_wset_now(inv);
	struct upcc_residency res;
	uint64_t dropped;
	bool fresh;
	int err;

	if (!ranges)
		return -ENOMEM;
	entry->ranges = ranges;
	err = upcc_ranges_look(ranges, fd, st, inv->scan, &now, &res, &fresh);
	if (!err)
		err = upcc_evict_check(&res, st, &inv->mapped, result);
	if (err <= 0)
		return err;
	if (fresh) {
		upcc_inv_measured(inv, entry, res.cached_pages);
		now = upcc_inventory_wset_now(inv);	/* the drops start from here */
	}
	err = upcc_ranges_drop(ranges, fd, st, limit_pages, !fresh, &now, &dropped);
	if (err)
		return err;
	/* What the ranges' own measures say is gone, not a measure of the
	 * whole file again (it costs what the ranges' look did): a page read
	 * in meanwhile is the next measure's to see.
	 */
	result->after_pages = entry->cached_pages =
		res.cached_pages > dropped ? res.cached_pages - dropped : 0;
	upcc_inv_count_inflow(inv, entry, result->after_pages);
	take_from_totals(inv, result);
	return 0;
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
	fd = upcc_open_regular_path(entry->path, &expect, &st);
	if (fd < 0)
		return fd;
	upcc_inv_note_own_open(inv);
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
	/* A reader that got to the end is looked for as one on its way. */
	if ((short_of_eof || (entry->active && end_page)) &&
	    upcc_residency_run_start(fd, &st, end_page, &run_start))
		run_start = short_of_eof ? 0 : end_page;
	/* A file growing (a reader going through it) loses what is behind
	 * its reader, not the readahead ahead of it, and only once it holds
	 * twice that much: a drop near its reader would come back and make a
	 * stream look like a working set.  One whose cache stops short of its
	 * end may have a reader not seen growing yet (readahead comes in
	 * windows): it loses its head first.  Others from the tail.
	 */
	if (entry->active && end_page < 2 * readahead_pages())
		err = upcc_evict_fd_head(fd, &st, &inv->mapped, limit_pages, 0, result);
	else if (entry->active)
		err = upcc_evict_fd_head(fd, &st, &inv->mapped, limit_pages,
					 reader_keep_end(end_page, run_start), result);
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
	/* What came in since the last measure, then what the drop took. */
	if (!err) {
		upcc_inv_count_inflow(inv, entry, result->before_pages);
		upcc_inv_measured(inv, entry, result->after_pages);
	}
	if (!err && result->before_pages > result->after_pages) {
		note_drop(inv, entry, fd, &st, watch, result->before_pages - result->after_pages);
		entry->drop_after_pages = result->after_pages;
	}
	close(fd);
	if (!err) {
		entry->cached_pages = result->after_pages;
		take_from_totals(inv, result);
	}
	return err;
}
