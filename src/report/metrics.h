/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.h - a Prometheus textfile (node_exporter's textfile collector
 * format) with per-scope gauges and counters, all named upcc_*.  Written
 * atomically: a scraper sees the previous round or this one, never half.
 */
#ifndef UPCC_METRICS_H
#define UPCC_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "act/compact.h"
#include "control/control.h"

/*
 * @dry_run: upcd reclaims nothing (upcc_dry_run); @compact: the daemon's
 * compaction counters, or NULL (none reported).
 */
int upcc_metrics_format(FILE *out, const struct upcc_scope_run *runs, size_t nr_runs,
			uint64_t page_size, bool dry_run, const struct upcc_compact *compact);
/*
 * Write the metrics to @path as lib/atomicfile.h does: its directory must
 * exist (node_exporter's textfile directory is not ours to make).  0 or
 * -errno, and @why (@why_len bytes, may be NULL) says why for the log.
 */
int upcc_metrics_write(const char *path, const struct upcc_scope_run *runs, size_t nr_runs,
		       uint64_t page_size, bool dry_run, const struct upcc_compact *compact,
		       char *why, size_t why_len);

#endif /* UPCC_METRICS_H */
