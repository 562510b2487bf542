// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - the unmapped page cache control policy; see policy.h.
 */
#include "policy.h"

uint64_t upcc_ratio_to_pages(uint64_t managed_pages, unsigned int ratio_percent)
{
	if (ratio_percent > 100)
		ratio_percent = 100;
	/*
	 * managed * ratio would overflow for huge page counts; splitting off
	 * the quotient keeps the result exact: (q*100 + r) * k / 100.
	 */
	return (managed_pages / 100) * ratio_percent +
	       (managed_pages % 100) * ratio_percent / 100;
}

uint64_t upcc_unmapped_file_pages(uint64_t file_lru_pages, uint64_t mapped_pages)
{
	return file_lru_pages > mapped_pages ? file_lru_pages - mapped_pages : 0;
}

uint64_t upcc_mul_saturating(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

struct upcc_policy upcc_policy_default(uint64_t managed_pages)
{
	struct upcc_policy policy;

	policy.target_pages = upcc_ratio_to_pages(managed_pages,
						  UPCC_DEFAULT_MIN_UNMAPPED_RATIO);
	policy.trigger_pages = upcc_mul_saturating(policy.target_pages,
					      UPCC_UNMAPPED_PAGE_RATIO);
	policy.step_shift = UPCC_RECLAIM_STEP_SHIFT;
	return policy;
}

bool upcc_should_wake(const struct upcc_policy *policy, uint64_t unmapped_pages)
{
	return unmapped_pages > policy->trigger_pages;
}

uint64_t upcc_reclaim_step(const struct upcc_policy *policy, uint64_t unmapped_pages)
{
	if (unmapped_pages <= policy->target_pages)
		return 0;
	if (policy->step_shift >= 64)
		return 0;
	return (unmapped_pages - policy->target_pages) >> policy->step_shift;
}

uint64_t upcc_decide(const struct upcc_policy *policy, enum upcc_phase *phase,
		     uint64_t unmapped_pages)
{
	uint64_t step;

	if (*phase == UPCC_PHASE_IDLE && !upcc_should_wake(policy, unmapped_pages))
		return 0;

	step = upcc_reclaim_step(policy, unmapped_pages);
	/*
	 * An excess smaller than 1 << step_shift still asks for one page, as
	 * the kernel's reclaim loop always makes at least one pass: otherwise
	 * the scope would sit just above its target for ever.
	 */
	if (step == 0 && unmapped_pages > policy->target_pages)
		step = 1;
	*phase = step ? UPCC_PHASE_RECLAIMING : UPCC_PHASE_IDLE;
	return step;
}
