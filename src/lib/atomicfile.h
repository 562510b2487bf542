/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atomicfile.h - the one way upcd writes a file (state, metrics): whole or not
 * at all, and never through a name another user could have taken first.
 */
#ifndef UPCC_ATOMICFILE_H
#define UPCC_ATOMICFILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write @data to @path so that a reader sees the old file or the whole new
 * one, never a part: a temporary file in the same directory, then rename.
 * Not fsynced: the report files are rewritten every round (atomicfile.c).
 */
int upcc_atomic_write(const char *path, const char *data, size_t len);

/* Write what @format prints to its stream (0 or -errno) to @path, as above:
 * the state and metrics writers' shared half.
 */
int upcc_atomic_write_formatted(const char *path, int (*format)(FILE *out, void *ctx),
				void *ctx);

#endif /* UPCC_ATOMICFILE_H */
