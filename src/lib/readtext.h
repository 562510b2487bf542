/* SPDX-License-Identifier: GPL-2.0 */
/*
 * readtext.h - the generic reader of small text files (/proc, sysfs,
 * cgroup files, the config, the state file).
 */
#ifndef UPCC_READTEXT_H
#define UPCC_READTEXT_H

#include <stddef.h>

/*
 * Read a whole (small, pseudo) file into a NUL-terminated heap buffer.
 * 0 and *text set (caller frees), or a negative errno.  Files above 1 MiB
 * are refused: no accounting file is that big, so it is not one.  Only a
 * regular file is opened (never a FIFO, which would block, or a device):
 * -EISDIR for a directory, -EINVAL for anything else.
 */
int upcc_read_text(const char *path, char **text);

/*
 * The same read, the bytes as they are: a NUL inside is kept, and *len
 * says how many there are (a NUL follows them).  For a reader that tells
 * where a NUL is rather than "Invalid argument" (the config, by line).
 */
int upcc_read_file(const char *path, char **data, size_t *len);

#endif /* UPCC_READTEXT_H */
