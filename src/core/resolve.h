/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resolve.h - a scope's config resolved against a sample into pages: the
 * policy (policy.h) it runs under, and its step cap.
 */
#ifndef UPCC_RESOLVE_H
#define UPCC_RESOLVE_H

#include <stdint.h>

#include "policy.h"
#include "scope.h"

/*
 * The scope's policy for @sample: target and trigger resolved to pages
 * (a trigger below the target is raised to it), the step shift as given.
 */
struct upcc_policy upcc_policy_resolve(const struct upcc_scope_config *scope_config,
				       const struct upcc_sample *sample, uint64_t page_size);

/* Apply the scope's max_step cap to a step the policy asked for. */
uint64_t upcc_step_cap(const struct upcc_scope_config *scope_config, uint64_t step,
		       uint64_t total_pages, uint64_t page_size);

#endif /* UPCC_RESOLVE_H */
