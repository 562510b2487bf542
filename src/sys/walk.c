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
#include "core/scope.h"
#include "lib/idset.h"
#include "lib/pace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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

/*
 * The directory holding the last name of a path too long for one open():
 * an O_PATH fd of it, that name in *@name.  The head (up to the last '/'
 * that leaves it shorter than PATH_MAX) is one openat(), each directory
 * below it another, O_NOFOLLOW: a walk reached none of them through a
 * symlink, and the caller checks the inode it opens as for a short path.
 */
static int open_long_parent(const char *path, const char **name)
{
	const char *last = strrchr(path, '/'), *rest, *slash;
	char part[PATH_MAX];
	int dirfd, next;
	size_t len;

	slash = memrchr(path, '/', PATH_MAX);
	if (!last || !slash)
		return -ENAMETOOLONG;
	len = slash == path ? 1 : (size_t)(slash - path);	/* "/" keeps its slash */
	memcpy(part, path, len);
	part[len] = '\0';
	dirfd = open(part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	for (rest = slash + 1; rest <= last; rest = slash + 1) {
		slash = strchr(rest, '/');
		len = (size_t)(slash - rest);
		if (len == 0)
			continue;	/* "//" */
		if (len > NAME_MAX) {
			close(dirfd);
			return -ENAMETOOLONG;
		}
		memcpy(part, rest, len);
		part[len] = '\0';
		next = openat(dirfd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dirfd);
		if (next < 0)
			return -errno;
		dirfd = next;
	}
	*name = last + 1;
	return dirfd;
}

int upcc_open_regular_path(const char *path, const struct stat *expect, struct stat *st)
{
	const char *name;
	int dirfd, fd;

	if (strnlen(path, PATH_MAX) < PATH_MAX)
		return upcc_open_regular(AT_FDCWD, path, expect, st);
	dirfd = open_long_parent(path, &name);
	if (dirfd < 0)
		return dirfd;
	fd = upcc_open_regular(dirfd, name, expect, st);
	close(dirfd);
	return fd;
}

int upcc_lstat_path(const char *path, struct stat *st)
{
	const char *name;
	int dirfd, err;

	if (strnlen(path, PATH_MAX) < PATH_MAX)
		return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	dirfd = open_long_parent(path, &name);
	if (dirfd < 0)
		return dirfd;
	err = fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	close(dirfd);
	return err;
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
	uint64_t mnt_id;	/* its mount (upcc_mount_id), if the root's was known */
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
	bool mnt_ids;		/* the root's mount id is known: mounts are told by it */
	/* The path handed to the callback.  It grows past PATH_MAX: the walk
	 * goes by directory fds and never opens it, so a long path is no
	 * reason to leave a file out (a tenant could park cache there), and
	 * the depth cap bounds it (64 levels of NAME_MAX bytes).
	 */
	char *path;
	size_t path_size;
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

/* Append "/name" to the path at @len; false if there is no memory for it. */
static bool path_push(struct walk_state *ws, size_t len, const char *name)
{
	size_t name_len = strlen(name);
	bool need_slash = len > 0 && ws->path[len - 1] != '/';
	size_t need = len + need_slash + name_len + 1;

	if (need > ws->path_size) {
		size_t size = ws->path_size * 2 > need ? ws->path_size * 2 : need;
		char *path = realloc(ws->path, size);

		if (!path)
			return false;
		ws->path = path;
		ws->path_size = size;
	}
	if (need_slash)
		ws->path[len++] = '/';
	memcpy(ws->path + len, name, name_len + 1);
	return true;
}

int upcc_mount_id_fdinfo(int fd, uint64_t *id)
{
	char path[64], text[1024], *line;
	ssize_t len;
	int info;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	info = open(path, O_RDONLY | O_CLOEXEC);
	if (info < 0)
		return errno == ENOENT ? -EOPNOTSUPP : -errno;
	len = read(info, text, sizeof(text) - 1);
	close(info);
	if (len < 0)
		return -EIO;
	text[len] = '\0';
	/* "pos:", "flags:", "mnt_id:", "ino:": a line of its own. */
	line = strstr(text, "\nmnt_id:");
	if (!line || sscanf(line, "\nmnt_id: %" SCNu64, id) != 1)
		return -EOPNOTSUPP;
	return 0;
}

int upcc_mount_id(int fd, uint64_t *id)
{
	struct statx stx;

	/* DONT_SYNC: the mount is the VFS's to tell, no server need be asked. */
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID)) {
		*id = stx.stx_mnt_id;
		return 0;
	}
	return upcc_mount_id_fdinfo(fd, id);
}

static int push_dir(struct walk_state *ws, int fd, dev_t dev, uint64_t mnt_id)
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
	ws->levels[ws->depth].mnt_id = mnt_id;
	ws->depth++;
	ws->stats->dirs++;
	return 0;
}

/*
 * Is this directory on a mount the walk may enter?  Mounts are told apart
 * by their ids, not by st_dev alone: a bind mount of the same filesystem
 * has its parent's st_dev, and through it any directory of that
 * filesystem, outside the tree, could be walked and evicted as the tree's.
 * Without the root's id (no statx mount id, no /proc) st_dev is all there
 * is; a directory whose id cannot be read when the root's could is an
 * error, not entered.
 */
static bool may_enter_mount(struct walk_state *ws, int fd, const struct stat *st,
			    const struct walk_level *parent, uint64_t *mnt_id)
{
	struct statfs sfs;

	*mnt_id = 0;
	if (ws->mnt_ids && upcc_mount_id(fd, mnt_id)) {
		ws->stats->errors++;
		return false;
	}
	if (st->st_dev == parent->dev && *mnt_id == parent->mnt_id)
		return true;
	if (!ws->options->cross_mounts) {
		ws->stats->skipped_mounts++;
		return false;
	}
	/* A bind of the same filesystem is no pseudo one: the root's is not. */
	if (st->st_dev != parent->dev &&
	    (fstatfs(fd, &sfs) < 0 || upcc_fs_is_pseudo((int64_t)sfs.f_type))) {
		ws->stats->skipped_pseudo++;
		return false;
	}
	return true;
}

static void visit_dir(struct walk_state *ws, int dirfd, const char *name,
		      const struct stat *seen, const struct walk_level *parent)
{
	uint64_t mnt_id;
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
	if (!may_enter_mount(ws, fd, &st, parent, &mnt_id) || !first_visit(ws, &st)) {
		close(fd);
		return;
	}
	push_dir(ws, fd, st.st_dev, mnt_id);
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

/*
 * Does options->exclude name the entry just pushed on the path?  Its part
 * below the root is built of the names read, so it is spelled as the
 * exclude list is: checked at each level, a directory named is never
 * entered, and nothing below it is met.
 */
static bool excluded(const struct walk_state *ws)
{
	const char *rel = ws->path + ws->levels[0].path_len;

	if (!ws->options->exclude || !ws->options->exclude[0])
		return false;
	while (*rel == '/')
		rel++;
	return upcc_scope_excluded(ws->options->exclude, rel);
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
		ws->stats->errors++;	/* out of memory, not too deep */
		return 0;
	}
	if (excluded(ws)) {
		ws->stats->skipped_excluded++;
		return 0;
	}
	if (S_ISDIR(seen.st_mode)) {
		visit_dir(ws, dir_fd, name, &seen, level);
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
	uint64_t mnt_id;
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
	ws->mnt_ids = upcc_mount_id(fd, &mnt_id) == 0;
	first_visit(ws, &st);
	push_dir(ws, fd, st.st_dev, ws->mnt_ids ? mnt_id : 0);
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
	ws->path_size = PATH_MAX;
	ws->path = malloc(ws->path_size);
	if (!ws->path) {
		free(ws->levels);
		free(ws);
		return -ENOMEM;
	}
	strcpy(ws->path, root);
	ret = walk_root(ws, root);
	upcc_id_set_free(&ws->seen);
	free(ws->path);
	free(ws->levels);
	free(ws);
	return ret;
}
