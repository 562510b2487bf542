// SPDX-License-Identifier: GPL-2.0
/*
 * measure.c - fill a struct upcc_sample from the kernel's accounting files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Path scopes are measured by the inventory module (cachestat/mincore). */
#include "inventory.h"
#include "hooks.h"
#include "measure.h"
#include "stats.h"



static int rooted_path(char *buffer, size_t size, const char *path)
{
	int len = snprintf(buffer, size, "%s%s", upcc_hooks.measure_root ? upcc_hooks.measure_root : "", path);

	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

static uint64_t kb_to_pages(uint64_t kb)
{
	return kb / (upcc_page_size() / 1024);
}

/* The fields a meminfo must have for the unmapped count to mean anything. */
static int sample_from_meminfo(const struct upcc_meminfo *info, struct upcc_sample *sample)
{
	if (!UPCC_HAS(info, UPCC_MI_MEM_TOTAL) || !UPCC_HAS(info, UPCC_MI_ACTIVE_FILE) ||
	    !UPCC_HAS(info, UPCC_MI_INACTIVE_FILE) || !UPCC_HAS(info, UPCC_MI_MAPPED))
		return -ENODATA;
	memset(sample, 0, sizeof(*sample));
	sample->total_pages = kb_to_pages(info->kb[UPCC_MI_MEM_TOTAL]);
	sample->file_lru_pages = kb_to_pages(info->kb[UPCC_MI_ACTIVE_FILE]) +
				 kb_to_pages(info->kb[UPCC_MI_INACTIVE_FILE]);
	sample->mapped_pages = kb_to_pages(info->kb[UPCC_MI_MAPPED]);
	sample->dirty_pages = kb_to_pages(info->kb[UPCC_MI_DIRTY]);
	sample->writeback_pages = kb_to_pages(info->kb[UPCC_MI_WRITEBACK]);
	sample->free_pages = kb_to_pages(info->kb[UPCC_MI_MEM_FREE]);
	sample->unmapped_pages = upcc_unmapped_file_pages(sample->file_lru_pages,
							  sample->mapped_pages);
	return 0;
}

static int measure_meminfo_file(const char *path, struct upcc_sample *sample)
{
	struct upcc_meminfo info;
	char full[PATH_MAX];
	int err = rooted_path(full, sizeof(full), path);

	if (!err)
		err = upcc_meminfo_read(full, &info);
	if (!err)
		err = sample_from_meminfo(&info, sample);
	return err;
}

static int measure_node(const struct upcc_scope *scope, struct upcc_sample *sample)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", scope->node_id);
	return measure_meminfo_file(path, sample);
}

/*
 * A cgroup's memory is its memory.max, or the system's when unlimited
 * ("max") or larger than the machine: % of "max" must mean % of RAM.
 */
static int cgroup_total_pages(const struct upcc_scope *scope, uint64_t *total_pages)
{
	struct upcc_sample system;
	char path[PATH_MAX + 32], *text;
	unsigned long long limit;
	int err;

	err = measure_meminfo_file("/proc/meminfo", &system);
	if (err)
		return err;
	*total_pages = system.total_pages;
	if (snprintf(path, sizeof(path), "%s/memory.max", scope->path) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (upcc_read_text(path, &text))
		return 0;	/* the root cgroup has no memory.max */
	if (sscanf(text, "%llu", &limit) == 1 && limit / upcc_page_size() < *total_pages)
		*total_pages = limit / upcc_page_size();
	free(text);
	return 0;
}

static int measure_cgroup(const struct upcc_scope *scope, struct upcc_sample *sample)
{
	struct upcc_memstat stat;
	char path[PATH_MAX + 32];
	uint64_t page = upcc_page_size();
	int err;

	if (snprintf(path, sizeof(path), "%s/memory.stat", scope->path) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	err = upcc_memstat_read(path, &stat);
	if (err)
		return err;
	if (!UPCC_HAS(&stat, UPCC_MS_ACTIVE_FILE) || !UPCC_HAS(&stat, UPCC_MS_INACTIVE_FILE) ||
	    !UPCC_HAS(&stat, UPCC_MS_FILE_MAPPED))
		return -ENODATA;
	memset(sample, 0, sizeof(*sample));
	err = cgroup_total_pages(scope, &sample->total_pages);
	if (err)
		return err;
	sample->file_lru_pages = stat.bytes[UPCC_MS_ACTIVE_FILE] / page +
				 stat.bytes[UPCC_MS_INACTIVE_FILE] / page;
	sample->mapped_pages = stat.bytes[UPCC_MS_FILE_MAPPED] / page;
	sample->dirty_pages = stat.bytes[UPCC_MS_FILE_DIRTY] / page;
	sample->writeback_pages = stat.bytes[UPCC_MS_FILE_WRITEBACK] / page;
	sample->unmapped_pages = upcc_unmapped_file_pages(sample->file_lru_pages,
							  sample->mapped_pages);
	return 0;
}

int upcc_measure(struct upcc_scope *scope, struct upcc_sample *sample)
{
	switch (scope->kind) {
	case UPCC_SCOPE_SYSTEM:
		return measure_meminfo_file("/proc/meminfo", sample);
	case UPCC_SCOPE_NODE:
		return measure_node(scope, sample);
	case UPCC_SCOPE_CGROUP:
		return measure_cgroup(scope, sample);
	case UPCC_SCOPE_PATH:
		return upcc_path_sample(scope, sample);
	}
	return -EINVAL;
}

int upcc_measure_nodes(int *ids, size_t max)
{
	char path[PATH_MAX], *text;
	int count;

	if (rooted_path(path, sizeof(path), "/sys/devices/system/node/has_memory"))
		return -ENAMETOOLONG;
	if (upcc_read_text(path, &text))
		return 0;	/* no NUMA sysfs: the system is the only node */
	count = upcc_id_list_parse(text, ids, max);
	free(text);
	return count;
}
