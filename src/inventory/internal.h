/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the inventory's files share, and nothing outside
 * src/inventory/ includes.  The upcc_inv_ prefix marks these as private to
 * the folder; its API is inventory.h.
 *
 * Calls run one way, each file calling only those before it:
 *
 *	ranges.c < inventory.c < refresh.c < sample.c, drop.c
 *
 * ranges.c (a file's ranges, ranges.h) knows no table; inventory.c is the
 * table and its roots; refresh.c fills the table; sample.c (the samples)
 * and drop.c (eviction) work from it.  Each section below is what one file
 * provides, named, in that order; sample.c and drop.c provide none.
 */
#ifndef UPCC_INVENTORY_INTERNAL_H
#define UPCC_INVENTORY_INTERNAL_H

#include "inventory.h"

/* ---- inventory.c: the table, for refresh.c and above --------------------- */

/* The refresh looks files up by (dev, ino) as the table's own code does:
 * the entry of (@dev, @ino) plus one, 0 if the table has none.
 */
uint32_t upcc_inv_index(const struct upcc_inventory *inv, dev_t dev, ino_t ino);

/* The scope's inflow (core/wset.h) counts what @e gained: it holds @cached
 * pages now.  Every measure of a file counts it: the refresh's, the tick's,
 * the eviction's.
 */
void upcc_inv_count_inflow(struct upcc_inventory *inv, struct upcc_inventory_entry *e,
			   uint64_t cached);

/* A measure of the whole of @e found @cached pages: the inflow counts it,
 * and the tick measures it again only UPCC_INVENTORY_TICK_USEC_PER_MIB
 * later, whoever measured it (a refresh, a drop, the tick itself).
 */
void upcc_inv_measured(struct upcc_inventory *inv, struct upcc_inventory_entry *e,
		       uint64_t cached);

/* The refresh records each file it measured in the table. */
int upcc_inv_note_entry(struct upcc_inventory *inv, dev_t dev, ino_t ino, const char *path,
			const struct upcc_residency *res, int64_t atime_sec, bool mapped,
			bool keep_empty);

/* A file counted unchanged by the refresh ages as one measured does. */
void upcc_inv_update_coldness(struct upcc_inventory_entry *e, const struct upcc_residency *res,
			      int64_t atime_sec);

/* The refresh's last step: forget what it did not see. */
void upcc_inv_drop_stale(struct upcc_inventory *inv);

/* The system scope's refresh follows the mount table first. */
int upcc_inv_sync_mount_roots(struct upcc_inventory *inv);

/* The path scope's root, for the refresh and the tick: -ENOENT (its path
 * is gone), -ENODEV (it was a mount point and is not: unmounted), else 0
 * and *@back set where it is to be marked and walked again (mounted again,
 * or another filesystem there).  Changes nothing.
 */
int upcc_inv_look_at_root(const struct upcc_inventory *inv, bool *back);

/* The path scope's root back (*@back above): marked again, the next
 * refresh walks and says so.  The tick's, so that what is read on it from
 * then on is seen before the interval's round.
 */
void upcc_inv_renew_path_root(struct upcc_inventory *inv);

/* The path scope's refresh looks at its root first: the error above, or
 * the root renewed when it is back (inv->roots_changed says so).
 */
int upcc_inv_follow_path_root(struct upcc_inventory *inv);

/* The working set's pages, summed by the refresh and by the tick. */
uint64_t upcc_inv_entry_hot_pages(const struct upcc_inventory_entry *e, uint64_t cached,
				  uint64_t now_usec);

/* How many pieces (a file, or each hot range of a large one) of it @e is. */
uint64_t upcc_inv_entry_hot_items(const struct upcc_inventory_entry *e, uint64_t now_usec);

/* Whether the working set is in use, told by the refresh and by the tick. */
bool upcc_inv_hot_in_use(const struct upcc_inventory *inv, uint64_t now_usec);

/* ---- refresh.c: the refresh, for sample.c and drop.c --------------------- */

/* Read fanotify's queued events into the table (none without fanotify),
 * at most UPCC_INVENTORY_DRAIN_EVENTS_PER_ENTRY per entry it holds: the
 * refresh's and the tick's drain.  An overflow sets fan.need_walk.
 */
void upcc_inv_drain_events(struct upcc_inventory *inv);

/* A file a pass (walk, measure, eviction) opened: every so many, the
 * fanotify queue is read so our own events cannot overflow it.  What is
 * learnt then never fills the table: entries do not move under a pass.
 */
void upcc_inv_note_own_open(struct upcc_inventory *inv);

/* One stat in place of a measure, for the refresh and the tick alike. */
bool upcc_inv_same_size_as_measured(const struct upcc_inventory_entry *e);

#endif /* UPCC_INVENTORY_INTERNAL_H */
