// SPDX-License-Identifier: GPL-2.0
/*
 * walk.c - a depth-first, openat()-based tree walk with one directory stream
 * per level, that opens nothing it has not first proven to be a regular file
 * or a directory.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_NOATIME, O_PATH, getline, makedev */
#endif
#include "walk.h"
#include "idset.h"
#include "pace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Reopen an O_PATH fd for reading through /proc/self/fd: that opens the very
 * inode the O_PATH fd holds, so nothing can be swapped in between.
 */
static int reopen_readable(int path_fd, int dirfd, const char *name)
{
	char proc_path[64];
	int flags = O_RDONLY | O_NONBLOCK | O_NOATIME | O_CLOEXEC;
	int fd;

	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", path_fd);
	fd = open(proc_path, flags);
	if (fd < 0 && errno == EPERM) {		/* O_NOATIME needs ownership */
		flags &= ~O_NOATIME;
		fd = open(proc_path, flags);
	}
	if (fd >= 0 || errno != ENOENT)
		return fd;
	/* No /proc: open by name; the caller's dev/ino check catches a swap. */
	flags = UPCC_WALK_OPEN_FLAGS;
	fd = openat(dirfd, name, flags);
	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, flags & ~O_NOATIME);
	return fd;
}

/* Check an O_PATH fd names a regular file (and @expect's inode), then
 * reopen it readable.  @dirfd/@name are only the no-/proc fallback.
 */
static int open_checked(int path_fd, int dirfd, const char *name, const struct stat *expect,
			struct stat *st)
{
	struct stat path_st;
	int fd;

	if (fstat(path_fd, &path_st) < 0)
		return -errno;
	if (S_ISLNK(path_st.st_mode))
		return -ELOOP;
	if (!S_ISREG(path_st.st_mode))
		return -EINVAL;
	if (expect && !same_inode(expect, &path_st))
		return -ESTALE;
	fd = reopen_readable(path_fd, dirfd, name);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || !same_inode(&path_st, st)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int upcc_open_regular(int dirfd, const char *name, const struct stat *expect, struct stat *st)
{
	int path_fd, fd;

	/* O_PATH never runs a device's or FIFO's open: it only names the inode. */
	path_fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (path_fd < 0)
		return -errno;
	fd = open_checked(path_fd, dirfd, name, expect, st);
	close(path_fd);
	return fd;
}

int upcc_open_regular_path_fd(int path_fd, struct stat *st)
{
	/* No name to fall back on: without /proc this fails, never guesses. */
	int fd = open_checked(path_fd, -1, "", NULL, st);

	return fd;
}

struct walk_level {
	DIR *dir;
	size_t path_len;	/* length of the path up to this directory */
	dev_t dev;
};

struct walk_state {
	const struct upcc_walk_options *options;
	upcc_walk_fn fn;
	void *ctx;
	struct upcc_walk_stats *stats;
	unsigned int max_depth;
	struct walk_level *levels;
	unsigned int depth;	/* number of open levels */
	struct upcc_id_set seen;	/* directories and multiply-linked files */
	char path[PATH_MAX];
};

/* First time this walk meets the inode?  A directory met again is a bind
 * mount (or a loop); a file with more than one link may be met again.
 */
static bool first_visit(struct walk_state *ws, const struct stat *st)
{
	if (!S_ISDIR(st->st_mode) && st->st_nlink < 2)
		return true;
	if (upcc_id_set_add(&ws->seen, st->st_dev, st->st_ino) != 0)
		return true;	/* new (or out of memory: better twice than never) */
	ws->stats->skipped_duplicate++;
	return false;
}

/* Append "/name" to the path at @len; false if it would not fit. */
static bool path_push(struct walk_state *ws, size_t len, const char *name)
{
	size_t name_len = strlen(name);
	bool need_slash = len > 0 && ws->path[len - 1] != '/';

	if (len + need_slash + name_len + 1 > sizeof(ws->path))
		return false;
	if (need_slash)
		ws->path[len++] = '/';
	memcpy(ws->path + len, name, name_len + 1);
	return true;
}

static int push_dir(struct walk_state *ws, int fd, dev_t dev)
{
	DIR *dir = fdopendir(fd);

	if (!dir) {
		close(fd);
		ws->stats->errors++;
		return 0;
	}
	ws->levels[ws->depth].dir = dir;
	ws->levels[ws->depth].path_len = strlen(ws->path);
	ws->levels[ws->depth].dev = dev;
	ws->depth++;
	ws->stats->dirs++;
	return 0;
}

/* Is this directory on a filesystem the walk may enter? */
static bool may_enter_fs(struct walk_state *ws, int fd, const struct stat *st, dev_t parent_dev)
{
	struct statfs sfs;

	if (st->st_dev == parent_dev)
		return true;
	if (!ws->options->cross_mounts) {
		ws->stats->skipped_mounts++;
		return false;
	}
	if (fstatfs(fd, &sfs) < 0 || upcc_fs_is_pseudo((int64_t)sfs.f_type)) {
		ws->stats->skipped_pseudo++;
		return false;
	}
	return true;
}

static void visit_dir(struct walk_state *ws, int dirfd, const char *name,
		      const struct stat *seen, dev_t parent_dev)
{
	struct stat st;
	int fd;

	if (ws->depth >= ws->max_depth) {
		ws->stats->skipped_depth++;
		return;
	}
	/* O_DIRECTORY makes the kernel refuse anything else before opening it. */
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ws->stats->errors++;
		return;
	}
	if (fstat(fd, &st) < 0 || !same_inode(seen, &st)) {
		ws->stats->skipped_raced++;
		close(fd);
		return;
	}
	if (!may_enter_fs(ws, fd, &st, parent_dev) || !first_visit(ws, &st)) {
		close(fd);
		return;
	}
	push_dir(ws, fd, st.st_dev);
}

static int visit_file(struct walk_state *ws, int dirfd, const char *name, const struct stat *seen)
{
	struct stat st;
	int fd, ret;

	fd = upcc_open_regular(dirfd, name, seen, &st);
	if (fd < 0) {
		if (fd == -ESTALE || fd == -ELOOP || fd == -EINVAL)
			ws->stats->skipped_raced++;
		else
			ws->stats->errors++;
		return 0;
	}
	if (!first_visit(ws, &st)) {
		close(fd);
		return 0;
	}
	ws->stats->files++;
	ret = ws->fn(ws->ctx, fd, &st, ws->path);
	close(fd);
	return ret;
}

/* Handle one directory entry of the innermost level. */
static int visit_entry(struct walk_state *ws, struct walk_level *level, const char *name)
{
	int dir_fd = dirfd(level->dir);
	struct stat seen;

	if (fstatat(dir_fd, name, &seen, AT_SYMLINK_NOFOLLOW) < 0) {
		ws->stats->errors++;
		return 0;
	}
	if (!S_ISDIR(seen.st_mode) && !S_ISREG(seen.st_mode)) {
		ws->stats->skipped_special++;
		return 0;
	}
	if (!path_push(ws, level->path_len, name)) {
		ws->stats->skipped_depth++;
		return 0;
	}
	if (S_ISDIR(seen.st_mode)) {
		visit_dir(ws, dir_fd, name, &seen, level->dev);
		return 0;
	}
	return visit_file(ws, dir_fd, name, &seen);
}

static int walk_loop(struct walk_state *ws)
{
	int ret = 0;

	while (ws->depth > 0 && ret == 0) {
		struct walk_level *level = &ws->levels[ws->depth - 1];
		struct dirent *entry;

		if (upcc_pace_stop()) {
			ret = -EINTR;	/* a signal waits: the walk is not finished */
			break;
		}

		errno = 0;
		entry = readdir(level->dir);
		if (!entry) {
			if (errno)
				ws->stats->errors++;
			closedir(level->dir);
			ws->depth--;
			continue;
		}
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		ret = visit_entry(ws, level, entry->d_name);
	}
	while (ws->depth > 0)
		closedir(ws->levels[--ws->depth].dir);
	return ret;
}

static int walk_single_file(struct walk_state *ws, const char *root)
{
	struct stat st;
	int fd = upcc_open_regular(AT_FDCWD, root, NULL, &st);
	int ret;

	if (fd < 0)
		return fd == -EINVAL ? -ENOTDIR : fd;
	ws->stats->files++;
	ret = ws->fn(ws->ctx, fd, &st, ws->path);
	close(fd);
	return ret;
}

static int walk_root(struct walk_state *ws, const char *root)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	if (lstat(root, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode))
		return walk_single_file(ws, root);
	if (!S_ISDIR(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs) < 0 || upcc_fs_is_pseudo((int64_t)sfs.f_type)) {
		close(fd);
		return -EMEDIUMTYPE;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -errno;
	}
	first_visit(ws, &st);
	push_dir(ws, fd, st.st_dev);
	return walk_loop(ws);
}

int upcc_walk(const char *root, const struct upcc_walk_options *options, upcc_walk_fn fn,
	      void *ctx, struct upcc_walk_stats *stats)
{
	static const struct upcc_walk_options defaults;
	struct walk_state *ws;
	int ret;

	if (!root || !*root || !fn || !stats)
		return -EINVAL;
	if (strlen(root) >= PATH_MAX)
		return -ENAMETOOLONG;
	memset(stats, 0, sizeof(*stats));
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return -ENOMEM;
	ws->options = options ? options : &defaults;
	ws->max_depth = ws->options->max_depth ? ws->options->max_depth
					       : UPCC_WALK_DEFAULT_MAX_DEPTH;
	ws->levels = calloc(ws->max_depth, sizeof(*ws->levels));
	if (!ws->levels) {
		free(ws);
		return -ENOMEM;
	}
	ws->fn = fn;
	ws->ctx = ctx;
	ws->stats = stats;
	strcpy(ws->path, root);
	ret = walk_root(ws, root);
	upcc_id_set_free(&ws->seen);
	free(ws->levels);
	free(ws);
	return ret;
}

/* ---- local disk-backed mounts (mountinfo) ------------------------------- */

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
	const char *env = getenv("UPCC_MOUNTINFO");
	char *line = NULL;
	size_t line_len = 0;
	FILE *f;
	int err = 0;

	memset(list, 0, sizeof(*list));
	if (!path)
		path = env && *env ? env : "/proc/self/mountinfo";
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
