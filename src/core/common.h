/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what upcd and upcc say the same way: the version and the
 * exit codes (docs/upcd.md).
 */
#ifndef UPCC_COMMON_H
#define UPCC_COMMON_H

#define UPCC_VERSION		"0.1"

#define UPCC_EXIT_OK		0
#define UPCC_EXIT_FAILURE	1	/* runtime error; a measurement or action failed */
#define UPCC_EXIT_USAGE		2	/* bad usage or config: nothing was done */
#define UPCC_EXIT_TARGET_MISSED	3	/* upcd --once: a scope is still above its target */
/* upcc status: upcd is not running, or its state is stale.  3 as for
 * systemctl status (LSB "program is not running"); a code is the
 * program's, and upcc status never runs --once.
 */
#define UPCC_EXIT_NOT_RUNNING	3

#endif /* UPCC_COMMON_H */
