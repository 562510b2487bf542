// SPDX-License-Identifier: GPL-2.0
/*
 * backend.c - the backend registry, auto selection, and the opening and
 * close every reclaim shares.
 */
#include "backend.h"
#include "core/config.h"
#include "lib/text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * The backends; auto tries them by auto_rank, as bench/ measured it
 * (docs/bench.md): fadvise first: it
 * keeps every rule on any kernel, drops the coldest files first and kept
 * the hot set best of the rule-keeping backends.  Then damon, still only
 * where its probe passes (6.15+, with the DAMOS filter that keeps mapped
 * pages out, and DAMON free): it serves the scopes fadvise cannot aim at
 * (a cgroup).  memcg is never auto (it may unmap, and refuses whenever its
 * scope has dirty pages); dropcache last, only when allowed (blind to heat).
 */
const struct upcc_backend_ops *const upcc_backends[] = {
	&upcc_backend_fadvise,
	&upcc_backend_damon,
	&upcc_backend_memcg,
	&upcc_backend_dropcache,
	NULL,
};

const struct upcc_backend_ops *upcc_backend_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; upcc_backends[i]; i++)
		if (strcmp(upcc_backends[i]->name, name) == 0)
			return upcc_backends[i];
	return NULL;
}

/* Selection only picks: init and fini are the caller's (upcd calls init
 * unless dry-running), so nothing here allocates or changes state.
 */
static void choose(struct upcc_backend *backend, const struct upcc_backend_ops *ops)
{
	backend->ops = ops;
	backend->priv = NULL;
}

static int select_named(struct upcc_backend *backend, const struct upcc_backend_ops *ops,
			const struct upcc_scope *scope)
{
	char why[sizeof(backend->why)];
	int err;

	if (ops == &upcc_backend_dropcache && !backend->allow_dropcache) {
		snprintf(backend->why, sizeof(backend->why),
			 "dropcache drops all clean cache, hot or cold: it needs allow_dropcache");
		return -EPERM;
	}
	err = ops->probe(scope, why, sizeof(why));
	backend->why[0] = '\0';
	upcc_text_append(backend->why, sizeof(backend->why), "%s %s: %s", ops->name,
			err ? "unusable" : "by name", why);
	if (err)
		return err;
	choose(backend, ops);
	return 0;
}

/* Append "name (reason)" to the list of backends auto passed over. */
static void note_skipped(char *skipped, size_t len, const char *name, const char *reason)
{
	upcc_text_append(skipped, len, "%s%s (%s)", *skipped ? "; " : "", name, reason);
}

#define UPCC_MAX_BACKENDS	8

/* The backends in auto's order: by their auto_rank (docs/backends.md). */
static size_t auto_order(const struct upcc_backend_ops **order)
{
	size_t count = 0;

	for (size_t i = 0; upcc_backends[i] && count < UPCC_MAX_BACKENDS; i++) {
		size_t at = count++;

		while (at && order[at - 1]->auto_rank > upcc_backends[i]->auto_rank) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = upcc_backends[i];
	}
	return count;
}

static int select_auto(struct upcc_backend *backend, const struct upcc_scope *scope)
{
	char why[sizeof(backend->why)], skipped[sizeof(backend->why)] = "";
	int err = -ENOTSUP;

	const struct upcc_backend_ops *order[UPCC_MAX_BACKENDS];
	size_t count = auto_order(order);

	backend->why[0] = '\0';
	for (size_t i = 0; i < count; i++) {
		const struct upcc_backend_ops *ops = order[i];

		if (ops->may_unmap) {
			note_skipped(skipped, sizeof(skipped), ops->name, "may unmap");
			continue;
		}
		if (ops == &upcc_backend_dropcache && !backend->allow_dropcache) {
			note_skipped(skipped, sizeof(skipped), ops->name, "not allowed");
			continue;
		}
		err = ops->probe(scope, why, sizeof(why));
		if (err) {
			note_skipped(skipped, sizeof(skipped), ops->name, why);
			continue;
		}
		choose(backend, ops);
		/* The chosen backend's reason first: a long one cuts the list. */
		upcc_text_append(backend->why, sizeof(backend->why), "auto: %s: %s; passed over: %s",
				ops->name, why, *skipped ? skipped : "none");
		return 0;
	}
	upcc_text_append(backend->why, sizeof(backend->why),
			"auto: no backend keeps the rules here: %s", skipped);
	return err ? err : -ENOTSUP;
}

int upcc_backend_select(struct upcc_backend *backend, const char *name,
			const struct upcc_scope *scope)
{
	const struct upcc_backend_ops *ops;

	backend->ops = NULL;
	backend->priv = NULL;
	if (!name || strcmp(name, "auto") == 0)
		return select_auto(backend, scope);
	ops = upcc_backend_find(name);
	if (!ops) {
		snprintf(backend->why, sizeof(backend->why),
			 "unknown backend '%.64s' (" UPCC_BACKEND_NAMES_TEXT ")", name);
		return -ENOENT;
	}
	return select_named(backend, ops, scope);
}
