// SPDX-License-Identifier: GPL-2.0
/*
 * residency.c - per-file page cache residency: cachestat(2), else mincore(2).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_NOATIME, O_PATH, getline, makedev */
#endif
#include "residency.h"
#include "lib/hooks.h"
#include "core/size.h"
#include "cachestat.h"
#include "sysfs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* mincore works on a window at a time so a huge file costs neither a huge
 * address-space reservation nor a huge vector.
 */
#define MINCORE_WINDOW_BYTES	(256ull << 20)
#define QUIET_MARGIN_SECONDS	30

static long page_bytes(void)
{
	return (long)upcc_page_size();
}


static enum upcc_residency_method probe_method(void)
{
	struct upcc_cachestat cs;

	/* A bad fd tells a working syscall (EBADF) apart from a missing one
	 * (ENOSYS) or one a seccomp filter refuses (EPERM: systemd versions
	 * that do not know cachestat's name cannot allow it), without any file.
	 */
	if (upcc_cachestat_fd(-1, &cs) == -EBADF)
		return UPCC_RESIDENCY_CACHESTAT;
	return UPCC_RESIDENCY_MINCORE;
}

enum upcc_residency_method upcc_residency_method(void)
{
	static int kernel_method = -1;
	const char *forced = upcc_hooks.residency;

	/* The environment is read every time so one test process can try both. */
	if (forced && strcmp(forced, "mincore") == 0)
		return UPCC_RESIDENCY_MINCORE;
	if (upcc_hooks.cachestat)
		return UPCC_RESIDENCY_CACHESTAT;	/* the tests' model */
	if (kernel_method < 0)
		kernel_method = probe_method();
	return (enum upcc_residency_method)kernel_method;
}

const char *upcc_residency_method_name(enum upcc_residency_method method)
{
	return method == UPCC_RESIDENCY_CACHESTAT ? "cachestat" : "mincore";
}

uint64_t upcc_residency_file_pages(const struct stat *st)
{
	uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;

	return (size + (uint64_t)page_bytes() - 1) / (uint64_t)page_bytes();
}

/* cachestat(2) on a byte range (len 0: to the end), or the tests' fake. */
static int cachestat_range(int fd, uint64_t off, uint64_t len, struct upcc_cachestat *cs)
{
	struct upcc_cachestat_range range = { off, len };

	if (upcc_hooks.cachestat)
		return upcc_hooks.cachestat(fd, off, len, cs);
	if (syscall(__NR_cachestat, (unsigned int)fd, &range, cs, 0u) < 0)
		return -errno;
	return 0;
}

/* cachestat(2) on a byte range (len 0: to the end) into @res. */
static int residency_cachestat(int fd, uint64_t off, uint64_t len, struct upcc_residency *res)
{
	struct upcc_cachestat cs;
	int err = cachestat_range(fd, off, len, &cs);

	if (err)
		return err;
	res->cached_pages = cs.nr_cache;
	res->dirty_pages = cs.nr_dirty;
	res->writeback_pages = cs.nr_writeback;
	res->evicted_pages = cs.nr_evicted;
	res->recently_evicted_pages = cs.nr_recently_evicted;
	res->state_known = true;
	return 0;
}

/* Count resident pages in [off, off + len) of @fd; mmap does not fault. */
static int mincore_window(int fd, uint64_t off, uint64_t len, unsigned char *vec,
			  uint64_t *resident)
{
	uint64_t nr = (len + (uint64_t)page_bytes() - 1) / (uint64_t)page_bytes();
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	int err = 0;

	if (map == MAP_FAILED)
		return -errno;
	if (mincore(map, len, vec) < 0)
		err = -errno;
	for (uint64_t i = 0; !err && i < nr; i++)
		*resident += vec[i] & 1;
	munmap(map, len);
	return err;
}

static int residency_mincore(int fd, const struct stat *st, struct upcc_residency *res)
{
	uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
	unsigned char *vec;
	int err = 0;

	if (!size)
		return 0;
	vec = malloc(MINCORE_WINDOW_BYTES / (uint64_t)page_bytes());
	if (!vec)
		return -ENOMEM;
	for (uint64_t off = 0; !err && off < size; off += MINCORE_WINDOW_BYTES) {
		uint64_t len = size - off < MINCORE_WINDOW_BYTES ? size - off : MINCORE_WINDOW_BYTES;

		err = mincore_window(fd, off, len, vec, &res->cached_pages);
	}
	free(vec);
	return err;
}

/*
 * cachestat(2) refuses a file the caller may not write and does not own
 * (EPERM, on the kernels that restrict it: page cache state is a side
 * channel), where mincore on a read-only shared map needs only the read
 * access the fd already has.  So a refused file is measured as
 * fincore measures it, its dirty state unknown, rather than left out.
 */
static bool cachestat_refused(int err)
{
	return err == -EPERM || err == -EACCES;
}

int upcc_residency_fd(int fd, const struct stat *st, struct upcc_residency *res)
{
	int err;

	memset(res, 0, sizeof(*res));
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	res->file_pages = upcc_residency_file_pages(st);
	if (upcc_residency_method() == UPCC_RESIDENCY_CACHESTAT) {
		err = residency_cachestat(fd, 0, 0, res);
		if (cachestat_refused(err))
			err = residency_mincore(fd, st, res);
	} else {
		err = residency_mincore(fd, st, res);
	}
	if (err) {
		memset(res, 0, sizeof(*res));
		return err;
	}
	return 0;
}

int upcc_residency_range_state(int fd, const struct stat *st, uint64_t first_page,
			       uint64_t nr_pages, struct upcc_residency *res)
{
	uint64_t page = (uint64_t)page_bytes(), file_pages = upcc_residency_file_pages(st);
	unsigned char *vec;
	int err;

	memset(res, 0, sizeof(*res));
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	res->file_pages = file_pages;
	if (first_page >= file_pages || !nr_pages)
		return 0;
	if (nr_pages > file_pages - first_page)
		nr_pages = file_pages - first_page;
	if (upcc_residency_method() == UPCC_RESIDENCY_CACHESTAT) {
		err = residency_cachestat(fd, first_page * page, nr_pages * page, res);
		if (!cachestat_refused(err))
			return err;
	}
	/* mincore: window by window, as for the whole file. */
	vec = malloc(MINCORE_WINDOW_BYTES / page);
	if (!vec)
		return -ENOMEM;
	err = 0;
	for (uint64_t at = first_page; !err && at < first_page + nr_pages;) {
		uint64_t n = first_page + nr_pages - at;

		if (n > MINCORE_WINDOW_BYTES / page)
			n = MINCORE_WINDOW_BYTES / page;
		err = mincore_window(fd, at * page, n * page, vec, &res->cached_pages);
		at += n;
	}
	free(vec);
	if (err)
		memset(res, 0, sizeof(*res));
	return err;
}

int upcc_residency_range(int fd, const struct stat *st, uint64_t first_page,
			 uint64_t nr_pages, uint64_t *cached)
{
	struct upcc_residency res;
	int err = upcc_residency_range_state(fd, st, first_page, nr_pages, &res);

	*cached = err ? 0 : res.cached_pages;
	return err;
}

int upcc_residency_last_cached(int fd, const struct stat *st, uint64_t *end_page)
{
	uint64_t lo = 0, hi = upcc_residency_file_pages(st), cached;
	int err;

	*end_page = 0;
	/* The smallest end with nothing cached at or after it: bisect on
	 * "anything cached in [mid, hi)", log2(pages) ranges.
	 */
	err = upcc_residency_range(fd, st, 0, hi, &cached);
	if (err || !cached)
		return err;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		err = upcc_residency_range(fd, st, mid, upcc_residency_file_pages(st) - mid, &cached);
		if (err)
			return err;
		if (cached)
			lo = mid;
		else
			hi = mid;
	}
	*end_page = hi;
	return 0;
}

int upcc_residency_run_start(int fd, const struct stat *st, uint64_t end_page,
			     uint64_t *start_page)
{
	uint64_t lo = 0, hi = end_page, cached;
	int err;

	*start_page = end_page;
	/* The smallest start with [start, end) all cached: bisect on "every
	 * page of [mid, end) cached", log2(pages) ranges.
	 */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		err = upcc_residency_range(fd, st, mid, end_page - mid, &cached);
		if (err)
			return err;
		if (cached >= end_page - mid)
			hi = mid;
		else
			lo = mid + 1;
	}
	*start_page = lo;
	return 0;
}

/* A sysctl in centiseconds, or @fallback (the kernel's default) if it
 * cannot be read.
 */
static long read_centisecs(const char *path, long fallback)
{
	char rooted[PATH_MAX];
	long value;
	FILE *f;

	if (upcc_sysfs_path(rooted, sizeof(rooted), path))
		return fallback;
	f = fopen(rooted, "re");
	if (!f)
		return fallback;
	if (fscanf(f, "%ld", &value) != 1 || value < 0)
		value = fallback;
	fclose(f);
	return value;
}

int64_t upcc_residency_quiet_seconds(void)
{
	long expire = read_centisecs("/proc/sys/vm/dirty_expire_centisecs", 3000);
	long writeback = read_centisecs("/proc/sys/vm/dirty_writeback_centisecs", 500);

	/* Periodic writeback off: old dirty data may stay dirty forever, so
	 * age proves nothing and nothing may be evicted blind.
	 */
	if (writeback == 0)
		return INT64_MAX;
	return (expire + 2 * writeback) / 100 + QUIET_MARGIN_SECONDS;
}

bool upcc_residency_may_evict(const struct upcc_residency *res, const struct stat *st,
			      int64_t now_sec)
{
	int64_t quiet, last_change;

	if (res->state_known)
		return res->dirty_pages == 0 && res->writeback_pages == 0;
	/*
	 * mincore cannot see dirty pages.  write(2) and the first write fault
	 * on a shared mapping both update mtime/ctime, and the flusher writes
	 * back anything dirty for longer than dirty_expire within one
	 * dirty_writeback period: a file unchanged for longer than that has
	 * no dirty pages left to start writeback on.
	 */
	quiet = upcc_residency_quiet_seconds();
	if (quiet == INT64_MAX)
		return false;
	last_change = st->st_mtim.tv_sec > st->st_ctim.tv_sec ? st->st_mtim.tv_sec
							       : st->st_ctim.tv_sec;
	return now_sec - last_change > quiet;
}

void upcc_residency_add(struct upcc_residency_sum *sum, const struct upcc_residency *res,
			bool mapped)
{
	sum->files++;
	sum->cached_pages += res->cached_pages;
	sum->dirty_pages += res->dirty_pages;
	sum->writeback_pages += res->writeback_pages;
	if (mapped)
		sum->mapped_pages += res->cached_pages;
}
