/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daemon.h - upcd serving: the event loop over the tick, the watchdog and
 * the signals, each tick's rounds, the reports, reload, --once.
 */
#ifndef UPCC_DAEMON_H
#define UPCC_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "act/compact.h"
#include "core/config.h"
#include "control/control.h"
#include "control/scoperun.h"
#include "report/steplog.h"

struct upcd {
	struct upcd_options options;
	struct upcc_config config;
	struct upcc_scope_run *runs;
	size_t nr_runs;
	uint64_t page_size;
	bool state_warned, metrics_warned;
	bool reports_failed;		/* the last round's state or metrics write failed */
	struct upcd_round_log round;	/* the round under way, for its log line */
	struct upcd_scope_log logs[UPCC_MAX_SCOPES];	/* the log's memory of runs[i] */
	uint64_t watchdog_usec;		/* WATCHDOG_USEC, 0 without a watchdog */
	uint64_t last_ping_usec;	/* the last WATCHDOG=1, monotonic */
	struct upcc_compact compact;	/* under a reporting balloon only */
	uint64_t start_unix_usec;	/* when upcd_serve began (wall clock) */
	uint64_t last_report_usec;	/* the last state/metrics write, monotonic */
	uint64_t last_report_aim;	/* the effective targets then, summed */
	int lock_fd;			/* the state file's lock (lock.h), -1: none */
	char status[512];		/* the last STATUS= sent (sdstatus.h) */
	uint64_t status_usec;		/* when, monotonic; 0: never */
};

/* How the command line and @config (dry_run: the file's or --dry-run) have the runs set up. */
static inline struct upcc_run_mode upcd_run_mode(const struct upcd_options *options,
						 const struct upcc_config *config)
{
	return (struct upcc_run_mode){ .dry_run = config->dry_run, .once = options->once };
}

/* Serve: --once, or the daemon until a signal stops it.  An exit code. */
int upcd_serve(struct upcd *upcd);

#endif /* UPCC_DAEMON_H */
