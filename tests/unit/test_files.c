// SPDX-License-Identifier: GPL-2.0
/*
 * test_files.c - `upcc files` / `upcc evict` as functions: exit codes for
 * bad usage (nothing done), JSON escaping of hostile file names, and evict
 * on real files.
 */
#include "hooks.h"
#include "ua_helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "files.h"
#include "residency.h"

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
	assert_non_null(strstr(output(), "dropped 16 of 16 pages"));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(upcc_residency_fd(fd, &st, &res), 0);
	close(fd);
	assert_int_equal(res.cached_pages, 0);
	assert_int_equal(run(upcc_evict_main, missing), UPCC_EXIT_FAILURE);
	assert_non_null(strstr(output(), "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_json_escapes_names),
		cmocka_unit_test(test_top_zero),
		cmocka_unit_test(test_evict_real),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
