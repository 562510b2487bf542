// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - /proc and /sys paths under the tests' root, logged writes,
 * the kernel release; see sysfs.h.
 */
#include "sysfs.h"
#include "lib/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Nothing outside needs the root alone: every path is built here. */
static const char *root(void)
{
	return upcc_hooks.root ? upcc_hooks.root : "";
}

int upcc_sysfs_path(char *buf, size_t len, const char *path)
{
	int n = snprintf(buf, len, "%s%s", root(), path);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The log names the path without the root: a test's expected lines then
 * read as the live system's paths, whatever temp dir it runs in.
 */
static void log_write(const char *path, const char *value)
{
	const char *log_path = upcc_hooks.backend_log;
	FILE *log;

	if (!log_path)
		return;
	log = fopen(log_path, "ae");
	if (!log)
		return;
	fprintf(log, "%s %s\n", path + strlen(root()), value);
	fclose(log);
}

int upcc_sysfs_write(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t written;
	int fd, err = 0;

	log_write(path, value);
	if (upcc_hooks.sysfs_fault && (err = upcc_hooks.sysfs_fault(path, value, true)))
		return err;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* One write: sysfs and cgroupfs parse what a single write(2) gives them. */
	written = write(fd, value, len);
	if (written < 0)
		err = -errno;
	else if ((size_t)written != len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

int upcc_sysfs_read_line(const char *path, char *buf, size_t len)
{
	int err = upcc_hooks.sysfs_fault ? upcc_hooks.sysfs_fault(path, NULL, false) : 0;
	FILE *f = err ? NULL : fopen(path, "re");

	if (err)
		return err;
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		err = ferror(f) ? -EIO : -ENODATA;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return err;
}

bool upcc_kernel_at_least(unsigned int major, unsigned int minor)
{
	const char *release = upcc_hooks.kernel_release;
	struct utsname uts;
	unsigned int have_major = 0, have_minor = 0;

	if (!release) {
		if (uname(&uts) < 0)
			return false;
		release = uts.release;
	}
	if (sscanf(release, "%u.%u", &have_major, &have_minor) != 2)
		return false;
	return have_major > major || (have_major == major && have_minor >= minor);
}
