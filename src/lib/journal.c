// SPDX-License-Identifier: GPL-2.0
/*
 * journal.c - journald's native protocol without libsystemd; see journal.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hooks.h"
#include "journal.h"

bool upcc_journal_stream_is_stderr(void)
{
	const char *stream = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	if (!stream || sscanf(stream, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st))
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* journald drops a field whose name it would not store: say so here. */
static bool name_valid(const char *name)
{
	if (!name[0] || name[0] == '_' || strlen(name) > 64)
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return !(name[0] >= '0' && name[0] <= '9');
}

/* Append @len bytes; false once the buffer is full. */
static bool put(char *buf, size_t size, size_t *at, const void *data, size_t len)
{
	if (len > size - *at)
		return false;
	memcpy(buf + *at, data, len);
	*at += len;
	return true;
}

/* One field, as text or, when the value has a newline, with its length. */
static bool put_field(char *buf, size_t size, size_t *at, const char *name, const char *value)
{
	size_t name_len = strlen(name), value_len = strlen(value);
	unsigned char len_le[8];

	if (!memchr(value, '\n', value_len))
		return put(buf, size, at, name, name_len) && put(buf, size, at, "=", 1) &&
		       put(buf, size, at, value, value_len) && put(buf, size, at, "\n", 1);
	for (int i = 0; i < 8; i++)
		len_le[i] = (unsigned char)((uint64_t)value_len >> (8 * i));
	return put(buf, size, at, name, name_len) && put(buf, size, at, "\n", 1) &&
	       put(buf, size, at, len_le, sizeof(len_le)) &&
	       put(buf, size, at, value, value_len) && put(buf, size, at, "\n", 1);
}

long upcc_journal_format(char *buf, size_t size, int priority, const char *identifier,
			 const char *message, const struct upcc_journal_field *fields)
{
	char level[4];
	size_t at = 0;

	snprintf(level, sizeof(level), "%d", priority & 7);
	if (!put_field(buf, size, &at, "PRIORITY", level) ||
	    !put_field(buf, size, &at, "SYSLOG_IDENTIFIER", identifier) ||
	    !put_field(buf, size, &at, "MESSAGE", message))
		return -ENOBUFS;
	for (; fields && fields->name; fields++) {
		if (!fields->value || !name_valid(fields->name))
			continue;
		if (!put_field(buf, size, &at, fields->name, fields->value))
			return -ENOBUFS;
	}
	return (long)at;
}

/*
 * One socket for the process's life, opened at the first entry: a line
 * costs a sendto, not a socket and a close.  CLOEXEC: a child never
 * inherits it.
 */
static int journal_fd = -1;

int upcc_journal_send(int priority, const char *identifier, const char *message,
		      const struct upcc_journal_field *fields)
{
	const char *path = upcc_hooks.journal_socket ? upcc_hooks.journal_socket :
			   UPCC_JOURNAL_SOCKET;
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	char datagram[UPCC_JOURNAL_MAX];
	long len;

	if (strlen(path) >= sizeof(address.sun_path))
		return -ENAMETOOLONG;
	memcpy(address.sun_path, path, strlen(path));
	len = upcc_journal_format(datagram, sizeof(datagram), priority, identifier, message,
				  fields);
	if (len < 0)
		return (int)len;
	if (journal_fd < 0)
		journal_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (journal_fd < 0)
		return -errno;
	if (sendto(journal_fd, datagram, (size_t)len, MSG_NOSIGNAL,
		   (const struct sockaddr *)&address, sizeof(address)) < 0)
		return -errno;
	return 0;
}
