// SPDX-License-Identifier: GPL-2.0
/*
 * invsample.c - the path scope's sample: from a walk of its own, from the
 * last refresh's totals, or from the sampling tick's cheap measure of the
 * files the inventory knows.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* AT_FDCWD */
#endif
#include "inventory.h"
#include "inventory-internal.h"
#include "hooks.h"
#include "clock.h"
#include "size.h"
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One file's measure, summed into @totals. */
void upcc_inv_add_totals(struct upcc_inventory_totals *totals, const struct upcc_residency *res,
			 bool mapped)
{
	totals->files++;
	totals->cached_pages += res->cached_pages;
	totals->dirty_pages += res->dirty_pages;
	totals->writeback_pages += res->writeback_pages;
	if (mapped)
		totals->mapped_pages += res->cached_pages;
}

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
	upcc_inv_add_totals(&sc->totals, &res,
			    upcc_mapped_set_has(&sc->mapped, st->st_dev, st->st_ino));
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
	bool watched = inv->fan.fd >= 0;
	size_t active = 0;

	if (inv->from_mounts)
		return -EOPNOTSUPP;	/* the system scope reads /proc/meminfo */
	if (!watched && inv->count > UPCC_INVENTORY_TICK_MAX_FILES)
		return -EOPNOTSUPP;	/* too dear a tick: the interval's rounds only */
	/* Files opened since: a stream is seen while it is read. */
	if (watched) {
		struct upcc_fanotify_view view = upcc_inv_fan_view(inv);

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
			upcc_inv_add_totals(&totals, &res, e->mapped);
			totals.hot_pages += upcc_inv_entry_hot_pages(e, e->cached_pages, now);
			continue;
		}
		active++;
		expect.st_dev = e->dev;
		expect.st_ino = e->ino;
		fd = upcc_open_regular(AT_FDCWD, e->path, &expect, &st);
		if (fd < 0)
			continue;	/* gone: the next refresh forgets it */
		if (!upcc_residency_fd(fd, &st, &res)) {
			upcc_inv_add_totals(&totals, &res, e->mapped);
			totals.hot_pages += upcc_inv_entry_hot_pages(e, res.cached_pages, now);
		}
		close(fd);
		upcc_inv_note_own_open(inv);
	}
	totals.hot_in_use = upcc_inv_hot_in_use(inv, now);
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
	if (inv->from_mounts || (inv->dropped_since_walk && inv->walk_why == UPCC_INV_WALK_NONE))
		return -EOPNOTSUPP;
	sample_from_totals(&inv->last, sample, 0);
	((struct upcc_inventory *)inv)->total_pages = sample->total_pages;	/* for the tick */
	return 0;
}
