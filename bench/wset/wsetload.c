// SPDX-License-Identifier: GPL-2.0
/*
 * wsetload - the working-set benchmark's load and measures (bench/wset/run.sh):
 *
 *   wsetload hot DIR SECONDS PERIOD_MS     re-read every file in DIR every
 *       PERIOD_MS; before each read, cachestat says how much of it was
 *       still cached: prints "hit_ratio R" (pages found / pages read,
 *       the first, cold pass left out)
 *   wsetload stream DIR SECONDS MIB_PER_S  read DIR's files in turn, over
 *       and over, at that rate: prints "streamed_bytes N" and
 *       "device_read_bytes M" (its own reads that went to the disk, from
 *       /proc/self/io: W5 takes them out of the loop device's count)
 *   wsetload monitor DIR SECONDS TARGET_MIB  every 20 ms, the cached pages of
 *       every file below DIR (LIST_DEPTH levels): prints
 *       "peak_over_target_mib X", "cached_end_mib Y" and "cached_mean_mib Z"
 *   wsetload evict DIR                      drop DIR's files' clean cache
 *
 * Its own cachestat, not upcd's residency code: the daemon is not measured
 * against itself.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/cachestat.h"

/* A PostgreSQL data directory (W5) holds ~1,000 files in base/OID/. */
#define MAX_FILES	16384
#define LIST_DEPTH	8
#define CHUNK		(1u << 20)

static char *files[MAX_FILES];
static size_t nr_files;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Regular files in @dir and, with @depth 2, in its subdirectories. */
static void list(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		perror(dir);
		exit(1);
	}
	while ((de = readdir(d)) && nr_files < MAX_FILES) {
		char path[4096];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISREG(st.st_mode))
			files[nr_files++] = strdup(path);
		else if (S_ISDIR(st.st_mode) && depth > 1)
			list(path, depth - 1);
	}
	closedir(d);
	qsort(files, nr_files, sizeof(files[0]), by_name);
}

static uint64_t cached_pages(int fd)
{
	struct upcc_cachestat cs;

	return upcc_cachestat_fd(fd, &cs) ? 0 : cs.nr_cache;
}

static int hot(double seconds, double period)
{
	static char buf[CHUNK];
	uint64_t found = 0, read_pages = 0;
	long page = sysconf(_SC_PAGESIZE);
	double end = now_s() + seconds;

	/* The first pass reads the set in (cold): it is not counted. */
	for (int pass = 0; now_s() < end; pass++) {
		double next = now_s() + period;

		for (size_t i = 0; i < nr_files; i++) {
			int fd = open(files[i], O_RDONLY);
			struct stat st;

			if (fd < 0 || fstat(fd, &st)) {
				perror(files[i]);
				return 1;
			}
			if (pass) {
				found += cached_pages(fd);
				read_pages += ((uint64_t)st.st_size + (uint64_t)page - 1) /
					      (uint64_t)page;
			}
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		}
		sleep_s(next - now_s());
	}
	printf("hit_ratio %.4f\nhot_pages_read %llu\n",
	       read_pages ? (double)found / (double)read_pages : 1.0,
	       (unsigned long long)read_pages);
	return 0;
}

/* The bytes this process has had read from storage (readahead included):
 * /proc/self/io's read_bytes, 0 where task I/O accounting is off.
 */
static uint64_t self_read_bytes(void)
{
	unsigned long long v = 0;
	char line[128];
	FILE *f = fopen("/proc/self/io", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "read_bytes: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int stream(double seconds, double mib_per_s)
{
	static char buf[CHUNK];
	double start = now_s(), end = start + seconds;
	uint64_t streamed = 0, read0 = self_read_bytes();

	for (size_t i = 0; now_s() < end; i = (i + 1) % nr_files) {
		int fd = open(files[i], O_RDONLY);
		ssize_t n;

		if (fd < 0) {
			perror(files[i]);
			return 1;
		}
		while (now_s() < end && (n = read(fd, buf, sizeof(buf))) > 0) {
			streamed += (uint64_t)n;
			/* paced: never ahead of the rate */
			sleep_s(start + (double)streamed / (mib_per_s * 1048576.0) - now_s());
		}
		close(fd);
	}
	printf("streamed_bytes %llu\ndevice_read_bytes %llu\n", (unsigned long long)streamed,
	       (unsigned long long)(self_read_bytes() - read0));
	return 0;
}

/* The files are opened once: an open every 20 ms would be an event for
 * upcd's fanotify mark each time, and the monitor would load what it
 * measures.
 */
static int fds[MAX_FILES];

static uint64_t total_cached(void)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < nr_files; i++)
		if (fds[i] >= 0)
			sum += cached_pages(fds[i]);
	return sum;
}

static int monitor(double seconds, double target_mib)
{
	double page_mib = (double)sysconf(_SC_PAGESIZE) / 1048576.0, peak = 0, end = now_s() + seconds;
	double sum = 0;
	uint64_t cached = 0, samples = 0;
	struct rlimit rl;

	/* Every file stays open: raise the soft limit as far as the hard one. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < nr_files + 16) {
		rl.rlim_cur = rl.rlim_max < nr_files + 16 ? rl.rlim_max : nr_files + 16;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (size_t i = 0; i < nr_files; i++)
		fds[i] = open(files[i], O_RDONLY | O_NOATIME);
	while (now_s() < end) {
		cached = total_cached();
		sum += (double)cached * page_mib;
		samples++;
		if ((double)cached * page_mib > peak)
			peak = (double)cached * page_mib;
		sleep_s(0.02);
	}
	printf("peak_over_target_mib %.1f\ncached_end_mib %.1f\ncached_mean_mib %.1f\n",
	       peak > target_mib ? peak - target_mib : 0.0, (double)cached * page_mib,
	       samples ? sum / (double)samples : 0.0);
	return 0;
}

static int evict(void)
{
	for (size_t i = 0; i < nr_files; i++) {
		int fd = open(files[i], O_RDONLY);

		if (fd < 0)
			continue;
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: wsetload hot|stream|monitor|evict DIR [ARGS]\n");
		return 2;
	}
	list(argv[2], strcmp(argv[1], "hot") && strcmp(argv[1], "stream") ? LIST_DEPTH : 1);
	if (!strcmp(argv[1], "hot") && argc == 5)
		return hot(atof(argv[3]), atof(argv[4]) / 1000.0);
	if (!strcmp(argv[1], "stream") && argc == 5)
		return stream(atof(argv[3]), atof(argv[4]));
	if (!strcmp(argv[1], "monitor") && argc == 5)
		return monitor(atof(argv[3]), atof(argv[4]));
	if (!strcmp(argv[1], "evict"))
		return evict();
	fprintf(stderr, "wsetload: bad arguments\n");
	return 2;
}
