// SPDX-License-Identifier: GPL-2.0
/*
 * inventory.c - the bounded table of a scope's cached files, by (dev, ino),
 * with the roots it is learnt from.  Its refresh is refresh.c, eviction
 * from it drop.c, the samples sample.c, a large file's ranges ranges.c;
 * the mapped-file set is sys/mapped.c, per-file eviction sys/evict.c,
 * fanotify learning sys/fanotify.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* realpath, strdup */
#endif
#include "inventory.h"
#include "internal.h"
#include "lib/clock.h"
#include "lib/hooks.h"
#include "lib/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

uint32_t upcc_inv_index(const struct upcc_inventory *inv, dev_t dev, ino_t ino)
{
	return inv->slots[slot_of(inv, dev, ino)];
}

const char *upcc_inv_walk_why_name(enum upcc_inv_walk_why why)
{
	static const char *const names[] = {
		[UPCC_INV_WALK_NONE] = "no walk",
		[UPCC_INV_WALK_NO_FANOTIFY] = "no fanotify",
		[UPCC_INV_WALK_FIRST] = "the first refresh",
		[UPCC_INV_WALK_PERIODIC] = "the periodic walk",
		[UPCC_INV_WALK_MOUNTS] = "the mounts changed",
		[UPCC_INV_WALK_INTERRUPTED] = "the last refresh was interrupted",
		[UPCC_INV_WALK_TABLE_FULL] = "the table was full",
		[UPCC_INV_WALK_OVERFLOW] = "the fanotify queue overflowed",
	};

	return (size_t)why < sizeof(names) / sizeof(names[0]) && names[why] ? names[why] : "?";
}

/* fanotify marks the roots' filesystems, or says why not. */
static void start_learning(struct upcc_inventory *inv)
{
	upcc_fanotify_start(&inv->fan, inv->roots, inv->nr_roots);
}

/* The table, empty, with no roots yet. */
static int inventory_alloc(struct upcc_inventory *inv, size_t capacity)
{
	if (!capacity)
		capacity = UPCC_INVENTORY_DEFAULT_CAPACITY;
	if (capacity > (1u << 30))
		return -EINVAL;
	inv->capacity = capacity;
	inv->wset_hold_pages = UINT64_MAX;	/* no bound known before the caller's */
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
	struct upcc_fanotify_root *roots, root;
	char *real = realpath(path, NULL), *listed = NULL, **listed_roots;

	if (!real)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (upcc_fanotify_root_init(&root, real) || (check_dev && root.dev != dev)) {
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
	roots[inv->nr_roots++] = root;
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

void upcc_inventory_set_exclude(struct upcc_inventory *inv, const char *exclude)
{
	size_t len = 0;

	/* The list ends with an empty name: copy through it. */
	while (exclude[len] && len < sizeof(inv->exclude) - 1)
		len += strlen(exclude + len) + 1;
	if (len >= sizeof(inv->exclude))
		len = 0;	/* not a list upcc_scope made: none */
	memcpy(inv->exclude, exclude, len);
	inv->exclude[len] = '\0';
	inv->walk_options.exclude = inv->exclude[0] ? inv->exclude : NULL;
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

	free(r->path);
	free(*listed);
	memmove(r, r + 1, (inv->nr_roots - index - 1) * sizeof(*r));
	memmove(listed, listed + 1, (inv->nr_roots - index - 1) * sizeof(*listed));
	inv->nr_roots--;
}

/* Root @index is back, or its filesystem is another one now: mark it
 * again and walk everything once.
 */
static void renew_root(struct upcc_inventory *inv, size_t index)
{
	upcc_fanotify_renew_root(&inv->fan, inv->roots, inv->nr_roots, index);
	inv->fan.need_walk = true;
}

static void note_back(struct upcc_inventory *inv, size_t index)
{
	upcc_text_append(inv->roots_changed, sizeof(inv->roots_changed), "%smounted again %s (%s)",
			 *inv->roots_changed ? "; " : "", inv->roots[index].path,
			 upcc_fanotify_root_learning(&inv->roots[index]));
}

int upcc_inv_look_at_root(const struct upcc_inventory *inv, bool *back)
{
	*back = false;
	if (inv->from_mounts || !inv->nr_roots)
		return 0;	/* no root resolved: the walk reports it */
	switch (upcc_fanotify_check_root(&inv->fan, &inv->roots[0])) {
	case UPCC_FANOTIFY_ROOT_MISSING:
		return -ENOENT;
	case UPCC_FANOTIFY_ROOT_UNMOUNTED:
		return -ENODEV;
	case UPCC_FANOTIFY_ROOT_NEW:
		*back = true;
		return 0;
	case UPCC_FANOTIFY_ROOT_SAME:
		break;
	}
	*back = inv->root_gone;
	return 0;
}

void upcc_inv_renew_path_root(struct upcc_inventory *inv)
{
	renew_root(inv, 0);
	inv->root_gone = false;
	inv->root_back = true;
}

/*
 * A path scope's root that was a mount point and is not one any more was
 * unmounted: the scope cannot be measured (its mount point's empty
 * directory is not its tree) until it is mounted again; nothing of ours
 * keeps it mounted.  Its table is kept meanwhile: the same filesystem back
 * finds its files as they were, and the walk that follows forgets the rest.
 */
int upcc_inv_follow_path_root(struct upcc_inventory *inv)
{
	bool back;
	int err = upcc_inv_look_at_root(inv, &back);

	if (err) {
		inv->root_gone = true;
		return err;
	}
	if (back)
		upcc_inv_renew_path_root(inv);
	if (inv->root_back)		/* here, or by a tick since */
		note_back(inv, 0);
	inv->root_back = false;
	return 0;
}

/*
 * The system scope's roots that the mount table still lists: one
 * unmounted and mounted again between two refreshes shows the same line,
 * but its fanotify mark went with the unmount.
 */
static void renew_remounted(struct upcc_inventory *inv)
{
	for (size_t i = 0; i < inv->nr_roots; i++) {
		if (upcc_fanotify_check_root(&inv->fan, &inv->roots[i]) == UPCC_FANOTIFY_ROOT_NEW) {
			renew_root(inv, i);
			note_back(inv, i);
		}
	}
}

/*
 * The system scope follows the mount table, re-read every refresh (a few
 * lines of /proc, cheap beside re-measuring the files): a disk mounted
 * after start joins, is marked (unless fanotify is off) and the refresh
 * walks everything once; one unmounted leaves, and its files go with the
 * walk that no longer sees them; one mounted again since keeps its place
 * and is marked again.  A table that cannot be read keeps the roots there
 * are.
 */
int upcc_inv_sync_mount_roots(struct upcc_inventory *inv)
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
	renew_remounted(inv);
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
		if (!upcc_hooks.no_fanotify)
			upcc_fanotify_mark_root(&inv->fan, inv->roots, inv->nr_roots,
						inv->nr_roots - 1);
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

void upcc_inv_update_coldness(struct upcc_inventory_entry *e, const struct upcc_residency *res,
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

/*
 * The scope's inflow: what @e gained since the inflow last counted it, now
 * that it holds @cached pages.  A loss (a drop, the kernel's reclaim) only
 * moves the base down, so that what is read back is counted again.  A lower
 * bound (a page read and reclaimed between two measures is not seen), and
 * the cheapest: every measure the inventory makes anyway counts.
 */
void upcc_inv_count_inflow(struct upcc_inventory *inv, struct upcc_inventory_entry *e,
			   uint64_t cached)
{
	if (cached > e->inflow_seen_pages)
		inv->inflow_pages += cached - e->inflow_seen_pages;
	e->inflow_seen_pages = cached;
}

/*
 * The tick's measure costs in proportion to the file's cache (inventory.h);
 * a file any measure saw a moment ago need not cost it again: the refresh
 * measured a database's relation file at every round and the tick again
 * twice a second, a quarter of upcd's CPU on W5.
 */
void upcc_inv_measured(struct upcc_inventory *inv, struct upcc_inventory_entry *e,
		       uint64_t cached)
{
	upcc_inv_count_inflow(inv, e, cached);
	e->tick_next_usec = upcc_monotonic_usec() +
			    cached * upcc_page_size() / (1u << 20) * UPCC_INVENTORY_TICK_USEC_PER_MIB;
}

struct upcc_wset_now upcc_inventory_wset_now(const struct upcc_inventory *inv)
{
	return (struct upcc_wset_now){ .usec = upcc_monotonic_usec(),
				       .inflow_pages = inv->inflow_pages,
				       .hold_pages = inv->wset_hold_pages };
}

/* @keep_empty: a file just opened (fanotify) is kept with no cache yet, so
 * that the sampling tick sees a stream read into it before it is closed.
 */
int upcc_inv_note_entry(struct upcc_inventory *inv, dev_t dev, ino_t ino, const char *path,
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
		upcc_inv_update_coldness(e, res, atime_sec);
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
	upcc_inv_measured(inv, e, res->cached_pages);
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
	return upcc_inv_note_entry(inv, dev, ino, path, res, atime_sec, mapped, false);
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
uint64_t upcc_inv_entry_hot_pages(const struct upcc_inventory_entry *e, uint64_t cached,
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

uint64_t upcc_inv_entry_hot_items(const struct upcc_inventory_entry *e, uint64_t now_usec)
{
	uint64_t n = 0;

	if (!upcc_inventory_entry_hot(e, now_usec))
		return 0;
	if (!upcc_ranges_apply(e->file_pages))
		return 1;
	for (uint64_t i = 0; e->ranges && i < e->ranges->nr; i++)
		n += e->ranges->range[i].hot_until_usec > now_usec && e->ranges->range[i].cached;
	return n;
}

/* Was @e named by an open event at most UPCC_INVENTORY_OPENED_KEEP_SCANS
 * refreshes ago?
 */
static bool opened_lately(const struct upcc_inventory *inv, const struct upcc_inventory_entry *e)
{
	return e->opened_scan + UPCC_INVENTORY_OPENED_KEEP_SCANS >= inv->scan;
}

/* Forget files the last walk did not see (deleted, moved out) or that hold
 * no cache any more.
 */
void upcc_inv_drop_stale(struct upcc_inventory *inv)
{
	size_t kept = 0;

	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		/* A file dropped and watched for refaults, or just opened,
		 * is kept with no cache; it was seen this refresh all the same.
		 */
		bool keep_empty = e->drop_watch_pages || opened_lately(inv, e);

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

bool upcc_inv_hot_in_use(const struct upcc_inventory *inv, uint64_t now_usec)
{
	return inv->hot_used_usec && now_usec - inv->hot_used_usec < UPCC_INVENTORY_IN_USE_USEC;
}
