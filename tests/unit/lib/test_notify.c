// SPDX-License-Identifier: GPL-2.0
/* test_notify.c - sd_notify by hand (path and abstract sockets, watchdog env) and log prefixes. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "unit.h"
#include "lib/hooks.h"
#include "lib/log.h"
#include "lib/notify.h"
#include "lib/readtext.h"

/* Bind a datagram socket at @name ("/path" or "@abstract"). */
static int listen_at(const char *name)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memcpy(address.sun_path, name, len);
	if (name[0] == '@')
		address.sun_path[0] = '\0';
	assert_int_equal(bind(fd, (struct sockaddr *)&address,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)), 0);
	return fd;
}

static void expect_message(int fd, const char *want)
{
	char got[512];
	ssize_t len = recv(fd, got, sizeof(got) - 1, MSG_DONTWAIT);

	assert_true(len >= 0);
	got[len] = '\0';
	assert_string_equal(got, want);
}

static void test_path_socket(void **state)
{
	char dir[] = "/tmp/upcc-notify-XXXXXX", path[64];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = listen_at(path);
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(upcc_notify("READY=1"), 0);
	expect_message(fd, "READY=1");
	assert_int_equal(upcc_notify_status("controlling %d scope(s)", 2), 0);
	expect_message(fd, "STATUS=controlling 2 scope(s)");
	close(fd);
	unlink(path);
	/* Nobody listening any more: an error, not a crash or a hang. */
	assert_true(upcc_notify("WATCHDOG=1") < 0);
	rmdir(dir);
	unsetenv("NOTIFY_SOCKET");
}

static void test_abstract_socket(void **state)
{
	char name[64];
	int fd;

	(void)state;
	snprintf(name, sizeof(name), "@upcc-test-%ld", (long)getpid());
	fd = listen_at(name);
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(upcc_notify("STOPPING=1"), 0);
	expect_message(fd, "STOPPING=1");
	close(fd);
	unsetenv("NOTIFY_SOCKET");
}

static void test_not_under_systemd(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(upcc_notify("READY=1"), 1);
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	assert_int_equal(upcc_notify("READY=1"), -EINVAL);
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(upcc_notify("READY=1"), -EINVAL);
	unsetenv("NOTIFY_SOCKET");
}

static void test_watchdog_env(void **state)
{
	char pid[32];

	(void)state;
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	assert_true(upcc_notify_watchdog_usec() == 0);
	setenv("WATCHDOG_USEC", "30000000", 1);
	assert_true(upcc_notify_watchdog_usec() == 30000000);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_true(upcc_notify_watchdog_usec() == 30000000);
	setenv("WATCHDOG_PID", "1", 1);	/* another process's watchdog */
	assert_true(upcc_notify_watchdog_usec() == 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "30s", 1);
	assert_true(upcc_notify_watchdog_usec() == 0);
	unsetenv("WATCHDOG_USEC");
}

/* $JOURNAL_STREAM's "DEV:INODE" for @fd. */
static const char *stream_of(int fd, char *buf, size_t size)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	snprintf(buf, size, "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	return buf;
}

/* Run upcc_log with stderr sent to a file; return what it wrote. */
static char *capture_log(const char *name, bool journal, bool verbose, int priority,
			 const char *message)
{
	char path[] = "/tmp/upcc-log-XXXXXX", *text = NULL;
	int saved = dup(STDERR_FILENO), fd = mkstemp(path);

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	/* journald's stream is the file stderr is; its socket is not there,
	 * so each line falls back to stderr with its priority (test_journal.c
	 * has the entries themselves).
	 */
	if (journal)
		setenv("JOURNAL_STREAM", stream_of(fd, (char[64]){ 0 }, 64), 1);
	else
		unsetenv("JOURNAL_STREAM");
	upcc_hooks.journal_socket = "/nonexistent/upcc-test-journal";
	upcc_log_init(name, verbose);
	upcc_log(priority, "%s", message);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	assert_int_equal(upcc_read_text(path, &text), 0);
	unlink(path);
	unsetenv("JOURNAL_STREAM");
	return text;
}

static void test_log_prefix(void **state)
{
	char *text;

	(void)state;
	text = capture_log("upcd", true, false, LOG_INFO, "scope system: idle");
	assert_string_equal(text, "<6>scope system: idle\n");
	free(text);
	text = capture_log("upcd", false, false, LOG_ERR, "cannot measure");
	assert_string_equal(text, "upcd: cannot measure\n");
	free(text);
	text = capture_log("upcd", true, false, LOG_DEBUG, "hidden");
	assert_string_equal(text, "");
	free(text);
	text = capture_log("upcd", true, true, LOG_DEBUG, "shown");
	assert_string_equal(text, "<7>shown\n");
	free(text);
}

/* A unit whose stderr was sent elsewhere (ExecStart=/bin/sh -c '... 2>FILE')
 * keeps $JOURNAL_STREAM: a stream that is not our stderr is not the
 * journal's, and the line is a plain one (it was "<6>..." before issue 31).
 */
static void test_log_stream_not_stderr(void **state)
{
	char *text;

	(void)state;
	setenv("JOURNAL_STREAM", "8:1234", 1);
	upcc_log_init("upcd", false);
	assert_false(upcc_log_to_journal());
	unsetenv("JOURNAL_STREAM");
	text = capture_log("upcd", false, false, LOG_INFO, "scope system: idle");
	assert_string_equal(text, "upcd: scope system: idle\n");
	free(text);
}

/* Both programs link log.c: each line names the one that wrote it. */
static void test_log_program_name(void **state)
{
	char *text;

	(void)state;
	text = capture_log("upcc", false, false, LOG_WARNING, "cannot read");
	assert_string_equal(text, "upcc: cannot read\n");
	free(text);
	text = capture_log("upcd", false, false, LOG_WARNING, "cannot read");
	assert_string_equal(text, "upcd: cannot read\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_socket),
		cmocka_unit_test(test_abstract_socket),
		cmocka_unit_test(test_not_under_systemd),
		cmocka_unit_test(test_watchdog_env),
		cmocka_unit_test(test_log_prefix),
		cmocka_unit_test(test_log_program_name),
		cmocka_unit_test(test_log_stream_not_stderr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
