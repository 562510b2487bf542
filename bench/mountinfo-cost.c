// SPDX-License-Identifier: GPL-2.0
/*
 * mountinfo-cost - what the system scope's inventory pays, every refresh,
 * to follow the mount table: upcc_mounts_load() (read mountinfo, keep the
 * local disk mounts, stat each) timed over many loads.
 *
 *   build/bench/mountinfo-cost [LOADS] [MOUNTINFO]
 *
 * LOADS defaults to 1000; MOUNTINFO to /proc/self/mountinfo (a fixture of
 * thousands of lines shows what a host with that many mounts would pay).
 * Reads only.
 */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "walk.h"

int main(int argc, char **argv)
{
	unsigned long loads = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	const char *path = argc > 2 ? argv[2] : NULL;
	struct upcc_mount_list mounts;
	size_t kept = 0, lines = 0;
	uint64_t start, elapsed;
	char line[8192];
	FILE *f;

	if (!loads) {
		fprintf(stderr, "usage: mountinfo-cost [LOADS] [MOUNTINFO]\n");
		return 2;
	}
	f = fopen(path ? path : "/proc/self/mountinfo", "r");
	if (!f) {
		perror("mountinfo-cost");
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	start = upcc_monotonic_usec();
	for (unsigned long i = 0; i < loads; i++) {
		if (upcc_mounts_load(&mounts, path)) {
			fprintf(stderr, "mountinfo-cost: upcc_mounts_load failed\n");
			return 1;
		}
		kept = mounts.count;
		upcc_mounts_free(&mounts);
	}
	elapsed = upcc_monotonic_usec() - start;
	printf("%zu mountinfo lines, %zu local disk mounts kept: %.1f us per load (%lu loads)\n",
	       lines, kept, (double)elapsed / (double)loads, loads);
	return 0;
}
