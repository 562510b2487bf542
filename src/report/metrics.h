/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.h - a Prometheus textfile (node_exporter's textfile collector
 * format) with per-scope gauges and counters, all named upcc_*.  Written
 * atomically: a scraper sees the previous round or this one, never half.
 */
#ifndef UPCC_METRICS_H
#define UPCC_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "act/compact.h"
#include "control/control.h"

/* The daemon-wide series: the process, not a scope. */
struct upcc_metrics_daemon {
	uint64_t start_unix_usec;		/* when upcd started (wall clock) */
	bool dry_run;
	const struct upcc_compact *compact;	/* compaction counters, or NULL: none */
};

/*
 * upcc_build_info and the scopes' series; with @daemon (may be NULL) the
 * daemon-wide ones too.
 */
int upcc_metrics_format(FILE *out, const struct upcc_scope_run *runs, size_t nr_runs,
			uint64_t page_size, const struct upcc_metrics_daemon *daemon);
/*
 * Write the metrics to @path as lib/atomicfile.h does: its directory must
 * exist (node_exporter's textfile directory is not ours to make).  0 or
 * -errno, and @why (@why_len bytes, may be NULL) says why for the log.
 */
int upcc_metrics_write(const char *path, const struct upcc_scope_run *runs, size_t nr_runs,
		       uint64_t page_size, const struct upcc_metrics_daemon *daemon,
		       char *why, size_t why_len);

#endif /* UPCC_METRICS_H */
