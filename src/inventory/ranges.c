// SPDX-License-Identifier: GPL-2.0
/*
 * ranges.c - the cold ranges of one large file in use; see ranges.h.
 */
#include "ranges.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "sys/evict.h"
#include "sys/residency.h"
#include "core/size.h"

static uint64_t nr_ranges(uint64_t file_pages)
{
	return (file_pages + UPCC_RANGE_PAGES - 1) / UPCC_RANGE_PAGES;
}

bool upcc_ranges_apply(uint64_t file_pages)
{
	return file_pages >= UPCC_RANGES_MIN_PAGES;
}

struct upcc_ranges *upcc_ranges_resize(struct upcc_ranges *ranges, uint64_t file_pages)
{
	uint64_t nr = nr_ranges(file_pages), old = ranges ? ranges->nr : 0;
	struct upcc_ranges *r;

	if (ranges && nr == old)
		return ranges;
	r = realloc(ranges, sizeof(*r) + nr * sizeof(r->range[0]));
	if (!r)
		return NULL;
	if (!ranges)
		memset(r, 0, sizeof(*r));
	if (nr > old)
		memset(&r->range[old], 0, (nr - old) * sizeof(r->range[0]));
	r->nr = nr;
	return r;
}

void upcc_ranges_free(struct upcc_ranges *ranges)
{
	free(ranges);
}

static bool range_hot(const struct upcc_range *r, uint64_t now_usec)
{
	return r->hot_until_usec > now_usec;
}

/* A range's page count as its state keeps it (16 bits). */
static uint16_t range_pages(uint64_t pages)
{
	return pages > UPCC_RANGE_PAGES ? UPCC_RANGE_PAGES : (uint16_t)pages;
}

static int range_cached(int fd, const struct stat *st, uint64_t index, uint16_t *cached)
{
	uint64_t pages;
	int err = upcc_residency_range(fd, st, index * UPCC_RANGE_PAGES, UPCC_RANGE_PAGES, &pages);

	if (err)
		return err;
	*cached = range_pages(pages);
	return 0;
}

/*
 * One dropped range measured again: if it came back within what the scope
 * may hold (a quarter of what the drop took, at a refault distance within
 * the hold: core/wset.h) it is hot, for longer each time; the watch ends
 * when it is judged (a stream's range comes back too late, or never).
 * A watch that ended with nothing back ends the range's record of being
 * hot, so that its next drop is whole again.  One with a little back keeps
 * it: an eighth is a small sample, and a range still in use whose probe
 * fell short by chance would otherwise lose all of it at its next drop.
 * Returns the pages back if it proved hot, else 0.
 */
static uint64_t judge_range(struct upcc_range *r, uint16_t cached, const struct upcc_wset_now *now)
{
	uint64_t back = cached > r->left ? (uint64_t)(cached - r->left) : 0;
	enum upcc_wset_verdict v = upcc_wset_judge(&r->drop, r->dropped, back, now, &r->distance);

	if (v == UPCC_WSET_WORKING_SET) {
		unsigned int shift = r->hot_level < UPCC_RANGE_HOT_MAX_SHIFT ? r->hot_level
									  : UPCC_RANGE_HOT_MAX_SHIFT;

		r->hot_until_usec = now->usec + (UPCC_WSET_HOT_USEC << shift);
		if (r->hot_level < UINT8_MAX)
			r->hot_level++;
	} else if (v == UPCC_WSET_NOT_WORKING_SET && !back) {
		r->hot_level = 0;
	}
	if (v != UPCC_WSET_WATCHING)
		r->dropped = r->left = 0;
	return v == UPCC_WSET_WORKING_SET ? back : 0;
}

uint64_t upcc_ranges_watch(struct upcc_ranges *ranges, int fd, const struct stat *st,
			   const struct upcc_wset_now *now)
{
	uint64_t back = 0;

	for (uint64_t i = 0; i < ranges->nr; i++) {
		struct upcc_range *r = &ranges->range[i];
		uint16_t cached;

		if (!r->dropped || range_cached(fd, st, i, &cached))
			continue;
		back += judge_range(r, cached, now);
		r->cached = cached;
	}
	return back;
}

/* A range that may be dropped: looked at before, not grown since, not
 * hot, holding cache, and not already dropped and watched.
 */
static bool range_may_go(const struct upcc_range *r, uint16_t cached, uint64_t now_usec)
{
	return r->seen && cached && cached <= r->cached && !r->dropped &&
	       !range_hot(r, now_usec);
}

/* Add one range's residency to the file's. */
static void sum_range(struct upcc_residency *file, const struct upcc_residency *res)
{
	file->cached_pages += res->cached_pages;
	file->dirty_pages += res->dirty_pages;
	file->writeback_pages += res->writeback_pages;
	file->evicted_pages += res->evicted_pages;
	file->recently_evicted_pages += res->recently_evicted_pages;
	file->state_known = file->state_known && res->state_known;
}

/* Look at every range: judge watched drops, note growth, mark candidates. */
static int look_all(struct upcc_ranges *ranges, int fd, const struct stat *st,
		    const struct upcc_wset_now *now, struct upcc_residency *file)
{
	memset(file, 0, sizeof(*file));
	file->file_pages = upcc_residency_file_pages(st);
	file->state_known = true;
	for (uint64_t i = 0; i < ranges->nr; i++) {
		struct upcc_range *r = &ranges->range[i];
		struct upcc_residency res;
		uint16_t cached;
		int err = upcc_residency_range_state(fd, st, i * UPCC_RANGE_PAGES,
						     UPCC_RANGE_PAGES, &res);

		if (err)
			return err;
		sum_range(file, &res);
		cached = range_pages(res.cached_pages);
		if (r->dropped)
			judge_range(r, cached, now);
		r->may_go = range_may_go(r, cached, now->usec);
		r->cached = cached;
		r->seen = true;
	}
	return 0;
}

int upcc_ranges_look(struct upcc_ranges *ranges, int fd, const struct stat *st, uint64_t pass,
		     const struct upcc_wset_now *now, struct upcc_residency *file, bool *fresh)
{
	int err;

	*fresh = !ranges->looked || ranges->look_pass != pass;
	if (!*fresh) {
		*file = ranges->look_sum;
		return 0;
	}
	ranges->looked = false;
	err = look_all(ranges, fd, st, now, &ranges->look_sum);
	if (err)
		return err;
	ranges->looked = true;
	ranges->look_pass = pass;
	*file = ranges->look_sum;
	return 0;
}

struct candidate {
	uint64_t index;
	uint16_t cached;
};

/* Least cached first; on a tie the later in the file. */
static int compare_candidates(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->cached != y->cached)
		return x->cached < y->cached ? -1 : 1;
	return x->index > y->index ? -1 : (x->index < y->index);
}

/* The ranges the last look found may go, in the order they go. */
static uint64_t list_candidates(const struct upcc_ranges *ranges, struct candidate *cand)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < ranges->nr; i++)
		if (ranges->range[i].may_go)
			cand[n++] = (struct candidate){ i, ranges->range[i].cached };
	qsort(cand, n, sizeof(*cand), compare_candidates);
	return n;
}

/* DONTNEED pages [first, first + nr) of range @index; *after gets its cache. */
static int drop_pages(int fd, const struct stat *st, uint64_t index, uint64_t first,
		      uint64_t nr, uint16_t *after)
{
	int err = upcc_evict_span(fd, index * UPCC_RANGE_PAGES + first, nr);

	if (err)
		return err;
	return range_cached(fd, st, index, after);
}

/*
 * Probe a range that proved hot: drop the next eighth, after the last
 * probe's, that holds cache; the rest stays.  An eighth emptied before
 * (its pages cold, taken by an earlier probe, and not read since) is
 * passed over rather than taken as a sign the range cannot be probed:
 * that would drop all of a range still hot elsewhere.  *after is left
 * at the range's cache before if no eighth gave anything back.
 */
static int probe_range(struct upcc_range *r, int fd, const struct stat *st, uint64_t index,
		       uint16_t *after)
{
	uint64_t base = index * UPCC_RANGE_PAGES;

	for (unsigned int k = 1; k <= UPCC_RANGE_PROBES; k++) {
		uint64_t first = ((r->probes + k) % UPCC_RANGE_PROBES) * UPCC_RANGE_PROBE_PAGES;
		uint64_t cached;
		int err = upcc_residency_range(fd, st, base + first, UPCC_RANGE_PROBE_PAGES,
					       &cached);

		if (err)
			return err;
		if (!cached)
			continue;
		err = drop_pages(fd, st, index, first, UPCC_RANGE_PROBE_PAGES, after);
		if (err)
			return err;
		if (*after < r->cached) {
			r->probes = (uint8_t)(r->probes + k);
			return 0;
		}
	}
	return 0;
}

/*
 * After a reused look: may range @index still go?  Not if it grew since
 * that look (someone reads it) or holds dirty or writeback pages now.
 */
static int still_may_go(struct upcc_range *r, int fd, const struct stat *st, uint64_t index,
			bool *may)
{
	struct upcc_residency res;
	int err = upcc_residency_range_state(fd, st, index * UPCC_RANGE_PAGES, UPCC_RANGE_PAGES,
					     &res);

	if (err)
		return err;
	*may = res.cached_pages && res.cached_pages <= r->cached && !res.dirty_pages &&
	       !res.writeback_pages;
	r->cached = range_pages(res.cached_pages);
	return 0;
}

/*
 * A range that proved hot is probed by an eighth; one that did not is
 * dropped whole.  So is a hot one no eighth of which gives anything back
 * (large folios across them: DONTNEED passes over a folio that straddles
 * its range), or the range could never be judged again.
 */
static int drop_range(struct upcc_range *r, int fd, const struct stat *st, uint64_t index,
		      const struct upcc_wset_now *now, uint64_t *dropped)
{
	uint16_t before = r->cached, after = before;
	int err = 0;

	if (r->hot_level)
		err = probe_range(r, fd, st, index, &after);
	if (!err && after >= before)
		err = drop_pages(fd, st, index, 0, UPCC_RANGE_PAGES, &after);
	if (err)
		return err;
	if (after < before) {
		r->dropped = (uint16_t)(before - after);
		r->left = after;
		upcc_wset_drop_start(&r->drop, now);
		*dropped += before - after;
	}
	r->cached = after;
	return 0;
}

int upcc_ranges_drop(struct upcc_ranges *ranges, int fd, const struct stat *st,
		     uint64_t limit_pages, bool recheck, const struct upcc_wset_now *now,
		     uint64_t *dropped)
{
	struct candidate *cand;
	uint64_t nr_cand;
	int err = 0;

	*dropped = 0;
	if (!ranges->nr)
		return 0;
	cand = malloc(ranges->nr * sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	nr_cand = list_candidates(ranges, cand);
	for (uint64_t i = 0; !err && i < nr_cand; i++) {
		struct upcc_range *r = &ranges->range[cand[i].index];
		bool may = true;

		if (limit_pages && *dropped >= limit_pages)
			break;
		r->may_go = false;	/* one drop a look */
		if (recheck)
			err = still_may_go(r, fd, st, cand[i].index, &may);
		if (!err && may)
			err = drop_range(r, fd, st, cand[i].index, now, dropped);
	}
	free(cand);
	if (ranges->looked) {
		struct upcc_residency *sum = &ranges->look_sum;

		sum->cached_pages = sum->cached_pages > *dropped ? sum->cached_pages - *dropped : 0;
	}
	return err;
}

uint64_t upcc_ranges_hot_pages(const struct upcc_ranges *ranges, uint64_t now_usec)
{
	uint64_t pages = 0;

	for (uint64_t i = 0; i < ranges->nr; i++)
		if (range_hot(&ranges->range[i], now_usec))
			pages += ranges->range[i].cached;
	return pages;
}
