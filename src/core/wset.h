/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wset.h - the effective target: what the control aims at when the scope's
 * working set does not fit in its target.
 *
 * A file whose pages upcd dropped and which came back (invrefresh.c measures
 * the dropped range again) is being read: it is protected for a while, and
 * its cached pages are the scope's measured refaulting set.  Evicting it
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
#ifndef UPCC_EFFTARGET_H
#define UPCC_EFFTARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The raise is gone this long after the working set was last seen in use. */
#define UPCC_WSET_DECAY_USEC	(30ull * 1000 * 1000)

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

#endif /* UPCC_EFFTARGET_H */
