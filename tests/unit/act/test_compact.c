// SPDX-License-Identifier: GPL-2.0
/*
 * test_compact.c - upcd compacts only under a balloon that reports free
 * pages, and then only after enough was freed and not more often than its
 * gap.  A fake /sys and /proc (upcc_hooks.root); every write is
 * recorded in upcc_hooks.backend_log.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "helpers.h"
#include "act/compact.h"
#include "lib/hooks.h"

#define PAGE		4096ull
#define MIB_PAGES(n)	((uint64_t)(n) * (1ull << 20) / PAGE)
#define SEC		1000000ull

static char root[PATH_MAX], log_path[PATH_MAX + 16];

static void balloon(const char *features)
{
	char path[PATH_MAX + 128];

	snprintf(path, sizeof(path), "%s/sys/bus/virtio/drivers/virtio_balloon/virtio3", root);
	assert_int_equal(ua_mkdir_p(path), 0);
	snprintf(path, sizeof(path),
		 "%s/sys/bus/virtio/drivers/virtio_balloon/virtio3/features", root);
	assert_int_equal(ua_write_file(path, features), 0);
}

static void compact_sysctl(void)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/proc/sys/vm", root);
	assert_int_equal(ua_mkdir_p(path), 0);
	snprintf(path, sizeof(path), "%s/proc/sys/vm/compact_memory", root);
	assert_int_equal(ua_write_file(path, ""), 0);
}

/* How many times the sysctl was written, from the write log. */
static int compactions_logged(void)
{
	char line[256];
	int count = 0;
	FILE *log = fopen(log_path, "re");

	if (!log)
		return 0;
	while (fgets(line, sizeof(line), log))
		count += strcmp(line, "/proc/sys/vm/compact_memory 1\n") == 0;
	fclose(log);
	return count;
}

static int setup(void **state)
{
	(void)state;
	if (!ua_mkdtemp(root, sizeof(root)))
		return -1;
	snprintf(log_path, sizeof(log_path), "%s/writes.log", root);
	upcc_hooks.root = root;
	upcc_hooks.backend_log = log_path;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	upcc_hooks.root = NULL;
	upcc_hooks.backend_log = NULL;
	ua_rm_rf(root);
	return 0;
}

/* No balloon: never, however much is freed. */
static void test_no_balloon(void **state)
{
	struct upcc_compact compact = { 0 };

	(void)state;
	compact_sysctl();
	upcc_compact_probe(&compact, true);
	assert_false(compact.enabled);
	assert_non_null(strstr(compact.why, "no virtio-balloon device with free page reporting"));
	assert_false(upcc_compact_after_round(&compact, MIB_PAGES(4096), PAGE, 100 * SEC));
	assert_int_equal(compactions_logged(), 0);
}

/* A balloon that did not negotiate reporting (bit 5 clear): never. */
static void test_balloon_without_reporting(void **state)
{
	struct upcc_compact compact = { 0 };

	(void)state;
	compact_sysctl();
	balloon("0110100000000000000000000000000000000000000000000000000000000000");
	upcc_compact_probe(&compact, true);
	assert_false(compact.enabled);
	assert_false(upcc_compact_after_round(&compact, MIB_PAGES(4096), PAGE, 100 * SEC));
	assert_int_equal(compactions_logged(), 0);
}

/* Reporting, but a kernel without CONFIG_COMPACTION: off, and says why. */
static void test_reporting_without_compaction(void **state)
{
	struct upcc_compact compact = { 0 };

	(void)state;
	balloon("0110110000000000000000000000000000000000000000000000000000000000");
	upcc_compact_probe(&compact, true);
	assert_false(compact.enabled);
	assert_non_null(strstr(compact.why, "cannot compact"));
	assert_int_equal(compactions_logged(), 0);
}

/*
 * Reporting: compact once 32 MiB were freed since the last compaction,
 * counting across rounds, and not again within the gap.
 */
static void test_reporting_balloon(void **state)
{
	struct upcc_compact compact = { 0 };
	uint64_t now = 1000 * SEC;

	(void)state;
	compact_sysctl();
	balloon("0110110000000000000000000000000000000000000000000000000000000000");
	upcc_compact_probe(&compact, true);
	assert_true(compact.enabled);
	assert_non_null(strstr(compact.why, "virtio3 reports free pages"));

	assert_false(upcc_compact_after_round(&compact, MIB_PAGES(20), PAGE, now));
	assert_int_equal(compactions_logged(), 0);
	assert_true(upcc_compact_after_round(&compact, MIB_PAGES(12), PAGE, now + SEC));
	assert_int_equal(compactions_logged(), 1);
	assert_int_equal(compact.runs_total, 1);
	assert_int_equal(compact.last_error, 0);

	/* Within the gap: not again, however much. */
	assert_false(upcc_compact_after_round(&compact, MIB_PAGES(512), PAGE, now + 5 * SEC));
	assert_int_equal(compactions_logged(), 1);
	/* After it, with what was freed meanwhile counted. */
	assert_true(upcc_compact_after_round(&compact, 0, PAGE, now + 12 * SEC));
	assert_int_equal(compactions_logged(), 2);
	/* Nothing freed since: nothing to make reportable. */
	assert_false(upcc_compact_after_round(&compact, 0, PAGE, now + 60 * SEC));
	assert_int_equal(compactions_logged(), 2);
	assert_int_equal(compact.errors_total, 0);
}

/* The integration suite's upcd sets no_compact: off, whatever the balloon. */
static void test_hook_off(void **state)
{
	struct upcc_compact compact = { 0 };

	(void)state;
	compact_sysctl();
	balloon("0110110000000000000000000000000000000000000000000000000000000000");
	upcc_hooks.no_compact = 1;
	upcc_compact_probe(&compact, true);
	upcc_hooks.no_compact = 0;
	assert_false(compact.enabled);
	assert_false(upcc_compact_after_round(&compact, MIB_PAGES(4096), PAGE, 100 * SEC));
	assert_int_equal(compactions_logged(), 0);
}

/*
 * "compact = no": off under the very balloon that turns it on, the
 * sysctl never written however much is freed; a reload that allows it
 * again compacts, and the counters of before are kept.
 */
static void test_config_off(void **state)
{
	struct upcc_compact compact = { 0 };
	uint64_t now = 1000 * SEC;

	(void)state;
	compact_sysctl();
	balloon("0110110000000000000000000000000000000000000000000000000000000000");
	upcc_compact_probe(&compact, false);
	assert_false(compact.enabled);
	assert_non_null(strstr(compact.why, "compact = no"));
	for (int i = 0; i < 10; i++)
		assert_false(upcc_compact_after_round(&compact, MIB_PAGES(4096), PAGE,
						      now + (uint64_t)i * 60 * SEC));
	assert_int_equal(compactions_logged(), 0);
	assert_int_equal(compact.runs_total, 0);

	upcc_compact_probe(&compact, true);
	assert_true(compact.enabled);
	assert_true(upcc_compact_after_round(&compact, MIB_PAGES(64), PAGE, now + 700 * SEC));
	assert_int_equal(compactions_logged(), 1);
	/* Off again on a reload: the count stays, no write follows. */
	upcc_compact_probe(&compact, false);
	assert_int_equal(compact.runs_total, 1);
	assert_false(upcc_compact_after_round(&compact, MIB_PAGES(4096), PAGE, now + 800 * SEC));
	assert_int_equal(compactions_logged(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_balloon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_balloon_without_reporting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reporting_without_compaction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reporting_balloon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hook_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_off, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
