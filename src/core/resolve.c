// SPDX-License-Identifier: GPL-2.0
/*
 * resolve.c - a scope's config resolved against a sample; see resolve.h.
 */
#include "resolve.h"

struct upcc_policy upcc_policy_resolve(const struct upcc_scope_config *scope_config,
				       const struct upcc_sample *sample, uint64_t page_size)
{
	struct upcc_policy policy;

	policy.target_pages = upcc_amount_pages(&scope_config->target, sample->total_pages,
						page_size);
	if (scope_config->trigger_is_ratio)
		policy.trigger_pages = upcc_mul_saturating(policy.target_pages,
						      scope_config->trigger_ratio);
	else
		policy.trigger_pages = upcc_amount_pages(&scope_config->trigger,
							 sample->total_pages, page_size);
	/* Waking below the target would reclaim nothing: the kernel's trigger
	 * is always a multiple of it.
	 */
	if (policy.trigger_pages < policy.target_pages)
		policy.trigger_pages = policy.target_pages;
	policy.step_shift = scope_config->step_shift;
	return policy;
}

uint64_t upcc_step_cap(const struct upcc_scope_config *scope_config, uint64_t step,
		       uint64_t total_pages, uint64_t page_size)
{
	uint64_t cap = upcc_amount_pages(&scope_config->max_step, total_pages, page_size);

	if (scope_config->max_step.value == 0 || cap == 0)
		return step;	/* 0 = no cap; a cap below one page is one page */
	return step < cap ? step : cap;
}
