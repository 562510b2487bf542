/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure.h - one sample of a scope's page cache, the way the kernel's
 * node_unmapped_file_pages() counts it: file LRU minus mapped, clamped at 0.
 */
#ifndef UPCC_MEASURE_H
#define UPCC_MEASURE_H

#include <stdint.h>

#include "core/scope.h"
#include "residency.h"
#include "walk.h"

/* /proc and /sys paths are read under the tests' root (sysfs.h): tests
 * point it at a fixture tree (tests/unit/fixtures/root) so that every scope
 * kind is measured from real files, not the host's accounting.
 */

/* Fill @sample for @scope (any kind).  0 or a negative errno. */
int upcc_measure(const struct upcc_scope *scope, struct upcc_sample *sample);

/* A path scope measured by a walk of its own: every file's residency,
 * mapped files' as mapped.  -EINVAL for another kind of scope.
 */
int upcc_measure_path(const struct upcc_scope *scope, struct upcc_sample *sample);

/* A path scope's sample from its files' @sum and its walk's @walk; the
 * scope's memory is @total_pages, or MemTotal read now if 0.
 */
void upcc_measure_from_sum(const struct upcc_residency_sum *sum,
			   const struct upcc_walk_stats *walk, uint64_t total_pages,
			   struct upcc_sample *sample);

/* MemTotal in pages, 0 if it cannot be read. */
uint64_t upcc_measure_mem_total_pages(void);

/* The NUMA nodes with memory, from sysfs; 0 nodes means no NUMA sysfs. */
int upcc_measure_nodes(int *ids, size_t max);

/*
 * Can @scope ever be measured here?  0, or -EINVAL with @why naming the
 * problem and the fix: a NUMA node this machine does not have ("no NUMA
 * node 1 (this machine has node 0)"), the root cgroup (no memory.stat).
 * A cgroup that does not exist yet is not refused: it may be created later.
 */
int upcc_measure_check(const struct upcc_scope *scope, char *why, size_t len);

/* @err from upcc_measure() on @scope in words that say why and what to do. */
const char *upcc_measure_explain(const struct upcc_scope *scope, int err, char *buf,
				 size_t len);

#endif /* UPCC_MEASURE_H */
