// SPDX-License-Identifier: GPL-2.0
/*
 * hostsample.c - what a QEMU guest costs the host, sampled every INTERVAL_MS
 * until the QEMU process exits.
 *
 *   hostsample PID RAM_MIB IMAGE INTERVAL_MS OUT.tsv [GUEST_LOG GUEST_OUT]
 *
 * Columns of OUT.tsv:
 *   t_ms          host time since start
 *   ram_rss_kb    resident part of the guest-RAM mapping (the anonymous
 *                 mapping of exactly RAM_MIB): what free page reporting
 *                 gives back
 *   qemu_rss_kb   the whole process (VmRSS), incl. TCG buffers and, for
 *                 virtio-pmem, the host page cache mapped into the guest
 *   img_cache_kb  host page cache held for IMAGE (cachestat, else mincore)
 *   memavail_kb   host MemAvailable
 *
 * GUEST_LOG is the file QEMU writes the guest's second serial port to; its
 * new lines are copied to GUEST_OUT prefixed with the host t_ms of the
 * sample that saw them, so guest phases and host memory share one clock.
 *
 * Read-only everywhere: /proc of one process, /proc/meminfo, our own image.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cachestat.h"

struct sample {
	uint64_t ram_rss_kb;
	uint64_t qemu_rss_kb;
	uint64_t img_cache_kb;
	uint64_t memavail_kb;
};

static double now_msec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int parse_u64(const char *text, uint64_t *value)
{
	char *end;

	errno = 0;
	*value = strtoull(text, &end, 10);
	return (errno || end == text || *end) ? -1 : 0;
}

/*
 * The guest RAM is the one mapping whose size is exactly RAM_MIB; the TCG
 * code buffer and the pmem file mapping have other sizes.  0 if not found
 * (QEMU not up yet).
 */
static uint64_t guest_ram_rss_kb(pid_t pid, uint64_t ram_kb)
{
	char path[64], line[512];
	uint64_t rss = 0;
	int in_ram = 0;
	FILE *smaps;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	smaps = fopen(path, "r");
	if (!smaps)
		return 0;
	while (fgets(line, sizeof(line), smaps)) {
		uint64_t value;

		if (sscanf(line, "Size: %" SCNu64 " kB", &value) == 1)
			in_ram = value == ram_kb;
		else if (in_ram && sscanf(line, "Rss: %" SCNu64 " kB", &value) == 1)
			rss += value;
	}
	fclose(smaps);
	return rss;
}

static uint64_t keyed_kb(const char *path, const char *key)
{
	char line[256];
	size_t key_len = strlen(key);
	uint64_t value = 0;
	FILE *file = fopen(path, "r");

	if (!file)
		return 0;
	while (fgets(line, sizeof(line), file)) {
		if (strncmp(line, key, key_len) == 0 && line[key_len] == ':') {
			value = strtoull(line + key_len + 1, NULL, 10);
			break;
		}
	}
	fclose(file);
	return value;
}

/* mincore() over a read-only mapping: the fallback when cachestat is absent. */
static uint64_t mincore_pages(int fd, uint64_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pages = (size + (uint64_t)page - 1) / (uint64_t)page, resident = 0;
	unsigned char *vec;
	void *map;

	if (size == 0)
		return 0;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 0;
	vec = malloc(pages);
	if (vec && mincore(map, size, vec) == 0)
		for (uint64_t i = 0; i < pages; i++)
			resident += vec[i] & 1;
	free(vec);
	munmap(map, size);
	return resident;
}

static uint64_t image_cache_kb(int fd)
{
	struct upcc_cachestat result;
	struct stat st;

	if (upcc_cachestat_fd(fd, &result) == 0)
		return result.nr_cache * (uint64_t)(sysconf(_SC_PAGESIZE) / 1024);
	if (fstat(fd, &st) != 0)
		return 0;
	return mincore_pages(fd, (uint64_t)st.st_size) *
	       (uint64_t)(sysconf(_SC_PAGESIZE) / 1024);
}

static void take_sample(pid_t pid, uint64_t ram_kb, int image_fd, struct sample *s)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	s->ram_rss_kb = guest_ram_rss_kb(pid, ram_kb);
	s->qemu_rss_kb = keyed_kb(path, "VmRSS");
	s->img_cache_kb = image_cache_kb(image_fd);
	s->memavail_kb = keyed_kb("/proc/meminfo", "MemAvailable");
}

/* Copy the guest log's complete new lines, each prefixed with @t_ms. */
static void follow_guest_log(FILE *log, FILE *out, double t_ms, char *partial,
			     size_t partial_size)
{
	size_t have = strlen(partial);
	int c;

	while ((c = fgetc(log)) != EOF) {
		if (c == '\r')
			continue;
		if (c == '\n') {
			partial[have] = '\0';
			fprintf(out, "%.0f\t%s\n", t_ms, partial);
			have = 0;
			continue;
		}
		if (have + 1 < partial_size)
			partial[have++] = (char)c;
	}
	partial[have] = '\0';
	clearerr(log);		/* QEMU keeps writing: EOF is only "for now" */
	fflush(out);
}

static int process_alive(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return access(path, F_OK) == 0 && keyed_kb(path, "VmRSS") > 0;
}

int main(int argc, char **argv)
{
	uint64_t pid, ram_mib, interval_msec;
	FILE *out, *guest_log = NULL, *guest_out = NULL;
	char partial[4096] = "";
	double t0;
	int image_fd;

	if ((argc != 6 && argc != 8) || parse_u64(argv[1], &pid) ||
	    parse_u64(argv[2], &ram_mib) || parse_u64(argv[4], &interval_msec) ||
	    pid == 0 || ram_mib == 0 || interval_msec == 0) {
		fprintf(stderr, "usage: hostsample PID RAM_MIB IMAGE INTERVAL_MS OUT.tsv "
				"[GUEST_LOG GUEST_OUT]\n");
		return 2;
	}
	image_fd = open(argv[3], O_RDONLY);
	if (image_fd < 0) {
		fprintf(stderr, "hostsample: %s: %s\n", argv[3], strerror(errno));
		return 1;
	}
	out = fopen(argv[5], "w");
	if (argc == 8) {
		guest_log = fopen(argv[6], "r");
		guest_out = fopen(argv[7], "w");
	}
	if (!out || (argc == 8 && (!guest_log || !guest_out))) {
		fprintf(stderr, "hostsample: cannot open output or guest log: %s\n",
			strerror(errno));
		return 1;
	}
	fprintf(out, "t_ms\tram_rss_kb\tqemu_rss_kb\timg_cache_kb\tmemavail_kb\n");
	t0 = now_msec();
	while (process_alive((pid_t)pid)) {
		struct sample s;
		double t_ms = now_msec() - t0;

		take_sample((pid_t)pid, ram_mib * 1024, image_fd, &s);
		if (!s.qemu_rss_kb)
			break;	/* QEMU exited while it was read: a torn sample */
		fprintf(out, "%.0f\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			t_ms, s.ram_rss_kb, s.qemu_rss_kb, s.img_cache_kb, s.memavail_kb);
		fflush(out);
		if (guest_log)
			follow_guest_log(guest_log, guest_out, t_ms, partial, sizeof(partial));
		usleep((useconds_t)(interval_msec * 1000));
	}
	if (guest_log) {
		follow_guest_log(guest_log, guest_out, now_msec() - t0, partial,
				 sizeof(partial));
		fclose(guest_log);
		fclose(guest_out);
	}
	fclose(out);
	close(image_fd);
	return 0;
}
