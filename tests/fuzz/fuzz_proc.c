// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_proc.c - the /proc and sysfs parsers: meminfo (and node meminfo),
 * memory.stat, vmstat, id lists, mountinfo, /proc/PID/maps.  Every input
 * goes through all of them.
 */
#include "fuzz.h"

#include "sys/mapped.h"
#include "sys/mounts.h"
#include "sys/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct upcc_meminfo meminfo;
	struct upcc_memstat memstat;
	struct upcc_vmstat vmstat;
	struct upcc_mount_list mounts = { 0 };
	struct upcc_mapped_set mapped = { 0 };
	int ids[64];
	char *text = fuzz_text(data, size);

	if (!text)
		return 0;
	(void)upcc_meminfo_parse(text, &meminfo);
	(void)upcc_memstat_parse(text, &memstat);
	(void)upcc_vmstat_parse(text, &vmstat);
	if (upcc_id_list_parse(text, ids, 64) > 64)
		abort();
	(void)upcc_mounts_parse(&mounts, text);
	upcc_mounts_free(&mounts);
	if (upcc_mapped_set_parse(&mapped, text) == 0) {
		upcc_mapped_set_finish(&mapped);
		for (size_t i = 1; i < mapped.count; i++)
			if (mapped.ids[i - 1].dev == mapped.ids[i].dev &&
			    mapped.ids[i - 1].ino == mapped.ids[i].ino)
				abort();	/* finish leaves each file once */
	}
	upcc_mapped_set_free(&mapped);
	free(text);
	return 0;
}
