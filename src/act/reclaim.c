// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim.c - what every backend's reclaim opens and closes with; see
 * backend.h.  A file of its own, below the backends, so that the ops
 * table (backend.c, which names every backend) and the backends (which
 * call these) do not call each other.
 */
#include <string.h>

#include "backend.h"
#include "lib/clock.h"

bool upcc_reclaim_begin(const struct upcc_backend *backend, uint64_t nr_pages,
			struct upcc_action_result *result, uint64_t *start_usec)
{
	memset(result, 0, sizeof(*result));
	result->requested_pages = nr_pages;
	*start_usec = upcc_monotonic_usec();
	return nr_pages && !backend->dry_run;
}

int upcc_reclaim_end(struct upcc_action_result *result, uint64_t start_usec, int err)
{
	result->elapsed_usec = upcc_monotonic_usec() - start_usec;
	result->error = err;
	return err;
}
