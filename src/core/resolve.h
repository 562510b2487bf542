/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resolve.h - a scope's config resolved against a sample into pages: the
 * policy (policy.h) it runs under, the aim (the policy with the effective
 * target, wset.h), its step cap; and a step planned from all of them.
 */
#ifndef UPCC_RESOLVE_H
#define UPCC_RESOLVE_H

#include <stdint.h>

#include "policy.h"
#include "scope.h"
#include "wset.h"

/*
 * The scope's policy for @sample: target and trigger resolved to pages
 * (a trigger below the target is raised to it), the step shift as given.
 */
struct upcc_policy upcc_policy_resolve(const struct upcc_scope_config *scope_config,
				       const struct upcc_sample *sample, uint64_t page_size);

/* Apply the scope's max_step cap to a step the policy asked for. */
uint64_t upcc_step_cap(const struct upcc_scope_config *scope_config, uint64_t step,
		       uint64_t total_pages, uint64_t page_size);

/*
 * The policy the control aims at for @sample: @policy with its target
 * replaced by the effective target (@wset updated with the sample's
 * working set at @now_usec), the trigger at least that.
 */
struct upcc_policy upcc_plan_aim(const struct upcc_policy *policy,
				 const struct upcc_sample *sample, struct upcc_wset *wset,
				 uint64_t now_usec);

/* One step of the control, planned. */
struct upcc_plan {
	struct upcc_policy policy;	/* the settings resolved against the sample */
	struct upcc_policy aim;		/* what the step aims at (upcc_plan_aim) */
	uint64_t step;			/* pages to ask for now, max_step applied */
};

/*
 * Plan a step for @sample under @scope_config: resolve the policy, aim it
 * (with @wset; NULL: at the configured target), decide (upcc_decide()
 * updates the hysteresis @phase), cap.  Every caller that decides (upcd's
 * control, upcd --check) plans the same way through here.
 */
struct upcc_plan upcc_plan_step(const struct upcc_scope_config *scope_config,
				const struct upcc_sample *sample, enum upcc_phase *phase,
				struct upcc_wset *wset, uint64_t now_usec, uint64_t page_size);

/* What the scope may hold (wset.h): its target plus the working set cap. */
uint64_t upcc_wset_hold(const struct upcc_policy *policy);

#endif /* UPCC_RESOLVE_H */
