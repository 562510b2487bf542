// SPDX-License-Identifier: GPL-2.0
/*
 * test_atomicfile.c - the report files' writer: no symbolic link on the
 * way, no directory another user may change (issue 32, review M3), each
 * rule with the kernel's openat2 and with the walk older kernels get.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/atomicfile.h"
#include "lib/hooks.h"
#include "lib/readtext.h"

/* Someone else: nobody's uid on Debian, and no one's here. */
#define OTHER_UID	65534

struct tree {
	char dir[64];		/* ours, 0700 */
	char path[160];
};

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/upcc-atomic-XXXXXX");
	if (!mkdtemp(t->dir)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;
	char cmd[96];
	int rc;

	upcc_hooks.no_openat2 = 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	rc = system(cmd);
	free(t);
	return rc ? -1 : 0;
}

/* @t->path = DIR/@rel */
static const char *at(struct tree *t, const char *rel)
{
	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, rel);
	return t->path;
}

static void make_dir(struct tree *t, const char *rel, mode_t mode)
{
	assert_int_equal(mkdir(at(t, rel), 0700), 0);
	assert_int_equal(chmod(t->path, mode), 0);	/* whatever the umask */
}

/* Entries in DIR/@rel besides . and .. */
static int entries(struct tree *t, const char *rel)
{
	DIR *d = opendir(at(t, rel));
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int write_file(struct tree *t, const char *rel, unsigned int flags, char *why,
		      size_t why_len)
{
	why[0] = '\0';
	return upcc_atomic_write(at(t, rel), "new\n", 4, flags, why, why_len);
}

static void assert_contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("\"%s\" does not say \"%s\"", text, part);
}

/* Both ways to the directory: the kernel's (5.6+) and the walk. */
static void each_way(void (*check)(struct tree *t, const char *way), struct tree *t)
{
	upcc_hooks.no_openat2 = 0;
	check(t, "openat2");
	upcc_hooks.no_openat2 = 1;
	check(t, "walk");
	upcc_hooks.no_openat2 = 0;
}

static void good_path(struct tree *t, const char *way)
{
	char why[256], name[32], *text;
	struct stat st;

	snprintf(name, sizeof(name), "ok/%s.prom", way);
	assert_int_equal(write_file(t, name, 0, why, sizeof(why)), 0);
	assert_int_equal(upcc_read_text(at(t, name), &text), 0);
	assert_string_equal(text, "new\n");
	free(text);
	assert_int_equal(lstat(t->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	/* Rewritten in place, no temporary left behind. */
	assert_int_equal(write_file(t, name, 0, why, sizeof(why)), 0);
	/* A sticky directory (/tmp) keeps others to their own names. */
	snprintf(name, sizeof(name), "sticky/%s.json", way);
	assert_int_equal(write_file(t, name, 0, why, sizeof(why)), 0);
}

/* Root's or ours, writable by us alone, no link on the way: written. */
static void test_good_path(void **state)
{
	struct tree *t = *state;

	make_dir(t, "ok", 0755);
	make_dir(t, "sticky", 01777);
	each_way(good_path, t);
	assert_int_equal(entries(t, "ok"), 2);
	assert_int_equal(entries(t, "sticky"), 2);
}

static void symlinked(struct tree *t, const char *way)
{
	char why[256], link[96];
	int err;

	(void)way;
	/* The file's directory is the link. */
	err = write_file(t, "pub/upcc/state.json", 0, why, sizeof(why));
	assert_int_equal(err, -ELOOP);
	snprintf(link, sizeof(link), "%s/pub/upcc is a symbolic link", t->dir);
	assert_string_equal(why, link);
	/* A link higher up, with a real directory under it. */
	assert_int_equal(write_file(t, "pub/upcc/sub/state.json", 0, why, sizeof(why)), -ELOOP);
	assert_string_equal(why, link);
	/* The state's directory is made if missing: not behind a link. */
	err = write_file(t, "pub/upcc/new/state.json", UPCC_ATOMIC_MKDIR, why, sizeof(why));
	assert_int_equal(err, -ELOOP);
	assert_string_equal(why, link);
}

/* Review M3: a link in a parent redirected state.json into another directory. */
static void test_symlinked_component(void **state)
{
	struct tree *t = *state;
	char victim[sizeof(t->path)];

	make_dir(t, "pub", 01777);
	make_dir(t, "victim", 0755);
	make_dir(t, "victim/sub", 0755);
	snprintf(victim, sizeof(victim), "%s", at(t, "victim"));
	assert_int_equal(symlink(victim, at(t, "pub/upcc")), 0);
	each_way(symlinked, t);
	assert_int_equal(entries(t, "victim"), 1);	/* sub, nothing written */
	assert_int_equal(entries(t, "victim/sub"), 0);
}

static void other_owner(struct tree *t, const char *way)
{
	char why[256], expected[160], *text;

	(void)way;
	assert_int_equal(write_file(t, "theirs/m.prom", 0, why, sizeof(why)), -EPERM);
	snprintf(expected, sizeof(expected), "directory %s/theirs is owned by uid %d",
		 t->dir, OTHER_UID);
	assert_contains(why, expected);
	/* What was there stays. */
	assert_int_equal(upcc_read_text(at(t, "theirs/m.prom"), &text), 0);
	assert_string_equal(text, "old\n");
	free(text);
}

/* Review M3: a metrics directory of nobody's: they could swap the file. */
static void test_other_user_owned_dir(void **state)
{
	struct tree *t = *state;
	FILE *f;

	if (geteuid())
		skip();		/* giving a directory away needs root */
	make_dir(t, "theirs", 0755);
	f = fopen(at(t, "theirs/m.prom"), "w");
	assert_non_null(f);
	fputs("old\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chown(at(t, "theirs"), OTHER_UID, OTHER_UID), 0);
	each_way(other_owner, t);
	assert_int_equal(entries(t, "theirs"), 1);
	/* Their sticky directory is still theirs: they may remove anything in it. */
	assert_int_equal(chmod(at(t, "theirs"), 01777), 0);
	each_way(other_owner, t);
	assert_int_equal(entries(t, "theirs"), 1);
}

static void writable(struct tree *t, const char *way)
{
	static const struct {
		const char *dir, *says;
	} cases[] = {
		{ "group", "is writable by its group (mode 0775) without the sticky bit" },
		{ "others", "is writable by others (mode 0757) without the sticky bit" },
		{ "all", "is writable by its group and others (mode 0777) without the sticky bit" },
	};
	char why[256], rel[32], expected[160];

	(void)way;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/state.json", cases[i].dir);
		assert_int_equal(write_file(t, rel, UPCC_ATOMIC_MKDIR, why, sizeof(why)), -EPERM);
		snprintf(expected, sizeof(expected), "directory %s/%s %s", t->dir, cases[i].dir,
			 cases[i].says);
		assert_string_equal(why, expected);
		assert_int_equal(entries(t, cases[i].dir), 0);
	}
}

/* Anyone in the group, or anyone at all, could rename the file away. */
static void test_group_writable_dir(void **state)
{
	struct tree *t = *state;

	make_dir(t, "group", 0775);
	make_dir(t, "others", 0757);
	make_dir(t, "all", 0777);
	each_way(writable, t);
}

static void made(struct tree *t, const char *way)
{
	char why[256], rel[32];
	struct stat st;

	snprintf(rel, sizeof(rel), "run-%s/state.json", way);
	/* Only when asked: metrics go where node_exporter made its directory. */
	assert_int_equal(write_file(t, rel, 0, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, strerror(ENOENT));
	assert_int_equal(write_file(t, rel, UPCC_ATOMIC_MKDIR, why, sizeof(why)), 0);
	snprintf(rel, sizeof(rel), "run-%s", way);
	assert_int_equal(stat(at(t, rel), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(st.st_uid, geteuid());
}

/* /run/upcc on a fresh tmpfs: made, 0755, ours. */
static void test_makes_missing_dir(void **state)
{
	struct tree *t = *state;
	mode_t mask = umask(0);

	umask(mask | 0022);
	each_way(made, t);
	umask(mask);
}

/* Paths the rules still take as before: relative, at the root of a walk. */
static void test_names(void **state)
{
	struct tree *t = *state;
	char why[256], cwd[256];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(t->dir), 0);
	assert_int_equal(upcc_atomic_write("here.json", "x", 1, 0, why, sizeof(why)), 0);
	upcc_hooks.no_openat2 = 1;
	assert_int_equal(upcc_atomic_write("./there.json", "x", 1, 0, why, sizeof(why)), 0);
	upcc_hooks.no_openat2 = 0;
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(entries(t, "."), 2);
	/* A directory is not a file name. */
	assert_int_equal(write_file(t, "", 0, why, sizeof(why)), -EISDIR);
	assert_int_equal(write_file(t, "..", 0, why, sizeof(why)), -EISDIR);
	/* NULL why: the error alone. */
	assert_int_equal(upcc_atomic_write(at(t, "none/x"), "x", 1, 0, NULL, 0), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_path, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_symlinked_component, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_other_user_owned_dir, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_group_writable_dir, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_makes_missing_dir, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_names, tree_setup, tree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
