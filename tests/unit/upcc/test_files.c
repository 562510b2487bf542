// SPDX-License-Identifier: GPL-2.0
/*
 * test_files.c - `upcc files` / `upcc evict` as functions: exit codes for
 * bad usage (nothing done), JSON escaping of hostile file names, and evict
 * on real files.
 */
#include "lib/hooks.h"
#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/size.h"
#include "core/common.h"
#include "upcc/evictcmd.h"
#include "upcc/files.h"
#include "lib/hooks.h"
#include "sys/cachestat.h"
#include "sys/residency.h"
#include "core/size.h"

static char tree[PATH_MAX];
static char out_path[PATH_MAX + 16];

static int setup(void **state)
{
	(void)state;
	upcc_hooks.no_fanotify = 1;
	if (!ua_mkdtemp(tree, sizeof(tree)))
		return -1;
	snprintf(out_path, sizeof(out_path), "%s.out", tree);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ua_rm_rf(tree);
	unlink(out_path);
	return 0;
}

/* Run @fn with @argv, stdout and stderr into out_path; returns the exit code. */
static int run(int (*fn)(int, char **), char **argv)
{
	int argc = 0, saved_out, saved_err, fd, rc;

	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0 && saved_out >= 0 && saved_err >= 0);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	return rc;
}

static char *output(void)
{
	static char buf[65536];
	FILE *f = fopen(out_path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

/* A size as the tables print it (upcc_size_format). */
static const char *size_of(unsigned int pages)
{
	static char buf[4][UPCC_SIZE_TEXT_LEN];
	static unsigned int next;
	char *out = buf[next++ % 4];

	return upcc_size_format(out, UPCC_SIZE_TEXT_LEN, (uint64_t)pages * upcc_page_size());
}

/* An evict row: ACTION, then the dropped and cached sizes in 10 columns. */
static const char *expect_row(const char *action, unsigned int dropped, unsigned int cached)
{
	static char row[128];

	snprintf(row, sizeof(row), "%-20s %10s %10s  ", action, size_of(dropped), size_of(cached));
	return row;
}

static void test_usage_errors(void **state)
{
	char *no_path[] = { "evict", NULL };
	char *bad_opt[] = { "evict", "--bogus", tree, NULL };
	char *bad_top[] = { "files", "--top", "-3", tree, NULL };
	char *huge_top[] = { "files", "--top", "99999999999", tree, NULL };
	char *two_paths[] = { "files", tree, tree, NULL };
	char *help[] = { "files", "--help", NULL };

	(void)state;
	assert_int_equal(run(upcc_evict_main, no_path), UPCC_EXIT_USAGE);
	assert_non_null(strstr(output(), "no PATH"));
	assert_int_equal(run(upcc_evict_main, bad_opt), UPCC_EXIT_USAGE);
	assert_int_equal(run(upcc_files_main, bad_top), UPCC_EXIT_USAGE);
	assert_non_null(strstr(output(), "--top"));
	assert_int_equal(run(upcc_files_main, huge_top), UPCC_EXIT_USAGE);
	assert_int_equal(run(upcc_files_main, two_paths), UPCC_EXIT_USAGE);
	assert_int_equal(run(upcc_files_main, help), UPCC_EXIT_OK);
	assert_non_null(strstr(output(), "usage: upcc files"));
}

static void test_json_escapes_names(void **state)
{
	char path[PATH_MAX * 2];
	char *argv[] = { "files", tree, "--json", NULL };
	const char *out;

	(void)state;
	snprintf(path, sizeof(path), "%s/we\"ird\nname\\", tree);
	assert_int_equal(ua_cached_file(path, 2, 1), 0);
	assert_int_equal(run(upcc_files_main, argv), UPCC_EXIT_OK);
	out = output();
	assert_non_null(strstr(out, "we\\\"ird\\u000aname\\\\\""));
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);	/* one line */
	unlink(path);
}

/*
 * Issue 31 item 6: a name that is not UTF-8 went out raw (invalid JSON);
 * it is U+FFFD in "path" now, its exact bytes in "path_hex".  And upcc
 * --help promises every *_pages a *_bytes twin, which files lacked.
 */
static void test_json_non_utf8_and_bytes(void **state)
{
	char path[PATH_MAX * 2], want[PATH_MAX * 8], hex[PATH_MAX * 4] = "";
	char *argv[] = { "files", tree, "--json", NULL };
	unsigned long long page = upcc_page_size();
	const char *out;

	(void)state;
	snprintf(path, sizeof(path), "%s/bad\xffname", tree);
	assert_int_equal(ua_cached_file(path, 2, 1), 0);
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex), "%02x", *c);
	assert_int_equal(run(upcc_files_main, argv), UPCC_EXIT_OK);
	out = output();
	assert_null(strchr(out, '\xff'));
	snprintf(want, sizeof(want), "{\"path\":\"%s/bad\\ufffdname\",\"path_hex\":\"%s\","
		 "\"cached_pages\":2,\"cached_bytes\":%llu,\"file_pages\":2,\"file_bytes\":%llu,",
		 tree, hex, 2 * page, 2 * page);
	assert_non_null(strstr(out, want));
	/* Dirty and writeback where the kernel tells them (not by mincore). */
	if (upcc_residency_method() == UPCC_RESIDENCY_CACHESTAT)
		assert_non_null(strstr(out, "\"dirty_pages\":0,\"dirty_bytes\":0,"
					    "\"writeback_pages\":0,\"writeback_bytes\":0,"));
	snprintf(want, sizeof(want), "\"total\":{\"files\":1,\"cached_pages\":2,"
		 "\"cached_bytes\":%llu,\"mapped_pages\":0,\"mapped_bytes\":0,\"dirty_pages\":",
		 2 * page);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, ",\"writeback_bytes\":"));
	unlink(path);
}

/* --top 0: totals only, and nothing kept (ASan/valgrind see any leak). */
static void test_top_zero(void **state)
{
	char path[PATH_MAX * 2];
	char *argv[] = { "files", "--top", "0", tree, NULL };

	(void)state;
	snprintf(path, sizeof(path), "%s/top0", tree);
	assert_int_equal(ua_cached_file(path, 4, 1), 0);
	assert_int_equal(run(upcc_files_main, argv), UPCC_EXIT_OK);
	assert_null(strstr(output(), "/top0"));
	assert_non_null(strstr(output(), "total:"));
	unlink(path);
}

static void test_evict_real(void **state)
{
	char path[PATH_MAX * 2];
	char *argv[] = { "evict", path, NULL };
	char *missing[] = { "evict", "/nonexistent/upcc-test", NULL };
	struct upcc_residency res;
	struct stat st;
	int fd;

	(void)state;
	if (upcc_residency_method() != UPCC_RESIDENCY_CACHESTAT || ua_under_valgrind())
		skip();	/* a just-written file is left alone under the mincore rule */
	snprintf(path, sizeof(path), "%s/victim", tree);
	assert_int_equal(ua_cached_file(path, 16, 1), 0);
	assert_int_equal(run(upcc_evict_main, argv), UPCC_EXIT_OK);
	assert_non_null(strstr(output(), "dropped"));
	/* Sizes, one unit, aligned: not "16 of 16 pages" beside a kB total. */
	assert_non_null(strstr(output(), expect_row("dropped", 16, 16)));
	assert_non_null(strstr(output(), "evict: 1 file, "));
	assert_null(strstr(output(), "of 16 pages"));
	assert_null(strstr(output(), " kB"));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(upcc_residency_fd(fd, &st, &res), 0);
	close(fd);
	assert_int_equal(res.cached_pages, 0);
	unlink(path);
	assert_int_equal(run(upcc_evict_main, missing), UPCC_EXIT_FAILURE);
	assert_non_null(strstr(output(), "No such file"));
}

/* Issue 11: upcc files speaks one unit: sizes (or --bytes), "1 file". */
static void test_files_units(void **state)
{
	char path[PATH_MAX * 2], want[256];
	char *argv[] = { "files", tree, NULL };
	char *bytes[] = { "files", "--bytes", tree, NULL };
	const char *out;

	(void)state;
	snprintf(path, sizeof(path), "%s/four", tree);
	assert_int_equal(ua_cached_file(path, 4, 1), 0);
	assert_int_equal(run(upcc_files_main, argv), UPCC_EXIT_OK);
	out = output();
	assert_non_null(strstr(out, "  CACHED     SIZE  RES%    DIRTY WRITEBACK MAPPED  FILE\n"));
	snprintf(want, sizeof(want), "%8s %8s  100%%", size_of(4), size_of(4));
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), "total: 1 file, %s cached, 0B of it in mapped files, ",
		 size_of(4));
	assert_non_null(strstr(out, want));
	assert_null(strstr(out, "CACHED_KB"));
	assert_null(strstr(out, " kB"));
	assert_null(strstr(out, "pages"));
	assert_int_equal(run(upcc_files_main, bytes), UPCC_EXIT_OK);
	snprintf(want, sizeof(want), "%13llu %13llu  100%%",
		 4ull * upcc_page_size(), 4ull * upcc_page_size());
	assert_non_null(strstr(output(), want));
	snprintf(want, sizeof(want), "total: 1 file, %llu cached", 4ull * upcc_page_size());
	assert_non_null(strstr(output(), want));
	unlink(path);
}

/* Issue 11: evict has --json, like every upcc command. */
static void test_evict_json(void **state)
{
	char path[PATH_MAX * 2], want[128];
	char *argv[] = { "evict", "--dry-run", "--json", tree, NULL };
	const char *out;

	(void)state;
	snprintf(path, sizeof(path), "%s/j", tree);
	assert_int_equal(ua_cached_file(path, 2, 1), 0);
	assert_int_equal(run(upcc_evict_main, argv), UPCC_EXIT_OK);
	out = output();
	/* (stderr may come first here: run() takes both) */
	assert_non_null(strstr(out, "{\"dry_run\":true,\"page_size\":"));
	assert_non_null(strstr(out, "\"total\":{\"files\":1,"));
	snprintf(want, sizeof(want), "\"cached_pages\":2,\"cached_bytes\":%llu}",
		 2ull * upcc_page_size());
	assert_non_null(strstr(out, want));
	/* Issue 31 item 6: the skipped counts have their _bytes twins too. */
	assert_non_null(strstr(out, ",\"skipped_dirty_pages\":"));
	assert_non_null(strstr(out, ",\"skipped_dirty_bytes\":"));
	assert_non_null(strstr(out, ",\"skipped_mapped_bytes\":"));
	assert_ptr_equal(strstr(out, "}}\n"), out + strlen(out) - 3);
	unlink(path);
}

/*
 * Issue 11: a walk shows its progress on stderr when that is a terminal
 * (here a pseudo-terminal, the hook showing it from the first file), and
 * never when it is not (run() sends stderr to a file).
 */
static void test_files_progress(void **state)
{
	char path[PATH_MAX * 2], seen[4096];
	char *argv[] = { "files", "--top", "0", tree, NULL };
	int master, slave, saved_err, rc;
	size_t got;
	ssize_t n;

	(void)state;
	for (int i = 0; i < 70; i++) {
		snprintf(path, sizeof(path), "%s/p%d", tree, i);
		assert_int_equal(ua_cached_file(path, 1, 0), 0);
	}
	upcc_hooks.progress_now = true;
	assert_int_equal(run(upcc_files_main, argv), UPCC_EXIT_OK);
	assert_null(strstr(output(), "\r"));
	assert_non_null(strstr(output(), "total: 70 files"));

	master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(slave >= 0);
	fflush(stderr);
	saved_err = dup(2);
	dup2(slave, 2);
	rc = upcc_files_main(4, argv);
	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	upcc_hooks.progress_now = false;
	assert_int_equal(rc, UPCC_EXIT_OK);
	/* The tty layer hands the master its bytes asynchronously: read
	 * until the erase has come, for at most 5 s.
	 */
	fcntl(master, F_SETFL, O_NONBLOCK);
	got = 0;
	seen[0] = '\0';
	for (int tries = 0; tries < 500 && !strstr(seen, "\r\033[K"); tries++) {
		n = read(master, seen + got, sizeof(seen) - 1 - got);
		if (n > 0) {
			got += (size_t)n;
			seen[got] = '\0';
		} else {
			usleep(10000);
		}
	}
	close(slave);
	close(master);
	assert_true(got > 0);
	assert_non_null(strstr(seen, "\rupcc files: 1 file, "));
	assert_non_null(strstr(seen, "\r\033[K"));	/* erased at the end */
	for (int i = 0; i < 70; i++) {
		snprintf(path, sizeof(path), "%s/p%d", tree, i);
		unlink(path);
	}
}

/*
 * Hostile review L2: under a tree whose file's path passes PATH_MAX (21
 * levels of 250-byte names), upcc files lists that file by its whole path
 * and upcc evict drops it; neither says it is too deep.  Both left it out,
 * as "deeper than 64 levels".
 */
static void test_long_path(void **state)
{
	char base[PATH_MAX + 16], *file, *quoted;
	char *files[] = { "files", "--json", base, NULL };
	char *table[] = { "files", base, NULL };
	char *evict[] = { "evict", "--quiet", base, NULL };
	struct upcc_residency res;
	struct stat st;
	int fd;

	(void)state;
	if (upcc_residency_method() != UPCC_RESIDENCY_CACHESTAT || ua_under_valgrind())
		skip();	/* a just-written file is left alone under the mincore rule */
	snprintf(base, sizeof(base), "%s/long", tree);
	assert_int_equal(mkdir(base, 0755), 0);
	file = ua_long_path_file(base, 21, "deepfile", 4, &fd);
	assert_non_null(file);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(run(upcc_files_main, files), UPCC_EXIT_OK);
	quoted = malloc(strlen(file) + 16);
	assert_non_null(quoted);
	sprintf(quoted, "{\"path\":\"%s\",", file);
	assert_non_null(strstr(output(), quoted));
	assert_non_null(strstr(output(), "\"total\":{\"files\":1,\"cached_pages\":4,"));
	assert_non_null(strstr(output(), "\"depth\":0,"));
	assert_int_equal(run(upcc_files_main, table), UPCC_EXIT_OK);
	assert_null(strstr(output(), "deeper than"));
	assert_int_equal(run(upcc_evict_main, evict), UPCC_EXIT_OK);
	assert_non_null(strstr(output(), "evict: 1 file, "));
	assert_int_equal(upcc_residency_fd(fd, &st, &res), 0);
	assert_int_equal(res.cached_pages, 0);
	close(fd);
	free(quoted);
	free(file);
	ua_rm_rf(base);
}


/*
 * Issue 31 item 3: cachestat refuses a file a non-root caller neither owns
 * nor may write (EPERM), and upcc files said "0 files, 0B cached", exit 0.
 * Such a file is measured by mincore, as fincore does; a file neither
 * method measures is an error, said, and the exit is 1.
 */
static void test_files_cachestat_refused(void **state)
{
	char path[PATH_MAX * 2], want[128];
	char *argv[] = { "files", tree, NULL };
	char *json[] = { "files", "--json", tree, NULL };
	const char *out;

	(void)state;
	if (ua_under_valgrind())
		skip();		/* its mincore counts are not exact (helpers.h) */
	snprintf(path, sizeof(path), "%s/theirs", tree);
	assert_int_equal(ua_cached_file(path, 8, 1), 0);
	upcc_hooks.cachestat = ua_refusing_cachestat;
	ua_cachestat_err = -EPERM;
	assert_int_equal(run(upcc_files_main, argv), UPCC_EXIT_OK);
	out = output();
	snprintf(want, sizeof(want), "%8s %8s  100%%        ?         ?", size_of(8), size_of(8));
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), "total: 1 file, %s cached, ", size_of(8));
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "dirty unknown (cachestat; mincore for 1 file cachestat refused)"));
	assert_int_equal(run(upcc_files_main, json), UPCC_EXIT_OK);
	out = output();
	assert_non_null(strstr(out, "\"cached_pages\":8,"));
	assert_non_null(strstr(out, "\"dirty_unknown_files\":1}"));
	upcc_hooks.cachestat = NULL;
	unlink(path);
}

static void test_files_unmeasurable(void **state)
{
	char path[PATH_MAX * 2];
	char *argv[] = { "files", tree, NULL };
	char *json[] = { "files", "--json", tree, NULL };
	const char *out;

	(void)state;
	snprintf(path, sizeof(path), "%s/unmeasurable", tree);
	assert_int_equal(ua_cached_file(path, 8, 1), 0);
	upcc_hooks.cachestat = ua_refusing_cachestat;
	ua_cachestat_err = -EIO;		/* not a refusal: no fallback */
	assert_int_equal(run(upcc_files_main, argv), UPCC_EXIT_FAILURE);
	out = output();
	assert_non_null(strstr(out, "total: 0 files, "));
	assert_non_null(strstr(out, "upcc files: 1 file could not be measured (Input/output error), "
				    "not counted\n"));
	assert_int_equal(run(upcc_files_main, json), UPCC_EXIT_FAILURE);
	assert_non_null(strstr(output(), "\"errors\":1}}"));
	upcc_hooks.cachestat = NULL;
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_json_escapes_names),
		cmocka_unit_test(test_json_non_utf8_and_bytes),
		cmocka_unit_test(test_top_zero),
		cmocka_unit_test(test_evict_real),
		cmocka_unit_test(test_files_units),
		cmocka_unit_test(test_evict_json),
		cmocka_unit_test(test_files_progress),
		cmocka_unit_test(test_long_path),
		cmocka_unit_test(test_files_cachestat_refused),
		cmocka_unit_test(test_files_unmeasurable),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
