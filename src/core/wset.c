// SPDX-License-Identifier: GPL-2.0
/*
 * wset.c - the effective target; see wset.h.
 */
#include "wset.h"

static uint64_t decayed(const struct upcc_wset *w, uint64_t now_usec)
{
	uint64_t age = now_usec > w->peak_usec ? now_usec - w->peak_usec : 0;

	if (!w->peak_pages || age >= UPCC_WSET_DECAY_USEC)
		return 0;
	/* peak x (1 - age / decay), without overflow for any page count */
	return (uint64_t)((double)w->peak_pages *
			  (double)(UPCC_WSET_DECAY_USEC - age) / (double)UPCC_WSET_DECAY_USEC);
}

uint64_t upcc_wset_update(struct upcc_wset *w, uint64_t target_pages, uint64_t hot_pages,
			  bool in_use, uint64_t now_usec)
{
	uint64_t want = 0, left;

	w->refault_pages = hot_pages;
	w->in_use = in_use && hot_pages > 0;
	/* Only a set in use, and bigger than the target, raises it: one that
	 * fits is kept by protecting its files, the target unchanged.
	 */
	if (w->in_use && hot_pages > target_pages)
		want = hot_pages - target_pages;
	if (want > hot_pages)
		want = hot_pages;	/* at most target + the refaulting set */
	left = decayed(w, now_usec);
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
	return w->in_use ? "working set in use" : "working set decaying";
}
