/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atomicfile.h - the one way upcd writes a file (state, metrics): whole or not
 * at all, and never through a name or a directory another user could have
 * taken first.
 */
#ifndef UPCC_ATOMICFILE_H
#define UPCC_ATOMICFILE_H

#include <stddef.h>
#include <stdio.h>

/* upcc_atomic_write's @flags */
#define UPCC_ATOMIC_MKDIR	0x1u	/* make the file's directory (0755) if it is missing */

/*
 * Open @dir as an O_PATH descriptor for writing in it, or -errno:
 *  - no component of @dir is a symbolic link (openat2 RESOLVE_NO_SYMLINKS,
 *    or a walk with O_NOFOLLOW where the kernel has no openat2): -ELOOP;
 *  - @dir is owned by root or by our effective uid: else -EPERM;
 *  - @dir is writable by no group and no other user, unless it has the
 *    sticky bit (/tmp): else -EPERM.
 * The directories above @dir may be anyone's: without a symbolic link the
 * most their owner can do is rename the one below away, and what they
 * could put in its place is a directory of their own, refused here (a
 * directory of root's cannot be moved in from elsewhere: moving a
 * directory to a new parent needs write access to it).
 * On failure @why (@why_len bytes, may be NULL) says which rule, naming the
 * directory and its owner or mode, or else the error's text.
 */
int upcc_atomic_open_dir(const char *dir, char *why, size_t why_len);

/*
 * upcc_atomic_open_dir() of @path's directory, made first if missing and
 * @flags has UPCC_ATOMIC_MKDIR (its parent opened as safely); *@base is
 * the file's name in it.  For every file upcd writes or locks.
 */
int upcc_atomic_open_parent(const char *path, unsigned int flags, const char **base,
			    char *why, size_t why_len);

/*
 * Write @data to @path so that a reader sees the old file or the whole new
 * one, never a part: a temporary file with a random name made O_EXCL in
 * the directory upcc_atomic_open_dir opened, then renamed, both relative
 * to that descriptor, so a directory swapped after the check is not
 * written through.  Not fsynced: the report files are rewritten every
 * round (atomicfile.c).  0 or -errno, with @why as above.
 */
int upcc_atomic_write(const char *path, const char *data, size_t len, unsigned int flags,
		      char *why, size_t why_len);

/* Write what @format prints to its stream (0 or -errno) to @path, as above:
 * the state and metrics writers' shared half.
 */
int upcc_atomic_write_formatted(const char *path, unsigned int flags,
				int (*format)(FILE *out, void *ctx), void *ctx,
				char *why, size_t why_len);

#endif /* UPCC_ATOMICFILE_H */
