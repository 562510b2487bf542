// SPDX-License-Identifier: GPL-2.0
/*
 * test_walk.c - the safe walker: what it visits, what it never opens.
 */
#include "lib/hooks.h"
#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "sys/walk.h"

static char tree[PATH_MAX];
static char outside[PATH_MAX];

struct visits {
	unsigned int count;
	unsigned int stop_after;	/* 0 = never */
	char seen[32][PATH_MAX];
};

static int record(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct visits *v = ctx;
	struct stat fd_st;

	assert_int_equal(fstat(fd, &fd_st), 0);
	assert_true(S_ISREG(fd_st.st_mode));
	assert_true(S_ISREG(st->st_mode));
	assert_true(fd_st.st_ino == st->st_ino);
	/* The walker opens read-only, never for writing. */
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	if (v->count < 32)
		snprintf(v->seen[v->count], PATH_MAX, "%s", path);
	v->count++;
	return v->stop_after && v->count >= v->stop_after ? 42 : 0;
}

static bool visited(const struct visits *v, const char *suffix)
{
	for (unsigned int i = 0; i < v->count && i < 32; i++) {
		size_t len = strlen(v->seen[i]), slen = strlen(suffix);

		if (len >= slen && strcmp(v->seen[i] + len - slen, suffix) == 0)
			return true;
	}
	return false;
}

static void make(const char *rel, const char *text)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	assert_int_equal(ua_write_file(path, text), 0);
}

static int setup(void **state)
{
	char path[PATH_MAX * 2];
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char cwd[PATH_MAX];
	int sock;

	(void)state;
	if (!ua_mkdtemp(tree, sizeof(tree)) || !ua_mkdtemp(outside, sizeof(outside)))
		return -1;
	snprintf(path, sizeof(path), "%s/a/b/c", tree);
	ua_mkdir_p(path);
	make("top", "1");
	make("a/one", "1");
	make("a/b/two", "2");
	make("a/b/c/three", "3");
	snprintf(path, sizeof(path), "%s/secret", outside);
	ua_write_file(path, "outside");
	snprintf(path, sizeof(path), "%s/link-file", tree);
	if (symlink(outside, path) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/secret", outside);
	{
		char link[PATH_MAX * 2];

		snprintf(link, sizeof(link), "%s/a/link-secret", tree);
		if (symlink(path, link) < 0)
			return -1;
	}
	snprintf(path, sizeof(path), "%s/a/fifo", tree);
	if (mkfifo(path, 0600) < 0)
		return -1;
	/* A socket; bound to a short relative path (sun_path is 108 bytes). */
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	if (chdir(tree) == 0) {
		sock = socket(AF_UNIX, SOCK_STREAM, 0);
		snprintf(addr.sun_path, sizeof(addr.sun_path), "sock");
		if (sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
			return -1;
		close(sock);
		if (chdir(cwd) < 0)
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ua_rm_rf(tree);
	ua_rm_rf(outside);
	return 0;
}

static void test_visits_regular_files_only(void **state)
{
	struct upcc_walk_stats stats;
	struct visits v = { 0 };

	(void)state;
	assert_int_equal(upcc_walk(tree, NULL, record, &v, &stats), 0);
	assert_int_equal(v.count, 4);
	assert_int_equal(stats.files, 4);
	assert_true(visited(&v, "/top"));
	assert_true(visited(&v, "/a/one"));
	assert_true(visited(&v, "/a/b/two"));
	assert_true(visited(&v, "/a/b/c/three"));
	assert_false(visited(&v, "secret"));
	/* two symlinks, a FIFO, a socket */
	assert_int_equal(stats.skipped_special, 4);
	assert_int_equal(stats.dirs, 4);
	assert_int_equal(stats.errors, 0);
}

static void test_depth_cap(void **state)
{
	struct upcc_walk_options options = { .max_depth = 2 };
	struct upcc_walk_stats stats;
	struct visits v = { 0 };

	(void)state;
	assert_int_equal(upcc_walk(tree, &options, record, &v, &stats), 0);
	assert_int_equal(v.count, 2);		/* top, a/one: a/b is level 3 */
	assert_true(stats.skipped_depth > 0);
}

/*
 * "exclude =": a directory named is never entered (its files never handed
 * over, its subdirectories never opened), a file named never handed over;
 * both counted apart.  A root spelled with a trailing '/' matches alike.
 */
static void test_exclude(void **state)
{
	static const char exclude[] = "a/b\0top\0";
	struct upcc_walk_options options = { .exclude = exclude };
	struct upcc_walk_stats stats;
	struct visits v = { 0 };
	char root[PATH_MAX + 2];

	(void)state;
	assert_int_equal(upcc_walk(tree, &options, record, &v, &stats), 0);
	assert_int_equal(v.count, 1);
	assert_true(visited(&v, "/a/one"));
	assert_false(visited(&v, "/a/b/two"));
	assert_false(visited(&v, "/a/b/c/three"));
	assert_false(visited(&v, "/top"));
	assert_int_equal(stats.skipped_excluded, 2);
	assert_int_equal(stats.dirs, 2);	/* the root and a: never a/b, a/b/c */

	snprintf(root, sizeof(root), "%s/", tree);
	memset(&v, 0, sizeof(v));
	assert_int_equal(upcc_walk(root, &options, record, &v, &stats), 0);
	assert_int_equal(v.count, 1);
	assert_int_equal(stats.skipped_excluded, 2);

	/* A name that only starts like an excluded one is walked. */
	options.exclude = "a/b/c/thr\0a/on\0";
	memset(&v, 0, sizeof(v));
	assert_int_equal(upcc_walk(tree, &options, record, &v, &stats), 0);
	assert_int_equal(v.count, 4);
	assert_int_equal(stats.skipped_excluded, 0);
}

static void test_callback_stops_walk(void **state)
{
	struct upcc_walk_stats stats;
	struct visits v = { .stop_after = 2 };

	(void)state;
	assert_int_equal(upcc_walk(tree, NULL, record, &v, &stats), 42);
	assert_int_equal(v.count, 2);
}

static void test_bad_roots(void **state)
{
	char path[PATH_MAX * 2];
	struct upcc_walk_stats stats;
	struct visits v = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/link-file", tree);
	assert_int_equal(upcc_walk(path, NULL, record, &v, &stats), -ELOOP);
	snprintf(path, sizeof(path), "%s/a/fifo", tree);
	assert_int_equal(upcc_walk(path, NULL, record, &v, &stats), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/missing", tree);
	assert_int_equal(upcc_walk(path, NULL, record, &v, &stats), -ENOENT);
	assert_int_equal(upcc_walk("/proc", NULL, record, &v, &stats), -EMEDIUMTYPE);
	assert_int_equal(upcc_walk("/sys", NULL, record, &v, &stats), -EMEDIUMTYPE);
	assert_int_equal(upcc_walk("", NULL, record, &v, &stats), -EINVAL);
	assert_int_equal(v.count, 0);
}

static void test_single_file_root(void **state)
{
	char path[PATH_MAX * 2];
	struct upcc_walk_stats stats;
	struct visits v = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/a/one", tree);
	assert_int_equal(upcc_walk(path, NULL, record, &v, &stats), 0);
	assert_int_equal(v.count, 1);
	assert_string_equal(v.seen[0], path);
}

static void test_open_regular(void **state)
{
	struct stat st, other;
	int dirfd = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	(void)state;
	assert_true(dirfd >= 0);
	assert_int_equal(upcc_open_regular(dirfd, "link-file", NULL, &st), -ELOOP);
	assert_int_equal(upcc_open_regular(dirfd, "a/fifo", NULL, &st), -EINVAL);
	assert_int_equal(upcc_open_regular(dirfd, "a", NULL, &st), -EINVAL);
	assert_int_equal(upcc_open_regular(dirfd, "sock", NULL, &st), -EINVAL);
	fd = upcc_open_regular(dirfd, "top", NULL, &st);
	assert_true(fd >= 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	/* Expecting another inode (a file replaced since the walk saw it). */
	assert_int_equal(fstatat(dirfd, "a/one", &other, 0), 0);
	assert_int_equal(upcc_open_regular(dirfd, "top", &other, &st), -ESTALE);
	close(dirfd);
}

struct long_visit {
	unsigned int files;
	char *path;		/* the last file's path, whole */
};

static int record_long(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct long_visit *lv = ctx;

	(void)fd;
	(void)st;
	lv->files++;
	free(lv->path);
	lv->path = strdup(path);
	return 0;
}

/*
 * Hostile review L2: a file whose path passes PATH_MAX (21 levels of
 * 250-byte names) is walked like any other, handed over with its whole
 * path, and opened again by that path; nothing is "deeper than 64 levels".
 * It was left out and counted as too deep.  The long path's tail is
 * resolved without following a symlink.
 */
static void test_long_path_walked(void **state)
{
	char base[PATH_MAX + 16], *file, *dir, *link_path;
	struct upcc_walk_stats stats;
	struct long_visit lv = { 0 };
	struct stat want, st;
	int fd;

	(void)state;
	snprintf(base, sizeof(base), "%s/long", tree);
	assert_int_equal(mkdir(base, 0755), 0);
	file = ua_long_path_file(base, 21, "deepfile", 2, &fd);
	assert_non_null(file);
	assert_true(strlen(file) >= PATH_MAX);
	assert_int_equal(fstat(fd, &want), 0);
	close(fd);

	assert_int_equal(upcc_walk(base, NULL, record_long, &lv, &stats), 0);
	assert_int_equal(stats.files, 1);
	assert_int_equal(stats.dirs, 22);
	assert_int_equal(stats.skipped_depth, 0);
	assert_int_equal(stats.errors, 0);
	assert_int_equal(lv.files, 1);
	assert_string_equal(lv.path, file);

	fd = upcc_open_regular_path(lv.path, &want, &st);
	assert_true(fd >= 0);
	assert_true(st.st_ino == want.st_ino);
	close(fd);
	assert_int_equal(upcc_lstat_path(lv.path, &st), 0);
	assert_true(st.st_ino == want.st_ino);
	/* Not another inode, as for a short path. */
	assert_int_equal(stat(tree, &st), 0);
	assert_int_equal(upcc_open_regular_path(lv.path, &st, &want), -ESTALE);

	/* A symlink in the tail, past the first PATH_MAX bytes: level 20
	 * holds lnk -> ".", so ".../lnk/LLL.../deepfile" names the same file.
	 */
	fd = ua_long_dir(base, 20, &dir);
	assert_true(fd >= 0);
	assert_int_equal(symlinkat(".", fd, "lnk"), 0);
	close(fd);
	link_path = malloc(strlen(file) + sizeof("/lnk"));
	assert_non_null(link_path);
	sprintf(link_path, "%s/lnk%s", dir, file + strlen(dir));
	assert_true(strlen(dir) >= PATH_MAX);
	assert_true(upcc_open_regular_path(link_path, NULL, &st) < 0);
	assert_true(upcc_lstat_path(link_path, &st) < 0);
	free(link_path);
	free(dir);
	free(lv.path);
	free(file);
	ua_rm_rf(base);
}

/* What the bind-mount child saw: its walks and the mount ids. */
struct bind_seen {
	int skip;				/* no private mount namespace here */
	struct upcc_walk_stats walk, cross;
	unsigned int files, cross_files;
	bool saw_secret, cross_saw_secret;
	int ids_ok;				/* the root's and the bind's ids read */
	uint64_t root_id, bind_id, root_fdinfo, bind_fdinfo;
};

static int record_secret(void *ctx, int fd, const struct stat *st, const char *path)
{
	bool *saw = ctx;

	(void)fd;
	(void)st;
	if (strstr(path, "/secret"))
		*saw = true;
	return 0;
}

/* In a private mount namespace of its own (gone when it exits, so there
 * is nothing to unmount): @outside bound on @bind, the tree below @root
 * walked without and with cross_mounts.
 */
static void bind_child(const char *root, const char *bind, struct bind_seen *seen)
{
	struct upcc_walk_options cross = { .cross_mounts = true };
	int fd;

	if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(outside, bind, "none", MS_BIND, NULL) < 0) {
		seen->skip = 1;
		return;
	}
	upcc_walk(root, NULL, record_secret, &seen->saw_secret, &seen->walk);
	upcc_walk(root, &cross, record_secret, &seen->cross_saw_secret, &seen->cross);
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	seen->ids_ok = fd >= 0 && upcc_mount_id(fd, &seen->root_id) == 0 &&
		       upcc_mount_id_fdinfo(fd, &seen->root_fdinfo) == 0;
	close(fd);
	fd = open(bind, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	seen->ids_ok = seen->ids_ok && fd >= 0 && upcc_mount_id(fd, &seen->bind_id) == 0 &&
		       upcc_mount_id_fdinfo(fd, &seen->bind_fdinfo) == 0;
	close(fd);
}

/*
 * Hostile review L3: a bind mount of a directory outside the tree, of the
 * same filesystem, inside the tree is another mount: not walked unless
 * cross_mounts, counted as a skipped mount.  Its st_dev is the tree's, so
 * the walk went through it, and upcd evicted the outside file.  Needs
 * root (CAP_SYS_ADMIN for the namespace); skipped without.
 */
static void test_bind_mount_is_a_mount(void **state)
{
	char root[PATH_MAX + 16], bind[PATH_MAX + 32], own[PATH_MAX + 32];
	struct bind_seen *seen;
	pid_t pid;
	int status;

	(void)state;
	snprintf(root, sizeof(root), "%s/bt", tree);
	snprintf(bind, sizeof(bind), "%s/bindin", root);
	snprintf(own, sizeof(own), "%s/own", root);
	assert_int_equal(ua_mkdir_p(bind), 0);
	assert_int_equal(ua_write_file(own, "own"), 0);
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(seen != MAP_FAILED);
	memset(seen, 0, sizeof(*seen));
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		bind_child(root, bind, seen);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	ua_rm_rf(root);
	if (seen->skip) {
		munmap(seen, sizeof(*seen));
		skip();
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(seen->walk.files, 1);		/* own, not secret */
	assert_false(seen->saw_secret);
	assert_int_equal(seen->walk.skipped_mounts, 1);
	assert_int_equal(seen->walk.errors, 0);
	/* The negative control: with cross_mounts it is walked. */
	assert_int_equal(seen->cross.files, 2);
	assert_true(seen->cross_saw_secret);
	assert_int_equal(seen->cross.skipped_mounts, 0);
	/* statx and the fdinfo fallback name the same mounts, two of them. */
	assert_true(seen->ids_ok);
	assert_true(seen->root_id == seen->root_fdinfo);
	assert_true(seen->bind_id == seen->bind_fdinfo);
	assert_true(seen->root_id != seen->bind_id);
	munmap(seen, sizeof(*seen));
}

static void test_pseudo_magics(void **state)
{
	(void)state;
	assert_true(upcc_fs_is_pseudo(0x9fa0));		/* proc */
	assert_true(upcc_fs_is_pseudo(0x01021994));	/* tmpfs */
	assert_true(upcc_fs_is_pseudo(0x63677270));	/* cgroup2 */
	assert_false(upcc_fs_is_pseudo(0xef53));		/* ext4 */
	assert_false(upcc_fs_is_pseudo(0x58465342));	/* xfs */
}

/* What an initramfs guest with a disk on /data shows, plus odd lines. */
static const char mountinfo_text[] =
	"1 1 0:2 / / rw - rootfs rootfs rw\n"				/* initramfs root */
	"20 1 0:20 / /proc rw,nosuid shared:5 - proc proc rw\n"
	"21 1 0:21 / /sys rw shared:6 master:1 - sysfs sysfs rw\n"	/* two optional fields */
	"22 1 0:5 / /dev rw - devtmpfs devtmpfs rw,size=10k\n"
	"23 1 0:22 / /run rw - tmpfs tmpfs rw\n"
	"30 1 254:16 / /data rw,relatime shared:7 - ext4 /dev/vdb rw\n"
	"31 1 254:16 / /data2 rw - ext4 /dev/vdb rw\n"			/* bind of / again */
	"32 1 254:16 /srv /my\\040srv rw - ext4 /dev/vdb rw\n"		/* bind of a subtree */
	"33 1 254:32 / /mnt/usb\\040key rw - vfat /dev/sdb1 rw\n"
	"34 1 0:40 / /merged rw - overlay overlay rw,lowerdir=/a\n"
	"35 1 0:41 / /net rw - nfs4 server:/export rw\n"
	"36 1 0:42 / /home/u/sshfs rw - fuse.sshfs u@h: rw\n"
	"37 1 0:43 / /pool rw - zfs tank/data rw\n"			/* source not a path */
	"38 1 7:0 / /snap/core rw - squashfs /dev/loop0 ro\n"
	"39 1 0:44 / /weird rw - mystery none rw\n"			/* unknown, no device */
	"garbage\n"
	"40 1 nodev / /x rw - ext4 /dev/vdc rw\n"			/* bad major:minor */
	"41 1 8:1 / /nosep rw ext4 /dev/sda1 rw\n"			/* no " - " */
	"42 1 8:2 / /short rw - ext4";					/* no source, no newline */

static void test_mounts_parse(void **state)
{
	struct upcc_mount_list list = { 0 };

	(void)state;
	assert_int_equal(upcc_mounts_parse(&list, mountinfo_text), 0);
	assert_int_equal(list.count, 5);
	assert_string_equal(list.mounts[0].mount_point, "/data");
	assert_true(list.mounts[0].dev == makedev(254, 16));
	assert_string_equal(list.mounts[0].root, "/");
	assert_string_equal(list.mounts[0].fstype, "ext4");
	assert_string_equal(list.mounts[0].source, "/dev/vdb");
	/* /data2 shows the same filesystem and subtree as /data: walked once. */
	assert_string_equal(list.mounts[1].mount_point, "/my srv");
	assert_string_equal(list.mounts[1].root, "/srv");
	assert_string_equal(list.mounts[2].mount_point, "/mnt/usb key");
	assert_string_equal(list.mounts[2].fstype, "vfat");
	assert_string_equal(list.mounts[3].mount_point, "/pool");
	assert_string_equal(list.mounts[4].mount_point, "/snap/core");
	assert_int_equal(list.skipped, 14);
	upcc_mounts_free(&list);

	/* Nothing local at all is an empty list, not an error. */
	assert_int_equal(upcc_mounts_parse(&list, "1 1 0:2 / / rw - rootfs rootfs rw\n"), 0);
	assert_int_equal(list.count, 0);
	assert_int_equal(upcc_mounts_parse(&list, ""), 0);
	assert_int_equal(list.count, 0);
	upcc_mounts_free(&list);
}

static void test_mount_rules(void **state)
{
	(void)state;
	assert_true(upcc_mount_is_local_disk("ext4", "/dev/vda"));
	assert_true(upcc_mount_is_local_disk("xfs", "/dev/mapper/vg-root"));
	assert_true(upcc_mount_is_local_disk("btrfs", "none"));		/* known type */
	assert_true(upcc_mount_is_local_disk("someblockfs", "/dev/sdz9"));	/* a device */
	assert_false(upcc_mount_is_local_disk("tmpfs", "/dev/shm"));	/* type wins */
	assert_false(upcc_mount_is_local_disk("ramfs", "ramfs"));
	assert_false(upcc_mount_is_local_disk("overlay", "overlay"));
	assert_false(upcc_mount_is_local_disk("fuseblk", "/dev/sdb1"));
	assert_false(upcc_mount_is_local_disk("nfs", "host:/x"));
	assert_false(upcc_mount_is_local_disk("cifs", "//host/share"));
	assert_false(upcc_mount_is_local_disk("virtiofs", "share"));
	assert_false(upcc_mount_is_local_disk("hostfs", "/dev/root"));	/* UML's root */
	assert_false(upcc_mount_is_local_disk("vboxsf", "share"));
	assert_false(upcc_mount_is_local_disk("mystery", "none"));
	assert_false(upcc_mount_is_local_disk("", "/dev/sda"));
	assert_false(upcc_mount_is_local_disk(NULL, "/dev/sda"));
}

/* Loading keeps only mount points that stat to the listed device here:
 * the test's own directory, not one whose device is wrong or missing.
 */
static void test_mounts_load_fixture(void **state)
{
	char fixture[PATH_MAX + 32], text[8 * PATH_MAX], sub[PATH_MAX + 8];
	struct upcc_mount_list list;
	struct stat st;

	(void)state;
	assert_int_equal(stat(tree, &st), 0);
	snprintf(sub, sizeof(sub), "%s/a", tree);
	snprintf(text, sizeof(text),
		 "1 0 %u:%u / %s rw - ext4 /dev/test rw\n"
		 "2 0 %u:%u /a %s rw - ext4 /dev/test rw\n"
		 "3 0 %u:%u / %s/nonexistent rw - ext4 /dev/test rw\n"
		 "4 0 %u:%u /other %s rw - ext4 /dev/other rw\n"
		 "5 0 0:99 / /proc rw - proc proc rw\n",
		 major(st.st_dev), minor(st.st_dev), tree, major(st.st_dev), minor(st.st_dev), sub,
		 major(st.st_dev), minor(st.st_dev), tree,
		 major(st.st_dev) + 1, minor(st.st_dev), tree);
	snprintf(fixture, sizeof(fixture), "%s/mountinfo", outside);
	assert_int_equal(ua_write_file(fixture, text), 0);
	assert_int_equal(upcc_mounts_load(&list, fixture), 0);
	assert_int_equal(list.count, 2);
	assert_string_equal(list.mounts[0].mount_point, tree);
	assert_string_equal(list.mounts[1].mount_point, sub);
	assert_int_equal(list.skipped, 3);	/* missing, wrong device, proc */
	upcc_mounts_free(&list);

	upcc_hooks.mountinfo = fixture;
	assert_int_equal(upcc_mounts_load(&list, NULL), 0);
	upcc_hooks.mountinfo = NULL;
	assert_int_equal(list.count, 2);
	upcc_mounts_free(&list);
	snprintf(fixture, sizeof(fixture), "%s/no-such-mountinfo", outside);
	assert_int_equal(upcc_mounts_load(&list, fixture), -ENOENT);
	assert_int_equal(list.count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visits_regular_files_only),
		cmocka_unit_test(test_depth_cap),
		cmocka_unit_test(test_exclude),
		cmocka_unit_test(test_callback_stops_walk),
		cmocka_unit_test(test_bad_roots),
		cmocka_unit_test(test_single_file_root),
		cmocka_unit_test(test_open_regular),
		cmocka_unit_test(test_long_path_walked),
		cmocka_unit_test(test_bind_mount_is_a_mount),
		cmocka_unit_test(test_pseudo_magics),
		cmocka_unit_test(test_mounts_parse),
		cmocka_unit_test(test_mount_rules),
		cmocka_unit_test(test_mounts_load_fixture),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
