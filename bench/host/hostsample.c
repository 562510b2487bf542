// SPDX-License-Identifier: GPL-2.0
/*
 * hostsample.c - what a QEMU guest costs the host, sampled every INTERVAL_MS
 * until the QEMU process exits.
 *
 *   hostsample PIDS RAM_MIB IMAGES INTERVAL_MS OUT.tsv [GUEST_LOGS GUEST_OUTS]
 *
 * PIDS, IMAGES, GUEST_LOGS and GUEST_OUTS are comma-separated lists: several
 * QEMU processes (W4's three guests) are sampled at the same instants, and
 * the host cache is summed over every file that can hold the guest's data
 * (for cache=none: the image and the loop device's backing file).
 *
 * Columns of OUT.tsv:
 *   t_ms          host time since start
 *   ram_rss_kb    resident part of the guest-RAM mappings (the anonymous
 *                 mapping of exactly RAM_MIB), summed over the guests: what
 *                 free page reporting gives back
 *   qemu_rss_kb   the whole processes (VmRSS), incl. TCG buffers and, for
 *                 virtio-pmem, the host page cache mapped into the guest
 *   img_cache_kb  host page cache held for IMAGES (cachestat, else mincore)
 *   memavail_kb   host MemAvailable
 *   ram1_kb ...   with more than one PID: each guest's ram_rss_kb
 *
 * GUEST_LOGS are the files QEMU writes the guests' second serial port to;
 * their new lines are copied to GUEST_OUTS prefixed with the host t_ms of
 * the sample that saw them, so guest phases and host memory share one clock.
 *
 *   hostsample --tsc-khz
 *
 * prints the host TSC rate in kHz (rdtsc against CLOCK_MONOTONIC over
 * 200 ms).  Under TCG the guest's TSC runs at the host's rate; the
 * ACPI-less guest cannot calibrate it (no HPET/PM timer) and falls back to
 * jiffies, whose time slows down whenever the host delays its ticks, so
 * run-scenario.sh passes this figure as tsc_early_khz=.
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

#include <x86intrin.h>

#include "sys/cachestat.h"

#define MAX_ITEMS	8

struct sample {
	uint64_t ram_rss_kb[MAX_ITEMS];
	uint64_t qemu_rss_kb[MAX_ITEMS];
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

static void take_sample(const pid_t *pids, size_t nr_pids, uint64_t ram_kb,
			const int *image_fds, size_t nr_images, struct sample *s)
{
	char path[64];

	for (size_t i = 0; i < nr_pids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pids[i]);
		s->ram_rss_kb[i] = guest_ram_rss_kb(pids[i], ram_kb);
		s->qemu_rss_kb[i] = keyed_kb(path, "VmRSS");
	}
	s->img_cache_kb = 0;
	for (size_t i = 0; i < nr_images; i++)
		s->img_cache_kb += image_cache_kb(image_fds[i]);
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

/* Split a comma-separated list in place; returns the number of items. */
static size_t split_list(char *text, char **items)
{
	size_t n = 0;

	for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok && n < MAX_ITEMS;
	     tok = strtok_r(NULL, ",", &save))
		items[n++] = tok;
	return n;
}

static void usage(void)
{
	fprintf(stderr, "usage: hostsample PIDS RAM_MIB IMAGES INTERVAL_MS OUT.tsv "
			"[GUEST_LOGS GUEST_OUTS]  (lists comma-separated, up to %d)\n",
		MAX_ITEMS);
}

static int print_tsc_khz(void)
{
	struct timespec nap = { 0, 200 * 1000000L };
	double t0, t1;
	uint64_t c0, c1;

	t0 = now_msec();
	c0 = __rdtsc();
	nanosleep(&nap, NULL);
	c1 = __rdtsc();
	t1 = now_msec();
	printf("%.0f\n", (double)(c1 - c0) / (t1 - t0));
	return 0;
}

int main(int argc, char **argv)
{
	char *pid_text[MAX_ITEMS], *image_text[MAX_ITEMS], *log_text[MAX_ITEMS];
	char *gout_text[MAX_ITEMS];
	FILE *out, *guest_log[MAX_ITEMS], *guest_out[MAX_ITEMS];
	static char partial[MAX_ITEMS][4096];
	size_t nr_pids, nr_images, nr_logs = 0;
	uint64_t ram_mib, interval_msec;
	int image_fds[MAX_ITEMS];
	pid_t pids[MAX_ITEMS];
	double t0;

	if (argc == 2 && strcmp(argv[1], "--tsc-khz") == 0)
		return print_tsc_khz();
	if ((argc != 6 && argc != 8) || parse_u64(argv[2], &ram_mib) ||
	    parse_u64(argv[4], &interval_msec) || ram_mib == 0 || interval_msec == 0) {
		usage();
		return 2;
	}
	nr_pids = split_list(argv[1], pid_text);
	nr_images = split_list(argv[3], image_text);
	for (size_t i = 0; i < nr_pids; i++) {
		uint64_t pid;

		if (parse_u64(pid_text[i], &pid) || pid == 0) {
			usage();
			return 2;
		}
		pids[i] = (pid_t)pid;
	}
	if (nr_pids == 0 || nr_images == 0) {
		usage();
		return 2;
	}
	for (size_t i = 0; i < nr_images; i++) {
		image_fds[i] = open(image_text[i], O_RDONLY);
		if (image_fds[i] < 0) {
			fprintf(stderr, "hostsample: %s: %s\n", image_text[i], strerror(errno));
			return 1;
		}
	}
	out = fopen(argv[5], "w");
	if (argc == 8) {
		nr_logs = split_list(argv[6], log_text);
		if (split_list(argv[7], gout_text) != nr_logs) {
			usage();
			return 2;
		}
		for (size_t i = 0; i < nr_logs; i++) {
			guest_log[i] = fopen(log_text[i], "r");
			guest_out[i] = fopen(gout_text[i], "w");
			if (!guest_log[i] || !guest_out[i]) {
				fprintf(stderr, "hostsample: cannot open %s or %s: %s\n",
					log_text[i], gout_text[i], strerror(errno));
				return 1;
			}
		}
	}
	if (!out) {
		fprintf(stderr, "hostsample: cannot open %s: %s\n", argv[5], strerror(errno));
		return 1;
	}
	fprintf(out, "t_ms\tram_rss_kb\tqemu_rss_kb\timg_cache_kb\tmemavail_kb");
	for (size_t i = 0; nr_pids > 1 && i < nr_pids; i++)
		fprintf(out, "\tram%zu_kb", i + 1);
	fprintf(out, "\n");
	t0 = now_msec();
	for (;;) {
		uint64_t ram = 0, qemu = 0;
		struct sample s;
		double t_ms = now_msec() - t0;
		size_t alive = 0;

		for (size_t i = 0; i < nr_pids; i++)
			alive += process_alive(pids[i]);
		if (!alive)
			break;
		take_sample(pids, nr_pids, ram_mib * 1024, image_fds, nr_images, &s);
		for (size_t i = 0; i < nr_pids; i++) {
			ram += s.ram_rss_kb[i];
			qemu += s.qemu_rss_kb[i];
		}
		if (!qemu)
			break;	/* QEMU exited while it was read: a torn sample */
		fprintf(out, "%.0f\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64,
			t_ms, ram, qemu, s.img_cache_kb, s.memavail_kb);
		for (size_t i = 0; nr_pids > 1 && i < nr_pids; i++)
			fprintf(out, "\t%" PRIu64, s.ram_rss_kb[i]);
		fprintf(out, "\n");
		fflush(out);
		for (size_t i = 0; i < nr_logs; i++)
			follow_guest_log(guest_log[i], guest_out[i], t_ms, partial[i],
					 sizeof(partial[i]));
		usleep((useconds_t)(interval_msec * 1000));
	}
	for (size_t i = 0; i < nr_logs; i++) {
		follow_guest_log(guest_log[i], guest_out[i], now_msec() - t0, partial[i],
				 sizeof(partial[i]));
		fclose(guest_log[i]);
		fclose(guest_out[i]);
	}
	fclose(out);
	for (size_t i = 0; i < nr_images; i++)
		close(image_fds[i]);
	return 0;
}
