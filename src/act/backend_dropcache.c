// SPDX-License-Identifier: GPL-2.0
/*
 * backend_dropcache.c - "1" into /proc/sys/vm/drop_caches: the crude
 * baseline.  It keeps the rules (drop_pagecache_sb() only invalidates clean,
 * unmapped, not-under-writeback pages) but is blind to coldness: it throws
 * the hot working set away with the cold, whatever was asked.  So it needs
 * allow_dropcache, and auto tries it last.
 */
#include "backend.h"
#include "core/size.h"
#include "lib/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/policy.h"
#include "sys/stats.h"
#include "sys/sysfs.h"

#define DROP_CACHES	"/proc/sys/vm/drop_caches"

static int dropcache_probe(const struct upcc_scope *scope, char *why, size_t why_len)
{
	char path[PATH_MAX];

	if (scope->kind != UPCC_SCOPE_SYSTEM) {
		snprintf(why, why_len, "drop_caches acts on the whole system only");
		return -ENOTSUP;
	}
	if (upcc_sysfs_path(path, sizeof(path), DROP_CACHES) || access(path, F_OK) < 0) {
		snprintf(why, why_len, "no %s", DROP_CACHES);
		return -ENOENT;
	}
	snprintf(why, why_len, "drop_caches=1: all clean unmapped cache, hot or cold");
	return 0;
}

static int dropcache_init(struct upcc_backend *backend, const struct upcc_scope *scope)
{
	(void)scope;
	return backend->allow_dropcache ? 0 : -EPERM;
}

/* Unmapped file pages system-wide, or -1 if meminfo cannot be read. */
static int64_t unmapped_pages(void)
{
	struct upcc_meminfo info;
	uint64_t kb_per_page = upcc_page_size() / 1024u;

	if (upcc_meminfo_read_system(&info))
		return -1;
	return (int64_t)upcc_unmapped_file_pages(
		(info.kb[UPCC_MI_ACTIVE_FILE] + info.kb[UPCC_MI_INACTIVE_FILE]) / kb_per_page,
		info.kb[UPCC_MI_MAPPED] / kb_per_page);
}

static int dropcache_reclaim(struct upcc_backend *backend, const struct upcc_scope *scope,
			     uint64_t round, uint64_t nr_pages, struct upcc_action_result *result)
{
	uint64_t start_usec;
	char path[PATH_MAX];
	int64_t before, after;
	int err;

	(void)scope;
	(void)round;	/* nothing of a step outlives it */
	if (!upcc_reclaim_begin(backend, nr_pages, result, &start_usec) || !backend->allow_dropcache)
		return backend->allow_dropcache ? 0 : -EPERM;
	err = upcc_sysfs_path(path, sizeof(path), DROP_CACHES);
	if (err)
		return err;
	before = unmapped_pages();
	err = upcc_sysfs_write(path, "1");
	after = unmapped_pages();
	if (before >= 0 && after >= 0 && before > after)
		result->reclaimed_pages = (uint64_t)(before - after);
	result->scanned_items = 1;
	return upcc_reclaim_end(result, start_usec, err);
}

static void dropcache_fini(struct upcc_backend *backend)
{
	backend->priv = NULL;
}

const struct upcc_backend_ops upcc_backend_dropcache = {
	.name = "dropcache",
	.probe = dropcache_probe,
	.init = dropcache_init,
	.reclaim = dropcache_reclaim,
	.fini = dropcache_fini,
	.may_unmap = false,
	.auto_rank = 3,
};
