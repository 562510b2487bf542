// SPDX-License-Identifier: GPL-2.0
/* test_metrics.c - the Prometheus textfile: names, values, escaping, atomic write. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "report/metrics.h"
#include "core/common.h"
#include "lib/readtext.h"

static const struct upcc_backend_ops named_ops = { .name = "fadvise" };

static void make_runs(struct upcc_scope_run runs[2])
{
	memset(runs, 0, 2 * sizeof(runs[0]));
	snprintf(runs[0].scope.name, sizeof(runs[0].scope.name), "system");
	runs[0].state.last.total_pages = 1000;
	runs[0].state.last.file_lru_pages = 300;
	runs[0].state.last.mapped_pages = 100;
	runs[0].state.last.unmapped_pages = 200;
	runs[0].state.policy.target_pages = 10;
	runs[0].state.policy.trigger_pages = 160;
	runs[0].state.policy.wset_cap_pages = 40;
	runs[0].state.last.hot_pages = 25;
	runs[0].state.phase = UPCC_PHASE_RECLAIMING;
	runs[0].state.counters.reclaimed_pages_total = 50;
	runs[0].state.counters.actions_total = 3;
	runs[0].state.counters.action_errors_total = 1;
	runs[0].state.counters.action_usec_total = 2500000;
	runs[0].state.counters.kernel_cpu_usec_total = 1500000;
	runs[0].state.measured_unix_usec = 1700000000250000ull;
	runs[0].backend.ops = &named_ops;
	runs[0].backend_ready = true;
	/* A name with characters the exposition format must escape. */
	snprintf(runs[1].scope.name, sizeof(runs[1].scope.name), "a\"b\\c");
	runs[1].state.last.unmapped_pages = UINT64_MAX;	/* bytes beyond 64 bits */
	runs[1].state.measured_unix_usec = 1700000000000000ull;
	runs[1].state.sample_error = -ENOENT;		/* its last step could not measure it */
}

static char *format(const struct upcc_scope_run *runs, size_t nr)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	assert_int_equal(upcc_metrics_format(out, runs, nr, 4096, NULL), 0);
	assert_int_equal(fclose(out), 0);
	return text;
}

static void expect_line(const char *text, const char *line)
{
	char *with_newline = malloc(strlen(line) + 3);

	assert_non_null(with_newline);
	sprintf(with_newline, "\n%s\n", line);
	if (!strstr(text, with_newline))
		fail_msg("missing line \"%s\" in:\n%s", line, text);
	free(with_newline);
}

static void test_format(void **state)
{
	struct upcc_scope_run runs[2];
	char *text;

	(void)state;
	make_runs(runs);
	text = format(runs, 2);
	expect_line(text, "# TYPE upcc_unmapped_bytes gauge");
	expect_line(text, "upcc_memory_bytes{scope=\"system\"} 4096000");
	expect_line(text, "upcc_file_lru_bytes{scope=\"system\"} 1228800");
	expect_line(text, "upcc_mapped_bytes{scope=\"system\"} 409600");
	expect_line(text, "upcc_unmapped_bytes{scope=\"system\"} 819200");
	expect_line(text, "upcc_target_bytes{scope=\"system\"} 40960");
	expect_line(text, "upcc_trigger_bytes{scope=\"system\"} 655360");
	expect_line(text, "upcc_reclaiming{scope=\"system\"} 1");
	/* The working set held, and how far it may raise the target. */
	expect_line(text, "# TYPE upcc_working_set_bytes gauge");
	expect_line(text, "upcc_working_set_bytes{scope=\"system\"} 102400");
	expect_line(text, "# TYPE upcc_working_set_cap_bytes gauge");
	expect_line(text, "upcc_working_set_cap_bytes{scope=\"system\"} 163840");
	expect_line(text, "# TYPE upcc_reclaimed_bytes_total counter");
	expect_line(text, "upcc_reclaimed_bytes_total{scope=\"system\"} 204800");
	expect_line(text, "upcc_actions_total{scope=\"system\"} 3");
	expect_line(text, "upcc_action_errors_total{scope=\"system\"} 1");
	expect_line(text, "upcc_action_seconds_total{scope=\"system\"} 2.500000");
	expect_line(text, "upcc_backend_kernel_cpu_seconds_total{scope=\"system\"} 1.500000");
	expect_line(text, "upcc_backend_info{scope=\"system\",backend=\"fadvise\"} 1");
	expect_line(text, "upcc_backend_info{scope=\"a\\\"b\\\\c\",backend=\"none\"} 1");
	expect_line(text, "upcc_unmapped_bytes{scope=\"a\\\"b\\\\c\"} 7.5557863725914323e+22");
	/* The version this build is; whether each scope was measured, and when. */
	expect_line(text, "# TYPE upcc_build_info gauge");
	expect_line(text, "upcc_build_info{version=\"" UPCC_VERSION "\"} 1");
	expect_line(text, "# TYPE upcc_scope_up gauge");
	expect_line(text, "upcc_scope_up{scope=\"system\"} 1");
	expect_line(text, "upcc_scope_up{scope=\"a\\\"b\\\\c\"} 0");
	expect_line(text, "# TYPE upcc_last_round_timestamp_seconds gauge");
	expect_line(text, "upcc_last_round_timestamp_seconds{scope=\"system\"} 1700000000.250000");
	expect_line(text, "upcc_last_round_timestamp_seconds{scope=\"a\\\"b\\\\c\"} 1700000000.000000");
	/* Without the daemon's part, no process series. */
	assert_null(strstr(text, "upcc_start_time_seconds"));
	assert_null(strstr(text, "upcc_dry_run"));
	/* Every sample line carries the upcc_ prefix. */
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		assert_true(line[0] == '#' || strncmp(line, "upcc_", 5) == 0);
	free(text);
}

static unsigned int count_entries(const char *dir)
{
	DIR *handle = opendir(dir);
	unsigned int count = 0;
	struct dirent *entry;

	assert_non_null(handle);
	while ((entry = readdir(handle)))
		count += entry->d_name[0] != '.';
	closedir(handle);
	return count;
}

static void test_atomic_write(void **state)
{
	char dir[] = "/tmp/upcc-metrics-XXXXXX", path[64], missing[96];
	struct upcc_scope_run runs[2];
	char *written, *expected;

	(void)state;
	make_runs(runs);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/upcc.prom", dir);
	assert_int_equal(upcc_metrics_write(path, runs, 2, 4096, NULL, NULL, 0), 0);
	/* Rewriting replaces the file; the temporary never stays behind. */
	runs[0].state.counters.actions_total = 4;
	assert_int_equal(upcc_metrics_write(path, runs, 2, 4096, NULL, NULL, 0), 0);
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(upcc_read_text(path, &written), 0);
	expected = format(runs, 2);
	assert_string_equal(written, expected);
	free(written);
	free(expected);
	snprintf(missing, sizeof(missing), "%s/no-dir/upcc.prom", dir);
	assert_int_equal(upcc_metrics_write(missing, runs, 2, 4096, NULL, NULL, 0), -ENOENT);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* A scope never stepped yet is not up, and has never been measured. */
static void test_not_yet_measured(void **state)
{
	struct upcc_scope_run run;
	char *text;

	(void)state;
	memset(&run, 0, sizeof(run));
	snprintf(run.scope.name, sizeof(run.scope.name), "fresh");
	text = format(&run, 1);
	expect_line(text, "upcc_scope_up{scope=\"fresh\"} 0");
	expect_line(text, "upcc_last_round_timestamp_seconds{scope=\"fresh\"} 0.000000");
	free(text);
}

/* The daemon-wide series: start time, dry run, compaction (its CPU apart from upcd's). */
static void test_compaction(void **state)
{
	struct upcc_compact compact = { .enabled = true, .runs_total = 2, .cpu_usec_total = 1500250 };
	struct upcc_metrics_daemon daemon = {
		.start_unix_usec = 1700000123000001ull, .dry_run = true, .compact = &compact,
	};
	struct upcc_scope_run runs[2];
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	make_runs(runs);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(upcc_metrics_format(out, runs, 2, 4096, &daemon), 0);
	assert_int_equal(fclose(out), 0);
	expect_line(text, "# TYPE upcc_start_time_seconds gauge");
	expect_line(text, "upcc_start_time_seconds 1700000123.000001");
	expect_line(text, "# TYPE upcc_dry_run gauge");
	expect_line(text, "upcc_dry_run 1");
	expect_line(text, "upcc_compaction_enabled 1");
	expect_line(text, "upcc_compactions_total 2");
	expect_line(text, "upcc_compaction_cpu_seconds_total 1.500250");
	expect_line(text, "# TYPE upcc_compactions_total counter");
	free(text);
	/* Without the daemon's counters, no compaction series at all. */
	text = format(runs, 2);
	assert_null(strstr(text, "upcc_compaction"));
	free(text);
	daemon.compact = NULL;
	text = NULL;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(upcc_metrics_format(out, runs, 2, 4096, &daemon), 0);
	assert_int_equal(fclose(out), 0);
	expect_line(text, "upcc_dry_run 1");
	assert_null(strstr(text, "upcc_compaction"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_atomic_write),
		cmocka_unit_test(test_not_yet_measured),
		cmocka_unit_test(test_compaction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
