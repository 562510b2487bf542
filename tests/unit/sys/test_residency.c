// SPDX-License-Identifier: GPL-2.0
/*
 * test_residency.c - cachestat/mincore residency and the may-evict rule,
 * on real files (the counts come from the kernel, not from the code).
 */
#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <cmocka.h>

#include "lib/hooks.h"

#include "sys/cachestat.h"
#include "sys/residency.h"

static char tmpdir[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	upcc_hooks.residency = NULL;
	upcc_hooks.root = NULL;
	return ua_mkdtemp(tmpdir, sizeof(tmpdir)) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ua_rm_rf(tmpdir);
	upcc_hooks.residency = NULL;
	upcc_hooks.root = NULL;
	return 0;
}

static int open_measure(const char *path, struct upcc_residency *res)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -1;
	err = fstat(fd, &st) ? -1 : upcc_residency_fd(fd, &st, res);
	close(fd);
	return err;
}

/* Drop pages [@first, @first + @count) of the file at @path (0: to its end). */
static void drop_range(const char *path, off_t first, off_t count)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(posix_fadvise(fd, first * page, count * page, POSIX_FADV_DONTNEED), 0);
	close(fd);
}

static void drop(const char *path)
{
	drop_range(path, 0, 0);
}

/* Both methods see a fully read clean file as fully cached, and nothing
 * after DONTNEED.
 */
static void check_clean_file(const char *method)
{
	char path[PATH_MAX + 16];
	struct upcc_residency res;

	if (method)
		upcc_hooks.residency = method;
	else
		upcc_hooks.residency = NULL;
	snprintf(path, sizeof(path), "%s/clean", tmpdir);
	assert_int_equal(ua_cached_file(path, 64, 1), 0);
	assert_int_equal(open_measure(path, &res), 0);
	assert_int_equal(res.file_pages, 64);
	assert_int_equal(res.cached_pages, 64);
	drop(path);
	assert_int_equal(open_measure(path, &res), 0);
	assert_int_equal(res.cached_pages, 0);
}

static void test_cachestat_clean(void **state)
{
	(void)state;
	if (upcc_residency_method() != UPCC_RESIDENCY_CACHESTAT)
		skip();
	check_clean_file(NULL);
}

static void test_mincore_clean(void **state)
{
	(void)state;
	if (ua_under_valgrind())
		skip();
	check_clean_file("mincore");
	assert_int_equal(upcc_residency_method(), UPCC_RESIDENCY_MINCORE);
}

/* mincore must not fault pages in: measuring an uncached file leaves it so. */
static void test_mincore_does_not_fault(void **state)
{
	char path[PATH_MAX + 16];
	struct upcc_residency res;

	(void)state;
	if (ua_under_valgrind())
		skip();
	upcc_hooks.residency = "mincore";
	snprintf(path, sizeof(path), "%s/nofault", tmpdir);
	assert_int_equal(ua_cached_file(path, 32, 1), 0);
	drop(path);
	assert_int_equal(open_measure(path, &res), 0);
	assert_int_equal(res.cached_pages, 0);
	assert_int_equal(open_measure(path, &res), 0);
	assert_int_equal(res.cached_pages, 0);
	assert_false(res.state_known);
}

static void test_cachestat_dirty(void **state)
{
	char path[PATH_MAX + 16];
	struct upcc_residency res;
	struct stat st;

	(void)state;
	upcc_hooks.residency = NULL;
	if (upcc_residency_method() != UPCC_RESIDENCY_CACHESTAT)
		skip();
	snprintf(path, sizeof(path), "%s/dirty", tmpdir);
	assert_int_equal(ua_cached_file(path, 16, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(open_measure(path, &res), 0);
	assert_true(res.state_known);
	/* Just written, not synced: the flusher needs >= dirty_expire (30 s). */
	assert_true(res.dirty_pages + res.writeback_pages > 0);
	assert_false(upcc_residency_may_evict(&res, &st, time(NULL)));
	res.dirty_pages = res.writeback_pages = 0;
	assert_true(upcc_residency_may_evict(&res, &st, time(NULL)));
	res.writeback_pages = 1;
	assert_false(upcc_residency_may_evict(&res, &st, time(NULL)));
}

static void fake_vm(const char *expire, const char *writeback)
{
	/* Static: upcc_hooks.root points at it after this returns. */
	static char dir[PATH_MAX + 32];
	char file[PATH_MAX + 64];

	snprintf(dir, sizeof(dir), "%s/fakeproc/proc/sys/vm", tmpdir);
	assert_int_equal(ua_mkdir_p(dir), 0);
	snprintf(file, sizeof(file), "%s/dirty_expire_centisecs", dir);
	assert_int_equal(ua_write_file(file, expire), 0);
	snprintf(file, sizeof(file), "%s/dirty_writeback_centisecs", dir);
	assert_int_equal(ua_write_file(file, writeback), 0);
	snprintf(dir, sizeof(dir), "%s/fakeproc", tmpdir);
	upcc_hooks.root = dir;
}

/* Without cachestat a file may be evicted only once the flusher must have
 * written it: older than expire + 2 x writeback + 30 s.
 */
static void test_mincore_age_rule(void **state)
{
	struct upcc_residency res = { .cached_pages = 4, .state_known = false };
	struct stat st;
	int64_t now = 1000000;

	(void)state;
	memset(&st, 0, sizeof(st));
	fake_vm("3000\n", "500\n");
	assert_int_equal(upcc_residency_quiet_seconds(), 30 + 10 + 30);
	st.st_mtim.tv_sec = st.st_ctim.tv_sec = now - 71;
	assert_true(upcc_residency_may_evict(&res, &st, now));
	st.st_mtim.tv_sec = now - 70;
	assert_false(upcc_residency_may_evict(&res, &st, now));
	st.st_mtim.tv_sec = now - 1000;
	st.st_ctim.tv_sec = now - 5;	/* inode changed lately: maybe dirty */
	assert_false(upcc_residency_may_evict(&res, &st, now));
	fake_vm("3000\n", "0\n");	/* periodic writeback off: never */
	st.st_mtim.tv_sec = st.st_ctim.tv_sec = 0;
	assert_false(upcc_residency_may_evict(&res, &st, now));
	fake_vm("junk\n", "500\n");	/* unreadable: the kernel default */
	assert_int_equal(upcc_residency_quiet_seconds(), 30 + 10 + 30);
	upcc_hooks.root = NULL;
}

static void test_not_regular(void **state)
{
	struct upcc_residency res;
	struct stat st;
	int fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(upcc_residency_fd(fd, &st, &res), -EINVAL);
	close(fd);
}

static void test_empty_file(void **state)
{
	char path[PATH_MAX + 16];
	struct upcc_residency res;

	(void)state;
	snprintf(path, sizeof(path), "%s/empty", tmpdir);
	assert_int_equal(ua_write_file(path, ""), 0);
	upcc_hooks.residency = "mincore";
	assert_int_equal(open_measure(path, &res), 0);
	assert_int_equal(res.file_pages, 0);
	assert_int_equal(res.cached_pages, 0);
	upcc_hooks.residency = NULL;
	assert_int_equal(open_measure(path, &res), 0);
	assert_int_equal(res.cached_pages, 0);
}

static uint64_t run_start_of(const char *path, uint64_t end_page)
{
	struct stat st;
	uint64_t start = UINT64_MAX;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(upcc_residency_run_start(fd, &st, end_page, &start), 0);
	close(fd);
	return start;
}

/* The run of cached pages ending at a page begins after the last hole
 * before it, wherever that is; it is empty if the page before is a hole.
 */
static void test_run_start(void **state)
{
	char path[PATH_MAX + 16];

	(void)state;
	if (upcc_residency_method() != UPCC_RESIDENCY_CACHESTAT)
		skip();
	snprintf(path, sizeof(path), "%s/runs", tmpdir);
	assert_int_equal(ua_cached_file(path, 128, 1), 0);
	assert_int_equal(run_start_of(path, 128), 0);	/* all cached */
	assert_int_equal(run_start_of(path, 37), 0);
	drop_range(path, 16, 16);			/* cached: [0,16) [32,128) */
	drop_range(path, 80, 16);			/* cached: [0,16) [32,80) [96,128) */
	assert_int_equal(run_start_of(path, 128), 96);
	assert_int_equal(run_start_of(path, 80), 32);
	assert_int_equal(run_start_of(path, 50), 32);
	assert_int_equal(run_start_of(path, 16), 0);
	assert_int_equal(run_start_of(path, 96), 96);	/* page 95 not cached */
	assert_int_equal(run_start_of(path, 0), 0);
}


static int measure_refused(const char *path, int flags, int err, struct upcc_residency *res)
{
	struct stat st;
	int fd = open(path, flags | O_CLOEXEC), rc;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	ua_cachestat_err = err;
	upcc_hooks.cachestat = ua_refusing_cachestat;
	rc = upcc_residency_fd(fd, &st, res);
	upcc_hooks.cachestat = NULL;
	close(fd);
	return rc;
}

/*
 * Issue 31 item 3 (the operator review): cachestat refuses a file the caller neither owns
 * nor may write (EPERM on 6.x), which a reader was told held nothing.
 * Such a file is measured by mincore, as fincore does, state unknown.
 */
static void test_cachestat_refused_falls_back(void **state)
{
	char path[PATH_MAX + 16];
	struct upcc_residency res;
	struct stat st;
	uint64_t cached = 0;
	int fd;

	(void)state;
	if (ua_under_valgrind())
		skip();
	snprintf(path, sizeof(path), "%s/refused", tmpdir);
	assert_int_equal(ua_cached_file(path, 32, 1), 0);
	assert_int_equal(measure_refused(path, O_RDONLY, -EPERM, &res), 0);
	assert_int_equal(res.file_pages, 32);
	assert_int_equal(res.cached_pages, 32);
	assert_false(res.state_known);
	assert_int_equal(measure_refused(path, O_RDONLY, -EACCES, &res), 0);
	assert_int_equal(res.cached_pages, 32);
	/* A range, as the inventory asks: the same fallback. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	ua_cachestat_err = -EPERM;
	upcc_hooks.cachestat = ua_refusing_cachestat;
	assert_int_equal(upcc_residency_range(fd, &st, 8, 16, &cached), 0);
	upcc_hooks.cachestat = NULL;
	close(fd);
	assert_int_equal(cached, 16);
	drop(path);
	assert_int_equal(measure_refused(path, O_RDONLY, -EPERM, &res), 0);
	assert_int_equal(res.cached_pages, 0);
}

/* Neither method can measure (a write-only fd cannot be mapped to read),
 * or cachestat failed for another reason: an error, never "0 cached".
 */
static void test_cachestat_refused_no_fallback(void **state)
{
	char path[PATH_MAX + 16];
	struct upcc_residency res;

	(void)state;
	snprintf(path, sizeof(path), "%s/unmeasurable", tmpdir);
	assert_int_equal(ua_cached_file(path, 8, 1), 0);
	assert_int_not_equal(measure_refused(path, O_WRONLY, -EPERM, &res), 0);
	assert_int_equal(res.cached_pages, 0);
	assert_int_equal(measure_refused(path, O_RDONLY, -EIO, &res), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cachestat_clean),
		cmocka_unit_test(test_mincore_clean),
		cmocka_unit_test(test_mincore_does_not_fault),
		cmocka_unit_test(test_cachestat_dirty),
		cmocka_unit_test(test_mincore_age_rule),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_run_start),
		cmocka_unit_test(test_cachestat_refused_falls_back),
		cmocka_unit_test(test_cachestat_refused_no_fallback),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
