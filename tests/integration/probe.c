// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - the integration suite's independent instruments: residency by
 * raw cachestat(2) (own code, not src/sys/residency.c, so upcd is not measured
 * with its own ruler), a process that keeps a file mapped, and a FIFO
 * watcher that notices if anyone opens a FIFO for reading.
 *
 *   probe stat FILE...        "cached dirty writeback evicted" per file, in pages
 *                             (evicted counts the kernel's reclaim only: it
 *                             leaves shadow entries, DONTNEED does not)
 *   probe sum FILE...         the sums of the same, one line
 *   probe drop FILE...        POSIX_FADV_DONTNEED each whole file: the tests'
 *                             own invalidation, so a negative control drops
 *                             and re-reads what upcd would, without upcd
 *   probe map FILE            mmap, touch every page, print "ready", wait
 *   probe pfns FILE           mmap, touch every page, print "INDEX PFN" per page
 *                             (/proc/self/pagemap, root), unmap: where each
 *                             page of a cached file lies in physical memory
 *   probe missing FILE        the index of each page not cached (mincore)
 *   probe fifo-watch FIFO SEC try to open FIFO for writing (non-blocking)
 *                             every 10 ms for SEC seconds; print how many
 *                             opens succeeded (each means a reader had it open)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sys/cachestat.h"

static int measure(const char *path, struct upcc_cachestat *out)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int err;

	if (fd < 0) {
		fprintf(stderr, "probe: %s: %s\n", path, strerror(errno));
		return -1;
	}
	err = upcc_cachestat_fd(fd, out);
	close(fd);
	if (err) {
		fprintf(stderr, "probe: cachestat %s: %s\n", path, strerror(-err));
		return -1;
	}
	return 0;
}

static int cmd_stat(int argc, char **argv, int sum)
{
	struct upcc_cachestat total = { 0 }, one;

	for (int i = 0; i < argc; i++) {
		if (measure(argv[i], &one))
			return 1;
		if (!sum)
			printf("%llu %llu %llu %llu\n", (unsigned long long)one.nr_cache,
			       (unsigned long long)one.nr_dirty,
			       (unsigned long long)one.nr_writeback,
			       (unsigned long long)one.nr_evicted);
		total.nr_cache += one.nr_cache;
		total.nr_dirty += one.nr_dirty;
		total.nr_writeback += one.nr_writeback;
		total.nr_evicted += one.nr_evicted;
	}
	if (sum)
		printf("%llu %llu %llu %llu\n", (unsigned long long)total.nr_cache,
		       (unsigned long long)total.nr_dirty, (unsigned long long)total.nr_writeback,
		       (unsigned long long)total.nr_evicted);
	return 0;
}

static int cmd_drop(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		int err;

		if (fd < 0) {
			fprintf(stderr, "probe: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
		if (err) {
			fprintf(stderr, "probe: fadvise %s: %s\n", argv[i], strerror(err));
			return 1;
		}
	}
	return 0;
}

static int cmd_map(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	volatile char sink = 0;
	char *map;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0)
		return 1;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 1;
	for (off_t off = 0; off < st.st_size; off += page)
		sink += map[off];
	(void)sink;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

/* Map @path whole; *pages its length in pages. */
static unsigned char *map_whole(const char *path, size_t *pages)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *map;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*pages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
	map = mmap(NULL, *pages * (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return map == MAP_FAILED ? NULL : map;
}

static int cmd_pfns(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned char sink = 0;
	size_t pages;
	unsigned char *map = map_whole(path, &pages);
	int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (!map || pagemap < 0)
		return 1;
	for (size_t i = 0; i < pages; i++)
		sink += map[i * (size_t)page];
	(void)sink;
	for (size_t i = 0; i < pages; i++) {
		uint64_t entry;
		off_t at = (off_t)(((uintptr_t)map / (uintptr_t)page + i) * sizeof(entry));

		if (pread(pagemap, &entry, sizeof(entry), at) != sizeof(entry))
			return 1;
		/* Bit 63: present; bits 0-54: the PFN (0 without CAP_SYS_ADMIN). */
		printf("%zu %llu\n", i,
		       (entry >> 63) ? (unsigned long long)(entry & ((1ull << 55) - 1)) : 0ull);
	}
	close(pagemap);
	munmap(map, pages * (size_t)page);
	return 0;
}

static int cmd_missing(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages;
	unsigned char *map = map_whole(path, &pages), *vec;

	if (!map || !(vec = malloc(pages)) || mincore(map, pages * (size_t)page, vec) < 0)
		return 1;
	for (size_t i = 0; i < pages; i++)
		if (!(vec[i] & 1))
			printf("%zu\n", i);
	free(vec);
	munmap(map, pages * (size_t)page);
	return 0;
}

static int cmd_fifo_watch(const char *path, int seconds)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	long rounds = seconds * 100L, opened = 0;

	for (long i = 0; i < rounds; i++) {
		/* O_WRONLY|O_NONBLOCK on a FIFO: ENXIO unless a reader has it open. */
		int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0) {
			opened++;
			close(fd);
		}
		nanosleep(&tick, NULL);
	}
	printf("%ld\n", opened);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "stat") == 0)
		return cmd_stat(argc - 2, argv + 2, 0);
	if (argc >= 3 && strcmp(argv[1], "sum") == 0)
		return cmd_stat(argc - 2, argv + 2, 1);
	if (argc >= 3 && strcmp(argv[1], "drop") == 0)
		return cmd_drop(argc - 2, argv + 2);
	if (argc == 3 && strcmp(argv[1], "map") == 0)
		return cmd_map(argv[2]);
	if (argc == 3 && strcmp(argv[1], "pfns") == 0)
		return cmd_pfns(argv[2]);
	if (argc == 3 && strcmp(argv[1], "missing") == 0)
		return cmd_missing(argv[2]);
	if (argc == 4 && strcmp(argv[1], "fifo-watch") == 0)
		return cmd_fifo_watch(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: probe stat|sum|drop FILE... | map|pfns|missing FILE | fifo-watch FIFO SEC\n");
	return 2;
}
