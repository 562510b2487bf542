// SPDX-License-Identifier: GPL-2.0
/*
 * fanotify.c - learning the files opened since the last walk; see
 * fanotify.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* open_by_handle_at, struct file_handle */
#endif
#include "fanotify.h"
#include "lib/hooks.h"
#include "mounts.h"
#include "walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

static void fan_why(struct upcc_fanotify *fan, const char *root, const char *what, int err)
{
	if (fan->why[0])
		return;		/* the first reason is the one worth reading */
	if (err)
		snprintf(fan->why, sizeof(fan->why), "%.40s: %s: %s", root, what, strerror(err));
	else
		snprintf(fan->why, sizeof(fan->why), "%.40s: %s", root, what);
}

/* A root that is a whole filesystem's mount point (or /)? */
static bool is_mount_point(int dir_fd, const struct stat *st)
{
	struct stat parent;

	return fstatat(dir_fd, "..", &parent, 0) == 0 &&
	       (parent.st_dev != st->st_dev || parent.st_ino == st->st_ino);
}

/* @path's device and whether it is a mount point, now.  0 or -errno. */
static int root_identity(const char *path, dev_t *dev, bool *mount_point)
{
	/* O_PATH: only a name for fstat and "..", held for these two calls. */
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
	} else {
		*dev = st.st_dev;
		*mount_point = S_ISDIR(st.st_mode) && is_mount_point(fd, &st);
	}
	close(fd);
	return err;
}

int upcc_fanotify_root_init(struct upcc_fanotify_root *root, char *path)
{
	int err;

	memset(root, 0, sizeof(*root));
	root->mount_fd = -1;
	err = root_identity(path, &root->dev, &root->mount_point);
	if (!err)
		root->path = path;
	return err;
}

static bool dev_marked(const struct upcc_fanotify_root *roots, size_t nr_roots, dev_t dev)
{
	for (size_t i = 0; i < nr_roots; i++)
		if (roots[i].marked && roots[i].dev == dev)
			return true;
	return false;
}

/* FID reports (5.1+) carry a handle, not an fd: no open of the file is made
 * by the kernel on our behalf; the filesystem-wide mark (4.20+,
 * CAP_SYS_ADMIN) covers files opened anywhere on it.
 */
static bool fanotify_group(struct upcc_fanotify *fan, const char *root)
{
	if (fan->fd >= 0)
		return true;
	fan->fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK | FAN_CLOEXEC,
				    O_RDONLY | O_LARGEFILE);
	if (fan->fd < 0) {
		fan_why(fan, root, "fanotify_init", errno);
		return false;
	}
	return true;
}

/*
 * Events name files by handle: without open_by_handle_at() (a kernel built
 * without CONFIG_FHANDLE, a filesystem that cannot export handles) every
 * event would be dropped unread, and files opened after the last walk
 * never learnt.  Such a root is walked instead.
 */
static bool handles_open(int dir_fd, int *err)
{
	union {
		struct file_handle fh;
		char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} handle;
	int mount_id, fd;

	handle.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(dir_fd, "", &handle.fh, &mount_id, AT_EMPTY_PATH) < 0) {
		*err = errno;
		return false;
	}
	fd = open_by_handle_at(dir_fd, &handle.fh, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return false;
	}
	close(fd);
	return true;
}

/*
 * Mark @r's filesystem (once per filesystem).  A filesystem-wide mark
 * reports every close on it; for a path scope tree that is only part of
 * one, opening each reported file just to learn it is elsewhere costs more
 * than the walk saves (measured: 10 s per refresh on a busy host), so such
 * a tree is only walked.  The system scope's roots are mount points, but a
 * fixture's may not be; a bind mount of a marked filesystem needs no mark
 * of its own.
 */
void upcc_fanotify_mark_root(struct upcc_fanotify *fan, struct upcc_fanotify_root *roots,
			     size_t nr_roots, size_t index)
{
	struct upcc_fanotify_root *r = &roots[index];
	struct statfs sfs;
	struct stat st;
	int err, fd;

	/* Open only while marking: a directory fd kept for the daemon's life
	 * made `umount` of the filesystem fail as busy.
	 */
	fd = open(r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0 ||
	    upcc_fs_is_pseudo((int64_t)sfs.f_type) || st.st_dev != r->dev) {
		fan_why(fan, r->path, "not a directory on a real filesystem", 0);
		goto out;
	}
	memcpy(r->fsid, &sfs.f_fsid, sizeof(r->fsid));
	if (dev_marked(roots, nr_roots, r->dev)) {
		r->marked = true;	/* a bind mount of a filesystem marked already */
		goto out;
	}
	if (!is_mount_point(fd, &st)) {
		fan_why(fan, r->path, "root is not a mount point", 0);
		goto out;
	}
	if (!handles_open(fd, &err)) {
		fan_why(fan, r->path, "file handles", err);
		goto out;
	}
	if (!fanotify_group(fan, r->path))
		goto out;
	if (fanotify_mark(fan->fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_CLOSE | FAN_OPEN,
			  fd, NULL) < 0) {
		fan_why(fan, r->path, "fanotify_mark", errno);
		goto out;
	}
	r->marked = true;
out:
	if (fd >= 0)
		close(fd);
}

void upcc_fanotify_init(struct upcc_fanotify *fan)
{
	fan->fd = -1;
}

void upcc_fanotify_fini(struct upcc_fanotify *fan)
{
	if (fan->fd >= 0)
		close(fan->fd);
	fan->fd = -1;
	free(fan->buffer);
	fan->buffer = NULL;
}

/* A group with no root marked would only keep the refreshes from walking. */
static void close_unused_group(struct upcc_fanotify *fan, const struct upcc_fanotify_root *roots,
			       size_t nr_roots)
{
	for (size_t i = 0; i < nr_roots; i++)
		if (roots[i].marked)
			return;
	if (fan->fd >= 0) {
		close(fan->fd);
		fan->fd = -1;
	}
}

void upcc_fanotify_start(struct upcc_fanotify *fan, struct upcc_fanotify_root *roots,
			 size_t nr_roots)
{
	fan->need_walk = true;
	if (upcc_hooks.no_fanotify) {
		snprintf(fan->why, sizeof(fan->why), "disabled by a test hook");
		return;
	}
	for (size_t i = 0; i < nr_roots; i++)
		upcc_fanotify_mark_root(fan, roots, nr_roots, i);
	close_unused_group(fan, roots, nr_roots);
	if (!nr_roots)
		snprintf(fan->why, sizeof(fan->why), "no filesystem to mark");
}

/* Is our mark still on @root's filesystem?  Removing FAN_ACCESS, which the
 * mark never had, changes nothing where it is, and fails with ENOENT where
 * it is not.  Any other failure counts as there: no rewalk for nothing.
 */
static bool mark_still_there(const struct upcc_fanotify *fan, const struct upcc_fanotify_root *root)
{
	if (fan->fd < 0)
		return true;
	return fanotify_mark(fan->fd, FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM | FAN_MARK_DONT_FOLLOW,
			     FAN_ACCESS, AT_FDCWD, root->path) == 0 || errno != ENOENT;
}

enum upcc_fanotify_root_change upcc_fanotify_check_root(const struct upcc_fanotify *fan,
							 const struct upcc_fanotify_root *root)
{
	bool mount_point;
	dev_t dev;

	if (root_identity(root->path, &dev, &mount_point))
		return UPCC_FANOTIFY_ROOT_MISSING;
	/* Its mount point's directory, on the filesystem below: unmounted. */
	if (root->mount_point && !mount_point)
		return UPCC_FANOTIFY_ROOT_UNMOUNTED;
	if (dev != root->dev || (root->marked && !mark_still_there(fan, root)))
		return UPCC_FANOTIFY_ROOT_NEW;
	return UPCC_FANOTIFY_ROOT_SAME;
}

void upcc_fanotify_renew_root(struct upcc_fanotify *fan, struct upcc_fanotify_root *roots,
			      size_t nr_roots, size_t index)
{
	struct upcc_fanotify_root *r = &roots[index];

	for (size_t i = 0; i < nr_roots; i++)
		if (roots[i].dev == r->dev)
			roots[i].marked = false;
	r->marked = false;
	if (root_identity(r->path, &r->dev, &r->mount_point))
		return;		/* gone again: the next look says so */
	if (upcc_hooks.no_fanotify)
		return;
	/* Mount points first: a root within their filesystem shares their mark. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < nr_roots; i++)
			if (roots[i].dev == r->dev && !roots[i].marked &&
			    roots[i].mount_point == (pass == 0))
				upcc_fanotify_mark_root(fan, roots, nr_roots, i);
	close_unused_group(fan, roots, nr_roots);
}

/* Is @path inside @root? */
static bool in_tree(const char *root, const char *path)
{
	size_t len = strlen(root);

	if (len == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

/* Is the file at @path (on @dev) inside a marked root? */
static bool in_marked_tree(const struct upcc_fanotify_view *view, dev_t dev, const char *path)
{
	for (size_t i = 0; i < view->nr_roots; i++)
		if (view->roots[i].marked && view->roots[i].dev == dev &&
		    in_tree(view->roots[i].path, path))
			return true;
	return false;
}

/* The marked root an event's filesystem id names (its handle opens there). */
static struct upcc_fanotify_root *root_of_fsid(const struct upcc_fanotify_view *view,
						const char *fsid)
{
	for (size_t i = 0; i < view->nr_roots; i++)
		if (view->roots[i].marked &&
		    memcmp(view->roots[i].fsid, fsid, sizeof(view->roots[i].fsid)) == 0)
			return &view->roots[i];
	return NULL;
}

/*
 * @root's directory for open_by_handle_at, opened at the first event a
 * parse meets for it and closed at the parse's end (close_root_fds): held
 * between drains it kept the filesystem from being unmounted.  It must be
 * the filesystem we marked, not the directory below it after an unmount.
 */
static int root_fd(struct upcc_fanotify_root *root)
{
	struct stat st;
	int fd;

	if (root->mount_fd >= 0 || root->mount_fd_failed)
		return root->mount_fd;
	fd = open(root->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != root->dev)) {
		close(fd);
		fd = -1;
	}
	root->mount_fd = fd;
	root->mount_fd_failed = fd < 0;
	return fd;
}

static void close_root_fds(const struct upcc_fanotify_view *view)
{
	for (size_t i = 0; i < view->nr_roots; i++) {
		if (view->roots[i].mount_fd >= 0)
			close(view->roots[i].mount_fd);
		view->roots[i].mount_fd = -1;
		view->roots[i].mount_fd_failed = false;
	}
}

/* One FID record: open the inode O_PATH by handle, prove it is a regular
 * file in our tree, then measure it.
 */
static void learn_handle(struct upcc_fanotify *fan, const struct upcc_fanotify_view *view,
			 const char *fsid, const char *raw, size_t raw_len, uint64_t hash)
{
	struct upcc_fanotify_root *root = root_of_fsid(view, fsid);
	union {
		struct file_handle fh;
		char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} handle;
	char proc_path[64], path[PATH_MAX];
	struct stat st;
	ssize_t len;
	int path_fd, fd, mount_fd;

	if (!root || raw_len > sizeof(handle))
		return;
	mount_fd = root_fd(root);
	if (mount_fd < 0)
		return;		/* unmounted: the refresh's look at the root says so */
	memcpy(handle.bytes, raw, raw_len);
	path_fd = open_by_handle_at(mount_fd, &handle.fh, O_PATH | O_CLOEXEC);
	if (path_fd < 0)
		return;		/* deleted since, or not ours to open */
	fd = upcc_open_regular_path_fd(path_fd, &st);
	close(path_fd);
	if (fd < 0)
		return;		/* a directory, FIFO, device...: never opened */
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", fd);
	len = readlink(proc_path, path, sizeof(path) - 1);
	if (len > 0) {
		path[len] = '\0';
		if (in_marked_tree(view, st.st_dev, path) &&
		    view->learn(view->ctx, fd, &st, path) == 0) {
			fan->learned++;
			fan->known[hash % UPCC_FANOTIFY_SEEN_SLOTS].hash = hash;
			fan->known[hash % UPCC_FANOTIFY_SEEN_SLOTS].dev = st.st_dev;
			fan->known[hash % UPCC_FANOTIFY_SEEN_SLOTS].ino = st.st_ino;
		}
	}
	close(fd);
}

/* A file read by many opens sends many events: one lookup per file and
 * drain is enough.  A small direct-mapped cache of handle hashes, cleared
 * per drain; a collision only costs a missed duplicate or one skipped
 * event (the rewalk catches it).
 */
static uint64_t handle_hash(const char *handle, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)handle[i]) * 0x100000001b3ull;
	return h | 1;		/* 0 marks an empty slot */
}

static bool seen_recently(struct upcc_fanotify *fan, uint64_t h)
{
	if (fan->seen[h % UPCC_FANOTIFY_SEEN_SLOTS] == h)
		return true;
	fan->seen[h % UPCC_FANOTIFY_SEEN_SLOTS] = h;
	return false;
}

/* A handle learnt before whose file the table measured this refresh. */
static bool use_known(const struct upcc_fanotify *fan, const struct upcc_fanotify_view *view,
		      uint64_t h)
{
	const struct upcc_fanotify_known *k = &fan->known[h % UPCC_FANOTIFY_SEEN_SLOTS];

	return k->hash == h && view->known(view->ctx, k->dev, k->ino);
}

/*
 * Records with a file handle are not 8-byte multiples, so events after the
 * first are misaligned for struct fanotify_event_metadata (its mask is an
 * aligned u64): copy headers out with memcpy instead of casting.
 */
static void read_event(struct upcc_fanotify *fan, const struct upcc_fanotify_view *view,
		       const char *event, size_t event_len, size_t metadata_len, uint64_t mask)
{
	const char *info = event + metadata_len;
	const char *end = event + event_len;

	fan->events++;
	if (mask & FAN_Q_OVERFLOW) {
		fan->overflows++;
		fan->need_walk = true;
		return;
	}
	while (info + sizeof(struct fanotify_event_info_header) <= end) {
		struct fanotify_event_info_header hdr;
		size_t handle_off = offsetof(struct fanotify_event_info_fid, handle);
		struct file_handle fh;

		memcpy(&hdr, info, sizeof(hdr));
		if (hdr.len == 0 || info + hdr.len > end)
			return;
		if (hdr.info_type == FAN_EVENT_INFO_TYPE_FID &&
		    hdr.len >= handle_off + sizeof(fh)) {
			memcpy(&fh, info + handle_off, sizeof(fh));
			if (fh.handle_bytes <= MAX_HANDLE_SZ &&
			    handle_off + sizeof(fh) + fh.handle_bytes <= hdr.len) {
				size_t len = sizeof(fh) + fh.handle_bytes;
				uint64_t h = handle_hash(info + handle_off, len);

				if (!seen_recently(fan, h) && !use_known(fan, view, h))
					learn_handle(fan, view,
						     info + offsetof(struct fanotify_event_info_fid, fsid),
						     info + handle_off, len, h);
			}
		}
		info += hdr.len;
	}
}

void upcc_fanotify_parse(struct upcc_fanotify *fan, const struct upcc_fanotify_view *view,
			 const char *buf, size_t len, pid_t self, uint64_t *budget)
{
	size_t off = 0;

	while (off + sizeof(struct fanotify_event_metadata) <= len) {
		struct fanotify_event_metadata meta;

		memcpy(&meta, buf + off, sizeof(meta));
		if (meta.event_len < sizeof(meta) || off + meta.event_len > len ||
		    meta.vers != FANOTIFY_METADATA_VERSION)
			break;
		if (meta.pid != self) {
			read_event(fan, view, buf + off, meta.event_len, meta.metadata_len,
				   meta.mask);
			if (*budget)
				(*budget)--;
		}
		off += meta.event_len;
	}
	close_root_fds(view);
}

/*
 * Read the queued events (the fd is non-blocking).  Our own opens and
 * closes are events too: they are ignored, or measuring a file would queue
 * another event for it forever.  A busy filesystem can outpace us: at most
 * @budget events per drain; the rest wait for the next one.
 */
void upcc_fanotify_drain(struct upcc_fanotify *fan, const struct upcc_fanotify_view *view,
			 uint64_t budget)
{
	pid_t self = getpid();
	ssize_t len;
	char *buf = fan->buffer;

	if (!buf)
		buf = fan->buffer = malloc(UPCC_FANOTIFY_BUFFER);
	if (!buf)
		return;
	memset(fan->seen, 0, sizeof(fan->seen));
	fan->own_opens = 0;
	fan->draining = true;
	while (budget > 0 && (len = read(fan->fd, buf, UPCC_FANOTIFY_BUFFER)) > 0)
		upcc_fanotify_parse(fan, view, buf, (size_t)len, self, &budget);
	fan->draining = false;
}

void upcc_fanotify_note_own_open(struct upcc_fanotify *fan, const struct upcc_fanotify_view *view,
				 uint64_t budget)
{
	if (fan->fd < 0 || fan->draining || upcc_hooks.no_own_drain)
		return;
	if (++fan->own_opens >= UPCC_FANOTIFY_OWN_OPENS_PER_DRAIN)
		upcc_fanotify_drain(fan, view, budget);
}
