// SPDX-License-Identifier: GPL-2.0
/*
 * psi-agent.c - scenario (h) of the host benchmark: a proactive reclaim
 * agent in the style of senpai and Meta's TMO, driven by pressure stall
 * information (PSI) and file refaults, writing "N swappiness=0" to a
 * cgroup's memory.reclaim.  It runs inside the benchmark guest; it is what
 * an operator would deploy on a stock 6.12 kernel instead of upcc.
 *
 *   psi-agent CGROUP_DIR ACTIONS_LOG
 *
 * The rule (senpai.py's, with memory.reclaim as TMO uses it instead of
 * memory.high), evaluated every TICK_MS:
 *
 *   integral += growth of "some total" in CGROUP/memory.pressure (us)
 *   if integral > PRESSURE_US:          back off: no reclaim for
 *                                       BACKOFF_TICKS, integral = 0
 *   else, once per PROBE_TICKS:
 *     if refaulted file bytes since the last probe > REFAULT_PCT of the
 *        file cache:                    hold (the cache is being re-read)
 *     else if file cache <= FLOOR_KB:   hold
 *     else reclaim file * MAX_PROBE * min(1, ((PRESSURE_US / integral)
 *                                       / COEFF_PROBE)^2)
 *          (senpai's probe curve: the full step when pressure is below a
 *          tenth of the target), integral = 0
 *
 * swappiness=0 keeps the ask to file pages (the guest has no swap either);
 * memory.reclaim still takes mapped file pages, which the benchmark's
 * mapped-file column shows.  Each reclaim write appends one line to
 * ACTIONS_LOG ("reclaim ASKED_KB rc"), so the run counts its actions.
 *
 * Parameters are senpai's defaults scaled to the benchmark's time frame
 * (its phases last 30-60 s, senpai's interval is 6 s for workloads that run
 * for days): PSI target 0.1% of wall time (TMO's), probe 5% of the file
 * cache per second at most.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS		1000
#define PROBE_TICKS	1
#define PRESSURE_US	1000	/* 0.1% of a 1 s interval */
#define BACKOFF_TICKS	3
#define MAX_PROBE	0.05
#define COEFF_PROBE	10.0
#define REFAULT_PCT	1.0
#define FLOOR_KB	(8 * 1024)

static volatile sig_atomic_t stop;

static void on_term(int signo)
{
	(void)signo;
	stop = 1;
}

static int read_file(const char *dir, const char *name, char *buf, size_t size)
{
	char path[512];
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = read(fd, buf, size - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = '\0';
	return 0;
}

/* "some avg10=... total=N" -> N (microseconds stalled) */
static int psi_some_total(const char *cg, uint64_t *total)
{
	char buf[512], *p;

	if (read_file(cg, "memory.pressure", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "total=");
	if (strncmp(buf, "some", 4) || !p)
		return -1;
	*total = strtoull(p + 6, NULL, 10);
	return 0;
}

/* One "key value" line of memory.stat. */
static int stat_value(const char *cg, const char *key, uint64_t *value)
{
	char buf[8192], *line;
	size_t len = strlen(key);

	if (read_file(cg, "memory.stat", buf, sizeof(buf)))
		return -1;
	for (line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, key, len) == 0 && line[len] == ' ') {
			*value = strtoull(line + len + 1, NULL, 10);
			return 0;
		}
	}
	return -1;
}

static int reclaim(const char *cg, uint64_t bytes)
{
	char path[512], ask[64];
	int fd, len, rc = 0;

	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	len = snprintf(ask, sizeof(ask), "%" PRIu64 " swappiness=0", bytes);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* EAGAIN: the kernel reclaimed less than asked, not an error here. */
	if (write(fd, ask, (size_t)len) != len)
		rc = -errno;
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t last_total, refault0, refault, file, total;
	unsigned int backoff = 0, ticks = 0;
	double integral = 0;
	const char *cg;
	FILE *log;

	if (argc != 3) {
		fprintf(stderr, "usage: psi-agent CGROUP_DIR ACTIONS_LOG\n");
		return 2;
	}
	cg = argv[1];
	log = fopen(argv[2], "a");
	if (!log || psi_some_total(cg, &last_total) ||
	    stat_value(cg, "workingset_refault_file", &refault0)) {
		fprintf(stderr, "psi-agent: %s: no memory.pressure or memory.stat (CONFIG_PSI?)\n",
			cg);
		return 1;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	while (!stop) {
		struct timespec tick = { TICK_MS / 1000, (TICK_MS % 1000) * 1000000L };
		double adj, err;
		uint64_t ask;
		int rc;

		nanosleep(&tick, NULL);
		if (psi_some_total(cg, &total) || stat_value(cg, "file", &file) ||
		    stat_value(cg, "workingset_refault_file", &refault))
			continue;
		integral += (double)(total - last_total);
		last_total = total;
		if (integral > PRESSURE_US) {
			fprintf(log, "backoff psi_us=%.0f\n", integral);
			fflush(log);
			integral = 0;
			backoff = BACKOFF_TICKS;
			refault0 = refault;
			continue;
		}
		if (backoff) {
			backoff--;
			refault0 = refault;
			continue;
		}
		if (++ticks < PROBE_TICKS)
			continue;
		ticks = 0;
		/* refault counts pages; the cache re-reads what was evicted */
		if ((double)(refault - refault0) * 4096.0 > file * REFAULT_PCT / 100.0 ||
		    file / 1024 <= FLOOR_KB) {
			refault0 = refault;
			integral = 0;
			continue;
		}
		refault0 = refault;
		err = PRESSURE_US / (integral > 1 ? integral : 1);
		adj = (err / COEFF_PROBE) * (err / COEFF_PROBE);
		adj = adj > 1 ? MAX_PROBE : adj * MAX_PROBE;
		ask = (uint64_t)((double)file * adj) & ~4095ULL;
		integral = 0;
		if (ask < 4096)
			continue;
		rc = reclaim(cg, ask);
		fprintf(log, "reclaim %" PRIu64 " %d\n", ask / 1024, rc);
		fflush(log);
	}
	fclose(log);
	return 0;
}
