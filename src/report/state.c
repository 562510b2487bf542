// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - the daemon's state file; schema in state.h, docs/upcd.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/atomicfile.h"
#include "lib/jsonstr.h"
#include "lib/readtext.h"
#include "sys/procstat.h"
#include "state.h"

void upcc_state_scope_measured(struct upcc_state_scope *out, const struct upcc_sample *sample,
			       const struct upcc_policy *policy)
{
	out->memory_pages = sample->total_pages;
	out->file_lru_pages = sample->file_lru_pages;
	out->mapped_pages = sample->mapped_pages;
	out->unmapped_pages = sample->unmapped_pages;
	out->dirty_pages = sample->dirty_pages;
	out->writeback_pages = sample->writeback_pages;
	out->target_pages = policy->target_pages;
	out->trigger_pages = policy->trigger_pages;
	/* What the daemon holds as working set stays its (upcc status
	 * measures a scope again, but cannot know its working set).
	 */
	if (!out->working_set_cap_pages)
		out->working_set_cap_pages = policy->wset_cap_pages;
	if (!out->working_set_pages) {
		out->working_set_pages = sample->hot_pages;
		out->working_set_items = sample->hot_items;
	}
	if (!out->effective_target_pages) {
		out->effective_target_pages = policy->target_pages;
		snprintf(out->effective_target_reason, sizeof(out->effective_target_reason),
			 "target");
	}
}

void upcc_state_scope_from_run(const struct upcc_scope_run *run, struct upcc_state_scope *out)
{
	const struct upcc_scope *scope = &run->scope;
	const struct upcc_scope_state *state = &run->state;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", scope->name);
	snprintf(out->kind, sizeof(out->kind), "%s", upcc_scope_kind_name(scope->kind));
	out->node_id = scope->node_id;
	snprintf(out->path, sizeof(out->path), "%s", scope->path);
	out->has_backend = true;
	snprintf(out->backend, sizeof(out->backend), "%s",
		 run->backend_ready && run->backend.ops ? run->backend.ops->name : "none");
	snprintf(out->backend_why, sizeof(out->backend_why), "%s",
		 run->backend_ready ? run->backend.why : run->backend_error);
	out->backend_ready = run->backend_ready;
	out->reclaiming = state->phase == UPCC_PHASE_RECLAIMING;
	/* What the control aims at (wset.h): the target, or raised for the
	 * working set, and why; before any step, the target.
	 */
	if (state->effective_target_pages) {
		out->effective_target_pages = state->effective_target_pages;
		snprintf(out->effective_target_reason, sizeof(out->effective_target_reason), "%s",
			 upcc_wset_reason(&state->wset));
	}
	upcc_state_scope_measured(out, &state->last, &state->policy);
	out->reclaimed_pages_total = state->counters.reclaimed_pages_total;
	out->actions_total = state->counters.actions_total;
	out->action_errors_total = state->counters.action_errors_total;
	out->action_usec_total = state->counters.action_usec_total;
	out->refused_steps_total = state->counters.refused_steps_total;
	out->rounds_total = state->counters.rounds_total;
	out->kernel_cpu_usec_total = state->counters.kernel_cpu_usec_total;
}

/* "NAME_pages":N,"NAME_bytes":N */
static void pages_pair(FILE *out, const char *name, uint64_t pages, uint64_t page_size)
{
	fprintf(out, ",\"%s_pages\":%" PRIu64 ",\"%s_bytes\":%" PRIu64, name, pages, name,
		upcc_mul_saturating(pages, page_size));
}

void upcc_state_scope_json(FILE *out, const struct upcc_state_scope *s, uint64_t page_size)
{
	/* Names and paths are bytes: one that is not UTF-8 has its _hex twin. */
	fputc('{', out);
	upcc_json_member(out, "name", s->name);
	fputs(",\"kind\":", out);
	upcc_json_string(out, s->kind);
	fprintf(out, ",\"node\":%d,", s->node_id);
	upcc_json_member(out, "path", s->path);
	if (s->has_backend) {
		fputs(",\"backend\":", out);
		upcc_json_string(out, s->backend);
		fprintf(out, ",\"backend_ready\":%s,\"backend_why\":",
			s->backend_ready ? "true" : "false");
		upcc_json_string(out, s->backend_why);
		fprintf(out, ",\"reclaiming\":%s", s->reclaiming ? "true" : "false");
	} else {
		fputs(",\"backend\":null", out);
	}
	if (s->error[0]) {
		fputs(",\"error\":", out);
		upcc_json_string(out, s->error);
	} else {
		pages_pair(out, "memory", s->memory_pages, page_size);
		pages_pair(out, "file_lru", s->file_lru_pages, page_size);
		pages_pair(out, "mapped", s->mapped_pages, page_size);
		pages_pair(out, "unmapped", s->unmapped_pages, page_size);
		pages_pair(out, "dirty", s->dirty_pages, page_size);
		pages_pair(out, "writeback", s->writeback_pages, page_size);
		pages_pair(out, "target", s->target_pages, page_size);
		pages_pair(out, "effective_target", s->effective_target_pages, page_size);
		fputs(",\"effective_target_reason\":", out);
		upcc_json_string(out, s->effective_target_reason);
		pages_pair(out, "trigger", s->trigger_pages, page_size);
		pages_pair(out, "working_set", s->working_set_pages, page_size);
		pages_pair(out, "working_set_cap", s->working_set_cap_pages, page_size);
		fprintf(out, ",\"working_set_items\":%" PRIu64, s->working_set_items);
	}
	if (s->has_backend)
		fprintf(out, ",\"reclaimed_pages_total\":%" PRIu64 ",\"reclaimed_bytes_total\":%" PRIu64
			",\"actions_total\":%" PRIu64 ",\"action_errors_total\":%" PRIu64
			",\"action_usec_total\":%" PRIu64 ",\"refused_steps_total\":%" PRIu64
			",\"rounds_total\":%" PRIu64 ",\"kernel_cpu_usec_total\":%" PRIu64,
			s->reclaimed_pages_total,
			upcc_mul_saturating(s->reclaimed_pages_total, page_size), s->actions_total,
			s->action_errors_total, s->action_usec_total, s->refused_steps_total,
			s->rounds_total, s->kernel_cpu_usec_total);
	fputc('}', out);
}

/* Field 22 (starttime) of a /proc/PID/stat; 0 if it cannot be read. */
/* @path's start time (sys/procstat.h), or 0 if it cannot be read. */
static unsigned long long stat_start_time(const char *path)
{
	struct upcc_procstat st;

	return upcc_procstat_read(path, &st) ? 0 : st.start_time;
}

unsigned long long upcc_state_start_time(void)
{
	return stat_start_time("/proc/self/stat");
}

bool upcc_state_daemon_alive(const struct upcc_state_header *header)
{
	char path[64];
	unsigned long long start;

	if (header->pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/stat", header->pid);
	start = stat_start_time(path);
	if (!start)
		return false;		/* no such process (or no /proc to ask) */
	/* A state without a start time cannot tell a reused pid apart. */
	return !header->start_time || start == header->start_time;
}

bool upcc_state_stale(const struct upcc_state_header *header, long long now)
{
	uint64_t heartbeats_s, age;

	if (!header->heartbeat_ms || now <= header->updated)
		return false;	/* no promise; or written "later": the clock went back */
	heartbeats_s = upcc_mul_saturating(header->heartbeat_ms / 1000 +
					   (header->heartbeat_ms % 1000 != 0),
					   UPCC_STATE_STALE_HEARTBEATS);
	age = (uint64_t)now - (uint64_t)header->updated;
	return age > heartbeats_s && age - heartbeats_s > UPCC_STATE_STALE_SLACK_S;
}

struct state_format {
	const struct upcc_scope_run *runs;
	size_t nr_runs;
	uint64_t page_size;
	bool dry_run;
	uint64_t heartbeat_ms;
	const struct upcc_compact *compact;
};

static int format_state(FILE *out, void *ctx)
{
	const struct state_format *f = ctx;
	const struct upcc_compact none = { 0 }, *compact = f->compact ? f->compact : &none;

	fprintf(out, "{\"version\":%d,\"page_size\":%" PRIu64 ",\"daemon\":{\"pid\":%ld"
		",\"start_time\":%llu,\"updated\":%lld,\"heartbeat_ms\":%" PRIu64
		",\"dry_run\":%s,\"running\":true,\"stale\":false"
		",\"compaction_enabled\":%s,\"compactions_total\":%" PRIu64
		",\"compaction_cpu_usec_total\":%" PRIu64 "},"
		"\"scopes\":[\n",
		UPCC_STATE_VERSION, f->page_size, (long)getpid(), upcc_state_start_time(),
		(long long)time(NULL), f->heartbeat_ms, f->dry_run ? "true" : "false",
		compact->enabled ? "true" : "false", compact->runs_total, compact->cpu_usec_total);
	for (size_t i = 0; i < f->nr_runs; i++) {
		struct upcc_state_scope scope;

		upcc_state_scope_from_run(&f->runs[i], &scope);
		upcc_state_scope_json(out, &scope, f->page_size);
		fputs(i + 1 < f->nr_runs ? ",\n" : "\n", out);
	}
	fputs("]}\n", out);
	return ferror(out) ? -EIO : 0;
}

int upcc_state_format(FILE *out, const struct upcc_scope_run *runs, size_t nr_runs,
		      uint64_t page_size, bool dry_run, uint64_t heartbeat_ms,
		      const struct upcc_compact *compact)
{
	struct state_format f = { runs, nr_runs, page_size, dry_run, heartbeat_ms, compact };

	return format_state(out, &f);
}

int upcc_state_write(const char *path, const struct upcc_scope_run *runs, size_t nr_runs,
		     uint64_t page_size, bool dry_run, uint64_t heartbeat_ms,
		     const struct upcc_compact *compact, char *why, size_t why_len)
{
	struct state_format f = { runs, nr_runs, page_size, dry_run, heartbeat_ms, compact };

	return upcc_atomic_write_formatted(path, UPCC_ATOMIC_MKDIR, format_state, &f,
					   why, why_len);
}

/* ---- reading: json-c ---------------------------------------------------- */

static json_object *field(json_object *object, const char *key, json_type type)
{
	json_object *value;

	if (!json_object_object_get_ex(object, key, &value) || !json_object_is_type(value, type))
		return NULL;
	return value;
}

static void get_text(json_object *object, const char *key, char *buffer, size_t size)
{
	json_object *value = field(object, key, json_type_string);

	snprintf(buffer, size, "%s", value ? json_object_get_string(value) : "");
}

/* A name or path: its exact bytes from "KEY_hex" where the writer gave
 * them (the string itself has U+FFFD for bytes that are not UTF-8).
 */
static void get_name(json_object *object, const char *key, char *buffer, size_t size)
{
	char hex_key[32];
	json_object *hex;

	snprintf(hex_key, sizeof(hex_key), "%s_hex", key);
	hex = field(object, hex_key, json_type_string);
	if (hex && !upcc_json_hex_decode(json_object_get_string(hex), buffer, size))
		return;
	get_text(object, key, buffer, size);
}

/* A count: a non-negative integer, else 0. */
static uint64_t get_u64(json_object *object, const char *key)
{
	json_object *value = field(object, key, json_type_int);

	if (!value)
		return 0;
	if (json_object_get_int64(value) < 0)
		return 0;
	return json_object_get_uint64(value);
}

static bool get_bool(json_object *object, const char *key)
{
	json_object *value = field(object, key, json_type_boolean);

	return value && json_object_get_boolean(value);
}

/* The scope record's counts, by key. */
static const struct {
	const char *key;
	size_t offset;
} u64_fields[] = {
#define U64_FIELD(name)	{ #name, offsetof(struct upcc_state_scope, name) }
	U64_FIELD(memory_pages), U64_FIELD(file_lru_pages), U64_FIELD(mapped_pages),
	U64_FIELD(unmapped_pages), U64_FIELD(dirty_pages), U64_FIELD(writeback_pages),
	U64_FIELD(target_pages), U64_FIELD(effective_target_pages), U64_FIELD(trigger_pages),
	U64_FIELD(working_set_pages), U64_FIELD(working_set_cap_pages), U64_FIELD(working_set_items),
	U64_FIELD(reclaimed_pages_total), U64_FIELD(actions_total),
	U64_FIELD(action_errors_total), U64_FIELD(action_usec_total),
	U64_FIELD(refused_steps_total), U64_FIELD(rounds_total),
	U64_FIELD(kernel_cpu_usec_total),
#undef U64_FIELD
};

static int parse_scope(json_object *object, struct upcc_state_scope *s)
{
	json_object *node;

	memset(s, 0, sizeof(*s));
	if (!json_object_is_type(object, json_type_object) || !field(object, "name", json_type_string))
		return -EINVAL;
	get_name(object, "name", s->name, sizeof(s->name));
	get_text(object, "kind", s->kind, sizeof(s->kind));
	get_name(object, "path", s->path, sizeof(s->path));
	node = field(object, "node", json_type_int);
	s->node_id = node ? json_object_get_int(node) : -1;
	s->has_backend = field(object, "backend", json_type_string) != NULL;
	get_text(object, "backend", s->backend, sizeof(s->backend));
	get_text(object, "backend_why", s->backend_why, sizeof(s->backend_why));
	s->backend_ready = get_bool(object, "backend_ready");
	s->reclaiming = get_bool(object, "reclaiming");
	for (size_t i = 0; i < sizeof(u64_fields) / sizeof(u64_fields[0]); i++)
		*(uint64_t *)((char *)s + u64_fields[i].offset) = get_u64(object, u64_fields[i].key);
	get_text(object, "effective_target_reason", s->effective_target_reason,
		 sizeof(s->effective_target_reason));
	return 0;
}

static int parse_root(json_object *root, struct upcc_state_header *header,
		      struct upcc_state_scope *scopes, size_t max, size_t *nr_scopes)
{
	json_object *version = field(root, "version", json_type_int);
	json_object *daemon = field(root, "daemon", json_type_object);
	json_object *list = field(root, "scopes", json_type_array);
	size_t count;

	if (!version || json_object_get_int(version) != UPCC_STATE_VERSION || !daemon || !list ||
	    !field(daemon, "pid", json_type_int) || !field(daemon, "updated", json_type_int))
		return -EINVAL;
	header->version = UPCC_STATE_VERSION;
	header->pid = (long)json_object_get_int64(field(daemon, "pid", json_type_int));
	header->start_time = get_u64(daemon, "start_time");
	header->updated = (long long)json_object_get_int64(field(daemon, "updated", json_type_int));
	header->heartbeat_ms = get_u64(daemon, "heartbeat_ms");
	header->dry_run = get_bool(daemon, "dry_run");
	header->compaction_enabled = get_bool(daemon, "compaction_enabled");
	header->compactions_total = get_u64(daemon, "compactions_total");
	header->compaction_cpu_usec_total = get_u64(daemon, "compaction_cpu_usec_total");
	header->page_size = get_u64(root, "page_size");
	count = json_object_array_length(list);
	for (size_t i = 0; i < count && *nr_scopes < max; i++) {
		if (parse_scope(json_object_array_get_idx(list, i), &scopes[*nr_scopes]))
			return -EINVAL;
		(*nr_scopes)++;
	}
	return 0;
}

int upcc_state_parse(const char *text, struct upcc_state_header *header,
		     struct upcc_state_scope *scopes, size_t max, size_t *nr_scopes)
{
	struct json_tokener *tokener = json_tokener_new();
	json_object *root;
	int err = -EINVAL;

	*nr_scopes = 0;
	memset(header, 0, sizeof(*header));
	if (!tokener)
		return -ENOMEM;
	root = json_tokener_parse_ex(tokener, text, (int)strlen(text));
	/* A cut file is an incomplete parse, not a smaller state. */
	if (root && json_tokener_get_error(tokener) == json_tokener_success &&
	    json_object_is_type(root, json_type_object))
		err = parse_root(root, header, scopes, max, nr_scopes);
	if (err)
		*nr_scopes = 0;
	json_object_put(root);
	json_tokener_free(tokener);
	return err;
}

int upcc_state_read(const char *path, struct upcc_state_header *header,
		    struct upcc_state_scope *scopes, size_t max, size_t *nr_scopes)
{
	char *text;
	int err = upcc_read_text(path, &text);

	*nr_scopes = 0;
	if (err)
		return err;
	err = upcc_state_parse(text, header, scopes, max, nr_scopes);
	free(text);
	return err;
}
