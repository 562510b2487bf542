// SPDX-License-Identifier: GPL-2.0
/* test_lockfile.c - an exclusive lock on a file of our own (issue 31, L1). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "lib/lockfile.h"
#include "lib/readtext.h"

static char dir[] = "/tmp/upcc-lock-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char command[64];

	(void)state;
	snprintf(command, sizeof(command), "rm -rf %s", dir);
	return system(command);
}

static void path_in(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", dir, name);
}

/* The pid the holder wrote in the file, as text. */
static long pid_in_file(const char *path)
{
	char *text;
	long pid;

	assert_int_equal(upcc_read_text(path, &text), 0);
	pid = strtol(text, NULL, 10);
	free(text);
	return pid;
}

static void test_one_holder(void **state)
{
	char path[128];
	char why[PATH_MAX + 128];
	long holder;
	int fd, again, other;
	pid_t child;

	(void)state;
	path_in(path, sizeof(path), "state.json.lock");
	fd = upcc_lockfile_take(path, &holder, why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(pid_in_file(path), (long)getpid());
	/* A second taker is refused and told who holds it. */
	assert_int_equal(upcc_lockfile_take(path, &holder, why, sizeof(why)), -EAGAIN);
	assert_int_equal(holder, (long)getpid());
	/* Another process too. */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		long h;

		_exit(upcc_lockfile_take(path, &h, why, sizeof(why)) == -EAGAIN && h == (long)getppid() ? 0 : 1);
	}
	assert_int_equal(waitpid(child, &again, 0), child);
	assert_true(WIFEXITED(again) && WEXITSTATUS(again) == 0);
	/* Any other descriptor of the file opened and closed (a walk of a
	 * path scope over the state's directory does it) leaves the lock:
	 * a classic POSIX lock would be gone now.
	 */
	other = open(path, O_RDONLY);
	assert_true(other >= 0);
	close(other);
	assert_int_equal(upcc_lockfile_take(path, &holder, why, sizeof(why)), -EAGAIN);
	/* Released, the next one takes it; the file stays. */
	upcc_lockfile_release(fd);
	fd = upcc_lockfile_take(path, &holder, why, sizeof(why));
	assert_true(fd >= 0);
	upcc_lockfile_release(fd);
	assert_int_equal(access(path, F_OK), 0);
}

/* A symbolic link at the name is never followed; its target is untouched. */
static void test_symlink_refused(void **state)
{
	char path[128], target[128], *text;
	char why[PATH_MAX + 128];
	long holder;
	int fd;

	(void)state;
	path_in(target, sizeof(target), "victim");
	path_in(path, sizeof(path), "link.lock");
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep\n", 5), 5);
	close(fd);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(upcc_lockfile_take(path, &holder, why, sizeof(why)), -ELOOP);
	assert_int_equal(upcc_read_text(target, &text), 0);
	assert_string_equal(text, "keep\n");
	free(text);
	/* A dangling one is not followed into a new file either. */
	assert_int_equal(unlink(target), 0);
	assert_int_equal(upcc_lockfile_take(path, &holder, why, sizeof(why)), -ELOOP);
	assert_int_equal(access(target, F_OK), -1);
}

/* Names another user could have planted or could swap. */
static void test_unsafe_names(void **state)
{
	char path[256], sub[128], other[128];
	char why[PATH_MAX + 128];
	long holder;
	int fd;

	(void)state;
	/* A FIFO: refused, without hanging in the open. */
	path_in(path, sizeof(path), "fifo.lock");
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(upcc_lockfile_take(path, &holder, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "not a regular file");
	/* A hard link to a file elsewhere. */
	path_in(other, sizeof(other), "elsewhere");
	path_in(path, sizeof(path), "hard.lock");
	fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(link(other, path), 0);
	assert_int_equal(upcc_lockfile_take(path, &holder, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "a file with other hard links");
	/* A directory anyone may write to, not sticky: nothing is made there. */
	path_in(sub, sizeof(sub), "open");
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(chmod(sub, 0777), 0);
	snprintf(path, sizeof(path), "%s/state.json.lock", sub);
	assert_int_equal(upcc_lockfile_take(path, &holder, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is writable by its group and others (mode 0777)"));
	assert_int_equal(access(path, F_OK), -1);
	/* Sticky, as /tmp: our own file there is fine. */
	assert_int_equal(chmod(sub, 01777), 0);
	fd = upcc_lockfile_take(path, &holder, why, sizeof(why));
	assert_true(fd >= 0);
	upcc_lockfile_release(fd);
	if (geteuid() != 0)
		return;		/* the rest needs another user's files */
	/* A file another user made first (in a sticky directory they can). */
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(upcc_lockfile_take(path, &holder, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "another user's file");
	/* A directory that belongs to another user. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(chmod(sub, 0755), 0);
	assert_int_equal(chown(sub, 65534, 65534), 0);
	assert_int_equal(upcc_lockfile_take(path, &holder, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is owned by uid 65534"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_holder),
		cmocka_unit_test(test_symlink_refused),
		cmocka_unit_test(test_unsafe_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
