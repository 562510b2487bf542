// SPDX-License-Identifier: GPL-2.0
/*
 * atomicfile.c - atomic file writes; see atomicfile.h.
 */
#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

#include "hooks.h"

/* How many random temporary names are tried before giving up. */
#define TEMP_TRIES	100

/* Every failure says why in @why: the rule it broke, or the error's text. */
static int refuse(char *why, size_t why_len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse(char *why, size_t why_len, int err, const char *fmt, ...)
{
	va_list args;

	if (why && why_len) {
		va_start(args, fmt);
		vsnprintf(why, why_len, fmt, args);
		va_end(args);
	}
	return err;
}

static int failed(char *why, size_t why_len, int err)
{
	return refuse(why, why_len, err, "%s", strerror(-err));
}

/*
 * The kernel's own check (5.6+): no symbolic link anywhere in @dir.  -ENOSYS
 * where there is no openat2; a seccomp filter that does not know it (older
 * container runtimes) answers -EPERM, which path resolution itself never
 * does (it says EACCES), so both mean "walk instead".
 */
static int open_dir_openat2(const char *dir)
{
#if defined(SYS_openat2) && defined(RESOLVE_NO_SYMLINKS)
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	long fd;

	if (upcc_hooks.no_openat2)
		return -ENOSYS;
	fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (fd < 0)
		return errno == EPERM ? -ENOSYS : -errno;
	return (int)fd;
#else
	(void)dir;
	return -ENOSYS;
#endif
}

/*
 * The same by hand, one component at a time with O_NOFOLLOW, for kernels
 * without openat2, and to name the symbolic link openat2 refused.  O_PATH:
 * like any path lookup, it needs search permission only, not read.
 */
static int open_dir_walk(const char *dir, char *why, size_t why_len)
{
	const int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
	const char *p = dir;
	int fd = open(dir[0] == '/' ? "/" : ".", flags);

	if (fd < 0)
		return failed(why, why_len, -errno);
	while (*p) {
		char name[NAME_MAX + 1];
		size_t len = strcspn(p, "/");
		struct stat st;
		int next;

		if (!len || (len == 1 && p[0] == '.')) {
			p += len + (p[len] == '/');
			continue;
		}
		if (len > NAME_MAX) {
			close(fd);
			return failed(why, why_len, -ENAMETOOLONG);
		}
		memcpy(name, p, len);
		name[len] = '\0';
		next = openat(fd, name, flags | O_NOFOLLOW);
		if (next < 0) {
			int err = -errno;

			if (!fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
				err = refuse(why, why_len, -ELOOP, "%.*s is a symbolic link",
					     (int)(p + len - dir), dir);
			else
				err = failed(why, why_len, err);
			close(fd);
			return err;
		}
		close(fd);
		fd = next;
		p += len + (p[len] == '/');
	}
	return fd;
}

/* Who may change what is in the directory: its owner, and anyone who may
 * write to it unless the sticky bit keeps them to their own names.
 */
static int check_dir(int fd, const char *dir, char *why, size_t why_len)
{
	uid_t euid = geteuid();
	struct stat st;

	if (fstat(fd, &st))
		return failed(why, why_len, -errno);
	if (!S_ISDIR(st.st_mode))
		return failed(why, why_len, -ENOTDIR);
	if (st.st_uid != 0 && st.st_uid != euid) {
		if (!euid)
			return refuse(why, why_len, -EPERM,
				      "directory %s is owned by uid %u, not by root",
				      dir, (unsigned int)st.st_uid);
		return refuse(why, why_len, -EPERM,
			      "directory %s is owned by uid %u, not by root or uid %u (ours)",
			      dir, (unsigned int)st.st_uid, (unsigned int)euid);
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return refuse(why, why_len, -EPERM,
			      "directory %s is writable by %s (mode %04o) without the sticky bit",
			      dir, (st.st_mode & S_IWGRP) && (st.st_mode & S_IWOTH) ?
			      "its group and others" : st.st_mode & S_IWGRP ? "its group" : "others",
			      (unsigned int)(st.st_mode & 07777));
	return 0;
}

int upcc_atomic_open_dir(const char *dir, char *why, size_t why_len)
{
	int fd = open_dir_openat2(dir);
	int err;

	if (fd == -ENOSYS || fd == -ELOOP)
		fd = open_dir_walk(dir, why, why_len);
	else if (fd < 0)
		return failed(why, why_len, fd);
	if (fd < 0)
		return fd;
	err = check_dir(fd, dir, why, why_len);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* UPCC_ATOMIC_MKDIR: make @dir in its parent, opened as safely, then open it. */
static int make_dir(const char *dir, char *why, size_t why_len)
{
	char parent[PATH_MAX];
	const char *name;
	char *slash;
	int fd;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (!slash)
		return failed(why, why_len, -ENOENT);
	name = dir + (slash - parent) + 1;
	if (slash == parent)
		slash++;	/* "/run": its parent is "/" */
	*slash = '\0';
	fd = upcc_atomic_open_dir(parent, why, why_len);
	if (fd < 0)
		return fd;
	if (mkdirat(fd, name, 0755) && errno != EEXIST) {
		int err = -errno;

		close(fd);
		return failed(why, why_len, err);
	}
	close(fd);
	return upcc_atomic_open_dir(dir, why, why_len);
}

/*
 * Six characters from getrandom; should the pool not be ready (early
 * boot), from the clock, the pid and a counter: still a name no one else
 * can count on, and O_EXCL refuses one that is taken either way.
 */
static void random_suffix(char out[7])
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned int counter;
	unsigned char bytes[6];

	if (getrandom(bytes, sizeof(bytes), GRND_NONBLOCK) != (ssize_t)sizeof(bytes)) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^
		    ((uint64_t)getpid() << 16) ^ (++counter * 0x9e3779b97f4a7c15ull);
		for (size_t i = 0; i < sizeof(bytes); i++)
			bytes[i] = (unsigned char)(x >> (8 * i));
	}
	for (size_t i = 0; i < sizeof(bytes); i++)
		out[i] = chars[bytes[i] % (sizeof(chars) - 1)];
	out[6] = '\0';
}

/*
 * The temporary file gets a random name, created with O_EXCL: in a
 * directory others may write to (sticky), a name they can guess is a
 * name they can take first, with a FIFO (our open would block for ever)
 * or a file of their own (which the rename would then publish as ours).
 */
static int open_temp(int dirfd, const char *base, char *temp, size_t temp_len)
{
	for (int i = 0; i < TEMP_TRIES; i++) {
		char suffix[7];
		int fd;

		random_suffix(suffix);
		if (snprintf(temp, temp_len, "%s.tmp.%s", base, suffix) >= (int)temp_len)
			return -ENAMETOOLONG;
		fd = openat(dirfd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t written = write(fd, data, len);

		if (written < 0 && errno == EINTR)
			continue;
		if (written < 0)
			return -errno;
		data += written;
		len -= (size_t)written;
	}
	return 0;
}

/* Write @data into @dirfd as @base, through a temporary and a rename. */
static int write_in(int dirfd, const char *base, const char *data, size_t len)
{
	char temp[NAME_MAX + 1];
	int fd, err;

	fd = open_temp(dirfd, base, temp, sizeof(temp));
	if (fd < 0)
		return fd;
	/* Made 0600; the report files are for every reader, whatever the umask. */
	err = fchmod(fd, 0644) ? -errno : 0;
	/* No fsync: the files are rewritten every round and after a crash at
	 * the first one, readers refuse a truncated state file, and an fsync
	 * on a busy disk held the loop (and the watchdog's ping) for 300 ms.
	 */
	if (!err)
		err = write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dirfd, temp, dirfd, base))
		err = -errno;
	if (err)
		unlinkat(dirfd, temp, 0);
	return err;
}

int upcc_atomic_open_parent(const char *path, unsigned int flags, const char **base,
			    char *why, size_t why_len)
{
	char dir[PATH_MAX];
	char *slash;
	int dirfd;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return failed(why, why_len, -ENAMETOOLONG);
	slash = strrchr(dir, '/');
	*base = slash ? path + (slash - dir) + 1 : path;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
		return failed(why, why_len, -EISDIR);
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';	/* "/state.json": the directory is "/" */
	dirfd = upcc_atomic_open_dir(dir, why, why_len);
	if (dirfd == -ENOENT && (flags & UPCC_ATOMIC_MKDIR))
		dirfd = make_dir(dir, why, why_len);
	return dirfd;
}

int upcc_atomic_write(const char *path, const char *data, size_t len, unsigned int flags,
		      char *why, size_t why_len)
{
	const char *base;
	int dirfd, err;

	dirfd = upcc_atomic_open_parent(path, flags, &base, why, why_len);
	if (dirfd < 0)
		return dirfd;
	err = write_in(dirfd, base, data, len);
	close(dirfd);
	return err ? failed(why, why_len, err) : 0;
}

int upcc_atomic_write_formatted(const char *path, unsigned int flags,
				int (*format)(FILE *out, void *ctx), void *ctx,
				char *why, size_t why_len)
{
	char *data = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&data, &len);
	int err;

	if (!out)
		return failed(why, why_len, -errno);
	err = format(out, ctx);
	if (fclose(out) && !err)
		err = -EIO;
	if (err)
		err = failed(why, why_len, err);
	else
		err = upcc_atomic_write(path, data, len, flags, why, why_len);
	free(data);
	return err;
}
