/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachestat.h - the cachestat(2) ABI (Linux 6.5, include/uapi/linux/mman.h).
 *
 * Debian 12's glibc and kernel headers predate the system call, so the
 * daemon, the tests and the benchmarks carry its ABI here, once.  Each of
 * them keeps its own *use* of it: the tests measure with their own code, not
 * with the daemon's residency module, so that the daemon is never checked
 * against itself.
 */
#ifndef UPCC_CACHESTAT_H
#define UPCC_CACHESTAT_H

#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451	/* the same number on every architecture */
#endif

struct upcc_cachestat_range {
	uint64_t off;
	uint64_t len;		/* 0 = to the end of the file */
};

struct upcc_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/* The whole of the file open on @fd: 0, or a negative errno (-ENOSYS on a
 * kernel without cachestat, -EPERM under a seccomp filter that lacks it).
 */
static inline int upcc_cachestat_fd(int fd, struct upcc_cachestat *cs)
{
	struct upcc_cachestat_range range = { 0, 0 };

	if (syscall(__NR_cachestat, (unsigned int)fd, &range, cs, 0u) < 0)
		return -errno;
	return 0;
}

#endif /* UPCC_CACHESTAT_H */
