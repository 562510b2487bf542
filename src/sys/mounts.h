/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mounts.h - which mounts the system and node scopes walk, from
 * /proc/self/mountinfo.
 */
#ifndef UPCC_MOUNTS_H
#define UPCC_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The local, disk-backed mounts of /proc/self/mountinfo: what the system and
 * node scopes' inventory walks.  A mount is kept when its type is not a
 * pseudo, memory-backed, overlay, FUSE or network filesystem and either its
 * source is a path (a block device: /dev/vda1, /dev/loop0) or its type is a
 * known disk filesystem.  Mounts showing the same filesystem (major:minor)
 * and the same subtree (mountinfo's root field) are kept once: a bind mount
 * of a tree is walked once.
 */
struct upcc_mount {
	dev_t dev;			/* mountinfo's major:minor (st_dev of its files) */
	char *root;			/* the subtree of the filesystem it shows */
	char *mount_point;		/* unescaped (\040 is a space) */
	char *fstype;
	char *source;
};

struct upcc_mount_list {
	struct upcc_mount *mounts;
	size_t count;
	size_t capacity;
	size_t skipped;			/* lines not kept: pseudo, network, duplicate, bad */
};

/* Is a mount of @fstype from @source one the system scope walks? */
bool upcc_mount_is_local_disk(const char *fstype, const char *source);

/* Parse mountinfo text into @list (kept mounts only).  0 or -ENOMEM. */
int upcc_mounts_parse(struct upcc_mount_list *list, const char *text);

/*
 * Read @path (NULL: upcc_hooks.mountinfo, a test fixture, else
 * /proc/self/mountinfo) and keep the local disk mounts whose mount point
 * is reachable here: stat()s to the listed device (not covered by a later
 * mount) and statfs() is not pseudo.  0 or -errno.
 */
int upcc_mounts_load(struct upcc_mount_list *list, const char *path);

void upcc_mounts_free(struct upcc_mount_list *list);

/* Is @f_type (statfs) a pseudo or memory-backed filesystem we never walk? */
bool upcc_fs_is_pseudo(int64_t f_type);

#endif /* UPCC_MOUNTS_H */
