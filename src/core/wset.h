/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wset.h - the working set: what came back after a drop soon enough to
 * have been held, and the effective target the control aims at when it
 * does not fit in the target.
 *
 * The working set is what upcd dropped and a reader brought back, judged
 * as mm/workingset.c judges a refault: by its refault distance, not by the
 * clock.  The inventory keeps a monotonic count of the pages that entered
 * the scope's cache (its inflow: growth seen by each measure of a file).
 * Each drop, of a file or of one range of a large file (src/inventory/),
 * notes the inflow then; when a quarter of what it took is cached again
 * (upcc_wset_came_back), the inflow since the drop is its refault
 * distance.  The pages would have stayed cached had the scope held that
 * much more, so they are the working set only if that distance fits in
 * what the scope may hold: the target plus the working set cap (its
 * "hold").  A stream looping over more than that comes back after more
 * inflow than the scope could keep, whatever the time it took: it is not
 * the working set, and its drop is right.  A drop whose inflow since has
 * passed the hold can no longer prove anything: its watch ends then, or
 * after UPCC_WSET_WATCH_USEC at most (what a watch costs is one measure
 * per refresh).  The rule is written here once, for the files and the
 * ranges alike; each then keeps its hot time in its own way (a file's
 * restarts on each use, a range's doubles each time it proves hot again:
 * inventory.h, ranges.h).
 *
 * The distance is known at the refresh's grain only: the pages came back
 * somewhere between the last look that found them not back and the look
 * that found them.  The inflow at the first of these is taken, the lower
 * bound (as the kernel would see the refault no later): a set re-read
 * within one refresh is at distance 0; a stream's drop comes back after
 * its loop less one refresh's inflow at least.
 *
 * What is held of the working set is capped: the effective target is at
 * most target + cap.  Within that, the shortest refault distances are kept
 * first (upcc_wset_keep); the rest is no longer protected and goes in the
 * coldest-first order as before.
 *
 * Its cached pages are the scope's measured refaulting set.  Evicting it
 * again would only make its reader read it back (thrashing, as senpai and
 * TMO back off on pressure), so when that set is bigger than the target the
 * target is raised to hold it: the effective target is
 *
 *	target + min(refaulting set - target, cap)	(never below target)
 *
 * Once the set is no longer in use (no refault, no use of a protected
 * file), the raise decays linearly to nothing within UPCC_WSET_DECAY_USEC.
 * Pure arithmetic over what the caller measured, so the tests drive it
 * with a fake clock and a fake inflow.
 */
#ifndef UPCC_WSET_H
#define UPCC_WSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A drop is watched for its pages to come back this long at most: not
 * the rule (the inflow ends a watch, above), a bound on what watching
 * costs in a scope too quiet for its inflow to end it.
 */
#define UPCC_WSET_WATCH_USEC	(60ull * 1000 * 1000)
/* What came back is hot, never evicted, this long (from then, or from
 * its last use: inventory.h).
 */
#define UPCC_WSET_HOT_USEC	(30ull * 1000 * 1000)

/* The default cap of the raise: 4 x the target (upcd.conf(5),
 * working_set_cap).  The operator's target is a guess of what the scope's
 * readers need; a working set up to four times that guess is held, and
 * the scope's cache stays at 5 x target, under a third of the default
 * trigger (16 x target): a bound that still means something, scaled by
 * what the operator chose, for every workload alike.
 */
#define UPCC_WSET_DEFAULT_CAP_RATIO	4u

/* Did enough of the @dropped_pages of a drop come back (@back_pages, since
 * the drop) for its refault distance to be judged?  A quarter or more,
 * and a page at least: the one test of "came back" for files and ranges.
 */
static inline bool upcc_wset_came_back(uint64_t back_pages, uint64_t dropped_pages)
{
	return back_pages && back_pages >= (dropped_pages + 3) / 4;
}

/* Where the judge of a refault stands: now, by both clocks. */
struct upcc_wset_now {
	uint64_t usec;			/* monotonic */
	uint64_t inflow_pages;		/* the scope's inflow so far */
	uint64_t hold_pages;		/* what the scope may hold: target + cap */
};

/* One drop watched: the scope's inflow then, and at the last look that
 * found it not back (the refault distance's lower bound), and when.
 */
struct upcc_wset_drop {
	uint64_t usec;
	uint64_t look_usec;		/* the last look that found it not back */
	uint64_t inflow_at_drop;
	uint64_t inflow_not_back;
};

/* The lower bound stands for the distance only if the last look before
 * the return was this recent: a refresh or two.  After a longer gap (a
 * paced walk, a daemon stopped) more than the hold may have come in
 * before the pages did, and nothing says which: not proven.
 */
#define UPCC_WSET_LOOK_GAP_USEC	(5ull * 1000 * 1000)

enum upcc_wset_verdict {
	UPCC_WSET_WATCHING,		/* not back yet, may still be */
	UPCC_WSET_WORKING_SET,		/* back within the hold: keep it */
	UPCC_WSET_NOT_WORKING_SET,	/* back too late, or never: the drop was right */
};

/* A drop made @now: its watch starts. */
static inline void upcc_wset_drop_start(struct upcc_wset_drop *d, const struct upcc_wset_now *now)
{
	d->usec = d->look_usec = now->usec;
	d->inflow_at_drop = d->inflow_not_back = now->inflow_pages;
}

/*
 * Judge the drop @d of @dropped_pages, @back_pages of which are cached
 * again @now.  *@distance gets the refault distance (pages of inflow) when
 * the verdict is WORKING_SET.  A drop still WATCHING is looked at again at
 * the next refresh; the caller ends the watch on any other verdict.
 */
enum upcc_wset_verdict upcc_wset_judge(struct upcc_wset_drop *d, uint64_t dropped_pages,
				       uint64_t back_pages, const struct upcc_wset_now *now,
				       uint64_t *distance);

/* One piece of the working set (a file, or a range of a large one). */
struct upcc_wset_item {
	uint64_t distance;		/* its refault distance */
	uint64_t pages;			/* its cached pages now */
	void *ref;			/* the caller's */
	unsigned int kind;		/* the caller's */
	bool keep;			/* out: held (else no longer protected) */
};

/*
 * Choose what of the working set @items is held: the shortest refault
 * distances first, while their pages fit in @hold_pages.  @items is
 * reordered.  Returns the pages held.
 */
uint64_t upcc_wset_keep(struct upcc_wset_item *items, size_t nr, uint64_t hold_pages);

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
	uint64_t cap_pages;		/* the last measure's cap of the raise */
	bool in_use;			/* the last measure saw the set in use */
	bool capped;			/* the raise wanted more than the cap */
};

/*
 * One measure: @hot_pages are the cached pages of files protected because
 * they refaulted, @in_use whether they refaulted or were read since the
 * last measure, at @now_usec.  Returns the effective target for
 * @target_pages, at most @cap_pages above it, and keeps what the decay
 * needs in @w.
 */
uint64_t upcc_wset_update(struct upcc_wset *w, uint64_t target_pages, uint64_t cap_pages,
			  uint64_t hot_pages, bool in_use, uint64_t now_usec);

/* Why the effective target is what it is, for the state file and status:
 * "target", "working set in use", "working set in use, capped" or
 * "working set decaying".
 */
const char *upcc_wset_reason(const struct upcc_wset *w);

#endif /* UPCC_WSET_H */
