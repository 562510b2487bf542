// SPDX-License-Identifier: GPL-2.0
/*
 * notify.c - sd_notify without libsystemd; see notify.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"

/* $NOTIFY_SOCKET: a path, or "@name" for the abstract namespace. */
static int notify_address(const char *name, struct sockaddr_un *address, socklen_t *length)
{
	size_t name_len = strlen(name);

	if (name_len == 0 || name_len >= sizeof(address->sun_path) ||
	    (name[0] != '/' && name[0] != '@'))
		return -EINVAL;
	memset(address, 0, sizeof(*address));
	address->sun_family = AF_UNIX;
	memcpy(address->sun_path, name, name_len);
	if (name[0] == '@')
		address->sun_path[0] = '\0';
	*length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + name_len);
	return 0;
}

int upcc_notify(const char *state)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un address;
	socklen_t length;
	ssize_t sent;
	int fd, err;

	if (!name)
		return 1;
	err = notify_address(name, &address, &length);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		      (const struct sockaddr *)&address, length);
	err = sent < 0 ? -errno : 0;
	close(fd);
	return err;
}

int upcc_notify_status(const char *format, ...)
{
	char message[512];
	va_list args;
	int len = snprintf(message, sizeof(message), "STATUS=");

	va_start(args, format);
	vsnprintf(message + len, sizeof(message) - (size_t)len, format, args);
	va_end(args);
	return upcc_notify(message);
}

uint64_t upcc_notify_watchdog_usec(void)
{
	const char *usec_text = getenv("WATCHDOG_USEC");
	const char *pid_text = getenv("WATCHDOG_PID");
	unsigned long long usec;
	char *end;

	if (!usec_text)
		return 0;
	if (pid_text && strtol(pid_text, NULL, 10) != (long)getpid())
		return 0;	/* meant for another process of the unit */
	errno = 0;
	usec = strtoull(usec_text, &end, 10);
	if (errno || *end || end == usec_text)
		return 0;
	return usec;
}
