/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hooks.h - where the tests point the code instead of the live system.
 *
 * One structure, empty (all NULL) in upcd and upcc: nothing here is read
 * from the environment or a flag.  The cmocka suites set its fields
 * directly, and the integration suite runs a test-only build of upcd
 * (tests/integration/hooked_main.c) that fills two of them from its
 * environment and never compacts, so an installed root daemon can never be pointed at a fake
 * /sys or mount table, or told it runs another kernel.
 */
#ifndef UPCC_HOOKS_H
#define UPCC_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

struct upcc_cachestat;

struct upcc_hooks {
	const char *root;		/* prefix of every /proc and /sys path (sys/sysfs.h) */
	const char *backend_log;	/* append every backend write here */
	const char *kernel_release;	/* instead of uname's */
	const char *residency;		/* "mincore" or "cachestat": force the method */
	const char *mountinfo;		/* instead of /proc/self/mountinfo */
	int no_fanotify;		/* learn by walks only, never mark a filesystem */
	int no_own_drain;		/* read our fanotify queue only between passes */
	int no_compact;			/* never compact, whatever the balloon offers */
	int no_openat2;			/* atomicfile.c: walk as on a kernel before 5.6 */
	bool progress_now;		/* upcc files: progress lines from the first file */
	const char *journal_socket;	/* instead of journald's (journal.h) */
	uint64_t log_summary_usec;	/* upcd's info summary this often, not 5 min */

	/* Instead of cachestat(2) on [@off, @off + @len) bytes (@len 0: to
	 * the end), for tests that model a page cache: 0 or -errno.
	 */
	int (*cachestat)(int fd, uint64_t off, uint64_t len, struct upcc_cachestat *cs);
	/* Before every upcc_sysfs_write (@write) and upcc_sysfs_read_line of
	 * @path: a -errno makes that call fail so (-EBUSY: a file DAMON's
	 * lock keeps busy), 0 lets it go on (sys/sysfs.h).
	 */
	int (*sysfs_fault)(const char *path, const char *value, bool write);
	/* Instead of CLOCK_MONOTONIC, for every reading (clock.h). */
	uint64_t (*monotonic_usec)(void);
};

extern struct upcc_hooks upcc_hooks;

#endif /* UPCC_HOOKS_H */
