/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk.h - a tree walker that is safe to run as root on untrusted trees.
 *
 * It never follows a symlink, never opens anything but a regular file or a
 * directory (so never a device, FIFO or socket), checks that what it opened
 * is the inode it saw during the walk, stays on the root's mount unless
 * told otherwise, skips pseudo and memory-backed filesystems, and holds one
 * directory stream per level of a depth-capped descent.  Each inode is
 * handed over once: a second hard link to a file, or a directory reached
 * again (with cross_mounts, through a bind mount of part of the tree), is
 * counted as a duplicate and skipped.  Memory grows with the number of
 * directories and multiply-linked files, not with the number of files.
 */
#ifndef UPCC_WALK_H
#define UPCC_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define UPCC_WALK_DEFAULT_MAX_DEPTH	64

/* Flags for opening a file found by a walk or named by a user. */
#define UPCC_WALK_OPEN_FLAGS	(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOATIME | O_CLOEXEC)

struct upcc_walk_options {
	bool cross_mounts;		/* descend into other mounts (not of a pseudo fs) */
	unsigned int max_depth;		/* 0 = UPCC_WALK_DEFAULT_MAX_DEPTH */
	/* NULL, or paths relative to the root not to enter or hand over,
	 * as upcc_scope.exclude holds them (upcc_scope_excluded).
	 */
	const char *exclude;
};

struct upcc_walk_stats {
	uint64_t files;			/* regular files handed to the callback */
	uint64_t dirs;
	uint64_t skipped_special;	/* symlinks, FIFOs, devices, sockets */
	uint64_t skipped_mounts;	/* directories on another mount */
	uint64_t skipped_pseudo;	/* directories on proc, tmpfs, ... */
	uint64_t skipped_depth;
	uint64_t skipped_raced;		/* changed between stat and open */
	uint64_t skipped_duplicate;	/* a hard link or a directory seen already */
	uint64_t skipped_excluded;	/* directories and files options->exclude names */
	uint64_t errors;		/* unreadable entries (walk goes on) */
};

/*
 * Called for each regular file with an fd opened read-only with
 * UPCC_WALK_OPEN_FLAGS (the walker closes it afterwards), its fstat, and
 * its path (root-prefixed).  The path may be PATH_MAX long or longer: the
 * walk opens by directory fds, so a deep tree of long names is walked
 * whole; open it again with upcc_open_regular_path(), not open().  Return
 * 0 to go on, anything else to stop the walk with that value.
 */
typedef int (*upcc_walk_fn)(void *ctx, int fd, const struct stat *st, const char *path);

/*
 * Walk @root (a directory, or a single regular file).  Returns 0, the
 * callback's stop value, or a negative errno if @root itself cannot be
 * walked (-ENOTDIR for a special file, -EMEDIUMTYPE on a pseudo fs, ...),
 * or -EINTR when the pace hook (pace.h) asked it to stop half-way.
 */
int upcc_walk(const char *root, const struct upcc_walk_options *options, upcc_walk_fn fn,
	      void *ctx, struct upcc_walk_stats *stats);

/* Open a regular file at @dirfd/@name safely: no symlink, no special file,
 * and (if @expect is not NULL) the same dev/ino as @expect.  Fills @st.
 * Returns the fd or a negative errno (-ELOOP symlink, -EINVAL not regular,
 * -ESTALE a different inode).
 */
int upcc_open_regular(int dirfd, const char *name, const struct stat *expect, struct stat *st);

/*
 * upcc_open_regular() of a path a walk handed over, however long: one of
 * PATH_MAX or more (which open() refuses) is opened by its head, as long
 * as fits, then one directory at a time, each O_NOFOLLOW, as the walk went
 * down.  The same checks and returns, or -ENAMETOOLONG for a name no
 * filesystem has.
 */
int upcc_open_regular_path(const char *path, const struct stat *expect, struct stat *st);

/* lstat() of such a path, the same way.  0 or -errno. */
int upcc_lstat_path(const char *path, struct stat *st);

/*
 * The mount @fd is on, as mountinfo numbers mounts: statx()'s STATX_MNT_ID
 * (Linux 5.8), else the mnt_id line of /proc/self/fdinfo (3.15).  Only the
 * mount tells a bind mount of the same filesystem from its parent
 * directory: st_dev is the same.  0 or -errno (-EOPNOTSUPP: neither can
 * tell, as without /proc on an older kernel).
 */
int upcc_mount_id(int fd, uint64_t *id);

/* The fdinfo way alone, what upcc_mount_id() falls back on (for tests). */
int upcc_mount_id_fdinfo(int fd, uint64_t *id);

/* The same for an O_PATH fd someone else obtained (e.g. open_by_handle_at
 * with O_PATH): a readable fd of the same inode if it is a regular file.
 * The caller keeps and closes @path_fd.
 */
int upcc_open_regular_path_fd(int path_fd, struct stat *st);

#include "mounts.h"

#endif /* UPCC_WALK_H */
