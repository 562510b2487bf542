// SPDX-License-Identifier: GPL-2.0
/*
 * inventory-cost - what the fadvise backend's inventory costs, measured with
 * the library's own code (docs/backends.md quotes these figures).
 *
 *   build/bench/inventory-cost walk DIR [RUNS]
 *	the walk alone (upcc_walk(): safe opens, one fd per level), files/s
 *   build/bench/inventory-cost refresh DIR [RUNS] [CAPACITY]
 *	a full inventory refresh (walk + residency of every file + table), s
 *   build/bench/inventory-cost mounts [LOADS] [MOUNTINFO]
 *	following the mount table: upcc_mounts_load() per refresh, us
 *
 * Each prints one line, with the process's peak RSS.  Reads only (the
 * refresh measures residency; it evicts nothing).  $UPCC_NO_FANOTIFY=1
 * makes a refresh of a whole filesystem walk instead of reading events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/clock.h"
#include "lib/hooks.h"
#include "inventory/inventory.h"
#include "sys/walk.h"

static long peak_rss_kib(void)
{
	struct rusage usage;

	return getrusage(RUSAGE_SELF, &usage) ? -1 : usage.ru_maxrss;
}

static unsigned long count_arg(int argc, char **argv, int index, unsigned long fallback)
{
	return argc > index ? strtoul(argv[index], NULL, 10) : fallback;
}

static int count_file(void *ctx, int fd, const struct stat *st, const char *path)
{
	(void)ctx;
	(void)fd;
	(void)st;
	(void)path;
	return 0;
}

static int bench_walk(const char *root, unsigned long runs)
{
	struct upcc_walk_options options = { 0 };
	struct upcc_walk_stats stats;
	uint64_t start = upcc_monotonic_usec(), elapsed;

	for (unsigned long i = 0; i < runs; i++) {
		if (upcc_walk(root, &options, count_file, NULL, &stats) < 0) {
			fprintf(stderr, "inventory-cost: cannot walk %s\n", root);
			return 1;
		}
	}
	elapsed = (upcc_monotonic_usec() - start) / runs;
	printf("walk %s: %llu files, %llu dirs in %.3f s (%.0f files/s), peak RSS %ld KiB\n",
	       root, (unsigned long long)stats.files, (unsigned long long)stats.dirs,
	       elapsed / 1e6, stats.files / (elapsed / 1e6), peak_rss_kib());
	return 0;
}

static int bench_refresh(const char *root, unsigned long runs, size_t capacity)
{
	struct upcc_inventory inv;
	uint64_t start, elapsed;

	if (upcc_inventory_init(&inv, root, false, capacity)) {
		fprintf(stderr, "inventory-cost: cannot start an inventory of %s\n", root);
		return 1;
	}
	start = upcc_monotonic_usec();
	for (unsigned long i = 0; i < runs; i++) {
		if (upcc_inventory_refresh(&inv)) {
			fprintf(stderr, "inventory-cost: refresh of %s failed\n", root);
			upcc_inventory_fini(&inv);
			return 1;
		}
	}
	elapsed = (upcc_monotonic_usec() - start) / runs;
	printf("refresh %s: %zu files with cache kept, %llu cached pages, %s, %.3f s a refresh, "
	       "peak RSS %ld KiB\n", root, inv.count, (unsigned long long)inv.last.sum.cached_pages,
	       inv.fan.fd >= 0 ? "fanotify" : "walks", elapsed / 1e6, peak_rss_kib());
	upcc_inventory_fini(&inv);
	return 0;
}

static int bench_mounts(unsigned long loads, const char *path)
{
	struct upcc_mount_list mounts;
	size_t kept = 0, lines = 0;
	uint64_t start, elapsed;
	char line[8192];
	FILE *f = fopen(path ? path : "/proc/self/mountinfo", "r");

	if (!f) {
		perror("inventory-cost");
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	start = upcc_monotonic_usec();
	for (unsigned long i = 0; i < loads; i++) {
		if (upcc_mounts_load(&mounts, path)) {
			fprintf(stderr, "inventory-cost: upcc_mounts_load failed\n");
			return 1;
		}
		kept = mounts.count;
		upcc_mounts_free(&mounts);
	}
	elapsed = upcc_monotonic_usec() - start;
	printf("mounts: %zu mountinfo lines, %zu local disk mounts kept: %.1f us a load "
	       "(%lu loads), peak RSS %ld KiB\n", lines, kept, (double)elapsed / (double)loads,
	       loads, peak_rss_kib());
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	/* A benchmark, not the daemon: it may take its hook from the environment. */
	upcc_hooks.no_fanotify = getenv("UPCC_NO_FANOTIFY") != NULL;

	if (strcmp(what, "walk") == 0 && argc >= 3 && count_arg(argc, argv, 3, 1))
		return bench_walk(argv[2], count_arg(argc, argv, 3, 1));
	if (strcmp(what, "refresh") == 0 && argc >= 3 && count_arg(argc, argv, 3, 1))
		return bench_refresh(argv[2], count_arg(argc, argv, 3, 1),
				     count_arg(argc, argv, 4, 0));
	if (strcmp(what, "mounts") == 0 && count_arg(argc, argv, 2, 1000))
		return bench_mounts(count_arg(argc, argv, 2, 1000), argc > 3 ? argv[3] : NULL);
	fprintf(stderr, "usage: inventory-cost walk DIR [RUNS]\n"
			"       inventory-cost refresh DIR [RUNS] [CAPACITY]\n"
			"       inventory-cost mounts [LOADS] [MOUNTINFO]\n");
	return 2;
}
