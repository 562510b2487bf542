// SPDX-License-Identifier: GPL-2.0
/*
 * inventory-probe.c - does the inventory learn files by fanotify, without
 * walking again?  Linked against the inventory folder and those below it.
 *
 *   inventory-probe ROOT FILE
 *     refreshes once (a walk), prints "ready", waits for a line on stdin
 *     (meanwhile another process creates and reads FILE: our own opens are
 *     ignored by design), refreshes again and prints
 *     "fanotify=0|1 walks=N learned=N has_file=0|1 file_cached=N why=..."
 *
 *   inventory-probe --refreshes N ROOT
 *     refreshes N times and prints "fanotify=0|1 walks=N overflows=N
 *     last=<why the last refresh walked every root>"; with
 *     UPCC_TEST_NO_OWN_DRAIN=1 our own events are read only between
 *     refreshes (the negative control: a big tree overflows the queue).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/hooks.h"
#include "inventory/inventory.h"

static int refreshes(unsigned int n, const char *root)
{
	struct upcc_inventory inv;
	const char *no_drain = getenv("UPCC_TEST_NO_OWN_DRAIN");

	upcc_hooks.no_own_drain = no_drain && *no_drain == '1';
	if (upcc_inventory_init(&inv, root, false, 0))
		return 2;
	for (unsigned int i = 0; i < n; i++) {
		if (upcc_inventory_refresh(&inv))
			return 1;
	}
	printf("fanotify=%d walks=%llu overflows=%llu files=%zu last=%s\n", inv.fan.fd >= 0,
	       (unsigned long long)inv.walks, (unsigned long long)inv.fan.overflows, inv.count,
	       upcc_inv_walk_why_name(inv.walk_why));
	upcc_inventory_fini(&inv);
	return 0;
}

int main(int argc, char **argv)
{
	struct upcc_inventory inv;
	char line[16];
	struct stat st;
	unsigned long long cached = 0;
	int has = 0;

	if (argc == 4 && !strcmp(argv[1], "--refreshes"))
		return refreshes((unsigned int)strtoul(argv[2], NULL, 10), argv[3]);
	if (argc != 3 || upcc_inventory_init(&inv, argv[1], false, 0))
		return 2;
	if (upcc_inventory_refresh(&inv))
		return 1;
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	if (upcc_inventory_refresh(&inv))
		return 1;
	if (stat(argv[2], &st) == 0) {
		for (size_t i = 0; i < inv.count; i++) {
			if (inv.entries[i].dev == st.st_dev && inv.entries[i].ino == st.st_ino) {
				has = 1;
				cached = inv.entries[i].cached_pages;
			}
		}
	}
	printf("fanotify=%d walks=%llu learned=%llu has_file=%d file_cached=%llu why=%s\n",
	       inv.fan.fd >= 0, (unsigned long long)inv.walks,
	       (unsigned long long)inv.fan.learned, has, cached, inv.fan.why);
	upcc_inventory_fini(&inv);
	return 0;
}
