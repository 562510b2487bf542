// SPDX-License-Identifier: GPL-2.0
/*
 * backend_memcg.c - cgroup v2 memory.reclaim, "<bytes> swappiness=0".
 *
 * What the kernel does with it (mm/memcontrol.c memory_reclaim(), 6.12):
 * try_to_free_mem_cgroup_pages() with may_writepage = !laptop_mode and
 * may_unmap = 1.  Reclaim itself does not write dirty file folios from a
 * user task, but shrink_inactive_list() (mm/vmscan.c) wakes the flusher
 * threads (wakeup_flusher_threads(WB_REASON_VMSCAN)) whenever every folio
 * it took off the LRU was dirty and not yet queued for I/O.  Measured in
 * tests/guest-backends: one `upcd --once --backend=memcg` took a 512-page
 * dirty file to 0 dirty pages, nr_written +512, on the root and on a child
 * cgroup.  The control never writes back or drops a dirty page, so this
 * backend refuses to act (result->refused) while its scope holds any
 * dirty or writeback page: memory.stat file_dirty + file_writeback for a
 * cgroup, /proc/meminfo Dirty + Writeback for the system.  The check runs
 * right before each write; a page dirtied between the two is a window it
 * cannot close, which is one more reason auto never picks memcg.
 *
 * Anon is never swapped with swappiness=0 (get_scan_count scans file only
 * for cgroup reclaim with swappiness 0), nor without swap at all.  But
 * may_unmap = 1: cold, unreferenced mapped file pages can be unmapped and
 * dropped.  That breaks "never unmap", so auto never picks this backend;
 * it runs only when named.  See docs/backends.md.
 */
#include "backend.h"
#include "core/policy.h"
#include "core/size.h"
#include "lib/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/stats.h"
#include "sys/sysfs.h"

struct memcg_priv {
	char reclaim_path[PATH_MAX];
	char stat_path[PATH_MAX];
	bool system;		/* the root: dirty pages from /proc/meminfo */
	bool swappiness_key;	/* the kernel takes "swappiness=" */
};

static int cgroup_dir(const struct upcc_scope *scope, char *buf, size_t len)
{
	if (scope->kind == UPCC_SCOPE_SYSTEM)
		return upcc_sysfs_path(buf, len, "/sys/fs/cgroup");
	if (scope->kind == UPCC_SCOPE_CGROUP)
		return upcc_sysfs_path(buf, len, scope->path);
	return -ENOTSUP;
}

static int file_in(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* SwapTotal in kB from meminfo, -1 if unknown: only 0 means no swap. */
static long long swap_total_kb(void)
{
	struct upcc_meminfo info;

	if (upcc_meminfo_read_system(&info) || !UPCC_HAS(&info, UPCC_MI_SWAP_TOTAL) ||
	    info.kb[UPCC_MI_SWAP_TOTAL] > INT64_MAX)
		return -1;
	return (long long)info.kb[UPCC_MI_SWAP_TOTAL];
}

static int memcg_probe(const struct upcc_scope *scope, char *why, size_t why_len)
{
	char dir[PATH_MAX], file[PATH_MAX + 32];

	if (cgroup_dir(scope, dir, sizeof(dir))) {
		snprintf(why, why_len, "memory.reclaim acts on a cgroup or the whole system only");
		return -ENOTSUP;
	}
	if (file_in(file, sizeof(file), dir, "memory.reclaim") || access(file, F_OK) < 0) {
		snprintf(why, why_len, "no memory.reclaim (cgroup v2 with memory controller, 5.19+)");
		return -ENOENT;
	}
	snprintf(why, why_len,
		 "memory.reclaim swappiness=0 (6.11+; without it only with no swap)%s; "
		 "can evict mapped file pages (may unmap cold mapped file pages), so auto never picks it",
		 swap_total_kb() == 0 ? " (no swap configured)" : "");
	return 0;
}

static int memcg_init(struct upcc_backend *backend, const struct upcc_scope *scope)
{
	struct memcg_priv *priv = calloc(1, sizeof(*priv));
	char dir[PATH_MAX];
	int err;

	if (!priv)
		return -ENOMEM;
	err = cgroup_dir(scope, dir, sizeof(dir));
	if (!err)
		err = file_in(priv->reclaim_path, sizeof(priv->reclaim_path), dir, "memory.reclaim");
	if (!err)
		err = file_in(priv->stat_path, sizeof(priv->stat_path), dir, "memory.stat");
	if (err) {
		free(priv);
		return err;
	}
	priv->system = scope->kind == UPCC_SCOPE_SYSTEM;
	priv->swappiness_key = true;	/* until the kernel says otherwise */
	backend->priv = priv;
	return 0;
}

static int64_t file_bytes(const struct memcg_priv *priv)
{
	struct upcc_memstat stat;

	if (upcc_memstat_read(priv->stat_path, &stat) || !UPCC_HAS(&stat, UPCC_MS_FILE))
		return -1;
	return (int64_t)stat.bytes[UPCC_MS_FILE];
}

/*
 * The scope's dirty and writeback pages, the ones memory.reclaim would send
 * the flusher after.  The root's memory.stat is not the system's on every
 * kernel, so the system scope reads /proc/meminfo.  0 or -errno; a field
 * the kernel does not report is -ENODATA: unknown is not clean.
 */
static int held_pages(const struct memcg_priv *priv, uint64_t page, uint64_t *dirty,
		      uint64_t *writeback)
{
	int err;

	if (priv->system) {
		struct upcc_meminfo info;

		err = upcc_meminfo_read_system(&info);
		if (err)
			return err;
		if (!UPCC_HAS(&info, UPCC_MI_DIRTY) || !UPCC_HAS(&info, UPCC_MI_WRITEBACK))
			return -ENODATA;
		*dirty = info.kb[UPCC_MI_DIRTY] * 1024 / page;
		*writeback = info.kb[UPCC_MI_WRITEBACK] * 1024 / page;
		return 0;
	} else {
		struct upcc_memstat stat;

		err = upcc_memstat_read(priv->stat_path, &stat);
		if (err)
			return err;
		if (!UPCC_HAS(&stat, UPCC_MS_FILE_DIRTY) || !UPCC_HAS(&stat, UPCC_MS_FILE_WRITEBACK))
			return -ENODATA;
		*dirty = stat.bytes[UPCC_MS_FILE_DIRTY] / page;
		*writeback = stat.bytes[UPCC_MS_FILE_WRITEBACK] / page;
		return 0;
	}
}

/*
 * Refuse (fill result->refused) if the scope has a dirty or writeback page,
 * or if that cannot be told.  Returns true when refused.
 */
static bool refuse_if_dirty(const struct memcg_priv *priv, uint64_t page,
			    struct upcc_action_result *result)
{
	uint64_t dirty = 0, writeback = 0;
	int err = held_pages(priv, page, &dirty, &writeback);

	if (err) {
		snprintf(result->refused, sizeof(result->refused),
			 "cannot tell the scope's dirty pages (%s): memory.reclaim could start writeback",
			 strerror(-err));
		return true;
	}
	if (!dirty && !writeback)
		return false;
	snprintf(result->refused, sizeof(result->refused),
		 "scope has %s dirty + %s writeback: memory.reclaim would wake the flusher",
		 upcc_size_format((char[UPCC_SIZE_TEXT_LEN]){ 0 }, UPCC_SIZE_TEXT_LEN,
				  upcc_mul_saturating(dirty, page)),
		 upcc_size_format((char[UPCC_SIZE_TEXT_LEN]){ 0 }, UPCC_SIZE_TEXT_LEN,
				  upcc_mul_saturating(writeback, page)));
	return true;
}

/*
 * Write the request.  A kernel without the swappiness key answers EINVAL
 * before reclaiming anything; then the plain form is only safe (never
 * swap) when there is no swap at all.
 */
static int write_request(struct memcg_priv *priv, uint64_t bytes)
{
	char request[64];
	int err;

	if (priv->swappiness_key) {
		snprintf(request, sizeof(request), "%llu swappiness=0", (unsigned long long)bytes);
		err = upcc_sysfs_write(priv->reclaim_path, request);
		if (err != -EINVAL)
			return err;
		priv->swappiness_key = false;
	}
	if (swap_total_kb() != 0)
		return -EOPNOTSUPP;	/* could swap anon: refuse */
	snprintf(request, sizeof(request), "%llu", (unsigned long long)bytes);
	return upcc_sysfs_write(priv->reclaim_path, request);
}

static int memcg_reclaim(struct upcc_backend *backend, const struct upcc_scope *scope,
			 uint64_t round, uint64_t nr_pages, struct upcc_action_result *result)
{
	struct memcg_priv *priv = backend->priv;
	uint64_t page = upcc_page_size();
	uint64_t start_usec;
	int64_t before, after;
	int err = 0;

	(void)scope;
	(void)round;	/* nothing of a step outlives it */
	if (!upcc_reclaim_begin(backend, nr_pages, result, &start_usec))
		return 0;
	if (!priv)
		return -EINVAL;	/* init was not called */
	if (refuse_if_dirty(priv, page, result))
		return 0;
	before = file_bytes(priv);
	err = write_request(priv, nr_pages * page);
	if (err == -EAGAIN)
		err = 0;	/* reclaimed less than asked: the measurement says how much */
	after = file_bytes(priv);
	if (before >= 0 && after >= 0 && before > after)
		result->reclaimed_pages = (uint64_t)(before - after) / page;
	result->scanned_items = 1;
	return upcc_reclaim_end(result, start_usec, err);
}

static void memcg_fini(struct upcc_backend *backend)
{
	free(backend->priv);
	backend->priv = NULL;
}

const struct upcc_backend_ops upcc_backend_memcg = {
	.name = "memcg",
	.probe = memcg_probe,
	.init = memcg_init,
	.reclaim = memcg_reclaim,
	.fini = memcg_fini,
	.may_unmap = true,
	.auto_rank = 2,
};
