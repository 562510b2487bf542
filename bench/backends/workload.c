// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - the page cache workloads and probes of upcc's benchmark and
 * guest tests, in one static binary so that a UML or QEMU guest with only
 * busybox inside can run every part of them.
 *
 *   workload mkfiles DIR SIZE COUNT      make COUNT files of SIZE, non-zero
 *   workload stream DIR [--loop] [--rate MIB_PER_S]
 *                                        read DIR's files once, sequentially
 *   workload hotset DIR --passes N       re-read DIR's files, report hit ratio
 *   workload maphold FILE                mmap FILE, keep its pages touched
 *   workload sampler INTERVAL_MS OUT.tsv sample meminfo + vmstat into a TSV
 *   workload resident FILE...            page cache residency of files
 *   workload writedirty FILE SIZE        write FILE, leave its pages dirty
 *   workload dropper INTERVAL_MS         write 1 to drop_caches periodically
 *
 * SIZE takes K, M, G suffixes (powers of 1024).  Every subcommand prints
 * one "key value" line per result so that shell scripts can pick figures
 * out with awk; errors go to stderr and give a non-zero exit.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
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
#include "core/policy.h"

#define STREAM_BUFFER_BYTES	(4u << 20)
#define MAX_DIR_FILES		65536u
#define MAPHOLD_TICK_MSEC	100


static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t report_requested;

static void on_stop(int signo)
{
	(void)signo;
	stop_requested = 1;
}

static void on_report(int signo)
{
	(void)signo;
	report_requested = 1;
}

static void install_handlers(bool with_report)
{
	struct sigaction action;

	memset(&action, 0, sizeof(action));
	action.sa_handler = on_stop;
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	if (with_report) {
		action.sa_handler = on_report;
		sigaction(SIGUSR1, &action, NULL);
	}
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_msec(unsigned int msec)
{
	struct timespec ts = { .tv_sec = msec / 1000,
			       .tv_nsec = (long)(msec % 1000) * 1000000L };

	/* A signal cuts the sleep short, which is what a stop request wants. */
	nanosleep(&ts, NULL);
}

static long page_size(void)
{
	static long cached;

	if (!cached)
		cached = sysconf(_SC_PAGESIZE);
	return cached;
}

static uint64_t pages_of(uint64_t bytes)
{
	return (bytes + (uint64_t)page_size() - 1) / (uint64_t)page_size();
}

/* "64M" -> bytes.  Returns 0 and sets *bytes, or -1 for anything malformed. */
static int parse_size(const char *text, uint64_t *bytes)
{
	char *end;
	unsigned long long value;
	unsigned int shift = 0;

	if (!text || !*text || *text == '-')
		return -1;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno || end == text)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: return -1;
	}
	if (*end != '\0' || (shift && value > (UINT64_MAX >> shift)))
		return -1;
	*bytes = (uint64_t)value << shift;
	return 0;
}

static int parse_uint(const char *text, unsigned long *value)
{
	char *end;

	if (!text || !*text || *text == '-')
		return -1;
	errno = 0;
	*value = strtoul(text, &end, 10);
	return (errno || *end != '\0') ? -1 : 0;
}

/* ---- residency ------------------------------------------------------- */

struct residency {
	uint64_t total_pages;
	uint64_t cached_pages;
	uint64_t dirty_pages;		/* cachestat only */
	uint64_t writeback_pages;	/* cachestat only */
	bool from_cachestat;
};

static int residency_by_cachestat(int fd, struct residency *res)
{
	struct upcc_cachestat cs;
	int err = upcc_cachestat_fd(fd, &cs);

	if (err)
		return err;
	res->cached_pages = cs.nr_cache;
	res->dirty_pages = cs.nr_dirty;
	res->writeback_pages = cs.nr_writeback;
	res->from_cachestat = true;
	return 0;
}

/* mincore() of a mapping that is never touched: it faults nothing in. */
static int residency_by_mincore(int fd, uint64_t size, struct residency *res)
{
	unsigned char *vec;
	void *map;
	uint64_t i;

	if (size == 0)
		return 0;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	vec = malloc(res->total_pages);
	if (!vec || mincore(map, size, vec) != 0) {
		int err = vec ? -errno : -ENOMEM;

		free(vec);
		munmap(map, size);
		return err;
	}
	for (i = 0; i < res->total_pages; i++)
		res->cached_pages += vec[i] & 1;
	free(vec);
	munmap(map, size);
	return 0;
}

static int measure_residency(int fd, struct residency *res)
{
	static bool cachestat_missing;
	struct stat st;

	memset(res, 0, sizeof(*res));
	if (fstat(fd, &st) != 0)
		return -errno;
	res->total_pages = pages_of((uint64_t)st.st_size);
	if (!cachestat_missing) {
		int err = residency_by_cachestat(fd, res);

		if (err == 0)
			return 0;
		if (err != -ENOSYS)
			return err;
		cachestat_missing = true;
	}
	return residency_by_mincore(fd, (uint64_t)st.st_size, res);
}

/* ---- directory listing ----------------------------------------------- */

struct file_list {
	char **paths;
	size_t count;
};

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void file_list_free(struct file_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->paths[i]);
	free(list->paths);
	list->paths = NULL;
	list->count = 0;
}

/* The regular files directly in @dir, sorted, so every run reads in one order. */
static int file_list_load(const char *dir, struct file_list *list)
{
	struct dirent *entry;
	DIR *handle;

	list->paths = calloc(MAX_DIR_FILES, sizeof(*list->paths));
	list->count = 0;
	handle = opendir(dir);
	if (!list->paths || !handle) {
		fprintf(stderr, "workload: %s: %s\n", dir, strerror(errno));
		free(list->paths);
		if (handle)
			closedir(handle);
		return -1;
	}
	while ((entry = readdir(handle)) && list->count < MAX_DIR_FILES) {
		struct stat st;
		char *path;

		if (entry->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, entry->d_name) < 0)
			break;
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		list->paths[list->count++] = path;
	}
	closedir(handle);
	qsort(list->paths, list->count, sizeof(*list->paths), compare_paths);
	if (list->count == 0) {
		fprintf(stderr, "workload: %s: no regular files\n", dir);
		file_list_free(list);
		return -1;
	}
	return 0;
}

/* Read @path to its end with @buffer; returns bytes read or -1. */
static int64_t read_whole_file(const char *path, char *buffer, size_t buffer_len)
{
	int64_t total = 0;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_NOFOLLOW);

	if (fd < 0) {
		fprintf(stderr, "workload: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((got = read(fd, buffer, buffer_len)) > 0)
		total += got;
	if (got < 0)
		fprintf(stderr, "workload: %s: %s\n", path, strerror(errno));
	close(fd);
	return got < 0 ? -1 : total;
}

/* ---- mkfiles --------------------------------------------------------- */

/* Non-zero, file-specific content, so no filesystem can store it sparse. */
static void fill_pattern(char *buffer, size_t len, unsigned long seed)
{
	uint64_t state = 0x9e3779b97f4a7c15ull ^ seed;

	for (size_t i = 0; i < len; i++) {
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		buffer[i] = (char)((state >> 56) | 1);
	}
}

static int write_file(const char *path, uint64_t size, const char *buffer,
		      size_t buffer_len, bool sync)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint64_t done = 0;

	if (fd < 0) {
		fprintf(stderr, "workload: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (done < size) {
		size_t chunk = size - done < buffer_len ? (size_t)(size - done) : buffer_len;
		ssize_t put = write(fd, buffer, chunk);

		if (put <= 0) {
			fprintf(stderr, "workload: %s: %s\n", path,
				put < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		done += (uint64_t)put;
	}
	/* Clean files make a fair start: nothing for reclaim to write back. */
	if (sync && fsync(fd) != 0) {
		fprintf(stderr, "workload: %s: fsync: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return close(fd);
}

static int cmd_mkfiles(int argc, char **argv)
{
	unsigned long count;
	uint64_t size;
	char *buffer;
	int rc = 0;

	if (argc != 4 || parse_size(argv[2], &size) || parse_uint(argv[3], &count) ||
	    count == 0 || count > MAX_DIR_FILES) {
		fprintf(stderr, "usage: workload mkfiles DIR SIZE COUNT (COUNT 1..%u)\n",
			MAX_DIR_FILES);
		return 2;
	}
	if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "workload: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	buffer = malloc(STREAM_BUFFER_BYTES);
	if (!buffer)
		return 1;
	for (unsigned long i = 0; i < count && rc == 0; i++) {
		char path[4096];

		fill_pattern(buffer, STREAM_BUFFER_BYTES, i);
		snprintf(path, sizeof(path), "%s/f%06lu", argv[1], i);
		rc = write_file(path, size, buffer, STREAM_BUFFER_BYTES, true);
	}
	free(buffer);
	if (rc == 0)
		printf("files %lu\nbytes %" PRIu64 "\n", count, size * count);
	return rc ? 1 : 0;
}

static int cmd_writedirty(int argc, char **argv)
{
	struct residency res;
	uint64_t size;
	char *buffer;
	int fd, rc;

	if (argc != 3 || parse_size(argv[2], &size)) {
		fprintf(stderr, "usage: workload writedirty FILE SIZE\n");
		return 2;
	}
	buffer = malloc(STREAM_BUFFER_BYTES);
	if (!buffer)
		return 1;
	fill_pattern(buffer, STREAM_BUFFER_BYTES, 0xd1);
	rc = write_file(argv[1], size, buffer, STREAM_BUFFER_BYTES, false);
	free(buffer);
	if (rc)
		return 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || measure_residency(fd, &res) != 0) {
		fprintf(stderr, "workload: %s: cannot measure\n", argv[1]);
		return 1;
	}
	close(fd);
	printf("pages %" PRIu64 "\ndirty %" PRIu64 "\n", res.total_pages, res.dirty_pages);
	return 0;
}

/* ---- stream ---------------------------------------------------------- */

/* Sleep as long as @bytes read since @start are ahead of @mib_per_s. */
static void throttle(uint64_t bytes, double start, unsigned long mib_per_s)
{
	double due, ahead;

	if (!mib_per_s)
		return;
	due = (double)bytes / ((double)mib_per_s * 1048576.0);
	ahead = due - (now_seconds() - start);
	if (ahead > 0.001)
		sleep_msec((unsigned int)(ahead * 1000.0));
}

/* Read @path to its end, throttled; returns bytes read or -1. */
static int64_t stream_file(const char *path, char *buffer, uint64_t done, double start,
			   unsigned long mib_per_s)
{
	int64_t total = 0;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_NOFOLLOW);

	if (fd < 0) {
		fprintf(stderr, "workload: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!stop_requested && (got = read(fd, buffer, STREAM_BUFFER_BYTES)) > 0) {
		total += got;
		throttle(done + (uint64_t)total, start, mib_per_s);
	}
	close(fd);
	return total;
}

static int cmd_stream(int argc, char **argv)
{
	unsigned long mib_per_s = 0;
	struct file_list list;
	bool loop = false;
	uint64_t bytes = 0;
	double start;
	char *buffer;
	int rc = 0;

	for (int i = 2; i < argc && rc == 0; i++) {
		if (strcmp(argv[i], "--loop") == 0)
			loop = true;
		else if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc &&
			 parse_uint(argv[i + 1], &mib_per_s) == 0)
			i++;
		else
			rc = 2;
	}
	if (argc < 2 || rc) {
		fprintf(stderr, "usage: workload stream DIR [--loop] [--rate MIB_PER_S]\n");
		return 2;
	}
	if (file_list_load(argv[1], &list))
		return 1;
	buffer = malloc(STREAM_BUFFER_BYTES);
	if (!buffer)
		return 1;
	install_handlers(false);
	start = now_seconds();
	do {
		for (size_t i = 0; i < list.count && !stop_requested; i++) {
			int64_t got = stream_file(list.paths[i], buffer, bytes, start, mib_per_s);

			if (got < 0) {
				rc = 1;
				break;
			}
			bytes += (uint64_t)got;
		}
	} while (loop && !stop_requested && rc == 0);
	{
		double secs = now_seconds() - start;

		printf("bytes %" PRIu64 "\nseconds %.3f\nmib_per_s %.1f\n", bytes,
		       secs, secs > 0 ? (double)bytes / 1048576.0 / secs : 0.0);
	}
	free(buffer);
	file_list_free(&list);
	return rc;
}

/* ---- hotset ---------------------------------------------------------- */

static int cmd_hotset(int argc, char **argv)
{
	unsigned long passes = 0, pause_msec = 0;
	uint64_t all_resident = 0, all_total = 0;
	struct file_list list;
	char *buffer;
	int rc = 0;

	for (int i = 2; i + 1 < argc; i += 2) {
		unsigned long *slot = strcmp(argv[i], "--passes") == 0 ? &passes :
				      strcmp(argv[i], "--pause-ms") == 0 ? &pause_msec : NULL;
		if (!slot || parse_uint(argv[i + 1], slot)) {
			passes = 0;
			break;
		}
	}
	if (argc < 4 || argc % 2 || passes == 0) {
		fprintf(stderr, "usage: workload hotset DIR --passes N [--pause-ms MS]\n");
		return 2;
	}
	if (file_list_load(argv[1], &list))
		return 1;
	buffer = malloc(STREAM_BUFFER_BYTES);
	if (!buffer)
		return 1;
	install_handlers(false);
	printf("# pass wall_ms resident_pages total_pages hit_ratio\n");
	for (unsigned long pass = 0; pass < passes && !stop_requested && !rc; pass++) {
		uint64_t resident = 0, total = 0;
		double start = now_seconds();

		for (size_t i = 0; i < list.count && !rc; i++) {
			struct residency res;
			int fd = open(list.paths[i], O_RDONLY | O_NOFOLLOW);

			/* Residency just before the read = the pages it will hit. */
			if (fd < 0 || measure_residency(fd, &res) != 0) {
				fprintf(stderr, "workload: %s: cannot measure\n",
					list.paths[i]);
				rc = 1;
			} else {
				resident += res.cached_pages < res.total_pages ?
					    res.cached_pages : res.total_pages;
				total += res.total_pages;
			}
			if (fd >= 0)
				close(fd);
			if (!rc && read_whole_file(list.paths[i], buffer,
						   STREAM_BUFFER_BYTES) < 0)
				rc = 1;
		}
		printf("pass %lu %.1f %" PRIu64 " %" PRIu64 " %.4f\n", pass,
		       (now_seconds() - start) * 1000.0, resident, total,
		       total ? (double)resident / (double)total : 0.0);
		fflush(stdout);
		all_resident += resident;
		all_total += total;
		if (pause_msec)
			sleep_msec((unsigned int)pause_msec);
	}
	printf("hit_ratio %.4f\n", all_total ? (double)all_resident / (double)all_total : 0.0);
	free(buffer);
	file_list_free(&list);
	return rc;
}

/* ---- maphold --------------------------------------------------------- */

struct maphold_state {
	const volatile unsigned char *map;
	uint64_t size;
	uint64_t pages;
	unsigned char *vec;
	uint64_t min_resident;
	uint64_t lost_total;	/* pages found evicted at a check, summed */
	uint64_t checks;
};

static uint64_t maphold_resident(struct maphold_state *st)
{
	uint64_t resident = 0;

	if (mincore((void *)st->map, st->size, st->vec) != 0)
		return 0;
	for (uint64_t i = 0; i < st->pages; i++)
		resident += st->vec[i] & 1;
	return resident;
}

/* Reading one byte per page keeps every page mapped and referenced. */
static void maphold_touch(struct maphold_state *st)
{
	unsigned int sum = 0;

	for (uint64_t off = 0; off < st->size; off += (uint64_t)page_size())
		sum += st->map[off];
	(void)sum;
}

static void maphold_report(struct maphold_state *st, uint64_t resident)
{
	printf("resident %" PRIu64 "\npages %" PRIu64 "\nmin_resident %" PRIu64
	       "\nlost_total %" PRIu64 "\nchecks %" PRIu64 "\n", resident, st->pages,
	       st->min_resident, st->lost_total, st->checks);
	fflush(stdout);
}

static int cmd_maphold(int argc, char **argv)
{
	struct maphold_state st;
	struct stat sb;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: workload maphold FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size == 0) {
		fprintf(stderr, "workload: %s: %s\n", argv[1],
			fd < 0 ? strerror(errno) : "empty or unreadable");
		return 1;
	}
	memset(&st, 0, sizeof(st));
	st.size = (uint64_t)sb.st_size;
	st.pages = pages_of(st.size);
	st.map = mmap(NULL, st.size, PROT_READ, MAP_SHARED, fd, 0);
	st.vec = malloc(st.pages);
	close(fd);
	if (st.map == MAP_FAILED || !st.vec) {
		fprintf(stderr, "workload: %s: mmap: %s\n", argv[1], strerror(errno));
		return 1;
	}
	install_handlers(true);
	maphold_touch(&st);
	st.min_resident = maphold_resident(&st);
	printf("ready %" PRIu64 "\n", st.min_resident);
	fflush(stdout);
	while (!stop_requested) {
		uint64_t resident = maphold_resident(&st);

		st.checks++;
		if (resident < st.min_resident)
			st.min_resident = resident;
		st.lost_total += st.pages - resident;
		if (report_requested) {
			report_requested = 0;
			maphold_report(&st, resident);
		}
		maphold_touch(&st);
		sleep_msec(MAPHOLD_TICK_MSEC);
	}
	maphold_report(&st, maphold_resident(&st));
	return 0;
}

/* ---- resident -------------------------------------------------------- */

static int cmd_resident(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: workload resident FILE...\n");
		return 2;
	}
	printf("# file total_pages cached_pages dirty_pages writeback_pages source\n");
	for (int i = 1; i < argc; i++) {
		struct residency res;
		int fd = open(argv[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK);

		if (fd < 0 || measure_residency(fd, &res) != 0) {
			fprintf(stderr, "workload: %s: cannot measure\n", argv[i]);
			rc = 1;
		} else {
			printf("%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
			       argv[i], res.total_pages, res.cached_pages, res.dirty_pages,
			       res.writeback_pages,
			       res.from_cachestat ? "cachestat" : "mincore");
		}
		if (fd >= 0)
			close(fd);
	}
	return rc;
}

/* ---- sampler --------------------------------------------------------- */

/* The fields a sample keeps; meminfo ones are kB, vmstat ones counts. */
static const char *const meminfo_fields[] = {
	"MemTotal", "MemFree", "Cached", "Active(file)", "Inactive(file)",
	"Mapped", "Dirty", "Writeback", "Shmem",
};
static const char *const vmstat_fields[] = {
	"pgpgin", "pgpgout", "pgscan_kswapd", "pgsteal_kswapd", "pgscan_direct",
	"pgsteal_direct", "workingset_refault_file", "kswapd_unmapped_wake",
	"pgscan_unmapped", "pgsteal_unmapped", "drop_pagecache",
};
#define N_MEMINFO (sizeof(meminfo_fields) / sizeof(meminfo_fields[0]))
#define N_VMSTAT (sizeof(vmstat_fields) / sizeof(vmstat_fields[0]))

/* Fill @values from a "name value" file (meminfo's "name: value kB" too). */
static int read_keyed_file(const char *path, const char *const *names, size_t count,
			   uint64_t *values)
{
	char line[256];
	FILE *file = fopen(path, "r");

	if (!file)
		return -1;
	memset(values, 0, count * sizeof(*values));
	while (fgets(line, sizeof(line), file)) {
		char *sep = strpbrk(line, ": ");

		if (!sep)
			continue;
		for (size_t i = 0; i < count; i++) {
			if ((size_t)(sep - line) == strlen(names[i]) &&
			    strncmp(line, names[i], (size_t)(sep - line)) == 0) {
				values[i] = strtoull(sep + 1 + strspn(sep + 1, ": "), NULL, 10);
				break;
			}
		}
	}
	fclose(file);
	return 0;
}

static void sampler_header(FILE *out)
{
	fprintf(out, "t_ms\tfile_lru_kb\tunmapped_kb");
	for (size_t i = 0; i < N_MEMINFO; i++)
		fprintf(out, "\t%s_kb", meminfo_fields[i]);
	for (size_t i = 0; i < N_VMSTAT; i++)
		fprintf(out, "\t%s", vmstat_fields[i]);
	fputc('\n', out);
}

static int sampler_row(FILE *out, double t0)
{
	uint64_t mem[N_MEMINFO], vm[N_VMSTAT];
	uint64_t file_lru_kb;

	if (read_keyed_file("/proc/meminfo", meminfo_fields, N_MEMINFO, mem) ||
	    read_keyed_file("/proc/vmstat", vmstat_fields, N_VMSTAT, vm))
		return -1;
	file_lru_kb = mem[3] + mem[4];
	/* The kernel's node_unmapped_file_pages(), on kB: the same clamp. */
	fprintf(out, "%.0f\t%" PRIu64 "\t%" PRIu64, (now_seconds() - t0) * 1000.0,
		file_lru_kb, upcc_unmapped_file_pages(file_lru_kb, mem[5]));
	for (size_t i = 0; i < N_MEMINFO; i++)
		fprintf(out, "\t%" PRIu64, mem[i]);
	for (size_t i = 0; i < N_VMSTAT; i++)
		fprintf(out, "\t%" PRIu64, vm[i]);
	fputc('\n', out);
	fflush(out);
	return 0;
}

static int cmd_sampler(int argc, char **argv)
{
	unsigned long interval_msec;
	double t0;
	FILE *out;

	if (argc != 3 || parse_uint(argv[1], &interval_msec) || interval_msec == 0) {
		fprintf(stderr, "usage: workload sampler INTERVAL_MS OUT.tsv\n");
		return 2;
	}
	out = strcmp(argv[2], "-") == 0 ? stdout : fopen(argv[2], "w");
	if (!out) {
		fprintf(stderr, "workload: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	install_handlers(false);
	sampler_header(out);
	t0 = now_seconds();
	while (!stop_requested) {
		if (sampler_row(out, t0)) {
			fprintf(stderr, "workload: cannot read /proc/meminfo or /proc/vmstat\n");
			return 1;
		}
		sleep_msec((unsigned int)interval_msec);
	}
	if (out != stdout)
		fclose(out);
	return 0;
}

/* ---- dropper --------------------------------------------------------- */

static uint64_t file_lru_kb_now(void)
{
	static const char *const names[] = { "Active(file)", "Inactive(file)" };
	uint64_t values[2];

	if (read_keyed_file("/proc/meminfo", names, 2, values))
		return 0;
	return values[0] + values[1];
}

/*
 * The crude baseline: what a cron job does, every INTERVAL_MS.  It counts
 * what each drop took out of the file LRU so the benchmark can charge its
 * CPU time per GiB reclaimed, as it does upcd's.
 */
static int cmd_dropper(int argc, char **argv)
{
	unsigned long interval_msec;
	uint64_t dropped_kb = 0, drops = 0;

	if (argc != 2 || parse_uint(argv[1], &interval_msec) || interval_msec == 0) {
		fprintf(stderr, "usage: workload dropper INTERVAL_MS\n");
		return 2;
	}
	install_handlers(false);
	while (!stop_requested) {
		uint64_t before = file_lru_kb_now(), after;
		int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

		if (fd < 0 || write(fd, "1\n", 2) != 2) {
			fprintf(stderr, "workload: drop_caches: %s\n", strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		close(fd);
		after = file_lru_kb_now();
		dropped_kb += before > after ? before - after : 0;
		drops++;
		sleep_msec((unsigned int)interval_msec);
	}
	printf("drops %" PRIu64 "\ndropped_kb %" PRIu64 "\n", drops, dropped_kb);
	return 0;
}

/* ---------------------------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: workload COMMAND ARGS\n"
		"  mkfiles DIR SIZE COUNT       make COUNT files of SIZE (K/M/G), non-zero\n"
		"  stream DIR [--loop] [--rate MIB_PER_S]\n"
		"                               read DIR's files sequentially, 4 MiB buffer,\n"
		"                               at most MIB_PER_S if given\n"
		"  hotset DIR --passes N [--pause-ms MS]\n"
		"                               re-read DIR's files; per pass wall time and\n"
		"                               hit ratio (pages resident before each read)\n"
		"  maphold FILE                 mmap FILE, touch every page every 100 ms;\n"
		"                               SIGUSR1 prints residency, SIGTERM exits\n"
		"  sampler INTERVAL_MS OUT.tsv  sample /proc/meminfo + /proc/vmstat\n"
		"  resident FILE...             cached/dirty/writeback pages of files\n"
		"  writedirty FILE SIZE         write FILE without syncing it\n"
		"  dropper INTERVAL_MS          write 1 to drop_caches every INTERVAL_MS\n");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} commands[] = {
		{ "mkfiles", cmd_mkfiles },	{ "stream", cmd_stream },
		{ "hotset", cmd_hotset },	{ "maphold", cmd_maphold },
		{ "sampler", cmd_sampler },	{ "resident", cmd_resident },
		{ "writedirty", cmd_writedirty }, { "dropper", cmd_dropper },
	};

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "workload: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
