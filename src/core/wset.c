// SPDX-License-Identifier: GPL-2.0
/*
 * wset.c - the working set judged by refault distance, and the effective
 * target; see wset.h.
 */
#include <stdlib.h>

#include "wset.h"

enum upcc_wset_verdict upcc_wset_judge(struct upcc_wset_drop *d, uint64_t dropped_pages,
				       uint64_t back_pages, const struct upcc_wset_now *now,
				       uint64_t *distance)
{
	uint64_t since = now->inflow_pages > d->inflow_at_drop ?
			 now->inflow_pages - d->inflow_at_drop : 0;

	if (upcc_wset_came_back(back_pages, dropped_pages)) {
		/* The last look that found it not back bounds the distance
		 * from below: it came back after that much inflow at least.
		 */
		uint64_t dist = d->inflow_not_back - d->inflow_at_drop;

		if (dist > now->hold_pages)
			return UPCC_WSET_NOT_WORKING_SET;
		if (since > now->hold_pages && now->usec - d->look_usec > UPCC_WSET_LOOK_GAP_USEC)
			return UPCC_WSET_NOT_WORKING_SET;	/* looked at too late to tell */
		*distance = dist;
		return UPCC_WSET_WORKING_SET;
	}
	/* More came in since the drop than the scope may hold: had it been
	 * kept, it would have been the first to go.  Nothing to wait for.
	 */
	if (since > now->hold_pages || now->usec - d->usec >= UPCC_WSET_WATCH_USEC)
		return UPCC_WSET_NOT_WORKING_SET;
	d->inflow_not_back = now->inflow_pages;
	d->look_usec = now->usec;
	return UPCC_WSET_WATCHING;
}

/* Shortest refault distance first; on a tie the smaller first. */
static int compare_items(const void *a, const void *b)
{
	const struct upcc_wset_item *x = a, *y = b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	if (x->pages != y->pages)
		return x->pages < y->pages ? -1 : 1;
	return 0;
}

uint64_t upcc_wset_keep(struct upcc_wset_item *items, size_t nr, uint64_t hold_pages)
{
	uint64_t held = 0;
	bool full = false;

	qsort(items, nr, sizeof(*items), compare_items);
	for (size_t i = 0; i < nr; i++) {
		/* A prefix: a longer distance is never held over a shorter. */
		full = full || items[i].pages > hold_pages - held;
		items[i].keep = !full;
		if (!full)
			held += items[i].pages;
	}
	return held;
}

static uint64_t decayed(const struct upcc_wset *w, uint64_t now_usec)
{
	uint64_t age = now_usec > w->peak_usec ? now_usec - w->peak_usec : 0;

	if (!w->peak_pages || age >= UPCC_WSET_DECAY_USEC)
		return 0;
	/* peak x (1 - age / decay), without overflow for any page count */
	return (uint64_t)((double)w->peak_pages *
			  (double)(UPCC_WSET_DECAY_USEC - age) / (double)UPCC_WSET_DECAY_USEC);
}

uint64_t upcc_wset_update(struct upcc_wset *w, uint64_t target_pages, uint64_t cap_pages,
			  uint64_t hot_pages, bool in_use, uint64_t now_usec)
{
	uint64_t want = 0, left;

	w->refault_pages = hot_pages;
	w->cap_pages = cap_pages;
	w->in_use = in_use && hot_pages > 0;
	w->capped = false;
	/* Only a set in use, and bigger than the target, raises it: one that
	 * fits is kept by protecting its files, the target unchanged.
	 */
	if (w->in_use && hot_pages > target_pages)
		want = hot_pages - target_pages;
	if (want > cap_pages) {
		want = cap_pages;
		w->capped = true;
	}
	left = decayed(w, now_usec);
	if (left > cap_pages)
		left = cap_pages;	/* a cap lowered by a reload holds at once */
	if (want && want >= left) {
		w->peak_pages = want;
		w->peak_usec = now_usec;
		w->raise_pages = want;
	} else {
		w->raise_pages = left;
		if (!left)
			w->peak_pages = 0;
	}
	if (target_pages > UINT64_MAX - w->raise_pages)
		return UINT64_MAX;
	return target_pages + w->raise_pages;
}

const char *upcc_wset_reason(const struct upcc_wset *w)
{
	if (!w->raise_pages)
		return "target";
	if (!w->in_use)
		return "working set decaying";
	return w->capped ? "working set in use, capped" : "working set in use";
}
