// SPDX-License-Identifier: GPL-2.0
/*
 * atomicfile.c - atomic file writes; see atomicfile.h.
 */
#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t written = write(fd, data, len);

		if (written < 0 && errno == EINTR)
			continue;
		if (written < 0)
			return -errno;
		data += written;
		len -= (size_t)written;
	}
	return 0;
}

/*
 * The temporary file gets a random name, created with O_EXCL (mkostemp):
 * in a directory others may write to, a name they can guess is a name
 * they can take first, with a FIFO (our open would block for ever) or a
 * file of their own (which the rename would then publish as ours).
 */
int upcc_atomic_write(const char *path, const char *data, size_t len)
{
	char temp[PATH_MAX];
	int fd, err;

	if (snprintf(temp, sizeof(temp), "%s.tmp.XXXXXX", path) >= (int)sizeof(temp))
		return -ENAMETOOLONG;
	fd = mkostemp(temp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* mkostemp makes it 0600; the report files are for every reader. */
	err = fchmod(fd, 0644) ? -errno : 0;
	/* No fsync: the files are rewritten every round and after a crash at
	 * the first one, readers refuse a truncated state file, and an fsync
	 * on a busy disk held the loop (and the watchdog's ping) for 300 ms.
	 */
	if (!err)
		err = write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(temp, path))
		err = -errno;
	if (err)
		unlink(temp);
	return err;
}

int upcc_atomic_write_formatted(const char *path, int (*format)(FILE *out, void *ctx),
				void *ctx)
{
	char *data = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&data, &len);
	int err;

	if (!out)
		return -errno;
	err = format(out, ctx);
	if (fclose(out) && !err)
		err = -EIO;
	if (!err)
		err = upcc_atomic_write(path, data, len);
	free(data);
	return err;
}
