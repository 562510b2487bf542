// SPDX-License-Identifier: GPL-2.0
/*
 * v7probe - the guest's eyes for the v7 series' functional suite
 * (tests/kernel/v7/guest.sh).  Built static: the guest has busybox only.
 *
 *   v7probe cached FILE   pages of FILE in the page cache (cachestat(2))
 *   v7probe dirty FILE    pages of FILE dirty or under writeback
 *   v7probe map FILE      map FILE shared, read every page, print "mapped",
 *                         then sleep until killed (the mapping stays)
 *   v7probe lazyfree MIB  map MIB of anon memory, write every page, then
 *                         madvise(MADV_FREE) it (it moves to the inactive
 *                         file list), print "lazyfree", sleep until killed
 *   v7probe hotset FILE SECONDS
 *                         read FILE twice, then once every 200 ms for
 *                         SECONDS; before each read count its pages in the
 *                         cache: print "hit RATIO rounds N min MIN", RATIO
 *                         the share of reads that found their page cached
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cs_range {
	uint64_t off;
	uint64_t len;
};

struct cs {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

static int stat_file(const char *path, struct cs *out)
{
	struct cs_range r = { 0, 0 };	/* len 0: to the end of the file */
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return -1;
	}
	if (syscall(__NR_cachestat, fd, &r, out, 0)) {
		perror("cachestat");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int map_file(const char *path)
{
	struct stat st;
	volatile const char *p;
	unsigned long sum = 0;
	off_t off;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return 1;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (off = 0; off < st.st_size; off += 4096)
		sum += p[off];
	printf("mapped %lld bytes (%lu)\n", (long long)st.st_size, sum & 1);
	fflush(stdout);
	for (;;)
		pause();
}

static int lazyfree(long mib)
{
	size_t len = (size_t)mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;

	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (off = 0; off < len; off += 4096)
		p[off] = 1;
	if (madvise(p, len, MADV_FREE)) {
		perror("madvise");
		return 1;
	}
	printf("lazyfree %ld MiB\n", mib);
	fflush(stdout);
	for (;;)
		pause();
}

static int read_all(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -1 : 0;
}

static int hotset(const char *path, int seconds)
{
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	unsigned long long hit = 0, total = 0;
	double ratio, min = 1.0;
	struct stat st;
	struct cs c;
	int rounds = 0;
	time_t end;

	if (stat(path, &st) || read_all(path) || read_all(path))
		return 1;
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		unsigned long long pages = (st.st_size + 4095) / 4096;

		if (stat_file(path, &c))
			return 1;
		hit += c.nr_cache < pages ? c.nr_cache : pages;
		total += pages;
		ratio = (double)(c.nr_cache < pages ? c.nr_cache : pages) / pages;
		if (ratio < min)
			min = ratio;
		if (read_all(path))
			return 1;
		rounds++;
		nanosleep(&nap, NULL);
	}
	printf("hit %.4f rounds %d min %.4f\n", total ? (double)hit / total : 0.0,
	       rounds, min);
	return 0;
}

int main(int argc, char **argv)
{
	struct cs c;

	if (argc == 3 && !strcmp(argv[1], "map"))
		return map_file(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "lazyfree"))
		return lazyfree(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "hotset"))
		return hotset(argv[2], atoi(argv[3]));
	if (argc == 3 && (!strcmp(argv[1], "cached") || !strcmp(argv[1], "dirty"))) {
		if (stat_file(argv[2], &c))
			return 1;
		printf("%llu\n", (unsigned long long)(argv[1][0] == 'c' ? c.nr_cache :
			c.nr_dirty + c.nr_writeback));
		return 0;
	}
	fprintf(stderr, "usage: v7probe cached|dirty|map FILE, hotset FILE SECONDS, lazyfree MIB\n");
	return 2;
}
