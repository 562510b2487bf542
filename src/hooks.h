/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hooks.h - where the tests point the code instead of the live system.
 *
 * One structure, empty (all NULL) in upcd and upcc: nothing here is read
 * from the environment or a flag.  The cmocka suites set its fields
 * directly, so a root daemon can never be pointed at a fake /sys or told
 * it runs another kernel.
 */
#ifndef UPCC_HOOKS_H
#define UPCC_HOOKS_H

#include <stdbool.h>

struct upcc_hooks {
	const char *sysfs_root;		/* prefix of the backends' /sys and /proc paths */
	const char *measure_root;	/* prefix of the measured /proc and /sys files */
	const char *backend_log;	/* append every backend write here */
	const char *kernel_release;	/* instead of uname's */
	const char *proc_root;		/* prefix of /proc for maps and meminfo */
	const char *residency;		/* "mincore" or "cachestat": force the method */
	bool progress_now;		/* upcc files: progress lines from the first file */
};

extern struct upcc_hooks upcc_hooks;

#endif /* UPCC_HOOKS_H */
