// SPDX-License-Identifier: GPL-2.0
/* test_fanotify.c - the fanotify event parser (upcc_fanotify_parse) on
 * event buffers built here: what it counts, skips, stops at and looks up;
 * the marking of roots, as far as it goes without privileges; and that no
 * root's directory stays open (an unmount must never find it busy).
 */
#include "helpers.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "unit.h"
#include "lib/hooks.h"
#include "sys/fanotify.h"
#include "sys/mounts.h"

#define OTHER_PID	4242

struct calls {
	unsigned int learn, known;
	dev_t dev;
	ino_t ino;
};

static int learn_cb(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct calls *calls = ctx;

	(void)fd, (void)st, (void)path;
	calls->learn++;
	return 0;
}

static bool known_cb(void *ctx, dev_t dev, ino_t ino)
{
	struct calls *calls = ctx;

	calls->known++;
	calls->dev = dev;
	calls->ino = ino;
	return true;
}

/* No roots: a handle never opens, so only `known` can see an event. */
static struct upcc_fanotify_view view_of(struct calls *calls)
{
	return (struct upcc_fanotify_view){ .learn = learn_cb, .known = known_cb, .ctx = calls };
}

/* Append one event (with a FID record of @handle_bytes bytes of @fill if
 * @handle_bytes) at *@off; returns its length.
 */
static size_t put_event(char *buf, size_t *off, pid_t pid, uint64_t mask,
			unsigned int handle_bytes, unsigned char fill)
{
	struct fanotify_event_metadata meta = {
		.vers = FANOTIFY_METADATA_VERSION,
		.metadata_len = sizeof(meta),
		.mask = mask,
		.fd = FAN_NOFD,
		.pid = pid,
	};
	size_t handle_off = offsetof(struct fanotify_event_info_fid, handle);
	struct fanotify_event_info_header hdr = { .info_type = FAN_EVENT_INFO_TYPE_FID };
	struct file_handle fh = { .handle_bytes = handle_bytes, .handle_type = 1 };
	size_t start = *off;

	hdr.len = handle_bytes ? (uint16_t)(handle_off + sizeof(fh) + handle_bytes) : 0;
	meta.event_len = (uint32_t)(sizeof(meta) + hdr.len);
	memcpy(buf + *off, &meta, sizeof(meta));
	*off += sizeof(meta);
	if (handle_bytes) {
		memcpy(buf + *off, &hdr, sizeof(hdr));
		memset(buf + *off + sizeof(hdr), 0, handle_off - sizeof(hdr));	/* fsid */
		memcpy(buf + *off + handle_off, &fh, sizeof(fh));
		memset(buf + *off + handle_off + sizeof(fh), fill, handle_bytes);
		*off += hdr.len;
	}
	return *off - start;
}

/* The hash fanotify.c keys handles by (FNV-1a over the struct file_handle
 * and its bytes, low bit set), to seed a known handle.
 */
static uint64_t handle_hash(unsigned int handle_bytes, unsigned char fill)
{
	struct file_handle fh = { .handle_bytes = handle_bytes, .handle_type = 1 };
	unsigned char bytes[sizeof(fh) + MAX_HANDLE_SZ];
	uint64_t h = 0xcbf29ce484222325ull;

	memcpy(bytes, &fh, sizeof(fh));
	memset(bytes + sizeof(fh), fill, handle_bytes);
	for (size_t i = 0; i < sizeof(fh) + handle_bytes; i++)
		h = (h ^ bytes[i]) * 0x100000001b3ull;
	return h | 1;
}

/* How many of our fds are open on the directory @dir (by /proc/self/fd)? */
static unsigned int fds_open_on(const char *dir)
{
	char real[PATH_MAX], link[300], target[PATH_MAX];
	unsigned int count = 0;
	struct dirent *entry;
	DIR *fds;
	ssize_t len;

	assert_non_null(realpath(dir, real));
	fds = opendir("/proc/self/fd");
	assert_non_null(fds);
	while ((entry = readdir(fds))) {
		snprintf(link, sizeof(link), "/proc/self/fd/%s", entry->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		count += strcmp(target, real) == 0;
	}
	closedir(fds);
	return count;
}

static void test_counts_others_events(void **state)
{
	struct upcc_fanotify fan = { .fd = -1 };
	struct calls calls = { 0 };
	struct upcc_fanotify_view view = view_of(&calls);
	char buf[1024];
	size_t len = 0;
	uint64_t budget = 10;

	(void)state;
	put_event(buf, &len, OTHER_PID, FAN_CLOSE_WRITE, 8, 0xaa);
	put_event(buf, &len, getpid(), FAN_CLOSE_WRITE, 8, 0xbb);	/* our own: ignored */
	put_event(buf, &len, OTHER_PID, FAN_OPEN, 0, 0);
	upcc_fanotify_parse(&fan, &view, buf, len, getpid(), &budget);
	assert_int_equal(fan.events, 2);
	assert_int_equal(budget, 8);
	assert_int_equal(fan.overflows, 0);
	assert_false(fan.need_walk);
	assert_int_equal(calls.learn, 0);	/* no root: nothing opens */
	assert_int_equal(calls.known, 0);	/* no handle known yet */
}

static void test_overflow_asks_for_a_walk(void **state)
{
	struct upcc_fanotify fan = { .fd = -1 };
	struct calls calls = { 0 };
	struct upcc_fanotify_view view = view_of(&calls);
	char buf[256];
	size_t len = 0;
	uint64_t budget = 10;

	(void)state;
	put_event(buf, &len, OTHER_PID, FAN_Q_OVERFLOW, 0, 0);
	upcc_fanotify_parse(&fan, &view, buf, len, getpid(), &budget);
	assert_int_equal(fan.overflows, 1);
	assert_true(fan.need_walk);
}

/* A truncated event, a wrong version, a zero-length record: the parse
 * stops there, having read what came before.
 */
static void test_stops_at_malformed(void **state)
{
	struct upcc_fanotify fan = { .fd = -1 };
	struct calls calls = { 0 };
	struct upcc_fanotify_view view = view_of(&calls);
	struct fanotify_event_metadata meta;
	char buf[1024];
	size_t len = 0, second;
	uint64_t budget = 10;

	(void)state;
	put_event(buf, &len, OTHER_PID, FAN_CLOSE_WRITE, 8, 1);
	second = len;
	put_event(buf, &len, OTHER_PID, FAN_CLOSE_WRITE, 8, 2);
	upcc_fanotify_parse(&fan, &view, buf, len - 1, getpid(), &budget);
	assert_int_equal(fan.events, 1);		/* the second is cut short */

	memcpy(&meta, buf + second, sizeof(meta));
	meta.vers = FANOTIFY_METADATA_VERSION + 1;
	memcpy(buf + second, &meta, sizeof(meta));
	upcc_fanotify_parse(&fan, &view, buf, len, getpid(), &budget);
	assert_int_equal(fan.events, 2);		/* again only the first */

	/* An info record of length 0 would never advance: the event ends. */
	len = 0;
	put_event(buf, &len, OTHER_PID, FAN_CLOSE_WRITE, 8, 3);
	memset(buf + sizeof(meta) + offsetof(struct fanotify_event_info_header, len), 0,
	       sizeof(((struct fanotify_event_info_header *)0)->len));
	upcc_fanotify_parse(&fan, &view, buf, len, getpid(), &budget);
	assert_int_equal(fan.events, 3);
	assert_int_equal(calls.known + calls.learn, 0);
}

/* A handle learnt before is a use (known), asked once per drain however
 * many events name it; another handle is not.
 */
static void test_known_handle_once_per_drain(void **state)
{
	struct upcc_fanotify fan = { .fd = -1 };
	struct calls calls = { 0 };
	struct upcc_fanotify_view view = view_of(&calls);
	uint64_t h = handle_hash(8, 0x5a), budget = 100;
	char buf[1024];
	size_t len = 0;

	(void)state;
	fan.known[h % UPCC_FANOTIFY_SEEN_SLOTS].hash = h;
	fan.known[h % UPCC_FANOTIFY_SEEN_SLOTS].dev = 5;
	fan.known[h % UPCC_FANOTIFY_SEEN_SLOTS].ino = 7;
	put_event(buf, &len, OTHER_PID, FAN_CLOSE_WRITE, 8, 0x5a);
	put_event(buf, &len, OTHER_PID, FAN_CLOSE_NOWRITE, 8, 0x5a);
	put_event(buf, &len, OTHER_PID, FAN_CLOSE_WRITE, 8, 0x5b);	/* negative control */
	upcc_fanotify_parse(&fan, &view, buf, len, getpid(), &budget);
	assert_int_equal(fan.events, 3);
	assert_int_equal(calls.known, 1);
	assert_int_equal(calls.dev, 5);
	assert_int_equal(calls.ino, 7);
	/* A new drain clears the per-drain cache: asked again. */
	memset(fan.seen, 0, sizeof(fan.seen));
	upcc_fanotify_parse(&fan, &view, buf, len, getpid(), &budget);
	assert_int_equal(calls.known, 2);
	assert_int_equal(calls.learn, 0);
}

static void test_start_without_roots(void **state)
{
	struct upcc_fanotify fan;

	(void)state;
	memset(&fan, 0, sizeof(fan));
	upcc_fanotify_init(&fan);
	upcc_fanotify_start(&fan, NULL, 0);
	assert_int_equal(fan.fd, -1);
	assert_true(fan.need_walk);
	assert_string_equal(fan.why, "no filesystem to mark");
	upcc_fanotify_fini(&fan);
}

/* A root on a filesystem another root marked shares that mark, though it
 * is no mount point itself (the fixtures); without one it is not marked.
 */
static void test_mark_root_shares_a_marked_filesystem(void **state)
{
	struct upcc_fanotify_root roots[2];
	struct upcc_fanotify fan;
	struct statfs sfs;
	struct stat st;

	(void)state;
	assert_int_equal(stat(UPCC_FIXTURES, &st), 0);
	assert_int_equal(statfs(UPCC_FIXTURES, &sfs), 0);
	if (upcc_fs_is_pseudo((int64_t)sfs.f_type))
		skip();		/* a checkout on tmpfs or overlay is never marked */
	memset(&fan, 0, sizeof(fan));
	upcc_fanotify_init(&fan);
	memset(roots, 0, sizeof(roots));
	for (size_t i = 0; i < 2; i++) {
		roots[i].path = (char *)UPCC_FIXTURES;
		roots[i].dev = st.st_dev;
		roots[i].mount_fd = -1;
	}
	roots[0].marked = true;
	upcc_fanotify_mark_root(&fan, roots, 2, 1);
	assert_true(roots[1].marked);
	assert_int_equal(fan.fd, -1);		/* no group of its own needed */
	/* Nothing held once marked: a directory fd kept for events' handles
	 * (this test's assertion until it was found to make `umount` fail
	 * as busy) is opened per parse now (test_parse_holds_no_root_fd).
	 */
	assert_int_equal(roots[1].mount_fd, -1);
	assert_int_equal(fds_open_on(UPCC_FIXTURES), 0);

	/* With no marked root beside it, it is a tree within a filesystem. */
	roots[0].marked = false;
	roots[1].marked = false;
	roots[1].mount_fd = -1;
	upcc_fanotify_mark_root(&fan, roots, 2, 1);
	assert_false(roots[1].marked);
	assert_int_equal(roots[1].mount_fd, -1);
	assert_non_null(strstr(fan.why, "root is not a mount point"));
	upcc_fanotify_fini(&fan);
}

/* Append a close event naming @fh on the filesystem @fsid at *@off. */
static void put_fid_event(char *buf, size_t *off, const int32_t fsid[2],
			  const struct file_handle *fh)
{
	struct fanotify_event_metadata meta = {
		.vers = FANOTIFY_METADATA_VERSION,
		.metadata_len = sizeof(meta),
		.mask = FAN_CLOSE_NOWRITE,
		.fd = FAN_NOFD,
		.pid = OTHER_PID,
	};
	size_t handle_off = offsetof(struct fanotify_event_info_fid, handle);
	size_t handle_len = sizeof(*fh) + fh->handle_bytes;
	struct fanotify_event_info_header hdr = { .info_type = FAN_EVENT_INFO_TYPE_FID };

	hdr.len = (uint16_t)(handle_off + handle_len);
	meta.event_len = (uint32_t)(sizeof(meta) + hdr.len);
	memcpy(buf + *off, &meta, sizeof(meta));
	memcpy(buf + *off + sizeof(meta), &hdr, sizeof(hdr));
	memcpy(buf + *off + sizeof(meta) + offsetof(struct fanotify_event_info_fid, fsid), fsid,
	       2 * sizeof(int32_t));
	memcpy(buf + *off + sizeof(meta) + handle_off, fh, handle_len);
	*off += meta.event_len;
}

/*
 * An event's handle opens through its root's directory, opened by the
 * parse that needs it and closed when the parse returns: an fd held
 * between drains kept the filesystem from being unmounted.  Opening by
 * handle needs CAP_DAC_READ_SEARCH: without it only the closing is checked.
 */
static void test_parse_holds_no_root_fd(void **state)
{
	union {
		struct file_handle fh;
		char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} handle;
	char dir[PATH_MAX], file[PATH_MAX + 8], buf[512];
	struct upcc_fanotify_root root;
	struct upcc_fanotify fan = { .fd = -1 };
	struct calls calls = { 0 };
	struct upcc_fanotify_view view = view_of(&calls);
	struct statfs sfs;
	uint64_t budget = 10;
	size_t len = 0;
	int mount_id, fd;
	bool privileged;

	(void)state;
	assert_non_null(ua_mkdtemp(dir, sizeof(dir)));
	snprintf(file, sizeof(file), "%s/f", dir);
	assert_int_equal(ua_write_file(file, "x"), 0);
	assert_int_equal(statfs(dir, &sfs), 0);
	handle.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, file, &handle.fh, &mount_id, 0) < 0) {
		ua_rm_rf(dir);
		skip();		/* a filesystem without file handles is only walked */
	}
	fd = open_by_handle_at(AT_FDCWD, &handle.fh, O_PATH | O_CLOEXEC);
	privileged = fd >= 0;
	if (fd >= 0)
		close(fd);

	assert_int_equal(upcc_fanotify_root_init(&root, strdup(dir)), 0);
	memcpy(root.fsid, &sfs.f_fsid, sizeof(root.fsid));
	root.marked = true;		/* as if its filesystem were marked */
	view.roots = &root;
	view.nr_roots = 1;
	put_fid_event(buf, &len, root.fsid, &handle.fh);
	upcc_fanotify_parse(&fan, &view, buf, len, getpid(), &budget);
	assert_int_equal(fan.events, 1);
	if (privileged)
		assert_int_equal(calls.learn, 1);	/* opened through the root */
	assert_int_equal(root.mount_fd, -1);
	assert_false(root.mount_fd_failed);
	assert_int_equal(fds_open_on(dir), 0);
	free(root.path);
	ua_rm_rf(dir);
}

/*
 * What a look at a root finds, without a mount of our own: the same root;
 * its path gone; a mount point that is one no more (recorded as one, it is
 * a plain directory: what an unmount leaves); another device at its path.
 * Renewing takes it as it is now.
 */
static void test_check_root(void **state)
{
	struct upcc_fanotify fan = { .fd = -1 };
	struct upcc_fanotify_root root, slash;
	char dir[PATH_MAX], sub[PATH_MAX + 8];

	(void)state;
	assert_non_null(ua_mkdtemp(dir, sizeof(dir)));
	snprintf(sub, sizeof(sub), "%s/root", dir);
	assert_int_equal(ua_mkdir_p(sub), 0);
	assert_int_equal(upcc_fanotify_root_init(&slash, strdup("/")), 0);
	assert_true(slash.mount_point);
	free(slash.path);
	assert_int_equal(upcc_fanotify_root_init(&root, strdup(sub)), 0);
	assert_false(root.mount_point);
	assert_int_equal(root.mount_fd, -1);
	assert_int_equal(upcc_fanotify_check_root(&fan, &root), UPCC_FANOTIFY_ROOT_SAME);

	root.mount_point = true;
	assert_int_equal(upcc_fanotify_check_root(&fan, &root), UPCC_FANOTIFY_ROOT_UNMOUNTED);
	root.mount_point = false;

	root.dev++;
	assert_int_equal(upcc_fanotify_check_root(&fan, &root), UPCC_FANOTIFY_ROOT_NEW);
	upcc_hooks.no_fanotify = 1;	/* no mark on the host's build filesystem */
	upcc_fanotify_renew_root(&fan, &root, 1, 0);
	upcc_hooks.no_fanotify = 0;
	assert_int_equal(upcc_fanotify_check_root(&fan, &root), UPCC_FANOTIFY_ROOT_SAME);
	assert_false(root.marked);
	assert_int_equal(fds_open_on(sub), 0);

	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(upcc_fanotify_check_root(&fan, &root), UPCC_FANOTIFY_ROOT_MISSING);
	free(root.path);
	/* A bad path is refused and taken by nobody. */
	assert_int_equal(upcc_fanotify_root_init(&root, sub), -ENOENT);
	assert_null(root.path);
	ua_rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_others_events),
		cmocka_unit_test(test_overflow_asks_for_a_walk),
		cmocka_unit_test(test_stops_at_malformed),
		cmocka_unit_test(test_known_handle_once_per_drain),
		cmocka_unit_test(test_start_without_roots),
		cmocka_unit_test(test_mark_root_shares_a_marked_filesystem),
		cmocka_unit_test(test_parse_holds_no_root_fd),
		cmocka_unit_test(test_check_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
