/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evict.h - drop one file's clean, unmapped page cache, never writing back
 * a dirty page: the one act every fadvise path (upcd, upcc evict) shares.
 */
#ifndef UPCC_EVICT_H
#define UPCC_EVICT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "mapped.h"
#include "residency.h"

/* What dropping one file's cache did. */
struct upcc_evict_result {
	uint64_t before_pages;
	uint64_t after_pages;
	bool skipped_dirty;		/* dirty/writeback (or unknown under mincore) */
	bool skipped_mapped;
};

/*
 * Drop the clean cache of the regular file on @fd: skip it (0, with the
 * skipped_* flag set) if @mapped has it or it has dirty/writeback pages;
 * else POSIX_FADV_DONTNEED and measure before/after.  0 or -errno.
 */
int upcc_evict_fd(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
		  struct upcc_evict_result *result);

/* The same, but aiming at @limit_pages (0 = all): windows growing from the
 * file's end are dropped until that many pages are gone.
 */
int upcc_evict_fd_limit(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
			uint64_t limit_pages, struct upcc_evict_result *result);

/* The same from the file's start, never at or past @end_page: for a file
 * still being read sequentially, whose reader is about to use what lies
 * beyond (its readahead).  @limit_pages 0 = all below @end_page.
 */
int upcc_evict_fd_head(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
		       uint64_t limit_pages, uint64_t end_page, struct upcc_evict_result *result);

/*
 * What every eviction checks first, for callers that choose their own
 * pages (inventory/drop.c's ranges): measure @fd into @res, and leave
 * alone a mapped file and one with dirty or writeback pages.  1 if the
 * file may lose pages, 0 if not (@result says why), or -errno.
 */
int upcc_evict_begin(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
		     struct upcc_residency *res, struct upcc_evict_result *result);

/* The same rules on a residency the caller measured itself (a file's
 * ranges summed, inventory/ranges.h): no measure of the whole file.
 */
int upcc_evict_check(const struct upcc_residency *res, const struct stat *st,
		     const struct upcc_mapped_set *mapped, struct upcc_evict_result *result);

/* POSIX_FADV_DONTNEED on pages [@first_page, @first_page + @nr_pages) of
 * the file on @fd, which upcc_evict_begin() let go.  0 or -errno.
 */
int upcc_evict_span(int fd, uint64_t first_page, uint64_t nr_pages);

#endif /* UPCC_EVICT_H */
