// SPDX-License-Identifier: GPL-2.0
/*
 * confdiff.c - what a reload changed; see confdiff.h.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "confdiff.h"
#include "core/size.h"

struct diff {
	char *buf;
	size_t size, at;
	size_t changes;
};

static void put(struct diff *d, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void put(struct diff *d, const char *format, ...)
{
	va_list args;
	int n;

	if (d->at >= d->size)
		return;
	va_start(args, format);
	n = vsnprintf(d->buf + d->at, d->size - d->at, format, args);
	va_end(args);
	if (n > 0)
		d->at += (size_t)n;
}

/* One change: "NAME OLD -> NEW", after @prefix ("scope data: " or ""). */
static void change(struct diff *d, const char *prefix, const char *name, const char *was,
		   const char *now)
{
	if (strcmp(was, now) == 0)
		return;
	put(d, "%s%s%s %s -> %s", d->changes ? ", " : "", prefix, name, was[0] ? was : "\"\"",
	    now[0] ? now : "\"\"");
	d->changes++;
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

/* A duration as upcd.conf takes it back: "1s", "500ms", "2m". */
static const char *ms_text(char buf[32], uint64_t ms)
{
	if (ms && ms % 60000 == 0)
		snprintf(buf, 32, "%" PRIu64 "m", ms / 60000);
	else if (ms && ms % 1000 == 0)
		snprintf(buf, 32, "%" PRIu64 "s", ms / 1000);
	else
		snprintf(buf, 32, "%" PRIu64 "ms", ms);
	return buf;
}

/* An amount as the config writes it: "1%", "64Mi", "1000" pages. */
static const char *amount_text(char buf[32], const struct upcc_amount *amount)
{
	switch (amount->unit) {
	case UPCC_AMOUNT_PERCENT:
		if (amount->value % 10 == 0 && amount->value % 100)	/* "1.5%" */
			snprintf(buf, 32, "%" PRIu64 ".%" PRIu64 "%%", amount->value / 100,
				 amount->value % 100 / 10);
		else if (amount->value % 100)				/* "1.25%" */
			snprintf(buf, 32, "%" PRIu64 ".%02" PRIu64 "%%", amount->value / 100,
				 amount->value % 100);
		else
			snprintf(buf, 32, "%" PRIu64 "%%", amount->value / 100);
		break;
	case UPCC_AMOUNT_BYTES:
		upcc_size_format(buf, 32, amount->value);
		break;
	case UPCC_AMOUNT_PAGES:
		snprintf(buf, 32, "%" PRIu64, amount->value);
		break;
	}
	return buf;
}

static const char *trigger_text(char buf[32], const struct upcc_scope_config *config)
{
	if (config->trigger_is_ratio) {
		snprintf(buf, 32, "%ux", config->trigger_ratio);
		return buf;
	}
	return amount_text(buf, &config->trigger);
}

/* "exclude =" as written: the scope's root and each name under it
 * (kept relative, NUL-separated), joined by ", ".
 */
static const char *exclude_text(char *buf, size_t size, const struct upcc_scope *scope)
{
	size_t at = 0;

	buf[0] = '\0';
	for (const char *p = scope->exclude; *p && at < size; p += strlen(p) + 1)
		at += (size_t)snprintf(buf + at, size - at, "%s%s/%s", at ? ", " : "",
				       strcmp(scope->path, "/") ? scope->path : "", p);
	return buf;
}

static const char *wset_cap_text(char buf[32], const struct upcc_scope_config *config)
{
	if (config->wset_cap_is_ratio) {
		snprintf(buf, 32, "%ux", config->wset_cap_ratio);
		return buf;
	}
	return amount_text(buf, &config->wset_cap);
}

static void scope_changes(struct diff *d, const struct upcc_config_scope *was,
			  const struct upcc_config_scope *now)
{
	const struct upcc_scope_config *a = &was->scope.config, *b = &now->scope.config;
	char prefix[96], x[32], y[32], ex[2][512];

	snprintf(prefix, sizeof(prefix), "scope %s: ", now->scope.name);
	change(d, prefix, "type", upcc_scope_kind_name(was->scope.kind),
	       upcc_scope_kind_name(now->scope.kind));
	snprintf(x, sizeof(x), "%d", was->scope.node_id);
	snprintf(y, sizeof(y), "%d", now->scope.node_id);
	change(d, prefix, "node", x, y);
	change(d, prefix, "path", was->scope.path, now->scope.path);
	change(d, prefix, "target", amount_text(x, &a->target), amount_text(y, &b->target));
	change(d, prefix, "trigger", trigger_text(x, a), trigger_text(y, b));
	snprintf(x, sizeof(x), "%u", a->step_shift);
	snprintf(y, sizeof(y), "%u", b->step_shift);
	change(d, prefix, "step_shift", x, y);
	change(d, prefix, "max_step", amount_text(x, &a->max_step), amount_text(y, &b->max_step));
	change(d, prefix, "working_set_cap", wset_cap_text(x, a), wset_cap_text(y, b));
	change(d, prefix, "backend", was->backend_name[0] ? was->backend_name : "(daemon's)",
	       now->backend_name[0] ? now->backend_name : "(daemon's)");
	change(d, prefix, "cross_mounts", yes_no(was->scope.cross_mounts),
	       yes_no(now->scope.cross_mounts));
	change(d, prefix, "exclude", exclude_text(ex[0], sizeof(ex[0]), &was->scope),
	       exclude_text(ex[1], sizeof(ex[1]), &now->scope));
}

static const struct upcc_config_scope *find_scope(const struct upcc_config *config,
						  const char *name)
{
	for (size_t i = 0; i < config->nr_scopes; i++)
		if (strcmp(config->scopes[i].scope.name, name) == 0)
			return &config->scopes[i];
	return NULL;
}

/* Scopes in @from but not in @other: "scope NAME @what". */
static void scopes_missing(struct diff *d, const struct upcc_config *from,
			   const struct upcc_config *other, const char *what)
{
	for (size_t i = 0; i < from->nr_scopes; i++) {
		if (find_scope(other, from->scopes[i].scope.name))
			continue;
		put(d, "%sscope %s %s", d->changes ? ", " : "", from->scopes[i].scope.name, what);
		d->changes++;
	}
}

size_t upcd_config_diff(const struct upcc_config *old, const struct upcc_config *new, char *buf,
			size_t size)
{
	struct diff d = { buf, size, 0, 0 };
	char x[32], y[32];

	buf[0] = '\0';
	change(&d, "", "backend", old->backend_name, new->backend_name);
	change(&d, "", "interval", ms_text(x, old->interval_ms), ms_text(y, new->interval_ms));
	change(&d, "", "tick", ms_text(x, old->tick_ms), ms_text(y, new->tick_ms));
	change(&d, "", "allow_dropcache", yes_no(old->allow_dropcache), yes_no(new->allow_dropcache));
	change(&d, "", "compact", yes_no(old->compact), yes_no(new->compact));
	change(&d, "", "dry_run", yes_no(old->dry_run), yes_no(new->dry_run));
	change(&d, "", "damon_min_age", ms_text(x, old->damon_min_age_ms),
	       ms_text(y, new->damon_min_age_ms));
	change(&d, "", "metrics", old->metrics_path, new->metrics_path);
	change(&d, "", "state", old->state_path, new->state_path);
	scopes_missing(&d, new, old, "added");
	scopes_missing(&d, old, new, "removed");
	for (size_t i = 0; i < new->nr_scopes; i++) {
		const struct upcc_config_scope *was = find_scope(old, new->scopes[i].scope.name);

		if (was)
			scope_changes(&d, was, &new->scopes[i]);
	}
	if (!d.changes)
		snprintf(buf, size, "nothing changed");
	else if (d.at >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
	return d.changes;
}
