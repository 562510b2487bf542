/* SPDX-License-Identifier: GPL-2.0 */
/*
 * helpers.h - small helpers for the residency/walk/inventory/backend unit
 * tests: temp trees on a real filesystem (build/, never tmpfs: the walker
 * refuses memory-backed filesystems) and files read into the cache.
 */
#ifndef UA_HELPERS_H
#define UA_HELPERS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh directory under build/ (the tests run from the repo root), else
 * under $TMPDIR or /var/tmp.
 */
static inline char *ua_mkdtemp(char *buf, size_t len)
{
	const char *bases[] = { "build", getenv("TMPDIR"), "/var/tmp" };

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		char tmpl[PATH_MAX], *dir;

		if (!bases[i] || access(bases[i], W_OK))
			continue;
		snprintf(tmpl, sizeof(tmpl), "%s/unit-ua-XXXXXX", bases[i]);
		dir = mkdtemp(tmpl);
		if (dir && realpath(dir, buf) && strlen(buf) < len)
			return buf;
	}
	return NULL;
}

static inline void ua_rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 32];

	if (dir && strstr(dir, "unit-ua-")) {	/* only ever our own temp dirs */
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", dir);
	}
}

/* Write @pages pages of data to @path, fsync it (clean), read it back so
 * all of it is cached.  0 or -1.
 */
/* Pages the host's own reclaim may take from a test's file while the test
 * looks at it: the host is shared, and its reclaim is not ours to stop.
 */
#define HOST_RECLAIM_SLACK 4

static inline int ua_cached_file(const char *path, unsigned int pages, int do_sync)
{
	long page = sysconf(_SC_PAGESIZE);
	char *buf = malloc((size_t)page);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ok = fd >= 0 && buf;

	for (unsigned int i = 0; ok && i < pages; i++) {
		memset(buf, 'a' + (int)(i % 26), (size_t)page);
		ok = write(fd, buf, (size_t)page) == page;
	}
	if (ok && do_sync)
		ok = fsync(fd) == 0;
	if (ok && lseek(fd, 0, SEEK_SET) == 0)
		while (read(fd, buf, (size_t)page) > 0)
			;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok ? 0 : -1;
}

static inline int ua_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static inline int ua_mkdir_p(const char *path)
{
	char cmd[PATH_MAX + 32];

	if (strlen(path) >= PATH_MAX)
		return -1;
	if (snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path) < 0)
		return -1;
	return system(cmd);
}

/* A 250-byte name: UA_LONG_NAME_LEN 'L's. */
#define UA_LONG_NAME_LEN	250

/*
 * The hostile review's L2 tree: @levels directories of 250-byte names
 * below @base (21 of them pass PATH_MAX, past which open() refuses a
 * path), made from each level's fd.  Returns the deepest directory's fd
 * and its path in *@path (malloc'd), or -1.
 */
static inline int ua_long_dir(const char *base, unsigned int levels, char **path)
{
	char part[UA_LONG_NAME_LEN + 1];
	int dirfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC), next;

	*path = malloc(strlen(base) + levels * sizeof(part) + 1);
	if (!*path || dirfd < 0)
		goto fail;
	strcpy(*path, base);
	memset(part, 'L', UA_LONG_NAME_LEN);
	part[UA_LONG_NAME_LEN] = '\0';
	for (unsigned int i = 0; i < levels; i++) {
		if (mkdirat(dirfd, part, 0755) < 0 && errno != EEXIST)
			goto fail;
		next = openat(dirfd, part, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(dirfd);
		dirfd = next;
		if (dirfd < 0)
			goto fail;
		strcat(strcat(*path, "/"), part);
	}
	return dirfd;
fail:
	if (dirfd >= 0)
		close(dirfd);
	free(*path);
	*path = NULL;
	return -1;
}

/*
 * @name at the bottom of ua_long_dir(@base, @levels), with @pages clean
 * pages, all cached.  Returns the file's path (malloc'd) and, in *@fd,
 * the file still open, for the test's own measures; NULL on failure.
 */
static inline char *ua_long_path_file(const char *base, unsigned int levels, const char *name,
				      unsigned int pages, int *fd)
{
	long page = sysconf(_SC_PAGESIZE);
	char *buf = malloc((size_t)page), *dir, *path = NULL;
	int dirfd = ua_long_dir(base, levels, &dir), ok;

	*fd = dirfd >= 0 ? openat(dirfd, name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	ok = buf && *fd >= 0;
	for (unsigned int i = 0; ok && i < pages; i++) {
		memset(buf, 'a' + (int)(i % 26), (size_t)page);
		ok = write(*fd, buf, (size_t)page) == page;
	}
	ok = ok && fsync(*fd) == 0 && lseek(*fd, 0, SEEK_SET) == 0;
	while (ok && read(*fd, buf, (size_t)page) > 0)
		;
	if (ok)
		path = malloc(strlen(dir) + strlen(name) + 2);
	if (path)
		strcat(strcat(strcpy(path, dir), "/"), name);
	else if (*fd >= 0)
		close(*fd);
	if (!path)
		*fd = -1;
	if (dirfd >= 0)
		close(dirfd);
	free(dir);
	free(buf);
	return path;
}

/*
 * Under valgrind, cachestat is an unknown syscall (ENOSYS: residency falls
 * back to mincore) and valgrind reads the head of every file a program
 * mmaps (to look for debug info), which caches those pages.  Tests that
 * need exact counts or cachestat's dirty state say so and skip there; the
 * plain and ASan runs cover them.
 */
static inline int ua_under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "vgpreload") != NULL;
}

/*
 * A stand-in for cachestat(2) (upcc_hooks.cachestat) that answers
 * ua_cachestat_err to every call: -EPERM is the kernel's answer to a
 * caller who neither owns the file nor may write it.
 */
struct upcc_cachestat;
static int ua_cachestat_err __attribute__((unused));

static inline int ua_refusing_cachestat(int fd, uint64_t off, uint64_t len,
					struct upcc_cachestat *cs)
{
	(void)fd;
	(void)off;
	(void)len;
	(void)cs;
	return ua_cachestat_err;
}

#endif /* UA_HELPERS_H */
