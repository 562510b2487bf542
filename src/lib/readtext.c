// SPDX-License-Identifier: GPL-2.0
/*
 * readtext.c - read a small regular file whole; see readtext.h.
 */
#include "readtext.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_TEXT_LIMIT	(1u << 20)

/*
 * Open @path for reading only if it is a regular file.  An O_PATH open
 * runs no driver's or FIFO's open; the inode it names is then reopened
 * through /proc/self/fd, so nothing can be swapped in between.  Without
 * /proc, the name is opened non-blocking and must still be that inode.
 * (/proc, sysfs and cgroup files are regular files.)
 */
static int open_regular_file(const char *path)
{
	struct stat seen, opened;
	char proc_path[64];
	int path_fd, fd, err;

	path_fd = open(path, O_PATH | O_CLOEXEC);
	if (path_fd < 0)
		return -errno;
	if (fstat(path_fd, &seen) < 0) {
		err = -errno;
		close(path_fd);
		return err;
	}
	if (!S_ISREG(seen.st_mode)) {
		close(path_fd);
		return S_ISDIR(seen.st_mode) ? -EISDIR : -EINVAL;
	}
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", path_fd);
	fd = open(proc_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	close(path_fd);
	if (err)
		return err;
	if (fstat(fd, &opened) < 0 || !S_ISREG(opened.st_mode) ||
	    opened.st_dev != seen.st_dev || opened.st_ino != seen.st_ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int upcc_read_file(const char *path, char **data, size_t *len)
{
	size_t used = 0, capacity = 8192;
	char *buffer;
	int fd;

	fd = open_regular_file(path);
	if (fd < 0)
		return fd;
	buffer = malloc(capacity);
	if (!buffer) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t got;

		if (capacity - used < 2) {
			char *bigger;

			if (capacity >= READ_TEXT_LIMIT) {
				free(buffer);
				close(fd);
				return -EFBIG;
			}
			bigger = realloc(buffer, capacity * 2);
			if (!bigger) {
				free(buffer);
				close(fd);
				return -ENOMEM;
			}
			buffer = bigger;
			capacity *= 2;
		}
		got = read(fd, buffer + used, capacity - used - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = -errno;

			free(buffer);
			close(fd);
			return err;
		}
		if (got == 0)
			break;
		used += (size_t)got;
	}
	close(fd);
	buffer[used] = '\0';
	*data = buffer;
	*len = used;
	return 0;
}

int upcc_read_text(const char *path, char **text)
{
	size_t len;
	int err = upcc_read_file(path, text, &len);

	if (err)
		return err;
	if (memchr(*text, '\0', len)) {
		free(*text);	/* binary junk: not an accounting file */
		*text = NULL;
		return -EINVAL;
	}
	return 0;
}
