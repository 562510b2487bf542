// SPDX-License-Identifier: GPL-2.0
/* test_stats.c - the accounting-file parsers, on real and odd fixtures. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "lib/readtext.h"
#include "sys/stats.h"

static void test_meminfo_host(void **state)
{
	struct upcc_meminfo info;

	(void)state;
	assert_int_equal(upcc_meminfo_read(FIXTURE("meminfo-host"), &info), 0);
	assert_int_equal(info.node_id, -1);
	assert_true(info.kb[UPCC_MI_MEM_TOTAL] == 24683568);
	assert_true(info.kb[UPCC_MI_MEM_FREE] == 20239448);
	assert_true(info.kb[UPCC_MI_ACTIVE_FILE] == 904168);
	assert_true(info.kb[UPCC_MI_INACTIVE_FILE] == 2128472);
	assert_true(info.kb[UPCC_MI_MAPPED] == 45776);
	assert_true(info.kb[UPCC_MI_DIRTY] == 286208);
	assert_int_equal(info.present, (1u << UPCC_MI_NR_FIELDS) - 1);
}

static void test_meminfo_node(void **state)
{
	struct upcc_meminfo info;

	(void)state;
	assert_int_equal(upcc_meminfo_read(FIXTURE("node0-meminfo-host"), &info), 0);
	assert_int_equal(info.node_id, 0);
	assert_true(info.kb[UPCC_MI_MEM_TOTAL] == 8873704);
	assert_true(info.kb[UPCC_MI_ACTIVE_FILE] == 904864);
	assert_true(info.kb[UPCC_MI_INACTIVE_FILE] == 2127988);
	assert_true(info.kb[UPCC_MI_MAPPED] == 46008);

	/* A leading blank line and a unitless line (HugePages_Total) are fine. */
	assert_int_equal(upcc_meminfo_read(FIXTURE("node1-meminfo"), &info), 0);
	assert_int_equal(info.node_id, 1);
	assert_true(info.kb[UPCC_MI_ACTIVE_FILE] == 819200);
	assert_true(info.kb[UPCC_MI_MAPPED] == 204800);
	assert_false(UPCC_HAS(&info, UPCC_MI_SHMEM));
}

static void test_meminfo_node_mixed(void **state)
{
	struct upcc_meminfo info = { .node_id = 7 };

	(void)state;
	assert_int_equal(upcc_meminfo_read(FIXTURE("node-mixed-meminfo"), &info), -EINVAL);
	assert_int_equal(info.node_id, 7);	/* untouched on error */
	assert_int_equal(upcc_meminfo_parse("MemTotal: 5 kB\nNode 0 MemFree: 4 kB\n", &info),
			 -EINVAL);
}

static void test_meminfo_missing_fields(void **state)
{
	struct upcc_meminfo info;

	(void)state;
	assert_int_equal(upcc_meminfo_read(FIXTURE("meminfo-old-kernel"), &info), 0);
	assert_true(UPCC_HAS(&info, UPCC_MI_MEM_TOTAL));
	assert_false(UPCC_HAS(&info, UPCC_MI_ACTIVE_FILE));
	assert_false(UPCC_HAS(&info, UPCC_MI_MAPPED));
	assert_true(info.kb[UPCC_MI_MAPPED] == 0);
	assert_int_equal(upcc_meminfo_read(FIXTURE("not-meminfo"), &info), -ENODATA);
	assert_int_equal(upcc_meminfo_parse("", &info), -ENODATA);
}

static void test_meminfo_huge(void **state)
{
	struct upcc_meminfo info;

	(void)state;
	assert_int_equal(upcc_meminfo_read(FIXTURE("meminfo-huge"), &info), 0);
	assert_true(info.kb[UPCC_MI_MEM_TOTAL] == UINT64_MAX);
	assert_true(info.kb[UPCC_MI_MEM_FREE] == UINT64_MAX);	/* saturated, not wrapped */
	assert_true(info.kb[UPCC_MI_MAPPED] == 4);
}

static void test_meminfo_garbage(void **state)
{
	struct upcc_meminfo info;

	(void)state;
	assert_int_equal(upcc_meminfo_read(FIXTURE("meminfo-garbage"), &info), -EINVAL);
	assert_int_equal(upcc_meminfo_parse("Mapped: 12 kB junk\n", &info), -EINVAL);
	assert_int_equal(upcc_meminfo_parse("Mapped: -12 kB\n", &info), -EINVAL);
	assert_int_equal(upcc_meminfo_parse("Mapped:\n", &info), -EINVAL);
	/* No trailing newline, tabs: still fine. */
	assert_int_equal(upcc_meminfo_parse("Mapped:\t12 kB", &info), 0);
	assert_true(info.kb[UPCC_MI_MAPPED] == 12);
	assert_int_equal(upcc_meminfo_read(FIXTURE("does-not-exist"), &info), -ENOENT);
}

static void test_memstat(void **state)
{
	struct upcc_memstat stat;

	(void)state;
	assert_int_equal(upcc_memstat_read(FIXTURE("memory.stat-v2"), &stat), 0);
	assert_true(stat.bytes[UPCC_MS_FILE] == 524288000);
	assert_true(stat.bytes[UPCC_MS_ACTIVE_FILE] == 209715200);
	assert_true(stat.bytes[UPCC_MS_INACTIVE_FILE] == 314572800);
	assert_true(stat.bytes[UPCC_MS_FILE_MAPPED] == 52428800);
	assert_true(stat.bytes[UPCC_MS_FILE_DIRTY] == 1048576);
	assert_true(stat.bytes[UPCC_MS_FILE_WRITEBACK] == 4096);
	assert_int_equal(stat.present, (1u << UPCC_MS_NR_FIELDS) - 1);

	assert_int_equal(upcc_memstat_read(FIXTURE("memory.stat-nofile"), &stat), 0);
	assert_true(UPCC_HAS(&stat, UPCC_MS_ANON));
	assert_false(UPCC_HAS(&stat, UPCC_MS_ACTIVE_FILE));
	assert_int_equal(upcc_memstat_read(FIXTURE("memory.stat-garbage"), &stat), -EINVAL);
	/* "file_mapped" must not be mistaken for "file". */
	assert_int_equal(upcc_memstat_parse("file_mapped 8\n", &stat), 0);
	assert_false(UPCC_HAS(&stat, UPCC_MS_FILE));
}

static void test_vmstat(void **state)
{
	struct upcc_vmstat stat;

	(void)state;
	assert_int_equal(upcc_vmstat_read(FIXTURE("vmstat-host"), &stat), 0);
	assert_true(stat.value[UPCC_VS_NR_FREE_PAGES] == 1107351);
	assert_true(stat.value[UPCC_VS_NR_ACTIVE_FILE] == 226042);
	assert_true(stat.value[UPCC_VS_NR_INACTIVE_FILE] == 532118);
	assert_true(stat.value[UPCC_VS_NR_MAPPED] == 11444);
	/* A stock kernel has none of the series' counters. */
	assert_false(UPCC_HAS(&stat, UPCC_VS_KSWAPD_UNMAPPED_WAKE));
	assert_false(UPCC_HAS(&stat, UPCC_VS_PGSTEAL_UNMAPPED));

	assert_int_equal(upcc_vmstat_read(FIXTURE("vmstat-upcc-kernel"), &stat), 0);
	assert_true(stat.value[UPCC_VS_KSWAPD_UNMAPPED_WAKE] == 12);
	assert_true(stat.value[UPCC_VS_PGSCAN_UNMAPPED] == 5000);
	assert_true(stat.value[UPCC_VS_PGSTEAL_UNMAPPED] == 4800);

	assert_int_equal(upcc_vmstat_read(FIXTURE("vmstat-huge"), &stat), 0);
	assert_true(stat.value[UPCC_VS_NR_FREE_PAGES] == UINT64_MAX);
	assert_true(stat.value[UPCC_VS_PGSTEAL_KSWAPD] == UINT64_MAX);
	assert_int_equal(upcc_vmstat_parse("nr_mapped x\n", &stat), -EINVAL);
	assert_int_equal(upcc_vmstat_parse("nothing_known 1\n", &stat), -ENODATA);
}

static void test_id_list(void **state)
{
	int ids[8];

	(void)state;
	assert_int_equal(upcc_id_list_parse("0\n", ids, 8), 1);
	assert_int_equal(ids[0], 0);
	assert_int_equal(upcc_id_list_parse("0-2,5\n", ids, 8), 4);
	assert_int_equal(ids[2], 2);
	assert_int_equal(ids[3], 5);
	assert_int_equal(upcc_id_list_parse("0-100", ids, 8), 8);	/* bounded */
	assert_int_equal(upcc_id_list_parse("\n", ids, 8), 0);
	assert_int_equal(upcc_id_list_parse("3-1", ids, 8), -EINVAL);
	assert_int_equal(upcc_id_list_parse("1,1", ids, 8), -EINVAL);
	assert_int_equal(upcc_id_list_parse("1,", ids, 8), -EINVAL);
	assert_int_equal(upcc_id_list_parse("a", ids, 8), -EINVAL);
}

static void test_read_text(void **state)
{
	char *text = NULL;

	(void)state;
	assert_int_equal(upcc_read_text(FIXTURE("vmstat-host"), &text), 0);
	assert_non_null(text);
	assert_true(strlen(text) > 1000);	/* more than one 8 KiB-buffer read is fine too */
	free(text);
	assert_int_equal(upcc_read_text(FIXTURE("nope"), &text), -ENOENT);
	assert_int_equal(upcc_read_text(UPCC_FIXTURES, &text), -EISDIR);
}

/* Issue 12: a FIFO (as state file, memory.stat or config) must not block
 * the reader, and a device is never opened; the alarm fails a hang.
 */
static void test_read_text_not_regular(void **state)
{
	char dir[] = "/tmp/upcc-stats-XXXXXX", fifo[64];
	char *text = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	signal(SIGALRM, SIG_DFL);
	alarm(5);
	assert_int_equal(upcc_read_text(fifo, &text), -EINVAL);
	alarm(0);
	assert_null(text);
	assert_int_equal(upcc_read_text("/dev/null", &text), -EINVAL);
	assert_null(text);
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meminfo_host),
		cmocka_unit_test(test_meminfo_node),
		cmocka_unit_test(test_meminfo_node_mixed),
		cmocka_unit_test(test_meminfo_missing_fields),
		cmocka_unit_test(test_meminfo_huge),
		cmocka_unit_test(test_meminfo_garbage),
		cmocka_unit_test(test_memstat),
		cmocka_unit_test(test_vmstat),
		cmocka_unit_test(test_id_list),
		cmocka_unit_test(test_read_text),
		cmocka_unit_test(test_read_text_not_regular),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
