// SPDX-License-Identifier: GPL-2.0
/*
 * evict.c - per-file eviction; see evict.h.
 */
#include "evict.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/size.h"

static int64_t now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

/*
 * Drop windows growing from the end of the file until @limit pages are gone
 * or the window covers the file: a big file need not lose all its cache to
 * satisfy a small request.  Which end is colder is unknown; the tail is
 * what a sequential reader reached last, so it is the likelier to be done.
 */
static int drop_tail_windows(int fd, const struct stat *st, uint64_t limit,
			     struct upcc_residency *res)
{
	uint64_t page = upcc_page_size();
	uint64_t size = (uint64_t)st->st_size, before = res->cached_pages;
	uint64_t window = limit * page;
	int err;

	for (;;) {
		off_t offset = window >= size ? 0 : (off_t)(size - window);

		err = posix_fadvise(fd, offset, 0, POSIX_FADV_DONTNEED);
		if (err)
			return -err;
		err = upcc_residency_fd(fd, st, res);
		if (err || offset == 0 || before - res->cached_pages >= limit)
			return err;
		window *= 2;
	}
}

/*
 * Drop windows growing from the start of the file, never at or past
 * @end_page, until @limit pages are gone: a file still being read
 * sequentially keeps what its reader has not reached yet (its readahead),
 * which it would only read again.
 */
static int drop_head_windows(int fd, const struct stat *st, uint64_t limit, uint64_t end_page,
			     struct upcc_residency *res)
{
	uint64_t page = upcc_page_size(), before = res->cached_pages, window = limit;
	int err;

	for (;;) {
		if (window > end_page)
			window = end_page;
		err = posix_fadvise(fd, 0, (off_t)(window * page), POSIX_FADV_DONTNEED);
		if (err)
			return -err;
		err = upcc_residency_fd(fd, st, res);
		if (err || window == end_page || before - res->cached_pages >= limit)
			return err;
		window *= 2;
	}
}

/*
 * A dirty or writeback file is left alone: DONTNEED on a dirty range
 * starts writeback of it (mm/fadvise.c), and the control never does that.
 */
int upcc_evict_check(const struct upcc_residency *res, const struct stat *st,
		     const struct upcc_mapped_set *mapped, struct upcc_evict_result *result)
{
	memset(result, 0, sizeof(*result));
	result->before_pages = result->after_pages = res->cached_pages;
	if (mapped && upcc_mapped_set_has(mapped, st->st_dev, st->st_ino)) {
		result->skipped_mapped = true;
		return 0;
	}
	if (!upcc_residency_may_evict(res, st, now_seconds())) {
		result->skipped_dirty = true;
		return 0;
	}
	return res->cached_pages ? 1 : 0;
}

int upcc_evict_begin(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
		     struct upcc_residency *res, struct upcc_evict_result *result)
{
	int err;

	memset(result, 0, sizeof(*result));
	err = upcc_residency_fd(fd, st, res);
	if (err)
		return err;
	return upcc_evict_check(res, st, mapped, result);
}

int upcc_evict_span(int fd, uint64_t first_page, uint64_t nr_pages)
{
	uint64_t page = upcc_page_size();

	return -posix_fadvise(fd, (off_t)(first_page * page), (off_t)(nr_pages * page),
			      POSIX_FADV_DONTNEED);
}

int upcc_evict_fd_head(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
		       uint64_t limit_pages, uint64_t end_page, struct upcc_evict_result *result)
{
	struct upcc_residency res;
	int err;

	err = upcc_evict_begin(fd, st, mapped, &res, result);
	if (err <= 0 || !end_page)
		return err;
	err = drop_head_windows(fd, st, limit_pages ? limit_pages : res.cached_pages, end_page,
				&res);
	if (err)
		return err;
	result->after_pages = res.cached_pages;
	return 0;
}

int upcc_evict_fd_limit(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
			uint64_t limit_pages, struct upcc_evict_result *result)
{
	struct upcc_residency res;
	int err;

	err = upcc_evict_begin(fd, st, mapped, &res, result);
	if (err <= 0)
		return err;
	if (limit_pages && limit_pages < res.cached_pages) {
		err = drop_tail_windows(fd, st, limit_pages, &res);
	} else {
		err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		err = err ? -err : upcc_residency_fd(fd, st, &res);
	}
	if (err)
		return err;
	result->after_pages = res.cached_pages;
	return 0;
}

int upcc_evict_fd(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
		  struct upcc_evict_result *result)
{
	return upcc_evict_fd_limit(fd, st, mapped, 0, result);
}
