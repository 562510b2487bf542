// SPDX-License-Identifier: GPL-2.0
/*
 * lockfile.c - an exclusive lock on a file of our own; see lockfile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "lockfile.h"

static const char *file_unsafe(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return "cannot be examined";
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (st.st_uid != geteuid())
		return "another user's file";
	if (st.st_nlink != 1)
		return "a file with other hard links";
	return NULL;
}

/*
 * Open @path's file, checked: its directory as every file upcd writes
 * (atomicfile.h: no symbolic link on the way, no other user may change
 * it; made if missing), the name never followed.  -errno with @why set.
 */
static int open_checked(const char *path, char *why, size_t why_len)
{
	const char *name, *unsafe;
	int dir_fd, fd;

	dir_fd = upcc_atomic_open_parent(path, UPCC_ATOMIC_MKDIR, &name, why, why_len);
	if (dir_fd < 0)
		return dir_fd;
	/* O_NONBLOCK: a FIFO planted at the name must not hang the open. */
	fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC, 0644);
	if (fd < 0)
		fd = -errno;
	close(dir_fd);
	if (fd < 0) {
		snprintf(why, why_len, "%s", fd == -ELOOP ? "a symbolic link, not followed" :
			 strerror(-fd));
		return fd;
	}
	unsafe = file_unsafe(fd);
	if (unsafe) {
		snprintf(why, why_len, "%s", unsafe);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The pid the holder wrote; 0 if none yet (it has the lock, not yet written). */
static long read_holder(int fd)
{
	char text[32];
	ssize_t len = pread(fd, text, sizeof(text) - 1, 0);
	char *end;
	long pid;

	if (len <= 0)
		return 0;
	text[len] = '\0';
	pid = strtol(text, &end, 10);
	return end != text && *end == '\n' && pid > 0 ? pid : 0;
}

/*
 * Ours now: the file holds our pid alone.  It is a regular file of ours
 * with no other link (file_unsafe), so the write lands nowhere else.  For
 * a message only: a full filesystem costs the pid, not the lock.
 */
static bool write_pid(int fd)
{
	char text[32];
	int len = snprintf(text, sizeof(text), "%ld\n", (long)getpid());

	return ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)len, 0) == len;
}

int upcc_lockfile_take(const char *path, long *holder, char *why, size_t why_len)
{
	struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd, err;

	*holder = 0;
	why[0] = '\0';
	fd = open_checked(path, why, why_len);
	if (fd < 0)
		return fd;
	if (fcntl(fd, F_OFD_SETLK, &lock) == 0) {
		write_pid(fd);	/* unwritten, the next one refused reads 0 */
		return fd;
	}
	err = errno == EAGAIN || errno == EACCES ? -EAGAIN : -errno;
	if (err == -EAGAIN)
		*holder = read_holder(fd);
	close(fd);
	return err;
}

void upcc_lockfile_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
