// SPDX-License-Identifier: GPL-2.0
/*
 * test_measure.c - samples of every scope kind from fixture trees.
 * Expected page counts assume 4 KiB pages (kB / 4); on other page sizes
 * the test skips itself rather than assert different arithmetic.
 */
#include <errno.h>
#include <string.h>

#include "unit.h"
#include "helpers.h"
#include "lib/hooks.h"
#include "sys/measure.h"

static struct upcc_scope scope_of(enum upcc_scope_kind kind, int node_id, const char *path)
{
	struct upcc_scope scope;

	memset(&scope, 0, sizeof(scope));
	scope.kind = kind;
	scope.node_id = node_id;
	snprintf(scope.path, sizeof(scope.path), "%s", path);
	return scope;
}

static int setup_root(void **state)
{
	(void)state;
	upcc_hooks.root = UPCC_FIXTURES "/root";
	return 0;
}

static void test_system(void **state)
{
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, -1, "");
	struct upcc_sample sample;

	(void)state;
	if (upcc_page_size() != 4096)
		skip();
	assert_int_equal(upcc_measure(&scope, &sample), 0);
	assert_true(sample.total_pages == 24683568 / 4);
	assert_true(sample.file_lru_pages == 904168 / 4 + 2128472 / 4);
	assert_true(sample.mapped_pages == 45776 / 4);
	assert_true(sample.unmapped_pages == sample.file_lru_pages - sample.mapped_pages);
	assert_true(sample.dirty_pages == 286208 / 4);
	assert_true(sample.free_pages == 20239448 / 4);
}

static void test_nodes(void **state)
{
	struct upcc_scope node1 = scope_of(UPCC_SCOPE_NODE, 1, "");
	struct upcc_scope node5 = scope_of(UPCC_SCOPE_NODE, 5, "");
	struct upcc_sample sample;
	int ids[4];

	(void)state;
	if (upcc_page_size() != 4096)
		skip();
	assert_int_equal(upcc_measure_nodes(ids, 4), 2);
	assert_int_equal(ids[1], 1);
	assert_int_equal(upcc_measure(&node1, &sample), 0);
	assert_true(sample.total_pages == 1048576);
	assert_true(sample.file_lru_pages == 307200);
	assert_true(sample.mapped_pages == 51200);
	assert_true(sample.unmapped_pages == 256000);
	assert_int_equal(upcc_measure(&node5, &sample), -ENOENT);
}

static void test_no_numa(void **state)
{
	struct upcc_scope system = scope_of(UPCC_SCOPE_SYSTEM, -1, "");
	struct upcc_scope node0 = scope_of(UPCC_SCOPE_NODE, 0, "");
	struct upcc_sample sample;
	int ids[4];

	(void)state;
	if (upcc_page_size() != 4096)
		skip();
	upcc_hooks.root = UPCC_FIXTURES "/root-nonuma";
	assert_int_equal(upcc_measure_nodes(ids, 4), 0);
	assert_int_equal(upcc_measure(&system, &sample), 0);
	assert_true(sample.total_pages == 61518);
	assert_true(sample.unmapped_pages == 10000 - 2000);
	assert_int_equal(upcc_measure(&node0, &sample), -ENOENT);
	upcc_hooks.root = UPCC_FIXTURES "/root";
}

static void test_missing_fields(void **state)
{
	struct upcc_scope system = scope_of(UPCC_SCOPE_SYSTEM, -1, "");
	struct upcc_sample sample = { .total_pages = 99 };

	(void)state;
	/* A meminfo without Active(file)/Mapped cannot give an unmapped count. */
	upcc_hooks.root = UPCC_FIXTURES "/old-kernel-root";
	assert_int_not_equal(upcc_measure(&system, &sample), 0);
	assert_true(sample.total_pages == 99);
	upcc_hooks.root = UPCC_FIXTURES "/root";
}

static void test_cgroup(void **state)
{
	struct upcc_scope unlimited = scope_of(UPCC_SCOPE_CGROUP, -1, UPCC_FIXTURES "/cgroup-work");
	struct upcc_scope limited = scope_of(UPCC_SCOPE_CGROUP, -1, UPCC_FIXTURES "/cgroup-limited");
	struct upcc_scope nofile = scope_of(UPCC_SCOPE_CGROUP, -1, UPCC_FIXTURES "/cgroup-nofile");
	struct upcc_scope gone = scope_of(UPCC_SCOPE_CGROUP, -1, UPCC_FIXTURES "/cgroup-gone");
	struct upcc_sample sample;

	(void)state;
	if (upcc_page_size() != 4096)
		skip();
	assert_int_equal(upcc_measure(&unlimited, &sample), 0);
	assert_true(sample.total_pages == 24683568 / 4);	/* "max": the system's */
	assert_true(sample.file_lru_pages == 128000);
	assert_true(sample.mapped_pages == 12800);
	assert_true(sample.unmapped_pages == 115200);
	assert_true(sample.dirty_pages == 256);
	assert_true(sample.writeback_pages == 1);
	assert_int_equal(upcc_measure(&limited, &sample), 0);
	assert_true(sample.total_pages == 262144);		/* memory.max = 1 GiB */
	assert_int_equal(upcc_measure(&nofile, &sample), -ENODATA);
	assert_int_equal(upcc_measure(&gone, &sample), -ENOENT);
}

static void test_path_dispatch(void **state)
{
	struct upcc_scope missing = scope_of(UPCC_SCOPE_PATH, -1, "/nonexistent");
	struct upcc_scope tree;
	struct upcc_sample sample;
	char dir[PATH_MAX], file[PATH_MAX + 8];

	(void)state;
	/* A tree of one fully cached 8-page file, measured by the path
	 * scope's own walk.  Its MemTotal comes from the fixture root.
	 */
	assert_non_null(ua_mkdtemp(dir, sizeof(dir)));
	snprintf(file, sizeof(file), "%s/f", dir);
	assert_int_equal(ua_cached_file(file, 8, 1), 0);
	tree = scope_of(UPCC_SCOPE_PATH, -1, dir);
	assert_int_equal(upcc_measure(&tree, &sample), 0);
	ua_rm_rf(dir);
	assert_in_range(sample.file_lru_pages, 8 - HOST_RECLAIM_SLACK, 8);
	assert_true(sample.unmapped_pages == sample.file_lru_pages);
	assert_true(sample.mapped_pages == 0);
	if (upcc_page_size() == 4096)
		assert_true(sample.total_pages == 24683568 / 4);
	assert_int_equal(upcc_measure(&missing, &sample), -ENOENT);
}

/* Hostile review L2: a path scope's own walk counts a file whose path
 * passes PATH_MAX (21 levels of 250-byte names); it was left out, and
 * said to be deeper than 64 levels.
 */
static void test_path_long_names(void **state)
{
	struct upcc_scope tree;
	struct upcc_sample sample;
	char dir[PATH_MAX], *file;
	int fd;

	(void)state;
	assert_non_null(ua_mkdtemp(dir, sizeof(dir)));
	file = ua_long_path_file(dir, 21, "deepfile", 8, &fd);
	assert_non_null(file);
	close(fd);
	tree = scope_of(UPCC_SCOPE_PATH, -1, dir);
	assert_int_equal(upcc_measure(&tree, &sample), 0);
	ua_rm_rf(dir);
	free(file);
	assert_in_range(sample.file_lru_pages, 8 - HOST_RECLAIM_SLACK, 8);
	assert_true(sample.skipped_depth == 0);
	assert_true(sample.walk_errors == 0);
}

/* Issue 31 item 3: a file the walk opened but could not measure is an
 * error of the sample, not a file with nothing cached.
 */
static void test_path_unmeasured(void **state)
{
	struct upcc_scope tree;
	struct upcc_sample sample;
	char dir[PATH_MAX], file[PATH_MAX + 8];

	(void)state;
	assert_non_null(ua_mkdtemp(dir, sizeof(dir)));
	snprintf(file, sizeof(file), "%s/a", dir);
	assert_int_equal(ua_cached_file(file, 4, 1), 0);
	snprintf(file, sizeof(file), "%s/b", dir);
	assert_int_equal(ua_cached_file(file, 4, 1), 0);
	tree = scope_of(UPCC_SCOPE_PATH, -1, dir);
	ua_cachestat_err = -EIO;
	upcc_hooks.cachestat = ua_refusing_cachestat;
	assert_int_equal(upcc_measure(&tree, &sample), 0);
	upcc_hooks.cachestat = NULL;
	ua_rm_rf(dir);
	assert_true(sample.file_lru_pages == 0);
	assert_true(sample.walk_errors == 2);
}

/* The fadvise inventory's path scope whose root was unmounted (-ENODEV)
 * says so, and that it comes back by itself.
 */
static void test_explain_unmounted(void **state)
{
	struct upcc_scope data = scope_of(UPCC_SCOPE_PATH, -1, "/mnt/data");
	char why[PATH_MAX + 128];

	(void)state;
	upcc_measure_explain(&data, -ENODEV, why, sizeof(why));
	assert_string_equal(why, "/mnt/data is not mounted (unmounted while upcd ran): "
			    "measured again once it is");
}

static void test_mapped_exceeds_lru(void **state)
{
	struct upcc_scope system = scope_of(UPCC_SCOPE_SYSTEM, -1, "");
	struct upcc_sample sample;

	(void)state;
	upcc_hooks.root = UPCC_FIXTURES "/mapped-exceeds-root";
	assert_int_equal(upcc_measure(&system, &sample), 0);
	assert_true(sample.unmapped_pages == 0);	/* clamped, as the kernel does */
	assert_true(sample.mapped_pages > sample.file_lru_pages);
	upcc_hooks.root = UPCC_FIXTURES "/root";
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_system),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_no_numa),
		cmocka_unit_test(test_missing_fields),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_path_dispatch),
		cmocka_unit_test(test_path_long_names),
		cmocka_unit_test(test_explain_unmounted),
		cmocka_unit_test(test_mapped_exceeds_lru),
		cmocka_unit_test(test_path_unmeasured),
	};

	return cmocka_run_group_tests(tests, setup_root, NULL);
}
