/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wset.h - the working set: what came back after a drop, and the
 * effective target the control aims at when it does not fit in the target.
 *
 * The working set is what upcd dropped and a reader brought back.  Each
 * drop, of a file or of one range of a large file (src/inventory/), is
 * watched for UPCC_WSET_WATCH_USEC; if what came back in that time is a
 * quarter or more of what it took (upcc_wset_came_back), that file or range
 * is hot: it is not evicted for UPCC_WSET_HOT_USEC.  The rule is written
 * here once, for the files and the ranges alike; each then keeps its hot
 * time in its own way (a file's restarts on each use, a range's doubles
 * each time it proves hot again: inventory.h, ranges.h).
 *
 * Its cached pages are the scope's measured refaulting set.  Evicting it
 * again would only make its reader read it back (thrashing, as senpai and
 * TMO back off on pressure), so when that set is bigger than the target the
 * target is raised to hold it: the effective target is
 *
 *	target + min(refaulting set, refaulting set - target)  (never below target)
 *
 * i.e. at most target + the refaulting set.  Once the set is no longer in
 * use (no refault, no use of a protected file), the raise decays linearly
 * to nothing within UPCC_WSET_DECAY_USEC.  Pure arithmetic over what the
 * caller measured, so the tests drive it with a fake clock.
 */
#ifndef UPCC_WSET_H
#define UPCC_WSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A drop is watched for its pages to come back this long at most. */
#define UPCC_WSET_WATCH_USEC	(10ull * 1000 * 1000)
/* What came back is hot, never evicted, this long (from then, or from
 * its last use: inventory.h).
 */
#define UPCC_WSET_HOT_USEC	(30ull * 1000 * 1000)

/* Did enough of the @dropped_pages of a drop come back (@back_pages, since
 * the drop) to make it the working set?  A quarter or more, and a page at
 * least: the one test of "came back" for files and ranges alike.
 */
static inline bool upcc_wset_came_back(uint64_t back_pages, uint64_t dropped_pages)
{
	return back_pages && back_pages >= (dropped_pages + 3) / 4;
}

/* The raise is gone this long after the working set was last seen in use:
 * as long as its files stay hot after their last use, so that the raise
 * ends about when the protection of what justified it does.
 */
#define UPCC_WSET_DECAY_USEC	UPCC_WSET_HOT_USEC

struct upcc_wset {
	uint64_t raise_pages;		/* effective target - target, now */
	uint64_t peak_pages;		/* the raise when last justified */
	uint64_t peak_usec;		/* when; the decay runs from there */
	uint64_t refault_pages;		/* the last measure's refaulting set */
	bool in_use;			/* the last measure saw the set in use */
};

/*
 * One measure: @hot_pages are the cached pages of files protected because
 * they refaulted, @in_use whether they refaulted or were read since the
 * last measure, at @now_usec.  Returns the effective target for
 * @target_pages and keeps what the decay needs in @w.
 */
uint64_t upcc_wset_update(struct upcc_wset *w, uint64_t target_pages, uint64_t hot_pages,
			  bool in_use, uint64_t now_usec);

/* Why the effective target is what it is, for the state file and status:
 * "target", "working set in use" or "working set decaying".
 */
const char *upcc_wset_reason(const struct upcc_wset *w);

#endif /* UPCC_WSET_H */
