/* SPDX-License-Identifier: GPL-2.0 */
/*
 * residency.h - how much of one file sits in the page cache, and in what state.
 *
 * cachestat(2) (Linux 6.5+) gives cached, dirty, writeback and eviction
 * counts in one call without touching the pages.  Older kernels fall back to
 * mincore(2) on a read-only shared mapping made without faulting anything
 * in; mincore cannot see dirty or writeback state, so such a sample says
 * "state unknown" and callers apply the rule in upcc_residency_may_evict().
 * A file cachestat refuses (EPERM or EACCES: kernels that restrict it
 * want a file the caller owns or may write) is measured by mincore the
 * same way, so a user who can read a file is told what fincore tells.
 */
#ifndef UPCC_RESIDENCY_H
#define UPCC_RESIDENCY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

enum upcc_residency_method {
	UPCC_RESIDENCY_CACHESTAT,
	UPCC_RESIDENCY_MINCORE,
};

struct upcc_residency {
	uint64_t file_pages;		/* size of the file in pages, rounded up */
	uint64_t cached_pages;
	uint64_t dirty_pages;		/* valid only if state_known */
	uint64_t writeback_pages;	/* valid only if state_known */
	uint64_t evicted_pages;		/* cachestat only: evicted since cached */
	uint64_t recently_evicted_pages;/* cachestat only: refault candidates */
	bool state_known;		/* cachestat filled dirty/writeback */
};

/* Which method this process uses (probed once, then cached).  The
 * UPCC_RESIDENCY environment variable ("mincore") forces the fallback so
 * tests can exercise it on a kernel that has cachestat.
 */
enum upcc_residency_method upcc_residency_method(void);
const char *upcc_residency_method_name(enum upcc_residency_method method);

/* The size of the file @st describes, in pages, rounded up. */
uint64_t upcc_residency_file_pages(const struct stat *st);

/* Files' residency summed: what a sample of a tree adds up. */
struct upcc_residency_sum {
	uint64_t files;
	uint64_t cached_pages;
	uint64_t mapped_pages;		/* cached pages of mapped files */
	uint64_t dirty_pages;
	uint64_t writeback_pages;
};

/* Add one file's @res to @sum; its cache counts as mapped if @mapped. */
void upcc_residency_add(struct upcc_residency_sum *sum, const struct upcc_residency *res,
			bool mapped);

/* Measure the whole of the regular file open on @fd (with stat @st).
 * 0 or a negative errno; *res is zeroed on error.  !res->state_known
 * after a cachestat method: cachestat refused the file, mincore measured it.
 */
int upcc_residency_fd(int fd, const struct stat *st, struct upcc_residency *res);

/* Cached pages in pages [@first_page, @first_page + @nr_pages) of the file
 * on @fd (cachestat on the range, else mincore on it).  0 or -errno.
 */
int upcc_residency_range(int fd, const struct stat *st, uint64_t first_page,
			 uint64_t nr_pages, uint64_t *cached);

/* The same range's residency in full: cached pages, and with cachestat
 * its dirty and writeback pages (state_known); file_pages is the file's.
 * A caller that measures a file range by range sums these instead of
 * measuring the whole file again.  0 or -errno (*res zeroed).
 */
int upcc_residency_range_state(int fd, const struct stat *st, uint64_t first_page,
			       uint64_t nr_pages, struct upcc_residency *res);

/* One past the file's last cached page (0: nothing cached). 0 or -errno. */
int upcc_residency_last_cached(int fd, const struct stat *st, uint64_t *end_page);

/* The first page of the run of cached pages that ends at @end_page: every
 * page of [*start_page, @end_page) is cached, the one before it is not
 * (*start_page = @end_page if the page before @end_page is not cached).
 * 0 or -errno.
 */
int upcc_residency_run_start(int fd, const struct stat *st, uint64_t end_page,
			     uint64_t *start_page);

/*
 * May the clean pages of a file with @res and @st be dropped without
 * starting writeback?  With cachestat: no dirty and no writeback pages.
 * Without it (mincore): only if the file's data and inode were last changed
 * longer ago than the kernel's flusher needs to have written them back
 * (dirty_expire + 2 x dirty_writeback + a margin, read from /proc/sys/vm),
 * judged at @now_sec.  Mapped files are the caller's to exclude.
 */
bool upcc_residency_may_evict(const struct upcc_residency *res, const struct stat *st,
			      int64_t now_sec);

/* The quiet age (seconds) the mincore rule requires; exposed for tests. */
int64_t upcc_residency_quiet_seconds(void);

#endif /* UPCC_RESIDENCY_H */
