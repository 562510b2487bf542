/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - the unmapped page cache control policy, in one place.
 *
 * This is the decision logic of the kernel series ("Provide unmapped page
 * cache control", kernel/patches/) written as pure functions, so that the
 * daemon (upcd) acts on exactly the numbers the kernel would, and the
 * kernel's functional tests (tests/kernel/) check the kernel against the
 * same arithmetic.  Nothing here reads or writes system state.
 *
 * All quantities are in pages unless the name says otherwise.
 */
#ifndef UPCC_POLICY_H
#define UPCC_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/* The seed's defaults: vm.min_unmapped_ratio = 1, UNMAPPED_PAGE_RATIO = 16,
 * and each reclaim call asks for an eighth of the excess.
 */
#define UPCC_DEFAULT_MIN_UNMAPPED_RATIO	1u
#define UPCC_UNMAPPED_PAGE_RATIO	16u
#define UPCC_RECLAIM_STEP_SHIFT		3u

struct upcc_policy {
	uint64_t target_pages;	/* min_unmapped_pages: reclaim down to this */
	uint64_t trigger_pages;	/* start reclaiming above this */
	unsigned int step_shift; /* each step asks for (excess >> step_shift) */
	uint64_t wset_cap_pages;	/* the working set's raise at most (wset.h) */
};

/* What a scope's control loop remembers between samples: like kswapd, it is
 * woken only above the trigger, then keeps going until it reaches the target.
 */
enum upcc_phase {
	UPCC_PHASE_IDLE,
	UPCC_PHASE_RECLAIMING,
};

/*
 * min_unmapped_pages for @managed_pages at @ratio_percent, as the kernel's
 * setup_min_unmapped_ratio() computes it: managed * ratio / 100, without
 * overflow for any 64-bit page count.  A ratio above 100 is clamped to 100.
 */
uint64_t upcc_ratio_to_pages(uint64_t managed_pages, unsigned int ratio_percent);

/* The kernel's node_unmapped_file_pages(): file LRU minus mapped, never < 0. */
uint64_t upcc_unmapped_file_pages(uint64_t file_lru_pages, uint64_t mapped_pages);

/* @a * @b, or UINT64_MAX where that would overflow (pages to bytes too). */
uint64_t upcc_mul_saturating(uint64_t a, uint64_t b);

/* The seed policy for a scope of @managed_pages: target = ratio% of it,
 * trigger = UNMAPPED_PAGE_RATIO x target, step shift 3.
 */
struct upcc_policy upcc_policy_default(uint64_t managed_pages);

/* Allocator side: is kswapd to be woken (should_reclaim_unmapped_pages())? */
bool upcc_should_wake(const struct upcc_policy *policy, uint64_t unmapped_pages);

/* kswapd side: how many pages one reclaim call asks for; 0 at or below target. */
uint64_t upcc_reclaim_step(const struct upcc_policy *policy, uint64_t unmapped_pages);

/*
 * One control decision: given the phase the scope is in and its unmapped
 * page count, update *phase and return how many pages to reclaim now
 * (0 = nothing to do).
 */
uint64_t upcc_decide(const struct upcc_policy *policy, enum upcc_phase *phase,
		     uint64_t unmapped_pages);

#endif /* UPCC_POLICY_H */
