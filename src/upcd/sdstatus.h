/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdstatus.h - the STATUS= line `systemctl status upcd` shows: what upcd
 * is doing now, not how it was started ("path:/data 41Mi/64Mi, reclaimed
 * 1.2Gi; last round 3s ago").
 */
#ifndef UPCD_SDSTATUS_H
#define UPCD_SDSTATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control/scoperun.h"

/* At most this many scopes are named; the rest are counted ("+2 more"). */
#define UPCD_STATUS_SCOPES	3

/* How often at most STATUS= is sent when only its figures moved. */
#define UPCD_STATUS_MIN_USEC	(5ull * 1000 * 1000)

/*
 * The text after "STATUS=" for @runs at monotonic @now: "dry run: " if
 * @dry_run; per scope its name, unmapped cache over the target it aims
 * at (the effective one), what it reclaimed so far; then how long ago
 * the last round of any scope ran.
 */
void upcd_status_text(char *buf, size_t size, const struct upcc_scope_run *runs, size_t nr_runs,
		      uint64_t page_size, bool dry_run, uint64_t now);

#endif /* UPCD_SDSTATUS_H */
