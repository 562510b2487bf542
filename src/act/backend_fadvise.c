// SPDX-License-Identifier: GPL-2.0
/*
 * backend_fadvise.c - POSIX_FADV_DONTNEED on clean, unmapped files of the
 * scope's inventory, coldest first, until the requested pages are gone.
 *
 * The rules hold by construction: fadvise DONTNEED never drops a mapped page
 * (invalidate_mapping_pages skips them) and mapped files are skipped anyway;
 * files cachestat reports dirty or under writeback are skipped because
 * DONTNEED would start writeback on them; nothing here touches anon memory.
 */
#include "backend.h"
#include "lib/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "core/resolve.h"
#include "core/size.h"
#include "inventory/inventory.h"
#include "lib/pace.h"
#include "sys/residency.h"
#include "lib/text.h"
#include "sys/walk.h"

/* backend->priv: the inventory, and whether a sample has just refreshed it. */
struct fadvise_state {
	struct upcc_inventory inv;
	bool refreshed_by_sample;	/* the next reclaim works on that refresh */
	uint64_t refreshed_usec;	/* the last refresh, monotonic */
	uint64_t refreshed_round;	/* in which control round (ops->reclaim's @round) */
	bool refresh_noted;		/* its news (result->note) told: a round's later
					 * steps reuse the refresh, not its news */
};

/* A refresh this recent, in the same round, is reused by the next step's
 * sample; a round's first step always refreshes.
 */
#define FADVISE_REFRESH_REUSE_USEC	(200ull * 1000)

/*
 * The system and node scopes act through the whole page cache, so their
 * inventory is every local disk-backed filesystem (walk.h's mount rules),
 * not "/": a guest whose root is an initramfs keeps its data on the disks
 * mounted below it.  A path scope is its tree.
 */
static bool scope_uses_mounts(const struct upcc_scope *scope)
{
	return scope->kind == UPCC_SCOPE_SYSTEM || scope->kind == UPCC_SCOPE_NODE;
}

static int probe_path(const char *path, char *why, size_t why_len)
{
	struct statfs sfs;
	struct stat st;

	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%.200s is not a directory", path);
		return -ENOTDIR;
	}
	if (statfs(path, &sfs) < 0 || upcc_fs_is_pseudo((int64_t)sfs.f_type)) {
		snprintf(why, why_len, "%.200s is on a pseudo or memory-backed filesystem", path);
		return -EMEDIUMTYPE;
	}
	return 0;
}

/*
 * Count the mounts in @why and name the first few ("/data (ext4)"); upcd
 * logs every one, whole, as the inventory's roots after init.
 */
static int probe_mounts(char *why, size_t why_len)
{
	enum { NAMED_MOUNTS = 3 };
	struct upcc_mount_list mounts;
	int err = upcc_mounts_load(&mounts, NULL);

	if (err) {
		upcc_text_append(why, why_len, "; mountinfo: %s", strerror(-err));
		return err;
	}
	if (!mounts.count)
		upcc_text_append(why, why_len, "; no local disk-backed filesystem: nothing to reclaim");
	else
		upcc_text_append(why, why_len, "; %zu local disk filesystem%s:", mounts.count,
				mounts.count == 1 ? "" : "s");
	for (size_t i = 0; i < mounts.count && i < NAMED_MOUNTS; i++)
		upcc_text_append(why, why_len, " %s (%s)", mounts.mounts[i].mount_point,
				mounts.mounts[i].fstype);
	if (mounts.count > NAMED_MOUNTS)
		upcc_text_append(why, why_len, " and %zu more", mounts.count - NAMED_MOUNTS);
	upcc_mounts_free(&mounts);
	return 0;
}

static int fadvise_probe(const struct upcc_scope *scope, char *why, size_t why_len)
{
	enum upcc_residency_method method = upcc_residency_method();
	int err;

	if (scope->kind == UPCC_SCOPE_CGROUP) {
		snprintf(why, why_len, "a file's pages cannot be aimed at one cgroup");
		return -ENOTSUP;
	}
	if (!scope_uses_mounts(scope)) {
		err = probe_path(scope->path, why, why_len);
		if (err)
			return err;
	}
	snprintf(why, why_len, "DONTNEED on clean unmapped files, coldest first (%s%s%s)",
		 upcc_residency_method_name(method),
		 method == UPCC_RESIDENCY_MINCORE ? ": dirty state by file age" : "",
		 scope->kind == UPCC_SCOPE_NODE ? "; not node-aimed" : "");
	/* No mount is not a refusal: the scope starts and says so. */
	if (scope_uses_mounts(scope))
		return probe_mounts(why, why_len);
	return 0;
}

static size_t count_marked(const struct upcc_inventory *inv)
{
	size_t marked = 0;

	for (size_t i = 0; i < inv->nr_roots; i++)
		marked += inv->roots[i].marked;
	return marked;
}

/* Say in `why` how the inventory learns files (upcd logs it after init). */
static void note_learning(struct upcc_backend *backend, const struct upcc_inventory *inv)
{
	if (inv->fan.fd >= 0 && inv->from_mounts)
		upcc_text_append(backend->why, sizeof(backend->why),
				"; inventory: fanotify %zu/%zu mounts, walk every %u%s%s",
				count_marked(inv), inv->nr_roots, UPCC_INVENTORY_REWALK_EVERY,
				inv->fan.why[0] ? "; not marked: " : "", inv->fan.why);
	else if (inv->fan.fd >= 0)
		upcc_text_append(backend->why, sizeof(backend->why),
				"; inventory: fanotify + walk every %u", UPCC_INVENTORY_REWALK_EVERY);
	else
		upcc_text_append(backend->why, sizeof(backend->why), "; inventory: walks (%s)",
				inv->fan.why);
}

/* One inventory root per line, whole: `why` names only the first few. */
static bool fadvise_detail(const struct upcc_backend *backend, size_t index, char *line,
			   size_t len)
{
	const struct fadvise_state *state = backend->priv;
	const struct upcc_inventory *inv = state ? &state->inv : NULL;

	if (!inv || index >= inv->nr_roots)
		return false;
	snprintf(line, len, "inventory root %s (%s)", inv->roots[index].path,
		 upcc_fanotify_root_learning(&inv->roots[index]));
	return true;
}

static int fadvise_init(struct upcc_backend *backend, const struct upcc_scope *scope)
{
	struct fadvise_state *state = calloc(1, sizeof(*state));
	struct upcc_inventory *inv = state ? &state->inv : NULL;
	struct upcc_mount_list mounts;
	int err;

	if (!state)
		return -ENOMEM;
	if (scope_uses_mounts(scope)) {
		err = upcc_mounts_load(&mounts, NULL);
		if (!err) {
			err = upcc_inventory_init_mounts(inv, &mounts, 0);
			inv->follow_mount_table = true;
			upcc_mounts_free(&mounts);
		}
	} else {
		err = upcc_inventory_init(inv, scope->path, scope->cross_mounts, 0);
		if (!err)
			upcc_inventory_set_exclude(inv, scope->exclude);
	}
	if (err) {
		free(state);
		return err;
	}
	backend->priv = state;
	note_learning(backend, inv);
	return 0;
}

/* Drop files from @order until @nr_pages are gone; fills @result. */
static void evict_in_order(struct upcc_backend *backend, struct upcc_inventory *inv,
			   struct upcc_inventory_entry **order, size_t count, uint64_t nr_pages,
			   struct upcc_action_result *result)
{
	for (size_t i = 0; i < count && result->reclaimed_pages < nr_pages; i++) {
		struct upcc_evict_result evicted;

		if (upcc_pace_stop())
			break;		/* a signal waits: what is done is reported */

		result->scanned_items++;
		if (backend->dry_run)
			continue;	/* the count of files it would look at is the report */
		if (upcc_inventory_evict(inv, order[i], nr_pages - result->reclaimed_pages, &evicted))
			continue;	/* gone or replaced since the walk: not ours to touch */
		if (evicted.skipped_dirty)
			result->skipped_dirty++;
		if (evicted.before_pages > evicted.after_pages)
			result->reclaimed_pages += evicted.before_pages - evicted.after_pages;
	}
}

/* Did this round refresh the inventory a moment ago? */
static bool refreshed_recently(const struct fadvise_state *state, uint64_t round)
{
	return state->refreshed_usec && state->refreshed_round == round &&
	       upcc_monotonic_usec() - state->refreshed_usec < FADVISE_REFRESH_REUSE_USEC;
}

/* Did the refresh walk every root because fanotify lost track (a cost to say)? */
static bool walked_for_loss(const struct upcc_inventory *inv)
{
	return inv->walk_why >= UPCC_INV_WALK_INTERRUPTED;
}

/*
 * What the scope may hold (core/wset.h): its target plus the working set
 * cap, resolved against the scope's memory as the last sample measured it
 * (the machine's, before one did).  The refresh judges refaults by it.
 */
static uint64_t wset_hold_pages(const struct upcc_inventory *inv, const struct upcc_scope *scope)
{
	struct upcc_sample sample = { .total_pages = inv->total_pages };
	struct upcc_policy policy;

	if (!sample.total_pages) {
		long pages = sysconf(_SC_PHYS_PAGES);

		sample.total_pages = pages > 0 ? (uint64_t)pages : 0;
	}
	policy = upcc_policy_resolve(&scope->config, &sample, upcc_page_size());
	return upcc_wset_hold(&policy);
}

static int refresh(struct fadvise_state *state, const struct upcc_scope *scope, uint64_t round)
{
	int err;

	state->inv.wset_hold_pages = wset_hold_pages(&state->inv, scope);
	err = upcc_inventory_refresh(&state->inv);

	state->refreshed_usec = err ? 0 : upcc_monotonic_usec();
	state->refreshed_round = round;
	state->refresh_noted = false;
	return err;
}

/*
 * A path scope's sample from the inventory's refresh: the refresh measures
 * every file of the tree, as upcc_measure_path()'s walk would, so the step's
 * reclaim can work on it instead of passing over the tree a second time.
 */
static int fadvise_sample(struct upcc_backend *backend, const struct upcc_scope *scope,
			  uint64_t round, struct upcc_sample *sample)
{
	struct fadvise_state *state = backend->priv;
	int err;

	if (!state || scope->kind != UPCC_SCOPE_PATH)
		return -EOPNOTSUPP;	/* the system scope reads /proc/meminfo */
	/* A round's later steps: the refresh of a moment ago still orders
	 * the files (evictions since are in it); what grew since is the
	 * tick's cheap sample to find.
	 */
	if (refreshed_recently(state, round)) {
		err = upcc_inventory_tick_sample(&state->inv, sample);
		/* Too dear a tick (a large tree without fanotify): the
		 * refresh's totals, less what was dropped since, rather
		 * than a walk of the whole tree per step.
		 */
		if (err == -EOPNOTSUPP)
			err = upcc_inventory_sample(&state->inv, sample);
		state->refreshed_by_sample = !err;
		return err;
	}
	err = refresh(state, scope, round);
	/* Even where the sample must come from a walk, the reclaim may use this. */
	state->refreshed_by_sample = !err;
	if (err)
		return err;
	return upcc_inventory_sample(&state->inv, sample);
}

/*
 * A path scope's sample is its inventory's walk; the system scope is
 * measured from /proc/meminfo, so what its walks left out (too deep, raced,
 * unreadable) is known only here.  Report it with the action, where upcd
 * logs it as it does a path scope's sample's, rather than leave those files
 * out without a word.
 */
static void note_walk_skips(const struct upcc_inventory *inv, struct upcc_action_result *result)
{
	result->skipped_depth = inv->last.walk.skipped_depth;
	result->skipped_raced = inv->last.walk.skipped_raced;
	result->walk_errors = inv->last.walk.errors;
}

static int fadvise_tick_sample(struct upcc_backend *backend, const struct upcc_scope *scope,
			       struct upcc_sample *sample)
{
	struct fadvise_state *state = backend->priv;

	if (!state || scope->kind != UPCC_SCOPE_PATH)
		return -EOPNOTSUPP;
	return upcc_inventory_tick_sample(&state->inv, sample);
}

/* What a refresh has to say: the disks that came or went, or a walk of
 * every root because fanotify lost track (a cost to say).
 */
static void note_refresh(const struct upcc_inventory *inv, int err,
			 struct upcc_action_result *result)
{
	if (inv->roots_changed[0])
		upcc_text_append(result->note, sizeof(result->note), "inventory: %s",
				 inv->roots_changed);
	else if (!err && walked_for_loss(inv))
		upcc_text_append(result->note, sizeof(result->note),
				 "inventory: walked every root (%s)",
				 upcc_inv_walk_why_name(inv->walk_why));
}

static int fadvise_reclaim(struct upcc_backend *backend, const struct upcc_scope *scope,
			   uint64_t round, uint64_t nr_pages, struct upcc_action_result *result)
{
	struct fadvise_state *state = backend->priv;
	struct upcc_inventory *inv = state ? &state->inv : NULL;
	struct upcc_inventory_entry **order;
	uint64_t start_usec;
	size_t count;
	int err = 0;

	/* A dry run still orders the files: how many it would look at is
	 * its report (evict_in_order).
	 */
	(void)upcc_reclaim_begin(backend, nr_pages, result, &start_usec);
	if (!inv)
		return -EINVAL;	/* init was not called */
	/* The system and node scopes sample /proc/meminfo between steps: a
	 * round's later steps work on its first refresh, as a path scope's do
	 * (each was a walk or a measure of every known file: 18 steps of a
	 * round were 18 refreshes).
	 */
	if (!state->refreshed_by_sample && !refreshed_recently(state, round))
		err = refresh(state, scope, round);
	state->refreshed_by_sample = false;
	if (!state->refresh_noted)	/* else said at this refresh's first step */
		note_refresh(inv, err, result);
	state->refresh_noted = true;
	if (!err && scope->kind != UPCC_SCOPE_PATH)
		note_walk_skips(inv, result);
	if (!err && inv->count) {
		order = malloc(inv->count * sizeof(*order));
		if (!order) {
			err = -ENOMEM;
		} else {
			count = upcc_inventory_coldest(inv, order, inv->count);
			evict_in_order(backend, inv, order, count, nr_pages, result);
			free(order);
		}
	}
	return upcc_reclaim_end(result, start_usec, err);
}

static void fadvise_fini(struct upcc_backend *backend)
{
	struct fadvise_state *state = backend->priv;

	if (state) {
		upcc_inventory_fini(&state->inv);
		free(state);
	}
	backend->priv = NULL;
}

const struct upcc_backend_ops upcc_backend_fadvise = {
	.name = "fadvise",
	.probe = fadvise_probe,
	.init = fadvise_init,
	.reclaim = fadvise_reclaim,
	.fini = fadvise_fini,
	.sample = fadvise_sample,
	.tick_sample = fadvise_tick_sample,
	.detail = fadvise_detail,
	.may_unmap = false,
	.auto_rank = 0,
};
