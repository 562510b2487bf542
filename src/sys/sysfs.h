/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs.h - the root every /proc and /sys path is read or written under;
 * a write logged for tests.
 *
 * The measures read the kernel's accounting files, the global backends and
 * compaction write its knobs; the tests must point both at fakes without
 * touching the host, so every such path is built here, under a root that
 * is "" on a live system.
 */
#ifndef UPCC_SYSFS_H
#define UPCC_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Build "<root><path>" into @buf; -ENAMETOOLONG if it does not fit.  The
 * root is "" on a real system.  Tests set upcc_hooks.root (lib/hooks.h) to
 * a fixture or a fake tree in a temp dir, so that samples come from known
 * files and write sequences are checked without touching the kernel.  One
 * root for all: a test that fakes /sys for a backend also fakes the
 * /proc/meminfo and /proc/PID/maps the same code path reads.  Paths of the
 * process itself (/proc/self/fd, /proc/self/stat) and the mount table
 * (upcc_hooks.mountinfo) are not under it.
 */
int upcc_sysfs_path(char *buf, size_t len, const char *path);

/* Write @value to the file at @path (no O_CREAT: sysfs files exist or the
 * kernel lacks them).  Appends "path value" to upcc_hooks.backend_log if
 * set, so tests see the sequence.  0 or -errno (the kernel's error from write).
 */
int upcc_sysfs_write(const char *path, const char *value);

/* Read a small file's first line, newline stripped.  0 or -errno. */
int upcc_sysfs_read_line(const char *path, char *buf, size_t len);

/* Kernel release as "major.minor" >= (@major, @minor)?  uname, or
 * upcc_hooks.kernel_release in tests.
 */
bool upcc_kernel_at_least(unsigned int major, unsigned int minor);

#endif /* UPCC_SYSFS_H */
