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
	if (scope_config->wset_cap_is_ratio)
		policy.wset_cap_pages = upcc_mul_saturating(policy.target_pages,
							    scope_config->wset_cap_ratio);
	else
		policy.wset_cap_pages = upcc_amount_pages(&scope_config->wset_cap,
							  sample->total_pages, page_size);
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

struct upcc_policy upcc_plan_aim(const struct upcc_policy *policy,
				 const struct upcc_sample *sample, struct upcc_wset *wset,
				 uint64_t now_usec)
{
	struct upcc_policy aim = *policy;

	aim.target_pages = upcc_wset_update(wset, policy->target_pages, policy->wset_cap_pages,
					    sample->hot_pages, sample->hot_in_use, now_usec);
	if (aim.trigger_pages < aim.target_pages)
		aim.trigger_pages = aim.target_pages;
	return aim;
}

struct upcc_plan upcc_plan_step(const struct upcc_scope_config *scope_config,
				const struct upcc_sample *sample, enum upcc_phase *phase,
				struct upcc_wset *wset, uint64_t now_usec, uint64_t page_size)
{
	struct upcc_plan plan;

	plan.policy = upcc_policy_resolve(scope_config, sample, page_size);
	plan.aim = wset ? upcc_plan_aim(&plan.policy, sample, wset, now_usec) : plan.policy;
	plan.step = upcc_decide(&plan.aim, phase, sample->unmapped_pages);
	plan.step = upcc_step_cap(scope_config, plan.step, sample->total_pages, page_size);
	return plan;
}

uint64_t upcc_wset_hold(const struct upcc_policy *policy)
{
	if (policy->target_pages > UINT64_MAX - policy->wset_cap_pages)
		return UINT64_MAX;
	return policy->target_pages + policy->wset_cap_pages;
}
