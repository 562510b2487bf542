// SPDX-License-Identifier: GPL-2.0
/*
 * sample.c - the path scope's sample from the inventory: the last
 * refresh's totals, or the sampling tick's cheap measure of the files the
 * inventory knows.  A walk of its own is sys/measure.c's.
 */
#include "inventory.h"
#include "internal.h"
#include "lib/clock.h"
#include "core/size.h"
#include "sys/measure.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The sample of @totals: the tree's, as measure.h sums it, and its
 * working set as the refresh or the tick found it.
 */
static void sample_from_totals(const struct upcc_inventory_totals *totals,
			       struct upcc_sample *sample, uint64_t total_pages)
{
	upcc_measure_from_sum(&totals->sum, &totals->walk, total_pages, sample);
	sample->hot_pages = totals->hot_pages;
	sample->refaulted_pages = totals->refaulted_pages;
	sample->hot_items = totals->hot_items;
	sample->unheld_pages = totals->unheld_pages;
	sample->hot_in_use = totals->hot_in_use;
}

/*
 * A file the last measure found wholly cached cannot gain cache by being
 * read, only by growing: a touch of it (a hot set re-read, the commonest
 * event) costs the tick one stat instead of two opens and a cachestat.
 * Pages it lost since are still counted: the next refresh sees them gone.
 */
static bool tick_still_full(const struct upcc_inventory_entry *e)
{
	return e->file_pages && e->cached_pages >= e->file_pages &&
	       upcc_inv_same_size_as_measured(e);
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
	bool watched = inv->fan.fd >= 0, back;
	size_t active = 0;
	int err;

	if (inv->from_mounts)
		return -EOPNOTSUPP;	/* the system scope reads /proc/meminfo */
	if (!watched && inv->count > UPCC_INVENTORY_TICK_MAX_FILES)
		return -EOPNOTSUPP;	/* too dear a tick: the interval's rounds only */
	/* Unmounted: nothing to measure.  Mounted again: its mark went with
	 * the unmount, so no event would ever end the quiet: it is marked
	 * again now (or not, then walked), and the round is not left out.
	 */
	err = upcc_inv_look_at_root(inv, &back);
	if (err)
		return err;
	if (back) {
		upcc_inv_renew_path_root(inv);
		watched = inv->fan.fd >= 0;
		if (!watched && inv->count > UPCC_INVENTORY_TICK_MAX_FILES)
			return -EOPNOTSUPP;
	}
	/* Files opened since: a stream is seen while it is read. */
	upcc_inv_drain_events(inv);
	memset(&totals, 0, sizeof(totals));
	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];
		struct stat expect = { 0 }, st;
		struct upcc_residency res;
		int fd;

		if ((watched && (!e->active || tick_still_full(e))) || now < e->tick_next_usec) {
			active += e->active;
			res.cached_pages = e->inflow_seen_pages;
			res.dirty_pages = res.writeback_pages = 0;
			upcc_residency_add(&totals.sum, &res, e->mapped);
			totals.hot_pages += upcc_inv_entry_hot_pages(e, e->cached_pages, now);
			totals.hot_items += upcc_inv_entry_hot_items(e, now);
			continue;
		}
		active++;
		expect.st_dev = e->dev;
		expect.st_ino = e->ino;
		fd = upcc_open_regular_path(e->path, &expect, &st);
		if (fd < 0)
			continue;	/* gone: the next refresh forgets it */
		if (!upcc_residency_fd(fd, &st, &res)) {
			/* The tick sees a stream between refreshes: its
			 * growth is the scope's inflow (core/wset.h).
			 */
			upcc_inv_measured(inv, e, res.cached_pages);
			upcc_residency_add(&totals.sum, &res, e->mapped);
			totals.hot_pages += upcc_inv_entry_hot_pages(e, res.cached_pages, now);
			totals.hot_items += upcc_inv_entry_hot_items(e, now);
		}
		close(fd);
		upcc_inv_note_own_open(inv);
	}
	totals.hot_in_use = upcc_inv_hot_in_use(inv, now);
	/* What is held is chosen by the refresh (refresh.c). */
	totals.unheld_pages = inv->last.unheld_pages;
	/* MemTotal as the last refresh read it: no /proc read per tick. */
	sample_from_totals(&totals, sample, inv->total_pages);
	sample->unchanged = watched && !active && inv->fan.events == inv->events_at_refresh &&
			    !inv->fan.need_walk && !back;
	return 0;
}

int upcc_inventory_sample(const struct upcc_inventory *inv, struct upcc_sample *sample)
{
	/* A table that overflowed forgot files: its totals are the whole
	 * tree's only when this refresh walked it (every file the walk met
	 * was counted, kept in the table or not).
	 */
	if (inv->from_mounts || (inv->dropped_since_walk && inv->walk_why == UPCC_INV_WALK_NONE))
		return -EOPNOTSUPP;
	sample_from_totals(&inv->last, sample, 0);
	((struct upcc_inventory *)inv)->total_pages = sample->total_pages;	/* for the tick */
	return 0;
}
