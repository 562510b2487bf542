// SPDX-License-Identifier: GPL-2.0
/* test_state.c - the daemon's state file, written and read back. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "lib/atomicfile.h"
#include "report/state.h"

static const struct upcc_backend_ops memcg_ops = { .name = "memcg" };

static void test_round_trip(void **state)
{
	char dir[] = "/tmp/upcc-state-XXXXXX", path[64];
	struct upcc_scope_run runs[2];
	struct upcc_state_scope read_back[4];
	struct upcc_state_header header;
	struct upcc_compact compact = { .enabled = true, .runs_total = 3, .cpu_usec_total = 4567 };
	size_t count = 0;

	(void)state;
	memset(runs, 0, sizeof(runs));
	snprintf(runs[0].scope.name, sizeof(runs[0].scope.name), "web");
	runs[0].scope.kind = UPCC_SCOPE_CGROUP;
	runs[0].scope.node_id = -1;
	snprintf(runs[0].scope.path, sizeof(runs[0].scope.path), "/sys/fs/cgroup/we\"b\\x\n");
	runs[0].backend.ops = &memcg_ops;
	snprintf(runs[0].backend.why, sizeof(runs[0].backend.why), "auto: memory.reclaim works");
	runs[0].backend_ready = true;
	runs[0].state.policy.target_pages = 111;
	runs[0].state.policy.trigger_pages = 1776;
	runs[0].state.counters.reclaimed_pages_total = UINT64_MAX;
	runs[0].state.counters.actions_total = 9;
	runs[0].state.phase = UPCC_PHASE_RECLAIMING;
	/* The working set held, its cap and why the target is raised. */
	runs[0].state.policy.wset_cap_pages = 444;
	runs[0].state.last.hot_pages = 300;
	runs[0].state.last.hot_items = 7;
	runs[0].state.effective_target_pages = 411;
	runs[0].state.wset = (struct upcc_wset){ .raise_pages = 300, .in_use = true };
	snprintf(runs[1].scope.name, sizeof(runs[1].scope.name), "node1");
	runs[1].scope.kind = UPCC_SCOPE_NODE;
	runs[1].scope.node_id = 1;
	snprintf(runs[1].backend_error, sizeof(runs[1].backend_error), "damon: busy");

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	assert_int_equal(upcc_state_write(path, runs, 2, 4096, true, 60100, &compact, NULL, 0), 0);
	assert_int_equal(upcc_state_read(path, &header, read_back, 4, &count), 0);
	assert_int_equal(count, 2);
	assert_int_equal(header.pid, (long)getpid());
	assert_true(header.dry_run);
	assert_true(header.heartbeat_ms == 60100);
	assert_true(header.page_size == 4096);
	/* The daemon's compaction, apart from its scopes (compact.h). */
	assert_true(header.compaction_enabled);
	assert_true(header.compactions_total == 3);
	assert_true(header.compaction_cpu_usec_total == 4567);
	assert_string_equal(read_back[0].name, "web");
	assert_string_equal(read_back[0].kind, "cgroup");
	assert_string_equal(read_back[0].path, "/sys/fs/cgroup/we\"b\\x\n");
	assert_string_equal(read_back[0].backend, "memcg");
	assert_string_equal(read_back[0].backend_why, "auto: memory.reclaim works");
	assert_true(read_back[0].backend_ready);
	assert_true(read_back[0].reclaiming);
	assert_true(read_back[0].target_pages == 111);
	assert_true(read_back[0].trigger_pages == 1776);
	assert_true(read_back[0].reclaimed_pages_total == UINT64_MAX);
	assert_true(read_back[0].actions_total == 9);
	assert_true(read_back[0].working_set_pages == 300);
	assert_true(read_back[0].working_set_cap_pages == 444);
	assert_true(read_back[0].working_set_items == 7);
	assert_true(read_back[0].effective_target_pages == 411);
	assert_string_equal(read_back[0].effective_target_reason, "working set in use");
	assert_string_equal(read_back[1].backend, "none");
	assert_string_equal(read_back[1].backend_why, "damon: busy");
	assert_int_equal(read_back[1].node_id, 1);
	assert_false(read_back[1].backend_ready);

	/* At most @max scopes are filled. */
	assert_int_equal(upcc_state_read(path, &header, read_back, 1, &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * Issue 31 item 6: a path scope whose path is not UTF-8 made the state
 * file (and status --json) invalid JSON: the byte went out raw.  Every
 * string is UTF-8 now, and the exact name and path come back from their
 * _hex twins, so upcc status still measures the right directory.
 */
static void test_non_utf8_path(void **state)
{
	char dir[] = "/tmp/upcc-state-XXXXXX", path[64], *text;
	struct upcc_scope_run run;
	struct upcc_state_scope read_back[1];
	struct upcc_state_header header;
	size_t count = 0, len;
	FILE *f;

	(void)state;
	memset(&run, 0, sizeof(run));
	snprintf(run.scope.name, sizeof(run.scope.name), "path:/srv/d\xff\xc3(");
	run.scope.kind = UPCC_SCOPE_PATH;
	run.scope.node_id = -1;
	snprintf(run.scope.path, sizeof(run.scope.path), "/srv/d\xff\xc3(");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	assert_int_equal(upcc_state_write(path, &run, 1, 4096, false, 0, NULL, NULL, 0), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, 65536);
	assert_non_null(text);
	len = fread(text, 1, 65535, f);
	fclose(f);
	assert_true(len > 0);
	assert_null(memchr(text, 0xff, len));
	assert_null(memchr(text, 0xc3, len));
	assert_non_null(strstr(text, "\"path\":\"/srv/d\\ufffd\\ufffd(\",\"path_hex\":\"2f7372762f64ffc328\""));
	free(text);
	assert_int_equal(upcc_state_read(path, &header, read_back, 1, &count), 0);
	assert_int_equal(count, 1);
	assert_string_equal(read_back[0].name, "path:/srv/d\xff\xc3(");
	assert_string_equal(read_back[0].path, "/srv/d\xff\xc3(");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_bad_files(void **state)
{
	struct upcc_state_scope scopes[2];
	struct upcc_state_header header;
	size_t count = 5;

	(void)state;
	assert_int_equal(upcc_state_read(FIXTURE("no-state.json"), &header, scopes, 2, &count),
			 -ENOENT);
	assert_int_equal(upcc_state_read(FIXTURE("meminfo-host"), &header, scopes, 2, &count),
			 -EINVAL);
	assert_int_equal(count, 0);
}

/*
 * Someone else's FIFO or file at the temporary name the writer used to
 * pick (PATH.tmp.PID) neither blocks it (the alarm fails the test instead
 * of hanging it) nor becomes the published file.
 */
static void test_atomic_write_taken_names(void **state)
{
	char dir[] = "/tmp/upcc-state-XXXXXX", path[64], fifo[96], planted[96];
	struct stat st, planted_st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	snprintf(fifo, sizeof(fifo), "%s.tmp.%ld", path, (long)getpid());
	assert_int_equal(mkfifo(fifo, 0666), 0);
	signal(SIGALRM, SIG_DFL);
	alarm(5);
	assert_int_equal(upcc_atomic_write(path, "{}\n", 3, 0, NULL, 0), 0);
	alarm(0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(unlink(fifo), 0);

	/* A planted 0666 file at the old name must not become the report. */
	snprintf(planted, sizeof(planted), "%s.tmp.%ld", path, (long)getpid());
	assert_int_equal(close(open(planted, O_WRONLY | O_CREAT | O_EXCL, 0666)), 0);
	assert_int_equal(chmod(planted, 0666), 0);
	assert_int_equal(stat(planted, &planted_st), 0);
	assert_int_equal(upcc_atomic_write(path, "{}\n", 3, 0, NULL, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_ino != planted_st.st_ino);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(unlink(planted), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Issue 12: a header alone, or a file cut short, is refused. */
static void test_truncated_files(void **state)
{
	static const char *const bad[] = {
		"{\"version\":1,\"pid\":12,\"updated\":1700000000,\"page_size\":4096,"
		"\"dry_run\":false,\"scopes\":[\n",
		"{\"version\":1,\"pid\":12,\"updated\":1700000000,\"page_size\":4096,"
		"\"dry_run\":false,\"scopes\":[\n{\"name\":\"system\",\"kind\":\"sys",
		"{\"version\":1,\n]}\n",
	};
	char dir[] = "/tmp/upcc-state-XXXXXX", path[64];
	struct upcc_state_scope scopes[2];
	struct upcc_state_header header;
	size_t count = 5;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(bad[i], f);
		fclose(f);
		assert_int_equal(upcc_state_read(path, &header, scopes, 2, &count), -EINVAL);
	}
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* The reader is a JSON parser (json-c): any layout of a version-2 state
 * is read, any other version or a daemon without pid/time is refused.
 */
static void test_parse_layouts(void **state)
{
	struct upcc_state_scope scopes[2];
	struct upcc_state_header header;
	size_t count;

	(void)state;
	assert_int_equal(upcc_state_parse("{ \"scopes\": [ { \"kind\": \"path\",\n"
					  "  \"name\": \"p\\u00e9\", \"unmapped_pages\": 7 } ],\n"
					  " \"daemon\": {\"updated\": 5, \"pid\": 9},"
					  " \"version\": 2 }", &header, scopes, 2, &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(header.pid, 9);
	assert_string_equal(scopes[0].name, "p\xc3\xa9");
	assert_true(scopes[0].unmapped_pages == 7);
	assert_int_equal(upcc_state_parse("{\"version\":1,\"daemon\":{\"pid\":1,\"updated\":1},"
					  "\"scopes\":[]}", &header, scopes, 2, &count), -EINVAL);
	assert_int_equal(upcc_state_parse("{\"version\":2,\"daemon\":{\"pid\":1},"
					  "\"scopes\":[]}", &header, scopes, 2, &count), -EINVAL);
	assert_int_equal(upcc_state_parse("{\"version\":2,\"daemon\":{\"pid\":1,\"updated\":1},"
					  "\"scopes\":[7]}", &header, scopes, 2, &count), -EINVAL);
	assert_int_equal(count, 0);
	assert_int_equal(upcc_state_parse("", &header, scopes, 2, &count), -EINVAL);
}

/* Issue 11: a state file's daemon is alive only if its pid still runs
 * with the start time the state recorded.
 */
static void test_daemon_alive(void **state)
{
	struct upcc_state_header header = { .pid = (long)getpid() };
	pid_t child;

	(void)state;
	header.start_time = upcc_state_start_time();
	assert_true(header.start_time != 0);
	assert_true(upcc_state_daemon_alive(&header));
	/* The same pid, another start: a reused pid is not the daemon. */
	header.start_time++;
	assert_false(upcc_state_daemon_alive(&header));
	/* A process that has exited (and been reaped) is not running. */
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	header.pid = child;
	header.start_time = 1;
	assert_false(upcc_state_daemon_alive(&header));
	header.pid = 0;
	assert_false(upcc_state_daemon_alive(&header));
}

/*
 * Issue 31: a daemon that runs but no longer rewrites its state (stopped,
 * stuck) is stale after three of its heartbeats plus the slack; a state
 * that promised none (a --once run, an older upcd) never is by its age.
 */
static void test_stale(void **state)
{
	struct upcc_state_header header = { .updated = 1000000, .heartbeat_ms = 60100 };
	struct upcc_state_scope scopes[1];
	size_t count;

	(void)state;
	/* 3 heartbeats of 61 s (rounded up) + 10 s of slack: 193 s. */
	assert_false(upcc_state_stale(&header, 1000000));
	assert_false(upcc_state_stale(&header, 1000000 + 193));
	assert_true(upcc_state_stale(&header, 1000000 + 194));
	assert_true(upcc_state_stale(&header, 1000000 + 86400));
	/* Written "in the future": the clock went back, not a stuck daemon. */
	assert_false(upcc_state_stale(&header, 1000000 - 86400));
	/* No promise: only the pid says whether the writer runs. */
	header.heartbeat_ms = 0;
	assert_false(upcc_state_stale(&header, 1000000 + 86400));
	/* A heartbeat no clock reaches saturates instead of wrapping to "stale". */
	header.heartbeat_ms = UINT64_MAX;
	assert_false(upcc_state_stale(&header, 1000000 + 86400));
	/* Read from the file; a state without the key has none. */
	assert_int_equal(upcc_state_parse("{\"version\":2,\"daemon\":{\"pid\":1,\"updated\":5,"
					  "\"heartbeat_ms\":1500},\"scopes\":[]}",
					  &header, scopes, 1, &count), 0);
	assert_true(header.heartbeat_ms == 1500);
	assert_false(upcc_state_stale(&header, 5 + 6 + 10));
	assert_true(upcc_state_stale(&header, 5 + 6 + 11));
	assert_int_equal(upcc_state_parse("{\"version\":2,\"daemon\":{\"pid\":1,\"updated\":5},"
					  "\"scopes\":[]}", &header, scopes, 1, &count), 0);
	assert_true(header.heartbeat_ms == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_non_utf8_path),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_atomic_write_taken_names),
		cmocka_unit_test(test_truncated_files),
		cmocka_unit_test(test_parse_layouts),
		cmocka_unit_test(test_daemon_alive),
		cmocka_unit_test(test_stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
