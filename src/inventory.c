// SPDX-License-Identifier: GPL-2.0
/*
 * inventory.c - bounded table of cached files, the mapped-file set, safe
 * per-file eviction, and the path scope's sample.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_NOATIME, O_PATH, getline, makedev */
#endif
#include "inventory.h"
#include "clock.h"
#include "pace.h"
#include "text.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

/* ---- the mapped-file set ------------------------------------------------ */

static int mapped_set_add(struct upcc_mapped_set *set, dev_t dev, ino_t ino)
{
	if (set->count == set->capacity) {
		size_t capacity = set->capacity ? set->capacity * 2 : 256;
		struct upcc_file_id *ids = realloc(set->ids, capacity * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		set->ids = ids;
		set->capacity = capacity;
	}
	set->ids[set->count].dev = dev;
	set->ids[set->count].ino = ino;
	set->count++;
	return 0;
}

/* "start-end perms offset MAJ:MIN inode [path]": take dev and inode. */
static int parse_maps_line(const char *line, dev_t *dev, ino_t *ino)
{
	unsigned int major, minor;
	unsigned long long inode;

	if (sscanf(line, "%*s %*s %*s %x:%x %llu", &major, &minor, &inode) != 3)
		return -EINVAL;
	*dev = makedev(major, minor);
	*ino = (ino_t)inode;
	return inode ? 0 : -ENOENT;	/* inode 0: anonymous, heap, stack */
}

int upcc_mapped_set_parse(struct upcc_mapped_set *set, const char *text)
{
	while (text && *text) {
		const char *eol = strchr(text, '\n');
		dev_t dev;
		ino_t ino;

		if (parse_maps_line(text, &dev, &ino) == 0 && mapped_set_add(set, dev, ino))
			return -ENOMEM;
		text = eol ? eol + 1 : NULL;
	}
	return 0;
}

static int compare_file_id(const void *a, const void *b)
{
	const struct upcc_file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

void upcc_mapped_set_finish(struct upcc_mapped_set *set)
{
	size_t kept = 0;

	if (!set->count)
		return;
	qsort(set->ids, set->count, sizeof(*set->ids), compare_file_id);
	for (size_t i = 1; i < set->count; i++)
		if (compare_file_id(&set->ids[kept], &set->ids[i]))
			set->ids[++kept] = set->ids[i];
	set->count = kept + 1;
}

bool upcc_mapped_set_has(const struct upcc_mapped_set *set, dev_t dev, ino_t ino)
{
	struct upcc_file_id key = { dev, ino };

	return set->count &&
	       bsearch(&key, set->ids, set->count, sizeof(key), compare_file_id) != NULL;
}

void upcc_mapped_set_free(struct upcc_mapped_set *set)
{
	free(set->ids);
	memset(set, 0, sizeof(*set));
}

/* Stream one maps file: a big process has more maps than any fixed buffer. */
static int load_maps_file(struct upcc_mapped_set *set, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t line_len = 0;
	int err = 0;

	if (!f) {
		/* Gone is fine; refused is counted: the set is then incomplete
		 * (DONTNEED still never drops a mapped page, but the skip of
		 * the whole file is lost for that process).
		 */
		if (errno == EACCES || errno == EPERM)
			set->unreadable++;
		return 0;
	}
	while (!err && getline(&line, &line_len, f) > 0) {
		dev_t dev;
		ino_t ino;

		if (parse_maps_line(line, &dev, &ino) == 0)
			err = mapped_set_add(set, dev, ino);
	}
	free(line);
	fclose(f);
	return err;
}

static bool is_pid_name(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

int upcc_mapped_set_load(struct upcc_mapped_set *set)
{
	const char *root = getenv("UPCC_PROC_ROOT");
	char dir_path[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *entry;
	DIR *dir;
	int err = 0;

	set->count = 0;
	set->unreadable = 0;
	snprintf(dir_path, sizeof(dir_path), "%s/proc", root ? root : "");
	dir = opendir(dir_path);
	if (!dir)
		return -errno;
	while (!err && (entry = readdir(dir)) != NULL) {
		if (!is_pid_name(entry->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/maps", dir_path, entry->d_name);
		err = load_maps_file(set, path);
	}
	closedir(dir);
	upcc_mapped_set_finish(set);
	return err;
}

/* ---- per-file eviction -------------------------------------------------- */

static int64_t now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

/*
 * Drop windows growing from the end of the file until @limit pages are gone
 * or the window covers the file: a big file need not lose all its cache to
 * satisfy a small request.  Which end is colder is unknown; the tail is
 * what a sequential reader reached last, so it is the likelier to be done.
 */
static int drop_tail_windows(int fd, const struct stat *st, uint64_t limit,
			     struct upcc_residency *res)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t size = (uint64_t)st->st_size, before = res->cached_pages;
	uint64_t window = limit * page;
	int err;

	for (;;) {
		off_t offset = window >= size ? 0 : (off_t)(size - window);

		err = posix_fadvise(fd, offset, 0, POSIX_FADV_DONTNEED);
		if (err)
			return -err;
		err = upcc_residency_fd(fd, st, res);
		if (err || offset == 0 || before - res->cached_pages >= limit)
			return err;
		window *= 2;
	}
}

int upcc_evict_fd_limit(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
			uint64_t limit_pages, struct upcc_evict_result *result)
{
	struct upcc_residency res;
	int err;

	memset(result, 0, sizeof(*result));
	err = upcc_residency_fd(fd, st, &res);
	if (err)
		return err;
	result->before_pages = result->after_pages = res.cached_pages;
	if (mapped && upcc_mapped_set_has(mapped, st->st_dev, st->st_ino)) {
		result->skipped_mapped = true;
		return 0;
	}
	/* DONTNEED on a dirty range starts writeback of it (mm/fadvise.c):
	 * the control never does that, so dirty files are left whole.
	 */
	if (!upcc_residency_may_evict(&res, st, now_seconds())) {
		result->skipped_dirty = true;
		return 0;
	}
	if (!res.cached_pages)
		return 0;
	if (limit_pages && limit_pages < res.cached_pages) {
		err = drop_tail_windows(fd, st, limit_pages, &res);
	} else {
		err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		err = err ? -err : upcc_residency_fd(fd, st, &res);
	}
	if (err)
		return err;
	result->after_pages = res.cached_pages;
	return 0;
}

int upcc_evict_fd(int fd, const struct stat *st, const struct upcc_mapped_set *mapped,
		  struct upcc_evict_result *result)
{
	return upcc_evict_fd_limit(fd, st, mapped, 0, result);
}

/* ---- the table ---------------------------------------------------------- */

static size_t hash_id(dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h ^ (h >> 29));
}

static size_t slot_of(const struct upcc_inventory *inv, dev_t dev, ino_t ino)
{
	size_t mask = inv->nr_slots - 1;
	size_t slot = hash_id(dev, ino) & mask;

	for (;;) {
		uint32_t index = inv->slots[slot];

		if (!index)
			return slot;
		if (inv->entries[index - 1].dev == dev && inv->entries[index - 1].ino == ino)
			return slot;
		slot = (slot + 1) & mask;
	}
}

static void rebuild_index(struct upcc_inventory *inv)
{
	memset(inv->slots, 0, inv->nr_slots * sizeof(*inv->slots));
	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		inv->slots[slot_of(inv, e->dev, e->ino)] = (uint32_t)(i + 1);
	}
}

/* ---- fanotify learning ------------------------------------------------- */

static void fan_why(struct upcc_inventory *inv, const char *root, const char *what, int err)
{
	struct upcc_inventory_fanotify *fan = &inv->fan;

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

static const struct upcc_inventory_root *marked_root_of(const struct upcc_inventory *inv, dev_t dev)
{
	for (size_t i = 0; i < inv->nr_roots; i++)
		if (inv->roots[i].marked && inv->roots[i].dev == dev)
			return &inv->roots[i];
	return NULL;
}

/* FID reports (5.1+) carry a handle, not an fd: no open of the file is made
 * by the kernel on our behalf; the filesystem-wide mark (4.20+,
 * CAP_SYS_ADMIN) covers files opened anywhere on it.
 */
static bool fanotify_group(struct upcc_inventory *inv, const char *root)
{
	if (inv->fan.fd >= 0)
		return true;
	inv->fan.fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK | FAN_CLOEXEC,
				    O_RDONLY | O_LARGEFILE);
	if (inv->fan.fd < 0) {
		fan_why(inv, root, "fanotify_init", errno);
		return false;
	}
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
static void fanotify_mark_root(struct upcc_inventory *inv, struct upcc_inventory_root *r)
{
	struct statfs sfs;
	struct stat st;

	r->mount_fd = open(r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->mount_fd < 0 || fstat(r->mount_fd, &st) < 0 || fstatfs(r->mount_fd, &sfs) < 0 ||
	    upcc_fs_is_pseudo((int64_t)sfs.f_type) || st.st_dev != r->dev) {
		fan_why(inv, r->path, "not a directory on a real filesystem", 0);
		goto fail;
	}
	memcpy(r->fsid, &sfs.f_fsid, sizeof(r->fsid));
	if (marked_root_of(inv, r->dev)) {
		r->marked = true;	/* a bind mount of a filesystem marked already */
		return;
	}
	if (!is_mount_point(r->mount_fd, &st)) {
		fan_why(inv, r->path, "root is not a mount point", 0);
		goto fail;
	}
	if (!fanotify_group(inv, r->path))
		goto fail;
	if (fanotify_mark(inv->fan.fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_CLOSE, r->mount_fd,
			  NULL) < 0) {
		fan_why(inv, r->path, "fanotify_mark", errno);
		goto fail;
	}
	r->marked = true;
	return;
fail:
	if (r->mount_fd >= 0)
		close(r->mount_fd);
	r->mount_fd = -1;
}

static void fanotify_start(struct upcc_inventory *inv)
{
	bool any = false;

	inv->fan.need_walk = true;
	if (getenv("UPCC_NO_FANOTIFY")) {
		snprintf(inv->fan.why, sizeof(inv->fan.why), "disabled by UPCC_NO_FANOTIFY");
		return;
	}
	for (size_t i = 0; i < inv->nr_roots; i++) {
		fanotify_mark_root(inv, &inv->roots[i]);
		any |= inv->roots[i].marked;
	}
	if (!any && inv->fan.fd >= 0) {
		close(inv->fan.fd);
		inv->fan.fd = -1;
	}
	if (!inv->nr_roots)
		snprintf(inv->fan.why, sizeof(inv->fan.why), "no filesystem to mark");
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
static bool in_marked_tree(const struct upcc_inventory *inv, dev_t dev, const char *path)
{
	for (size_t i = 0; i < inv->nr_roots; i++)
		if (inv->roots[i].marked && inv->roots[i].dev == dev &&
		    in_tree(inv->roots[i].path, path))
			return true;
	return false;
}

/* The marked root an event's filesystem id names (its handle opens there). */
static const struct upcc_inventory_root *root_of_fsid(const struct upcc_inventory *inv,
						      const char *fsid)
{
	for (size_t i = 0; i < inv->nr_roots; i++)
		if (inv->roots[i].marked && inv->roots[i].mount_fd >= 0 &&
		    memcmp(inv->roots[i].fsid, fsid, sizeof(inv->roots[i].fsid)) == 0)
			return &inv->roots[i];
	return NULL;
}

static int measure_and_note(struct upcc_inventory *inv, int fd, const struct stat *st,
			    const char *path, bool touched);

/* One FID record: open the inode O_PATH by handle, prove it is a regular
 * file in our tree, then measure it.
 */
static void learn_handle(struct upcc_inventory *inv, const char *fsid, const char *raw,
			 size_t raw_len)
{
	const struct upcc_inventory_root *root = root_of_fsid(inv, fsid);
	union {
		struct file_handle fh;
		char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} handle;
	char proc_path[64], path[PATH_MAX];
	struct stat st;
	ssize_t len;
	int path_fd, fd;

	if (!root || raw_len > sizeof(handle))
		return;
	memcpy(handle.bytes, raw, raw_len);
	path_fd = open_by_handle_at(root->mount_fd, &handle.fh, O_PATH | O_CLOEXEC);
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
		if (in_marked_tree(inv, st.st_dev, path) &&
		    measure_and_note(inv, fd, &st, path, true) == 0)
			inv->fan.learned++;
	}
	close(fd);
}

/* A file read by many opens sends many events: one lookup per file and
 * drain is enough.  A small direct-mapped cache of handle hashes, cleared
 * per drain; a collision only costs a missed duplicate or one skipped
 * event (the rewalk catches it).
 */
#define SEEN_SLOTS	1024u
static uint64_t seen_hashes[SEEN_SLOTS];

static bool seen_recently(const char *handle, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)handle[i]) * 0x100000001b3ull;
	h |= 1;		/* 0 marks an empty slot */
	if (seen_hashes[h % SEEN_SLOTS] == h)
		return true;
	seen_hashes[h % SEEN_SLOTS] = h;
	return false;
}

/*
 * Records with a file handle are not 8-byte multiples, so events after the
 * first are misaligned for struct fanotify_event_metadata (its mask is an
 * aligned u64): copy headers out with memcpy instead of casting.
 */
static void read_event(struct upcc_inventory *inv, const char *event, size_t event_len,
		       size_t metadata_len, uint64_t mask)
{
	const char *info = event + metadata_len;
	const char *end = event + event_len;

	inv->fan.events++;
	if (mask & FAN_Q_OVERFLOW) {
		inv->fan.overflows++;
		inv->fan.need_walk = true;
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
			    handle_off + sizeof(fh) + fh.handle_bytes <= hdr.len &&
			    !seen_recently(info + handle_off, sizeof(fh) + fh.handle_bytes))
				learn_handle(inv, info + offsetof(struct fanotify_event_info_fid, fsid),
					     info + handle_off, sizeof(fh) + fh.handle_bytes);
		}
		info += hdr.len;
	}
}

/*
 * Read the queued events (the fd is non-blocking).  Our own opens and
 * closes are events too: they are ignored, or measuring a file would queue
 * another event for it forever.  A busy filesystem can outpace us: at most
 * a table's worth of events per refresh; the rest wait for the next one.
 */
static void drain_events(struct upcc_inventory *inv)
{
	static char buf[65536];
	uint64_t budget = 2 * (uint64_t)inv->capacity;
	pid_t self = getpid();
	ssize_t len;

	memset(seen_hashes, 0, sizeof(seen_hashes));
	while (budget > 0 && (len = read(inv->fan.fd, buf, sizeof(buf))) > 0) {
		size_t off = 0;

		while (off + sizeof(struct fanotify_event_metadata) <= (size_t)len) {
			struct fanotify_event_metadata meta;

			memcpy(&meta, buf + off, sizeof(meta));
			if (meta.event_len < sizeof(meta) || off + meta.event_len > (size_t)len ||
			    meta.vers != FANOTIFY_METADATA_VERSION)
				break;
			if (meta.pid != self) {
				read_event(inv, buf + off, meta.event_len, meta.metadata_len,
					   meta.mask);
				if (budget)
					budget--;
			}
			off += meta.event_len;
		}
	}
}

/* The table, empty, with no roots yet. */
static int inventory_alloc(struct upcc_inventory *inv, size_t capacity)
{
	if (!capacity)
		capacity = UPCC_INVENTORY_DEFAULT_CAPACITY;
	if (capacity > (1u << 30))
		return -EINVAL;
	inv->capacity = capacity;
	inv->nr_slots = 1;
	while (inv->nr_slots < 2 * capacity)
		inv->nr_slots <<= 1;
	inv->fan.fd = -1;
	inv->entries = calloc(capacity, sizeof(*inv->entries));
	inv->slots = calloc(inv->nr_slots, sizeof(*inv->slots));
	if (!inv->entries || !inv->slots) {
		upcc_inventory_fini(inv);
		return -ENOMEM;
	}
	return 0;
}

/* Add a root by its resolved path; a path that does not resolve (gone
 * since mountinfo was read) is left out, as is one whose device changed.
 */
static int add_root(struct upcc_inventory *inv, const char *path, dev_t dev, bool check_dev)
{
	struct upcc_inventory_root *roots, *r;
	char *real = realpath(path, NULL), *listed = NULL;
	struct stat st;

	if (!real)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (stat(real, &st) < 0 || (check_dev && st.st_dev != dev)) {
		free(real);
		return 0;
	}
	roots = realloc(inv->roots, (inv->nr_roots + 1) * sizeof(*roots));
	if (roots)
		inv->roots = roots;
	if (check_dev)
		listed = strdup(path);
	if (!roots || (check_dev && !listed)) {
		free(real);
		free(listed);
		return -ENOMEM;
	}
	r = &roots[inv->nr_roots++];
	memset(r, 0, sizeof(*r));
	r->path = real;
	r->listed = listed;
	r->dev = st.st_dev;
	r->mount_fd = -1;
	return 0;
}

int upcc_inventory_init(struct upcc_inventory *inv, const char *root, bool cross_mounts,
			size_t capacity)
{
	int err;

	memset(inv, 0, sizeof(*inv));
	if (!root || strlen(root) >= sizeof(inv->root))
		return -EINVAL;
	err = inventory_alloc(inv, capacity);
	if (err)
		return err;
	strcpy(inv->root, root);
	inv->walk_options.cross_mounts = cross_mounts;
	/* The walk itself reports a root that is not there: keep the path
	 * scope's behaviour (an error from refresh), so only fanotify needs
	 * the resolved root.
	 */
	err = add_root(inv, root, 0, false);
	if (err) {
		upcc_inventory_fini(inv);
		return err;
	}
	fanotify_start(inv);
	return 0;
}

int upcc_inventory_init_mounts(struct upcc_inventory *inv, const struct upcc_mount_list *mounts,
			       size_t capacity)
{
	int err;

	memset(inv, 0, sizeof(*inv));
	err = inventory_alloc(inv, capacity);
	if (err)
		return err;
	strcpy(inv->root, "mounts");
	inv->from_mounts = true;
	inv->walk_options.cross_mounts = false;	/* every mount is a root of its own */
	for (size_t i = 0; i < mounts->count && !err; i++)
		err = add_root(inv, mounts->mounts[i].mount_point, mounts->mounts[i].dev, true);
	if (err) {
		upcc_inventory_fini(inv);
		return err;
	}
	fanotify_start(inv);
	return 0;
}

/* Compared as mountinfo lists them: a root's resolved path may differ. */
static bool same_mount(const struct upcc_inventory_root *r, const struct upcc_mount *m)
{
	return r->listed && r->dev == m->dev && strcmp(r->listed, m->mount_point) == 0;
}

static bool root_listed(const struct upcc_inventory_root *r, const struct upcc_mount_list *mounts)
{
	for (size_t i = 0; i < mounts->count; i++)
		if (same_mount(r, &mounts->mounts[i]))
			return true;
	return false;
}

static bool mount_known(const struct upcc_inventory *inv, const struct upcc_mount *m)
{
	for (size_t i = 0; i < inv->nr_roots; i++)
		if (same_mount(&inv->roots[i], m))
			return true;
	return false;
}

static void remove_root(struct upcc_inventory *inv, size_t index)
{
	struct upcc_inventory_root *r = &inv->roots[index];

	if (r->mount_fd >= 0)
		close(r->mount_fd);
	free(r->path);
	free(r->listed);
	memmove(r, r + 1, (inv->nr_roots - index - 1) * sizeof(*r));
	inv->nr_roots--;
}

/*
 * The system scope follows the mount table, re-read every refresh (a few
 * lines of /proc, cheap beside re-measuring the files): a disk mounted
 * after start joins, is marked (unless fanotify is off) and the refresh
 * walks everything once; one unmounted leaves, and its files go with the
 * walk that no longer sees them.  A table that cannot be read keeps the
 * roots there are.
 */
static int sync_mount_roots(struct upcc_inventory *inv)
{
	struct upcc_mount_list mounts;
	size_t nr_before;
	int err;

	if (upcc_mounts_load(&mounts, NULL))
		return 0;
	for (size_t i = inv->nr_roots; i-- > 0;) {
		if (!root_listed(&inv->roots[i], &mounts)) {
			upcc_text_append(inv->roots_changed, sizeof(inv->roots_changed), "%sunmounted %s",
					 *inv->roots_changed ? "; " : "", inv->roots[i].path);
			remove_root(inv, i);
			inv->mounts_left++;
			inv->fan.need_walk = true;	/* only a walk forgets its files */
		}
	}
	err = 0;
	for (size_t i = 0; i < mounts.count && !err; i++) {
		if (mount_known(inv, &mounts.mounts[i]))
			continue;
		nr_before = inv->nr_roots;
		err = add_root(inv, mounts.mounts[i].mount_point, mounts.mounts[i].dev, true);
		if (err || inv->nr_roots == nr_before)
			continue;
		inv->mounts_joined++;
		inv->fan.need_walk = true;
		if (!getenv("UPCC_NO_FANOTIFY"))
			fanotify_mark_root(inv, &inv->roots[inv->nr_roots - 1]);
		upcc_text_append(inv->roots_changed, sizeof(inv->roots_changed), "%smounted %s (%s)",
				 *inv->roots_changed ? "; " : "", inv->roots[inv->nr_roots - 1].path,
				 upcc_inventory_root_learning(&inv->roots[inv->nr_roots - 1]));
	}
	upcc_mounts_free(&mounts);
	return err;
}

void upcc_inventory_fini(struct upcc_inventory *inv)
{
	if (inv->fan.fd >= 0)
		close(inv->fan.fd);
	for (size_t i = 0; i < inv->nr_roots; i++) {
		if (inv->roots[i].mount_fd >= 0)
			close(inv->roots[i].mount_fd);
		free(inv->roots[i].path);
		free(inv->roots[i].listed);
	}
	free(inv->roots);
	for (size_t i = 0; i < inv->count; i++)
		free(inv->entries[i].path);
	free(inv->entries);
	free(inv->slots);
	upcc_mapped_set_free(&inv->mapped);
	memset(inv, 0, sizeof(*inv));
}

static int compare_by_cached_desc(const void *a, const void *b)
{
	const struct upcc_inventory_entry *x = a, *y = b;

	if (x->cached_pages != y->cached_pages)
		return x->cached_pages > y->cached_pages ? -1 : 1;
	return 0;
}

/* Full: keep the half that holds the most cache, forget the rest. */
static void shed_smallest_half(struct upcc_inventory *inv)
{
	size_t keep = inv->capacity / 2;

	qsort(inv->entries, inv->count, sizeof(*inv->entries), compare_by_cached_desc);
	for (size_t i = keep; i < inv->count; i++) {
		free(inv->entries[i].path);
		inv->entries[i].path = NULL;
	}
	inv->dropped_full += inv->count - keep;
	inv->dropped_since_walk += inv->count - keep;
	inv->count = keep;
	rebuild_index(inv);
}

static void update_coldness(struct upcc_inventory_entry *e, const struct upcc_residency *res,
			    int64_t atime_sec)
{
	if (res->cached_pages > e->cached_pages || atime_sec > e->atime_sec)
		e->idle_scans = 0;
	else if (e->idle_scans < UINT32_MAX)
		e->idle_scans++;
}

static int add_entry(struct upcc_inventory *inv, dev_t dev, ino_t ino, const char *path,
		     struct upcc_inventory_entry **out)
{
	struct upcc_inventory_entry *e;
	char *copy;

	if (inv->count == inv->capacity)
		shed_smallest_half(inv);
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	e = &inv->entries[inv->count];
	memset(e, 0, sizeof(*e));
	e->dev = dev;
	e->ino = ino;
	e->path = copy;
	inv->count++;
	inv->slots[slot_of(inv, dev, ino)] = (uint32_t)inv->count;
	*out = e;
	return 0;
}

int upcc_inventory_note(struct upcc_inventory *inv, dev_t dev, ino_t ino, const char *path,
			const struct upcc_residency *res, int64_t atime_sec, bool mapped)
{
	uint32_t index = inv->slots[slot_of(inv, dev, ino)];
	struct upcc_inventory_entry *e;
	int err;

	if (!index && !res->cached_pages)
		return 0;	/* nothing cached: nothing to remember */
	if (index) {
		e = &inv->entries[index - 1];
		update_coldness(e, res, atime_sec);
		if (strcmp(e->path, path)) {	/* renamed, or a second link */
			char *copy = strdup(path);

			if (!copy)
				return -ENOMEM;
			free(e->path);
			e->path = copy;
		}
	} else {
		err = add_entry(inv, dev, ino, path, &e);
		if (err)
			return err;
	}
	e->cached_pages = res->cached_pages;
	e->file_pages = res->file_pages;
	e->atime_sec = atime_sec;
	e->mapped = mapped;
	e->seen_scan = inv->scan;
	return 0;
}

/* Forget files the last walk did not see (deleted, moved out) or that hold
 * no cache any more.
 */
static void drop_stale(struct upcc_inventory *inv)
{
	size_t kept = 0;

	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		if (e->seen_scan != inv->scan || !e->cached_pages) {
			free(e->path);
			continue;
		}
		inv->entries[kept++] = *e;
	}
	inv->count = kept;
	rebuild_index(inv);
}

static void add_totals(struct upcc_inventory_totals *totals, const struct upcc_residency *res,
		       bool mapped)
{
	totals->files++;
	totals->cached_pages += res->cached_pages;
	totals->dirty_pages += res->dirty_pages;
	totals->writeback_pages += res->writeback_pages;
	if (mapped)
		totals->mapped_pages += res->cached_pages;
}

static int measure_and_note(struct upcc_inventory *inv, int fd, const struct stat *st,
			    const char *path, bool touched)
{
	uint32_t index;
	struct upcc_residency res;
	bool mapped;
	int err;

	if (upcc_residency_fd(fd, st, &res))
		return -EIO;	/* unreadable: leave it out */
	index = inv->slots[slot_of(inv, st->st_dev, st->st_ino)];
	if (index && inv->entries[index - 1].seen_scan == inv->scan)
		return 0;	/* counted already this refresh (a second link, an event) */
	mapped = upcc_mapped_set_has(&inv->mapped, st->st_dev, st->st_ino);
	add_totals(&inv->last, &res, mapped);
	err = upcc_inventory_note(inv, st->st_dev, st->st_ino, path, &res, st->st_atim.tv_sec,
				  mapped);
	if (!err && touched) {
		/* A close event is a use: the file is hot now. */
		index = inv->slots[slot_of(inv, st->st_dev, st->st_ino)];
		if (index)
			inv->entries[index - 1].idle_scans = 0;
	}
	return err;
}

static int refresh_one(void *ctx, int fd, const struct stat *st, const char *path)
{
	int err = measure_and_note(ctx, fd, st, path, false);

	return err == -ENOMEM ? 1 : 0;
}

/* Re-measure the files the table knows that this refresh has not seen. */
static int remeasure_known(struct upcc_inventory *inv)
{
	for (size_t i = 0; i < inv->count; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];
		struct stat expect = { 0 }, st;
		int fd;

		if (e->seen_scan == inv->scan)
			continue;
		if (upcc_pace_stop())
			return -EINTR;
		expect.st_dev = e->dev;
		expect.st_ino = e->ino;
		fd = upcc_open_regular(AT_FDCWD, e->path, &expect, &st);
		if (fd < 0)
			continue;	/* gone or replaced: drop_stale forgets it */
		measure_and_note(inv, fd, &st, e->path, false);
		close(fd);
	}
	return 0;
}

static void add_walk_stats(struct upcc_walk_stats *sum, const struct upcc_walk_stats *one)
{
	sum->files += one->files;
	sum->dirs += one->dirs;
	sum->skipped_special += one->skipped_special;
	sum->skipped_mounts += one->skipped_mounts;
	sum->skipped_pseudo += one->skipped_pseudo;
	sum->skipped_depth += one->skipped_depth;
	sum->skipped_raced += one->skipped_raced;
	sum->skipped_duplicate += one->skipped_duplicate;
	sum->errors += one->errors;
}

/* Walk the path scope's root, or each mount (@all_roots) or only those
 * fanotify does not watch.  A mount that cannot be walked any more
 * (unmounted since) is counted and passed over; the path scope's root
 * failing is the refresh's error, as before.
 */
static int walk_refresh(struct upcc_inventory *inv, bool all_roots)
{
	size_t nr = inv->from_mounts ? inv->nr_roots : 1, walked = 0;

	for (size_t i = 0; i < nr; i++) {
		/* The path scope walks its root as given: the walk reports a
		 * missing one, and entries keep the paths the user named.
		 */
		const char *root = inv->from_mounts ? inv->roots[i].path : inv->root;
		struct upcc_walk_stats stats;
		int err;

		if (inv->from_mounts && !all_roots && inv->roots[i].marked)
			continue;
		walked++;
		err = upcc_walk(root, &inv->walk_options, refresh_one, inv, &stats);
		add_walk_stats(&inv->last.walk, &stats);
		if (err > 0)
			return -ENOMEM;
		if (err < 0 && (!inv->from_mounts || err == -EINTR))
			return err;
		if (err < 0)
			inv->root_errors++;
	}
	if (walked)
		inv->walks++;
	return 0;
}

int upcc_inventory_refresh(struct upcc_inventory *inv)
{
	struct upcc_inventory_fanotify *fan = &inv->fan;
	uint64_t start_usec;
	int err;

	start_usec = upcc_monotonic_usec();
	memset(&inv->last, 0, sizeof(inv->last));
	inv->roots_changed[0] = '\0';
	err = upcc_mapped_set_load(&inv->mapped);
	if (err)
		return err;
	inv->scan++;
	if (inv->follow_mount_table && inv->scan > 1) {
		err = sync_mount_roots(inv);	/* sets need_walk on a change */
		if (err)
			return err;
	}
	if (fan->fd >= 0)
		drain_events(inv);	/* may set need_walk on overflow */
	/* A table that was full forgot files: only a walk finds them again,
	 * and only a walk's totals then cover the whole tree.
	 */
	inv->last_walked_all = fan->fd < 0 || fan->need_walk || inv->dropped_since_walk ||
			       inv->scan % UPCC_INVENTORY_REWALK_EVERY == 0;
	if (inv->last_walked_all) {
		inv->dropped_since_walk = 0;
		err = walk_refresh(inv, true);
		if (err)
			goto interrupted;
		fan->need_walk = false;
	} else {
		/* Mounts fanotify could not mark are still walked every time. */
		err = inv->from_mounts ? walk_refresh(inv, false) : 0;
		if (!err)
			err = remeasure_known(inv);
		if (err)
			goto interrupted;
	}
	drop_stale(inv);
	inv->last.elapsed_usec = upcc_monotonic_usec() - start_usec;
	return 0;
interrupted:
	/* Half a refresh forgets nothing: the next one walks the whole tree. */
	inv->last_walked_all = false;
	fan->need_walk = true;
	return err;
}

static int compare_coldest(const void *a, const void *b)
{
	const struct upcc_inventory_entry *x = *(struct upcc_inventory_entry *const *)a;
	const struct upcc_inventory_entry *y = *(struct upcc_inventory_entry *const *)b;

	if (x->idle_scans != y->idle_scans)
		return x->idle_scans > y->idle_scans ? -1 : 1;
	if (x->atime_sec != y->atime_sec)
		return x->atime_sec < y->atime_sec ? -1 : 1;
	if (x->cached_pages != y->cached_pages)
		return x->cached_pages > y->cached_pages ? -1 : 1;
	return 0;
}

size_t upcc_inventory_coldest(struct upcc_inventory *inv, struct upcc_inventory_entry **order,
			      size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < inv->count && n < max; i++) {
		struct upcc_inventory_entry *e = &inv->entries[i];

		if (e->cached_pages && !e->mapped)
			order[n++] = e;
	}
	qsort(order, n, sizeof(*order), compare_coldest);
	return n;
}

int upcc_inventory_evict(struct upcc_inventory *inv, struct upcc_inventory_entry *entry,
			 uint64_t limit_pages, struct upcc_evict_result *result)
{
	struct stat expect = { 0 }, st;
	int fd, err;

	memset(result, 0, sizeof(*result));
	expect.st_dev = entry->dev;
	expect.st_ino = entry->ino;
	fd = upcc_open_regular(AT_FDCWD, entry->path, &expect, &st);
	if (fd < 0)
		return fd;
	err = upcc_evict_fd_limit(fd, &st, &inv->mapped, limit_pages, result);
	close(fd);
	if (!err)
		entry->cached_pages = result->after_pages;
	return err;
}

/* ---- the path scope's sample ------------------------------------------- */

struct sample_ctx {
	struct upcc_mapped_set mapped;
	struct upcc_inventory_totals totals;
};

static int sample_one(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct sample_ctx *sc = ctx;
	struct upcc_residency res;

	(void)path;
	if (upcc_residency_fd(fd, st, &res))
		return 0;
	add_totals(&sc->totals, &res, upcc_mapped_set_has(&sc->mapped, st->st_dev, st->st_ino));
	return 0;
}

static uint64_t mem_total_pages(void)
{
	const char *root = getenv("UPCC_PROC_ROOT");
	char path[PATH_MAX];
	struct upcc_meminfo info;

	snprintf(path, sizeof(path), "%s/proc/meminfo", root ? root : "");
	if (upcc_meminfo_read(path, &info) || !UPCC_HAS(&info, UPCC_MI_MEM_TOTAL))
		return 0;
	return info.kb[UPCC_MI_MEM_TOTAL] * 1024u / (uint64_t)sysconf(_SC_PAGESIZE);
}

static void sample_from_totals(const struct upcc_inventory_totals *totals,
			       struct upcc_sample *sample)
{
	memset(sample, 0, sizeof(*sample));
	sample->total_pages = mem_total_pages();
	sample->file_lru_pages = totals->cached_pages;
	sample->mapped_pages = totals->mapped_pages;
	sample->unmapped_pages = upcc_unmapped_file_pages(sample->file_lru_pages,
							  sample->mapped_pages);
	sample->dirty_pages = totals->dirty_pages;
	sample->writeback_pages = totals->writeback_pages;
	sample->skipped_depth = totals->walk.skipped_depth;
	sample->skipped_raced = totals->walk.skipped_raced;
	sample->walk_errors = totals->walk.errors;
}

int upcc_path_sample(struct upcc_scope *scope, struct upcc_sample *sample)
{
	struct upcc_walk_options options = { .cross_mounts = scope->cross_mounts };
	struct sample_ctx sc;
	int err;

	if (scope->kind != UPCC_SCOPE_PATH)
		return -EINVAL;
	memset(&sc, 0, sizeof(sc));
	err = upcc_mapped_set_load(&sc.mapped);
	if (!err)
		err = upcc_walk(scope->path, &options, sample_one, &sc, &sc.totals.walk);
	upcc_mapped_set_free(&sc.mapped);
	if (err)
		return err < 0 ? err : -EIO;
	sample_from_totals(&sc.totals, sample);
	return 0;
}

int upcc_inventory_sample(const struct upcc_inventory *inv, struct upcc_sample *sample)
{
	/* A table that overflowed forgot files: its totals are the whole
	 * tree's only when this refresh walked it (every file the walk met
	 * was counted, kept in the table or not).
	 */
	if (inv->from_mounts || (inv->dropped_since_walk && !inv->last_walked_all))
		return -EOPNOTSUPP;
	sample_from_totals(&inv->last, sample);
	return 0;
}
