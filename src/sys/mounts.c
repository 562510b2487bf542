// SPDX-License-Identifier: GPL-2.0
/*
 * mounts.c - the mountinfo parser and the local disk mount rules; see
 * mounts.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* getline, makedev */
#endif
#include "lib/hooks.h"
#include "mounts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>


/* statfs f_type values (linux/magic.h), spelled out so no header is needed. */
static const int64_t pseudo_fs_magics[] = {
	0x9fa0,		/* proc */
	0x62656572,	/* sysfs */
	0x01021994,	/* tmpfs (also devtmpfs) */
	0x858458f6,	/* ramfs */
	0x1cd1,		/* devpts */
	0x27e0eb,	/* cgroup */
	0x63677270,	/* cgroup2 */
	0x64626720,	/* debugfs */
	0x74726163,	/* tracefs */
	0x73636673,	/* securityfs */
	0xcafe4a11,	/* bpf */
	0x6165676c,	/* pstore */
	0x958458f6,	/* hugetlbfs */
	0x19800202,	/* mqueue */
	0x6e736673,	/* nsfs */
	0x65735543,	/* fusectl */
	0x62656570,	/* configfs */
	0xde5e81e4,	/* efivarfs */
	0xf97cff8c,	/* selinuxfs */
	0x42494e4d,	/* binfmt_misc */
	0x50495045,	/* pipefs */
	0x534f434b,	/* sockfs */
	0x794c7630,	/* overlayfs: its files' cache lives in the layers' inodes, which
			 * cachestat on the overlay file does not see; walk the layers */
};

bool upcc_fs_is_pseudo(int64_t f_type)
{
	for (size_t i = 0; i < sizeof(pseudo_fs_magics) / sizeof(pseudo_fs_magics[0]); i++)
		if (pseudo_fs_magics[i] == f_type)
			return true;
	return false;
}

/*
 * Never walked, whatever their source says: pseudo and memory-backed
 * filesystems (nothing on a disk to give back), overlay (its cache lives in
 * the layers, walked as their own mounts), FUSE and network filesystems
 * (remote or userspace-backed: skipped by default), and the host folders a
 * hypervisor shares into a guest (hostfs, vboxsf, prl_fs, as 9p and
 * virtiofs): their source may look like a device ("/dev/root" for a UML
 * hostfs root), but walking one walks the host's tree.  squashfs is kept: a
 * read-only image on a block or loop device whose cache is clean and
 * droppable like any other.
 */
static const char *const never_walked_fstypes[] = {
	"proc", "sysfs", "tmpfs", "devtmpfs", "ramfs", "rootfs", "devpts", "cgroup",
	"cgroup2", "debugfs", "tracefs", "securityfs", "bpf", "pstore", "hugetlbfs",
	"mqueue", "nsfs", "fusectl", "configfs", "efivarfs", "selinuxfs", "binfmt_misc",
	"autofs", "overlay", "aufs", "nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph",
	"9p", "afs", "glusterfs", "lustre", "virtiofs", "ncpfs", "coda", "zram",
	"hostfs", "vboxsf", "prl_fs",
};

/* Known disk filesystems, for a source that is not a path (btrfs shows a
 * path, but zfs shows "pool/dataset").
 */
static const char *const disk_fstypes[] = {
	"ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "vfat", "msdos", "exfat", "jfs",
	"reiserfs", "ntfs", "ntfs3", "hfsplus", "udf", "iso9660", "squashfs", "erofs",
	"nilfs2", "zfs", "bcachefs", "ufs", "minix",
};

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

#define COUNT_OF(a)	(sizeof(a) / sizeof((a)[0]))

bool upcc_mount_is_local_disk(const char *fstype, const char *source)
{
	if (!fstype || !*fstype)
		return false;
	/* "fuse", "fuse.sshfs", "fuseblk" (ntfs-3g: a disk, but a userspace
	 * daemon serves it and may itself read through the page cache).
	 */
	if (strncmp(fstype, "fuse", 4) == 0)
		return false;
	if (in_list(fstype, never_walked_fstypes, COUNT_OF(never_walked_fstypes)))
		return false;
	if (source && source[0] == '/')
		return true;
	return in_list(fstype, disk_fstypes, COUNT_OF(disk_fstypes));
}

/* Undo mountinfo's octal escapes (\040 space, \011 tab, \012, \134) in place. */
static void unescape_octal(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* Split @line at spaces into at most @max fields; returns how many. */
static size_t split_fields(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *tok = strtok_r(line, " \t\n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t\n", &save))
		fields[n++] = tok;
	return n;
}

static bool mount_seen(const struct upcc_mount_list *list, dev_t dev, const char *root)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->mounts[i].dev == dev && strcmp(list->mounts[i].root, root) == 0)
			return true;
	return false;
}

static int mount_add(struct upcc_mount_list *list, dev_t dev, const char *root,
		     const char *mount_point, const char *fstype, const char *source)
{
	struct upcc_mount *m;

	if (list->count == list->capacity) {
		size_t capacity = list->capacity ? list->capacity * 2 : 16;
		struct upcc_mount *mounts = realloc(list->mounts, capacity * sizeof(*mounts));

		if (!mounts)
			return -ENOMEM;
		list->mounts = mounts;
		list->capacity = capacity;
	}
	m = &list->mounts[list->count];
	m->dev = dev;
	m->root = strdup(root);
	m->mount_point = strdup(mount_point);
	m->fstype = strdup(fstype);
	m->source = strdup(source);
	if (!m->root || !m->mount_point || !m->fstype || !m->source) {
		free(m->root);
		free(m->mount_point);
		free(m->fstype);
		free(m->source);
		return -ENOMEM;
	}
	list->count++;
	return 0;
}

/*
 * "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue"
 * id parent major:minor root mount-point options [optional...] - fstype source super
 */
static int parse_mount_line(struct upcc_mount_list *list, char *line)
{
	char *fields[64];
	size_t n = split_fields(line, fields, COUNT_OF(fields)), sep;
	unsigned int major, minor;
	char tail;

	for (sep = 6; sep < n && strcmp(fields[sep], "-") != 0; sep++)
		;
	if (n < 6 || sep + 2 >= n ||	/* no "- fstype source" */
	    sscanf(fields[2], "%u:%u%c", &major, &minor, &tail) != 2) {
		list->skipped++;
		return 0;
	}
	for (size_t i = 3; i < n; i++)
		unescape_octal(fields[i]);
	if (!upcc_mount_is_local_disk(fields[sep + 1], fields[sep + 2]) ||
	    fields[4][0] != '/' || mount_seen(list, makedev(major, minor), fields[3])) {
		list->skipped++;
		return 0;
	}
	return mount_add(list, makedev(major, minor), fields[3], fields[4], fields[sep + 1],
			 fields[sep + 2]);
}

int upcc_mounts_parse(struct upcc_mount_list *list, const char *text)
{
	while (text && *text) {
		const char *eol = strchr(text, '\n');
		size_t len = eol ? (size_t)(eol - text) : strlen(text);
		char *line = strndup(text, len);
		int err;

		if (!line)
			return -ENOMEM;
		err = parse_mount_line(list, line);
		free(line);
		if (err)
			return err;
		text = eol ? eol + 1 : NULL;
	}
	return 0;
}

/* Drop mounts covered by a later mount or not on a real filesystem here. */
static void keep_reachable(struct upcc_mount_list *list)
{
	size_t kept = 0;

	for (size_t i = 0; i < list->count; i++) {
		struct upcc_mount *m = &list->mounts[i];
		struct statfs sfs;
		struct stat st;

		if (stat(m->mount_point, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == m->dev &&
		    statfs(m->mount_point, &sfs) == 0 && !upcc_fs_is_pseudo((int64_t)sfs.f_type)) {
			list->mounts[kept++] = *m;
			continue;
		}
		list->skipped++;
		free(m->root);
		free(m->mount_point);
		free(m->fstype);
		free(m->source);
	}
	list->count = kept;
}

int upcc_mounts_load(struct upcc_mount_list *list, const char *path)
{
	char *line = NULL;
	size_t line_len = 0;
	FILE *f;
	int err = 0;

	memset(list, 0, sizeof(*list));
	if (!path)
		path = upcc_hooks.mountinfo ? upcc_hooks.mountinfo : "/proc/self/mountinfo";
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && getline(&line, &line_len, f) > 0)
		err = parse_mount_line(list, line);
	free(line);
	fclose(f);
	if (err) {
		upcc_mounts_free(list);
		return err;
	}
	keep_reachable(list);
	return 0;
}

void upcc_mounts_free(struct upcc_mount_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		free(list->mounts[i].root);
		free(list->mounts[i].mount_point);
		free(list->mounts[i].fstype);
		free(list->mounts[i].source);
	}
	free(list->mounts);
	memset(list, 0, sizeof(*list));
}
