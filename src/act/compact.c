// SPDX-License-Identifier: GPL-2.0
/*
 * compact.c - compaction after reclaim, only under a reporting balloon;
 * see compact.h.
 */
#include "compact.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/hooks.h"
#include "sys/sysfs.h"

#define BALLOON_DRIVER_DIR	"/sys/bus/virtio/drivers/virtio_balloon"
#define COMPACT_SYSCTL		"/proc/sys/vm/compact_memory"

/*
 * A device directory under the driver is bound to it.  Its "features" file
 * is the negotiated feature bits, one '0' or '1' per bit from bit 0: what
 * the device offered and the driver took, not only what the driver knows.
 */
static bool device_reports(const char *driver_dir, const char *device)
{
	char path[512], features[128];

	if (snprintf(path, sizeof(path), "%s/%s/features", driver_dir, device) >=
	    (int)sizeof(path))
		return false;
	if (upcc_sysfs_read_line(path, features, sizeof(features)))
		return false;
	return strlen(features) > UPCC_VIRTIO_BALLOON_F_REPORTING &&
	       features[UPCC_VIRTIO_BALLOON_F_REPORTING] == '1';
}

static bool find_reporting_balloon(char *device, size_t len)
{
	char driver_dir[256];
	struct dirent *entry;
	bool found = false;
	DIR *dir;

	if (upcc_sysfs_path(driver_dir, sizeof(driver_dir), BALLOON_DRIVER_DIR))
		return false;
	dir = opendir(driver_dir);
	if (!dir)
		return false;
	while (!found && (entry = readdir(dir))) {
		if (strncmp(entry->d_name, "virtio", 6) != 0)
			continue;
		found = device_reports(driver_dir, entry->d_name);
		if (found)
			snprintf(device, len, "%.*s", (int)len - 1, entry->d_name);
	}
	closedir(dir);
	return found;
}

void upcc_compact_probe(struct upcc_compact *compact, bool allowed)
{
	char device[64], sysctl[256];

	/* What was compacted stays counted (the metrics are counters);
	 * what was freed towards the next one starts again.
	 */
	compact->enabled = false;
	compact->freed_pages = 0;
	if (!allowed) {
		snprintf(compact->why, sizeof(compact->why), "off: \"compact = no\" in the config");
		return;
	}
	/* The integration suite's upcd reclaims on the build machine, which
	 * may well sit on a reporting balloon: its memory is not the test's.
	 */
	if (upcc_hooks.no_compact) {
		snprintf(compact->why, sizeof(compact->why), "off: disabled by a test hook");
		return;
	}
	if (!find_reporting_balloon(device, sizeof(device))) {
		snprintf(compact->why, sizeof(compact->why),
			 "off: no virtio-balloon device with free page reporting");
		return;
	}
	if (upcc_sysfs_path(sysctl, sizeof(sysctl), COMPACT_SYSCTL) ||
	    access(sysctl, W_OK) != 0) {
		snprintf(compact->why, sizeof(compact->why),
			 "off: %s reports free pages, but the kernel cannot compact (" COMPACT_SYSCTL
			 ": %s)", device, strerror(errno));
		return;
	}
	compact->enabled = true;
	snprintf(compact->why, sizeof(compact->why),
		 "on: %s reports free pages; compact after %llu MiB freed, at most every %llu s",
		 device, UPCC_COMPACT_MIN_FREED_BYTES >> 20, UPCC_COMPACT_GAP_USEC / 1000000);
}

bool upcc_compact_after_round(struct upcc_compact *compact, uint64_t freed_pages,
			      uint64_t page_size, uint64_t now_usec)
{
	char sysctl[256];
	uint64_t before;
	int err;

	if (!compact->enabled)
		return false;
	compact->freed_pages += freed_pages;
	if (compact->freed_pages * page_size < UPCC_COMPACT_MIN_FREED_BYTES)
		return false;
	if (compact->last_usec && now_usec - compact->last_usec < UPCC_COMPACT_GAP_USEC)
		return false;
	/* The write compacts every node in this thread before it returns. */
	before = upcc_thread_cpu_usec();
	err = upcc_sysfs_path(sysctl, sizeof(sysctl), COMPACT_SYSCTL);
	if (!err)
		err = upcc_sysfs_write(sysctl, "1");
	compact->cpu_usec_total += upcc_thread_cpu_usec() - before;
	compact->last_usec = now_usec;
	compact->freed_pages = 0;
	compact->runs_total++;
	compact->last_error = err;
	if (err)
		compact->errors_total++;
	return true;
}
