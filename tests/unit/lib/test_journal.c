// SPDX-License-Identifier: GPL-2.0
/*
 * test_journal.c - journald's native protocol by hand (issue 31 item 7):
 * the datagram's fields, a value with a newline in the length-prefixed
 * form, and upcc_log_fields sending entries to a socket of the test's
 * (upcc_hooks.journal_socket: never the host's journald) when stderr is
 * the stream $JOURNAL_STREAM names, and falling back to "<N>" lines on
 * stderr when the socket is away.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "unit.h"
#include "lib/hooks.h"
#include "lib/journal.h"
#include "lib/log.h"
#include "lib/readtext.h"

static char dir[] = "/tmp/upcc-journal-XXXXXX";
static char socket_path[96];

static int listen_journal(void)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memcpy(address.sun_path, socket_path, strlen(socket_path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&address, sizeof(address)), 0);
	return fd;
}

static void test_format_fields(void **state)
{
	const struct upcc_journal_field fields[] = {
		{ "SCOPE", "path:/srv" },
		{ "RECLAIMED_BYTES", "1048576" },
		{ "_PID", "1" },		/* journald's own: left out */
		{ "bad name", "x" },		/* not a field name: left out */
		{ "UNSET", NULL },
		{ NULL, NULL },
	};
	char buf[512];
	long len;

	(void)state;
	len = upcc_journal_format(buf, sizeof(buf), LOG_INFO, "upcd", "scope path:/srv: 1.0Mi",
				  fields);
	assert_true(len > 0);
	buf[len] = '\0';
	assert_string_equal(buf, "PRIORITY=6\nSYSLOG_IDENTIFIER=upcd\n"
			    "MESSAGE=scope path:/srv: 1.0Mi\nSCOPE=path:/srv\n"
			    "RECLAIMED_BYTES=1048576\n");
	assert_int_equal(upcc_journal_format(buf, 20, LOG_INFO, "upcd", "long enough", fields),
			 -ENOBUFS);
}

/* A value with a newline: NAME, '\n', its length (64-bit LE), value, '\n'. */
static void test_format_newline(void **state)
{
	const struct upcc_journal_field fields[] = { { "CHANGED", "a\nb" }, { NULL, NULL } };
	static const char want_tail[] = "CHANGED\n\3\0\0\0\0\0\0\0a\nb\n";
	char buf[256];
	long len;

	(void)state;
	len = upcc_journal_format(buf, sizeof(buf), LOG_NOTICE, "upcd", "m", fields);
	assert_true(len > (long)sizeof(want_tail) - 1);
	assert_memory_equal(buf + len - (long)(sizeof(want_tail) - 1), want_tail,
			    sizeof(want_tail) - 1);
}

/* Point stderr at a file and $JOURNAL_STREAM at it; returns the old stderr. */
static int stderr_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved = dup(STDERR_FILENO);
	char stream[64];
	struct stat st;

	assert_true(fd >= 0 && saved >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	snprintf(stream, sizeof(stream), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", stream, 1);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	close(fd);
	return saved;
}

static void stderr_back(int saved)
{
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	unsetenv("JOURNAL_STREAM");
}

static void test_log_fields_to_journal(void **state)
{
	const struct upcc_journal_field fields[] = {
		{ "SCOPE", "data" }, { "BACKEND", "fadvise" }, { NULL, NULL },
	};
	char err_path[160], got[1024], *text = NULL;
	int listener, saved;
	ssize_t len;

	(void)state;
	listener = listen_journal();
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	saved = stderr_to(err_path);
	upcc_log_init("upcd", false);
	upcc_log_fields(LOG_INFO, fields, "scope %s: reclaimed %s", "data", "1.0Mi");
	upcc_log_fields(LOG_DEBUG, fields, "hidden");	/* not verbose */
	stderr_back(saved);
	assert_true(upcc_log_to_journal());
	len = recv(listener, got, sizeof(got) - 1, MSG_DONTWAIT);
	assert_true(len > 0);
	got[len] = '\0';
	assert_string_equal(got, "PRIORITY=6\nSYSLOG_IDENTIFIER=upcd\n"
			    "MESSAGE=scope data: reclaimed 1.0Mi\nSCOPE=data\nBACKEND=fadvise\n");
	assert_true(recv(listener, got, sizeof(got), MSG_DONTWAIT) < 0);
	/* Sent to the journal: not a second time on the stream. */
	assert_int_equal(upcc_read_text(err_path, &text), 0);
	assert_string_equal(text, "");
	free(text);
	close(listener);
	unlink(socket_path);
}

/* journald away (its socket gone): the line is not lost, it is a "<N>" line. */
static void test_log_falls_back_to_stderr(void **state)
{
	char err_path[160], *text = NULL;
	int saved;

	(void)state;
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	saved = stderr_to(err_path);
	upcc_log_init("upcd", false);
	upcc_log(LOG_WARNING, "no journal");
	stderr_back(saved);
	assert_int_equal(upcc_read_text(err_path, &text), 0);
	assert_string_equal(text, "<4>no journal\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_fields),
		cmocka_unit_test(test_format_newline),
		cmocka_unit_test(test_log_fields_to_journal),
		cmocka_unit_test(test_log_falls_back_to_stderr),
	};
	char err_path[160];
	int rc;

	assert_non_null(mkdtemp(dir));
	snprintf(socket_path, sizeof(socket_path), "%s/journal.socket", dir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	upcc_hooks.journal_socket = socket_path;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(socket_path);
	unlink(err_path);
	rmdir(dir);
	return rc;
}
