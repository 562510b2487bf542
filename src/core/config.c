// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - upcd's config file and option values; format in config.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "wset.h"
#include "lib/readtext.h"

#define MAX_LINE_LEN	8192

static const char *const backend_names[] = {
	"auto", "fadvise", "damon", "memcg", "dropcache",
};

/* Keys a scope may set at most once; the bit records that it was set. */
enum scope_key {
	KEY_TYPE, KEY_PATH, KEY_NODE, KEY_TARGET, KEY_TRIGGER, KEY_STEP_SHIFT,
	KEY_MAX_STEP, KEY_BACKEND, KEY_CROSS_MOUNTS, KEY_EXCLUDE, KEY_WSET_CAP, NR_SCOPE_KEYS,
};

static const char *const scope_key_names[NR_SCOPE_KEYS] = {
	[KEY_TYPE] = "type", [KEY_PATH] = "path", [KEY_NODE] = "node",
	[KEY_TARGET] = "target", [KEY_TRIGGER] = "trigger",
	[KEY_STEP_SHIFT] = "step_shift", [KEY_MAX_STEP] = "max_step",
	[KEY_BACKEND] = "backend", [KEY_CROSS_MOUNTS] = "cross_mounts",
	[KEY_EXCLUDE] = "exclude", [KEY_WSET_CAP] = "working_set_cap",
};

enum daemon_key {
	KEY_D_INTERVAL, KEY_D_BACKEND, KEY_D_ALLOW_DROPCACHE, KEY_D_METRICS,
	KEY_D_STATE, KEY_D_TICK, KEY_D_COMPACT, KEY_D_DRY_RUN, KEY_D_DAMON_MIN_AGE,
	NR_DAEMON_KEYS,
};

static const char *const daemon_key_names[NR_DAEMON_KEYS] = {
	[KEY_D_INTERVAL] = "interval", [KEY_D_BACKEND] = "backend",
	[KEY_D_ALLOW_DROPCACHE] = "allow_dropcache", [KEY_D_METRICS] = "metrics",
	[KEY_D_STATE] = "state", [KEY_D_TICK] = "tick", [KEY_D_COMPACT] = "compact",
	[KEY_D_DRY_RUN] = "dry_run", [KEY_D_DAMON_MIN_AGE] = "damon_min_age",
};

/* Where the parser is: which section, what it has seen there. */
struct parse_state {
	const char *filename;
	unsigned int line_no;
	struct upcc_config *config;
	struct upcc_config_scope *scope;	/* NULL: daemon section */
	unsigned int scope_keys_seen;
	unsigned int scope_line_no;		/* the [scope] header's line */
	unsigned int scope_backend_line;
	/* "exclude =" as written: checked against "path =", which may come
	 * after it, when the section ends (check_scope).
	 */
	char exclude[MAX_LINE_LEN];
	unsigned int exclude_line;
	bool type_seen;
	unsigned int daemon_keys_seen;
	char *error;				/* the first error */
	size_t error_len;
	unsigned int nr_errors;
	upcc_config_error_fn more;		/* every later one, if set */
	void *context;
	/* After an error the parse goes on, to find the next one, but what
	 * the error leaves unknown is not checked (no error follows from
	 * another): the keys of a bad section header, the whole-scope
	 * checks of a scope with a bad line.
	 */
	bool skip_section;
	uint64_t bad_scopes;			/* by index into config->scopes */
};

static int fail(struct parse_state *state, unsigned int line_no, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parse_state *state, unsigned int line_no, const char *format, ...)
{
	char more[512], *out = state->nr_errors ? more : state->error;
	size_t out_len = state->nr_errors ? sizeof(more) : state->error_len;
	int len;
	va_list args;

	if (state->scope)
		state->bad_scopes |= 1ull << (state->scope - state->config->scopes);
	if (state->nr_errors++ && !state->more)
		return -EINVAL;
	len = snprintf(out, out_len, "%s:%u: ", state->filename, line_no);
	if (len >= 0 && (size_t)len < out_len) {
		va_start(args, format);
		vsnprintf(out + len, out_len - (size_t)len, format, args);
		va_end(args);
	}
	if (out == more)
		state->more(more, state->context);
	return -EINVAL;
}

void upcc_scope_config_default(struct upcc_scope_config *scope_config)
{
	memset(scope_config, 0, sizeof(*scope_config));
	scope_config->target.unit = UPCC_AMOUNT_PERCENT;
	scope_config->target.value = UPCC_DEFAULT_MIN_UNMAPPED_RATIO * 100;
	scope_config->trigger_is_ratio = true;
	scope_config->trigger_ratio = UPCC_UNMAPPED_PAGE_RATIO;
	scope_config->trigger.unit = UPCC_AMOUNT_PAGES;
	scope_config->step_shift = UPCC_RECLAIM_STEP_SHIFT;
	scope_config->max_step.unit = UPCC_AMOUNT_PAGES;
	scope_config->wset_cap_is_ratio = true;
	scope_config->wset_cap_ratio = UPCC_WSET_DEFAULT_CAP_RATIO;
	scope_config->wset_cap.unit = UPCC_AMOUNT_PAGES;
}

void upcc_config_init(struct upcc_config *config)
{
	memset(config, 0, sizeof(*config));
	snprintf(config->backend_name, sizeof(config->backend_name), "auto");
	config->interval_ms = UPCC_DEFAULT_INTERVAL_MS;
	config->tick_ms = UPCC_DEFAULT_TICK_MS;
	config->damon_min_age_ms = UPCC_DEFAULT_DAMON_MIN_AGE_MS;
	config->compact = true;
	snprintf(config->state_path, sizeof(config->state_path), "%s", UPCC_DEFAULT_STATE_PATH);
}

void upcc_config_free(struct upcc_config *config)
{
	free(config->scopes);
	config->scopes = NULL;
	config->nr_scopes = 0;
}

bool upcc_backend_name_valid(const char *name)
{
	for (size_t i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++)
		if (strcmp(name, backend_names[i]) == 0)
			return true;
	return false;
}

static bool scope_name_valid(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len >= sizeof(((struct upcc_scope *)0)->name))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.:/-", name[i]))
			return false;
	return true;
}

struct upcc_config_scope *upcc_config_add_scope(struct upcc_config *config,
						enum upcc_scope_kind kind, const char *name)
{
	struct upcc_config_scope *scopes, *added;

	if (config->nr_scopes >= UPCC_MAX_SCOPES)
		return NULL;
	scopes = realloc(config->scopes, (config->nr_scopes + 1) * sizeof(*scopes));
	if (!scopes)
		return NULL;
	config->scopes = scopes;
	added = &scopes[config->nr_scopes++];
	memset(added, 0, sizeof(*added));
	added->scope.kind = kind;
	snprintf(added->scope.name, sizeof(added->scope.name), "%s", name);
	added->scope.node_id = -1;
	upcc_scope_config_default(&added->scope.config);
	return added;
}

static struct upcc_config_scope *find_scope(struct upcc_config *config, const char *name)
{
	for (size_t i = 0; i < config->nr_scopes; i++)
		if (strcmp(config->scopes[i].scope.name, name) == 0)
			return &config->scopes[i];
	return NULL;
}

static int parse_node_id(const char *text, int *node_id)
{
	unsigned long id;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	id = strtoul(text, &end, 10);
	if (errno || *end || id > 65535)
		return -EINVAL;
	*node_id = (int)id;
	return 0;
}

/* A '#' or ';' after a blank: someone meant a comment, which the format
 * allows only on a line of its own.  In a path it would be taken as part
 * of the file name, so it is refused instead.
 */
static bool has_trailing_comment(const char *text)
{
	for (const char *c = text + 1; *c; c++)
		if ((*c == '#' || *c == ';') && isspace((unsigned char)c[-1]))
			return true;
	return false;
}

static int copy_abs_path(const char *text, char *path, size_t size)
{
	if (text[0] != '/' || strlen(text) >= size || has_trailing_comment(text))
		return -EINVAL;
	snprintf(path, size, "%s", text);
	return 0;
}

/* An earlier scope of @config over the same tree or cgroup as @scope. */
static struct upcc_config_scope *same_root_as(struct upcc_config *config,
					      const struct upcc_config_scope *scope)
{
	for (struct upcc_config_scope *other = config->scopes; other < scope; other++)
		if (upcc_scope_same_root(&other->scope, &scope->scope))
			return other;
	return NULL;
}

/*
 * A --scope's name is the spec itself; one too long for a name keeps its
 * head and ends in a hash of the whole spec, so two long paths that share
 * their beginning still get two names.
 */
static void spec_name(const char *spec, char *name, size_t size)
{
	uint32_t hash = 2166136261u;	/* FNV-1a */
	size_t len = strlen(spec);

	if (len < size) {
		memcpy(name, spec, len + 1);
		return;
	}
	for (const unsigned char *c = (const unsigned char *)spec; *c; c++)
		hash = (hash ^ *c) * 16777619u;
	snprintf(name, size, "%.*s-%08x", (int)(size - 10), spec, hash);
}

int upcc_config_add_scope_spec(struct upcc_config *config, const char *spec,
			       char *error, size_t error_len)
{
	const char *colon = strchr(spec, ':');
	struct upcc_config_scope *added, *other;
	enum upcc_scope_kind kind;
	char kind_text[16], name[64];
	const char *arg = colon ? colon + 1 : "";
	size_t kind_len = colon ? (size_t)(colon - spec) : strlen(spec);
	int node_id = -1;

	if (kind_len >= sizeof(kind_text))
		goto bad;
	memcpy(kind_text, spec, kind_len);
	kind_text[kind_len] = '\0';
	if (upcc_scope_kind_parse(kind_text, &kind))
		goto bad;
	if ((kind == UPCC_SCOPE_SYSTEM) != (colon == NULL))
		goto bad;
	if (kind == UPCC_SCOPE_NODE && parse_node_id(arg, &node_id))
		goto bad;
	if ((kind == UPCC_SCOPE_CGROUP || kind == UPCC_SCOPE_PATH) &&
	    (arg[0] != '/' || strlen(arg) >= PATH_MAX))
		goto bad;
	if (kind == UPCC_SCOPE_NODE)
		snprintf(name, sizeof(name), "node%d", node_id);
	else
		spec_name(spec, name, sizeof(name));
	/* Two scopes of one name would be two Prometheus series of one
	 * label set (node_exporter then rejects the whole file) and would
	 * share their counters across a reload.
	 */
	if (find_scope(config, name)) {
		snprintf(error, error_len, "--scope=%s: given twice (as scope \"%s\")", spec, name);
		return -EINVAL;
	}
	added = upcc_config_add_scope(config, kind, name);
	if (!added) {
		snprintf(error, error_len, "--scope=%s: too many scopes", spec);
		return -EINVAL;
	}
	added->scope.node_id = node_id;
	if (kind == UPCC_SCOPE_CGROUP || kind == UPCC_SCOPE_PATH)
		snprintf(added->scope.path, sizeof(added->scope.path), "%s", arg);
	other = same_root_as(config, added);
	if (other) {
		snprintf(error, error_len, "--scope=%s: the same %s as --scope=%s:%s", spec,
			 kind == UPCC_SCOPE_PATH ? "tree" : "cgroup", kind_text, other->scope.path);
		config->nr_scopes--;
		return -EINVAL;
	}
	return 0;
bad:
	snprintf(error, error_len,
		 "--scope=%s: expected system, node:N, cgroup:/PATH or path:/DIR", spec);
	return -EINVAL;
}

static char *trim(char *text)
{
	char *end;

	while (isspace((unsigned char)*text))
		text++;
	end = text + strlen(text);
	while (end > text && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return text;
}

/*
 * "exclude = PATH[, PATH...]" into scope->exclude: each absolute, strictly
 * inside the scope's path (as written: no "..", no symlink resolved), at
 * most one list of PATH_MAX bytes.  Errors at the exclude line.
 */
static int parse_exclude(struct parse_state *state, struct upcc_scope *scope)
{
	char *list = state->exclude, *item, *save = NULL;
	size_t used = 0;

	for (item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char rel[PATH_MAX];
		int err;

		item = trim(item);
		if (item[0] != '/' || has_trailing_comment(item))
			return fail(state, state->exclude_line,
				    "exclude \"%s\": expected an absolute path%s", item,
				    has_trailing_comment(item) ?
				    " (comments go on a line of their own, not after a value)" : "");
		err = upcc_scope_relative(scope->path, item, rel, sizeof(rel));
		if (err == -ENAMETOOLONG)
			return fail(state, state->exclude_line, "exclude \"%s\": path too long",
				    item);
		if (err)
			return fail(state, state->exclude_line,
				    "exclude \"%s\": not inside [scope %s]'s path \"%s\" (a directory or file below it, without \"..\")",
				    item, scope->name, scope->path);
		if (used + strlen(rel) + 2 > sizeof(scope->exclude))
			return fail(state, state->exclude_line,
				    "exclude: the list is longer than %zu bytes",
				    sizeof(scope->exclude) - 1);
		memcpy(scope->exclude + used, rel, strlen(rel) + 1);
		used += strlen(rel) + 1;
	}
	if (!used)
		return fail(state, state->exclude_line, "exclude: expected PATH[, PATH...]");
	scope->exclude[used] = '\0';
	return 0;
}

/* Everything a finished [scope] must satisfy, reported at its header line. */
static int check_scope(struct parse_state *state)
{
	const struct upcc_scope *scope;
	unsigned int seen = state->scope_keys_seen;

	if (!state->scope ||
	    (state->bad_scopes & (1ull << (state->scope - state->config->scopes))))
		return 0;
	scope = &state->scope->scope;
	if (!(seen & (1u << KEY_TYPE)))
		return fail(state, state->scope_line_no, "[scope %s]: missing \"type =\"",
			    scope->name);
	if (scope->kind == UPCC_SCOPE_NODE && !(seen & (1u << KEY_NODE)))
		return fail(state, state->scope_line_no,
			    "[scope %s]: type node needs \"node = N\"", scope->name);
	if (scope->kind != UPCC_SCOPE_NODE && (seen & (1u << KEY_NODE)))
		return fail(state, state->scope_line_no,
			    "[scope %s]: \"node\" only applies to type node", scope->name);
	if ((scope->kind == UPCC_SCOPE_CGROUP || scope->kind == UPCC_SCOPE_PATH) &&
	    !(seen & (1u << KEY_PATH)))
		return fail(state, state->scope_line_no,
			    "[scope %s]: type %s needs \"path = /DIR\"", scope->name,
			    scope->kind == UPCC_SCOPE_CGROUP ? "cgroup" : "path");
	if ((scope->kind == UPCC_SCOPE_SYSTEM || scope->kind == UPCC_SCOPE_NODE) &&
	    (seen & (1u << KEY_PATH)))
		return fail(state, state->scope_line_no,
			    "[scope %s]: \"path\" only applies to types cgroup and path",
			    scope->name);
	if (scope->kind != UPCC_SCOPE_PATH && (seen & (1u << KEY_CROSS_MOUNTS)))
		return fail(state, state->scope_line_no,
			    "[scope %s]: \"cross_mounts\" only applies to type path", scope->name);
	if (scope->kind != UPCC_SCOPE_PATH && (seen & (1u << KEY_EXCLUDE)))
		return fail(state, state->exclude_line,
			    "[scope %s]: \"exclude\" only applies to type path", scope->name);
	if (seen & (1u << KEY_EXCLUDE))
		return parse_exclude(state, &state->scope->scope);
	return 0;
}

static int start_section(struct parse_state *state, char *line)
{
	char *close = strchr(line, ']');
	bool malformed = !close || trim(close + 1)[0] != '\0';
	char *inside, *name;
	int err = 0;

	if (malformed)
		err = fail(state, state->line_no, "malformed section header (expected [NAME])");
	/* Whatever this header is, the section before ends here. */
	if (check_scope(state))
		err = -EINVAL;
	state->scope = NULL;
	state->skip_section = true;	/* until the header proves good */
	if (malformed)
		return err;
	*close = '\0';
	inside = trim(line + 1);
	if (strcmp(inside, "daemon") == 0) {
		state->skip_section = false;
		return err;
	}
	if (strncmp(inside, "scope", 5) != 0 || !isspace((unsigned char)inside[5]))
		return fail(state, state->line_no,
			    "unknown section [%s] (expected [daemon] or [scope NAME])", inside);
	name = trim(inside + 5);
	if (!scope_name_valid(name))
		return fail(state, state->line_no,
			    "bad scope name \"%s\" (1-63 of A-Z a-z 0-9 _ . : / -)", name);
	if (find_scope(state->config, name))
		return fail(state, state->line_no, "scope \"%s\" defined twice", name);
	state->scope = upcc_config_add_scope(state->config, UPCC_SCOPE_SYSTEM, name);
	if (!state->scope)
		return fail(state, state->line_no, "too many scopes (at most %d)",
			    UPCC_MAX_SCOPES);
	state->scope_keys_seen = 0;
	state->scope_line_no = state->line_no;
	state->scope_backend_line = 0;
	state->skip_section = false;
	return err;
}

static int lookup_key(const char *const *names, int count, const char *key)
{
	for (int i = 0; i < count; i++)
		if (strcmp(names[i], key) == 0)
			return i;
	return -1;
}

static int path_error(struct parse_state *state, const char *key, const char *value)
{
	return fail(state, state->line_no, "%s \"%s\": expected an absolute path%s", key, value,
		    has_trailing_comment(value) ?
		    " (comments go on a line of their own, not after a value)" : "");
}

/* metrics, state: a file's absolute path, never a directory's. */
static int report_path_value(struct parse_state *state, const char *key, const char *value,
			     char *path, size_t size, const char *example)
{
	int err = has_trailing_comment(value) ? -EINVAL : upcc_parse_file_path(value, path, size);

	if (err == -EISDIR)
		return fail(state, state->line_no,
			    "%s \"%s\": names a directory; expected a file's absolute path (%s)",
			    key, value, example);
	if (err)
		return path_error(state, key, value);
	return 0;
}

static int scope_key_value(struct parse_state *state, int key, const char *value)
{
	struct upcc_scope *scope = &state->scope->scope;
	struct upcc_scope_config *scope_config = &scope->config;
	unsigned long shift;
	char *end;

	switch (key) {
	case KEY_TYPE:
		if (upcc_scope_kind_parse(value, &scope->kind))
			return fail(state, state->line_no,
				    "type \"%s\": expected system, node, cgroup or path", value);
		return 0;
	case KEY_PATH:
		state->scope->path_line = state->line_no;
		if (copy_abs_path(value, scope->path, sizeof(scope->path)))
			return path_error(state, "path", value);
		return 0;
	case KEY_NODE:
		if (parse_node_id(value, &scope->node_id))
			return fail(state, state->line_no, "node \"%s\": expected a node number",
				    value);
		return 0;
	case KEY_TARGET:
		if (upcc_parse_target(value, scope_config))
			return fail(state, state->line_no,
				    "target \"%s\": expected pages (1000), bytes (64M) or percent (1%%)",
				    value);
		return 0;
	case KEY_TRIGGER:
		if (upcc_parse_trigger(value, scope_config))
			return fail(state, state->line_no,
				    "trigger \"%s\": expected a multiple of the target (16x), pages, bytes or percent",
				    value);
		return 0;
	case KEY_STEP_SHIFT:
		errno = 0;
		shift = isdigit((unsigned char)value[0]) ? strtoul(value, &end, 10) : 64;
		if (errno || shift > 63 || *end)
			return fail(state, state->line_no, "step_shift \"%s\": expected 0..63",
				    value);
		scope_config->step_shift = (unsigned int)shift;
		return 0;
	case KEY_MAX_STEP:
		if (upcc_amount_parse(value, &scope_config->max_step))
			return fail(state, state->line_no,
				    "max_step \"%s\": expected pages, bytes or percent (0 = no cap)",
				    value);
		return 0;
	case KEY_WSET_CAP:
		if (upcc_parse_wset_cap(value, scope_config))
			return fail(state, state->line_no,
				    "working_set_cap \"%s\": expected a multiple of the target (4x, 0x: none), pages, bytes or percent",
				    value);
		return 0;
	case KEY_BACKEND:
		if (!upcc_backend_name_valid(value))
			return fail(state, state->line_no,
				    "backend \"%s\": expected " UPCC_BACKEND_NAMES_TEXT,
				    value);
		snprintf(state->scope->backend_name, sizeof(state->scope->backend_name), "%s",
			 value);
		state->scope_backend_line = state->line_no;
		return 0;
	case KEY_EXCLUDE:
		/* Checked when the section ends: "path =" may follow. */
		snprintf(state->exclude, sizeof(state->exclude), "%s", value);
		state->exclude_line = state->line_no;
		return 0;
	case KEY_CROSS_MOUNTS:
		if (upcc_parse_bool(value, &scope->cross_mounts))
			return fail(state, state->line_no, "cross_mounts \"%s\": expected yes or no",
				    value);
		return 0;
	}
	return -EINVAL;
}

static int daemon_key_value(struct parse_state *state, int key, const char *value)
{
	struct upcc_config *config = state->config;

	switch (key) {
	case KEY_D_INTERVAL:
		if (upcc_parse_interval_ms(value, &config->interval_ms))
			return fail(state, state->line_no,
				    "interval \"%s\": expected 10ms..24h (500ms, 1s, 2m)", value);
		return 0;
	case KEY_D_TICK:
		if (upcc_parse_interval_ms(value, &config->tick_ms))
			return fail(state, state->line_no,
				    "tick \"%s\": expected 10ms..24h (100ms, 1s)", value);
		return 0;
	case KEY_D_DAMON_MIN_AGE:
		/* 0 is allowed: cold as soon as DAMON saw no access. */
		if (strcmp(value, "0") == 0)
			config->damon_min_age_ms = 0;
		else if (upcc_parse_interval_ms(value, &config->damon_min_age_ms))
			return fail(state, state->line_no,
				    "damon_min_age \"%s\": expected 0 or 10ms..24h (5s, 2m)", value);
		return 0;
	case KEY_D_BACKEND:
		if (!upcc_backend_name_valid(value))
			return fail(state, state->line_no,
				    "backend \"%s\": expected " UPCC_BACKEND_NAMES_TEXT,
				    value);
		snprintf(config->backend_name, sizeof(config->backend_name), "%s", value);
		return 0;
	case KEY_D_ALLOW_DROPCACHE:
		if (upcc_parse_bool(value, &config->allow_dropcache))
			return fail(state, state->line_no,
				    "allow_dropcache \"%s\": expected yes or no", value);
		return 0;
	case KEY_D_COMPACT:
		if (upcc_parse_bool(value, &config->compact))
			return fail(state, state->line_no, "compact \"%s\": expected yes or no",
				    value);
		return 0;
	case KEY_D_DRY_RUN:
		if (upcc_parse_bool(value, &config->dry_run))
			return fail(state, state->line_no, "dry_run \"%s\": expected yes or no",
				    value);
		return 0;
	case KEY_D_METRICS:
		config->metrics_line = state->line_no;
		return report_path_value(state, "metrics", value, config->metrics_path,
					 sizeof(config->metrics_path),
					 "/var/lib/prometheus/node-exporter/upcc.prom");
	case KEY_D_STATE:
		config->state_line = state->line_no;
		return report_path_value(state, "state", value, config->state_path,
					 sizeof(config->state_path), UPCC_DEFAULT_STATE_PATH);
	}
	return -EINVAL;
}

static int key_value(struct parse_state *state, char *line)
{
	char *equals = strchr(line, '=');
	char *key, *value;
	int index;

	if (!equals)
		return fail(state, state->line_no,
			    "expected \"key = value\", [daemon] or [scope NAME]");
	*equals = '\0';
	key = trim(line);
	value = trim(equals + 1);
	if (!*key)
		return fail(state, state->line_no, "missing key before '='");
	if (!*value)
		return fail(state, state->line_no, "%s: missing value", key);
	if (!state->scope) {
		index = lookup_key(daemon_key_names, NR_DAEMON_KEYS, key);
		if (index < 0)
			return fail(state, state->line_no,
				    "unknown daemon key \"%s\" (scope keys go in a [scope NAME] section)",
				    key);
		if (state->daemon_keys_seen & (1u << index))
			return fail(state, state->line_no, "%s given twice", key);
		state->daemon_keys_seen |= 1u << index;
		return daemon_key_value(state, index, value);
	}
	index = lookup_key(scope_key_names, NR_SCOPE_KEYS, key);
	if (index < 0)
		return fail(state, state->line_no, "unknown key \"%s\" in [scope %s]", key,
			    state->scope->scope.name);
	if (state->scope_keys_seen & (1u << index))
		return fail(state, state->line_no, "%s given twice in [scope %s]", key,
			    state->scope->scope.name);
	state->scope_keys_seen |= 1u << index;
	return scope_key_value(state, index, value);
}

static int parse_line(struct parse_state *state, char *raw)
{
	char *line = trim(raw);

	if (*line == '\0' || *line == '#' || *line == ';')
		return 0;
	if (*line == '[')
		return start_section(state, line);
	if (state->skip_section)
		return 0;	/* its header was bad: said there */
	return key_value(state, line);
}

/* Settings that span sections, checked once the whole file is read. */
static int check_whole(struct parse_state *state, unsigned int last_line)
{
	struct upcc_config *config = state->config;
	int err = 0;

	state->scope = NULL;
	if (!config->allow_dropcache && strcmp(config->backend_name, "dropcache") == 0)
		err = fail(state, last_line,
			   "backend dropcache drops every clean cache page: it needs \"allow_dropcache = yes\"");
	for (size_t i = 0; i < config->nr_scopes; i++)
		if (!config->allow_dropcache &&
		    strcmp(config->scopes[i].backend_name, "dropcache") == 0)
			err = fail(state, last_line,
				   "[scope %s]: backend dropcache needs \"allow_dropcache = yes\"",
				   config->scopes[i].scope.name);
	/* Two controllers over one tree would evict the same files and count
	 * them twice: spelled differently is still the same (the filesystem's
	 * own aliases, symlinks and "..", are upcd's to resolve at start).
	 */
	for (size_t i = 0; i < config->nr_scopes; i++) {
		const struct upcc_config_scope *entry = &config->scopes[i];
		const struct upcc_config_scope *other = same_root_as(config, entry);

		if (other && !(state->bad_scopes & (1ull << i)) &&
		    !(state->bad_scopes & (1ull << (other - config->scopes))))
			err = fail(state, entry->path_line,
				   "[scope %s]: path \"%s\" is the %s of [scope %s] (line %u): two scopes would act on the same pages",
				   entry->scope.name, entry->scope.path,
				   entry->scope.kind == UPCC_SCOPE_PATH ? "tree" : "cgroup",
				   other->scope.name, other->path_line);
	}
	if (!err && config->nr_scopes == 0 &&
	    !upcc_config_add_scope(config, UPCC_SCOPE_SYSTEM, "system"))
		err = fail(state, last_line, "out of memory");
	return err;
}

int upcc_config_parse_text(const char *text, size_t len, const char *filename,
			   struct upcc_config *config, char *error, size_t error_len,
			   upcc_config_error_fn more, void *context)
{
	struct parse_state state = {
		.filename = filename, .config = config, .error = error, .error_len = error_len,
		.more = more, .context = context,
	};
	const char *cursor = text, *stop = text + len;
	char line[MAX_LINE_LEN];

	while (cursor < stop) {
		const char *end = memchr(cursor, '\n', (size_t)(stop - cursor));
		const char *nul;
		size_t line_len;

		if (!end)
			end = stop;
		line_len = (size_t)(end - cursor);
		state.line_no++;
		/* A NUL would end the line early and the rest of it would go
		 * unread: a file with one is not text (a binary, UTF-16).
		 */
		nul = memchr(cursor, '\0', line_len);
		if (nul)	/* and the rest would be noise */
			return fail(&state, state.line_no, "NUL byte at column %zu: not a text file",
				    (size_t)(nul - cursor) + 1);
		if (line_len >= sizeof(line)) {
			fail(&state, state.line_no, "line longer than %d bytes", MAX_LINE_LEN - 1);
		} else {
			memcpy(line, cursor, line_len);
			line[line_len] = '\0';
			parse_line(&state, line);
		}
		cursor = end < stop ? end + 1 : end;
	}
	check_scope(&state);
	check_whole(&state, state.line_no ? state.line_no : 1);
	return state.nr_errors ? -EINVAL : 0;
}

int upcc_config_parse(const char *text, const char *filename, struct upcc_config *config,
		      char *error, size_t error_len)
{
	return upcc_config_parse_text(text, strlen(text), filename, config, error, error_len,
				      NULL, NULL);
}

int upcc_config_load_all(const char *path, struct upcc_config *config, char *error,
			 size_t error_len, upcc_config_error_fn more, void *context)
{
	char *text;
	size_t len;
	int err = upcc_read_file(path, &text, &len);

	if (err) {
		snprintf(error, error_len, "%s: cannot read: %s", path, strerror(-err));
		return err;
	}
	err = upcc_config_parse_text(text, len, path, config, error, error_len, more, context);
	free(text);
	return err;
}

int upcc_config_load(const char *path, struct upcc_config *config, char *error,
		     size_t error_len)
{
	return upcc_config_load_all(path, config, error, error_len, NULL, NULL);
}
