// SPDX-License-Identifier: GPL-2.0
/*
 * measure.c - fill a struct upcc_sample from the kernel's accounting files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/policy.h"
#include "lib/readtext.h"
#include "mapped.h"
#include "measure.h"
#include "residency.h"
#include "stats.h"
#include "sysfs.h"
#include "walk.h"


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
	int err = upcc_sysfs_path(full, sizeof(full), path);

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

uint64_t upcc_measure_mem_total_pages(void)
{
	struct upcc_sample system;

	return measure_meminfo_file("/proc/meminfo", &system) ? 0 : system.total_pages;
}

void upcc_measure_from_sum(const struct upcc_residency_sum *sum,
			   const struct upcc_walk_stats *walk, uint64_t total_pages,
			   struct upcc_sample *sample)
{
	memset(sample, 0, sizeof(*sample));
	sample->total_pages = total_pages ? total_pages : upcc_measure_mem_total_pages();
	sample->file_lru_pages = sum->cached_pages;
	sample->mapped_pages = sum->mapped_pages;
	sample->unmapped_pages = upcc_unmapped_file_pages(sample->file_lru_pages,
							  sample->mapped_pages);
	sample->dirty_pages = sum->dirty_pages;
	sample->writeback_pages = sum->writeback_pages;
	sample->skipped_depth = walk->skipped_depth;
	sample->skipped_raced = walk->skipped_raced;
	sample->walk_errors = walk->errors;
	sample->skipped_excluded = walk->skipped_excluded;
}

struct path_sum {
	struct upcc_mapped_set mapped;
	struct upcc_residency_sum sum;
	uint64_t unmeasured;	/* opened, but neither method could measure */
};

static int path_sum_one(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct path_sum *ps = ctx;
	struct upcc_residency res;

	(void)path;
	/* Left out of the sum, so counted where the walk's errors are: a
	 * scope whose files cannot be measured must not pass for empty.
	 */
	if (upcc_residency_fd(fd, st, &res)) {
		ps->unmeasured++;
		return 0;
	}
	upcc_residency_add(&ps->sum, &res,
			   upcc_mapped_set_has(&ps->mapped, st->st_dev, st->st_ino));
	return 0;
}

int upcc_measure_path(const struct upcc_scope *scope, struct upcc_sample *sample)
{
	struct upcc_walk_options options = {
		.cross_mounts = scope->cross_mounts, .exclude = scope->exclude,
	};
	struct upcc_walk_stats walk;
	struct path_sum ps;
	int err;

	if (scope->kind != UPCC_SCOPE_PATH)
		return -EINVAL;
	memset(&ps, 0, sizeof(ps));
	memset(&walk, 0, sizeof(walk));
	err = upcc_mapped_set_load(&ps.mapped);
	if (!err)
		err = upcc_walk(scope->path, &options, path_sum_one, &ps, &walk);
	upcc_mapped_set_free(&ps.mapped);
	if (err)
		return err < 0 ? err : -EIO;
	walk.errors += ps.unmeasured;
	upcc_measure_from_sum(&ps.sum, &walk, 0, sample);
	return 0;
}

int upcc_measure(const struct upcc_scope *scope, struct upcc_sample *sample)
{
	switch (scope->kind) {
	case UPCC_SCOPE_SYSTEM:
		return measure_meminfo_file("/proc/meminfo", sample);
	case UPCC_SCOPE_NODE:
		return measure_node(scope, sample);
	case UPCC_SCOPE_CGROUP:
		return measure_cgroup(scope, sample);
	case UPCC_SCOPE_PATH:
		return upcc_measure_path(scope, sample);
	}
	return -EINVAL;
}

int upcc_measure_nodes(int *ids, size_t max)
{
	char path[PATH_MAX], *text;
	int count;

	if (upcc_sysfs_path(path, sizeof(path), "/sys/devices/system/node/has_memory"))
		return -ENAMETOOLONG;
	if (upcc_read_text(path, &text))
		return 0;	/* no NUMA sysfs: the system is the only node */
	count = upcc_id_list_parse(text, ids, max);
	free(text);
	return count;
}

/* "node 0", "nodes 0, 1, 3" into @buf. */
static void node_list_text(char *buf, size_t len, const int *ids, int count)
{
	size_t used = (size_t)snprintf(buf, len, "%s", count == 1 ? "node " : "nodes ");

	for (int i = 0; i < count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? ", " : "", ids[i]);
}

static int check_node(const struct upcc_scope *scope, char *why, size_t len)
{
	int ids[256], count = upcc_measure_nodes(ids, 256);
	char list[256];

	if (count <= 0) {
		snprintf(why, len, "no NUMA node %d (this machine has no NUMA node information "
			 "in /sys/devices/system/node): use scope system", scope->node_id);
		return -EINVAL;
	}
	for (int i = 0; i < count; i++)
		if (ids[i] == scope->node_id)
			return 0;
	node_list_text(list, sizeof(list), ids, count);
	snprintf(why, len, "no NUMA node %d (this machine has %s)", scope->node_id, list);
	return -EINVAL;
}

static bool file_in(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0;
}

/* A cgroup v2 directory whose parent is none: the hierarchy's root. */
static bool is_root_cgroup(const char *path)
{
	char parent[PATH_MAX];
	char *slash;

	if (!file_in(path, "cgroup.controllers"))
		return false;
	snprintf(parent, sizeof(parent), "%s", path);
	while ((slash = strrchr(parent, '/')) && slash[1] == '\0' && slash != parent)
		*slash = '\0';		/* trailing slashes */
	slash = strrchr(parent, '/');
	if (!slash)
		return false;
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	return !file_in(parent, "cgroup.controllers");
}

int upcc_measure_check(const struct upcc_scope *scope, char *why, size_t len)
{
	if (scope->kind == UPCC_SCOPE_NODE)
		return check_node(scope, why, len);
	if (scope->kind == UPCC_SCOPE_CGROUP && is_root_cgroup(scope->path) &&
	    !file_in(scope->path, "memory.stat")) {
		snprintf(why, len, "%s is the root cgroup, which has no memory.stat on this "
			 "kernel: for the whole machine use scope system", scope->path);
		return -EINVAL;
	}
	return 0;
}

const char *upcc_measure_explain(const struct upcc_scope *scope, int err, char *buf,
				 size_t len)
{
	struct stat st;

	if (scope->kind == UPCC_SCOPE_NODE && err == -ENOENT && check_node(scope, buf, len))
		return buf;
	if (scope->kind == UPCC_SCOPE_CGROUP && err == -ENOENT) {
		if (stat(scope->path, &st) != 0)
			snprintf(buf, len, "no cgroup %s (not created yet?)", scope->path);
		else if (!file_in(scope->path, "cgroup.controllers"))
			snprintf(buf, len, "%s is not a cgroup v2 directory (no cgroup.controllers): "
				 "upcd needs the unified hierarchy", scope->path);
		else if (upcc_measure_check(scope, buf, len) == 0)
			snprintf(buf, len, "no memory.stat in %s: enable the memory controller "
				 "(+memory in its parent's cgroup.subtree_control)", scope->path);
		return buf;
	}
	if (scope->kind == UPCC_SCOPE_PATH && err == -ENOENT) {
		snprintf(buf, len, "no directory %s (not created yet?)", scope->path);
		return buf;
	}
	/* The fadvise inventory's: its root was a mount point and is not. */
	if (scope->kind == UPCC_SCOPE_PATH && err == -ENODEV) {
		snprintf(buf, len, "%s is not mounted (unmounted while upcd ran): "
			 "measured again once it is", scope->path);
		return buf;
	}
	snprintf(buf, len, "%s", strerror(-err));
	return buf;
}
