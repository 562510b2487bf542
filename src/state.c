// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - the daemon's state file; see state.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "json.h"
#include "state.h"
#include "stats.h"

static void format_scope(FILE *out, const struct upcc_scope_run *run)
{
	const struct upcc_scope *scope = &run->scope;
	const char *backend = run->backend_ready && run->backend.ops ?
			      run->backend.ops->name : "none";
	const char *why = run->backend_ready ? run->backend.why : run->backend_error;

	fputs("{\"name\":", out);
	upcc_json_string(out, scope->name);
	fprintf(out, ",\"kind\":\"%s\",\"node\":%d,\"path\":", upcc_scope_kind_name(scope->kind),
		scope->node_id);
	upcc_json_string(out, scope->path);
	fputs(",\"backend\":", out);
	upcc_json_string(out, backend);
	fprintf(out, ",\"backend_ready\":%s,\"backend_why\":", run->backend_ready ? "true" : "false");
	upcc_json_string(out, why);
	fprintf(out, ",\"reclaiming\":%s,\"target_pages\":%" PRIu64 ",\"trigger_pages\":%" PRIu64
		",\"unmapped_pages\":%" PRIu64 ",\"reclaimed_pages_total\":%" PRIu64
		",\"actions_total\":%" PRIu64 ",\"action_errors_total\":%" PRIu64
		",\"action_usec_total\":%" PRIu64 ",\"refused_steps_total\":%" PRIu64 "}",
		scope->phase == UPCC_PHASE_RECLAIMING ? "true" : "false",
		scope->policy.target_pages, scope->policy.trigger_pages,
		scope->last.unmapped_pages, scope->reclaimed_pages_total, scope->actions_total,
		scope->action_errors_total, scope->action_usec_total, scope->refused_steps_total);
}

int upcc_state_format(FILE *out, const struct upcc_scope_run *runs, size_t nr_runs,
		      uint64_t page_size, bool dry_run)
{
	fprintf(out, "{\"version\":1,\"pid\":%ld,\"updated\":%lld,\"page_size\":%" PRIu64
		",\"dry_run\":%s,\"scopes\":[\n", (long)getpid(), (long long)time(NULL),
		page_size, dry_run ? "true" : "false");
	for (size_t i = 0; i < nr_runs; i++) {
		format_scope(out, &runs[i]);
		fputs(i + 1 < nr_runs ? ",\n" : "\n", out);
	}
	fputs("]}\n", out);
	return ferror(out) ? -EIO : 0;
}

int upcc_state_write(const char *path, const struct upcc_scope_run *runs, size_t nr_runs,
		     uint64_t page_size, bool dry_run)
{
	char *data = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&data, &len);
	int err;

	if (!out)
		return -errno;
	err = upcc_state_format(out, runs, nr_runs, page_size, dry_run);
	if (fclose(out) && !err)
		err = -EIO;
	if (!err)
		err = upcc_atomic_write(path, data, len);
	free(data);
	return err;
}

/* The text after "KEY": on @line, or NULL. */
static const char *json_field(const char *line, const char *key)
{
	char pattern[64];
	const char *found;

	snprintf(pattern, sizeof(pattern), "\"%s\":", key);
	found = strstr(line, pattern);
	return found ? found + strlen(pattern) : NULL;
}

static uint64_t json_u64(const char *line, const char *key)
{
	const char *value = json_field(line, key);

	return value ? strtoull(value, NULL, 10) : 0;
}

static bool json_bool(const char *line, const char *key)
{
	const char *value = json_field(line, key);

	return value && strncmp(value, "true", 4) == 0;
}

/* Undo upcc_json_string() into @buffer (truncating); "" if absent. */
static void json_text(const char *line, const char *key, char *buffer, size_t size)
{
	const char *value = json_field(line, key);
	size_t used = 0;

	buffer[0] = '\0';
	if (!value || *value != '"')
		return;
	for (value++; *value && *value != '"' && used + 1 < size; value++) {
		if (*value == '\\' && value[1] == 'u' && strlen(value) >= 6) {
			buffer[used++] = (char)strtol((char[]){ value[4], value[5], 0 }, NULL, 16);
			value += 5;
			continue;
		}
		if (*value == '\\' && value[1])
			value++;
		buffer[used++] = *value;
	}
	buffer[used] = '\0';
}

static void parse_scope_line(const char *line, struct upcc_state_scope *scope)
{
	memset(scope, 0, sizeof(*scope));
	json_text(line, "name", scope->name, sizeof(scope->name));
	json_text(line, "kind", scope->kind, sizeof(scope->kind));
	json_text(line, "path", scope->path, sizeof(scope->path));
	scope->node_id = (int)strtol(json_field(line, "node") ? json_field(line, "node") : "-1",
				     NULL, 10);
	json_text(line, "backend", scope->backend, sizeof(scope->backend));
	json_text(line, "backend_why", scope->backend_why, sizeof(scope->backend_why));
	scope->backend_ready = json_bool(line, "backend_ready");
	scope->reclaiming = json_bool(line, "reclaiming");
	scope->target_pages = json_u64(line, "target_pages");
	scope->trigger_pages = json_u64(line, "trigger_pages");
	scope->reclaimed_pages_total = json_u64(line, "reclaimed_pages_total");
	scope->actions_total = json_u64(line, "actions_total");
	scope->action_errors_total = json_u64(line, "action_errors_total");
	scope->action_usec_total = json_u64(line, "action_usec_total");
	scope->refused_steps_total = json_u64(line, "refused_steps_total");
}

/*
 * A state file is whole when its header has the daemon's pid and time and
 * the text ends where the writer ends it: a header alone, or a file cut
 * short, is not a state to show ("pid 0, updated 1796323883s ago").
 */
static bool state_text_whole(const char *text)
{
	const char *eol = strchr(text, '\n');
	size_t len = strlen(text);

	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	if (!eol || len < 2 || memcmp(text + len - 2, "]}", 2) != 0)
		return false;
	return strstr(text, "\"pid\":") && strstr(text, "\"updated\":") &&
	       strstr(text, "\"scopes\":[") && strstr(text, "\"pid\":") < eol &&
	       strstr(text, "\"updated\":") < eol;
}

int upcc_state_read(const char *path, struct upcc_state_header *header,
		    struct upcc_state_scope *scopes, size_t max, size_t *nr_scopes)
{
	char *text, *line, *save = NULL;
	int err = upcc_read_text(path, &text);

	if (err)
		return err;
	*nr_scopes = 0;
	if (strncmp(text, "{\"version\":1,", 13) != 0 || !state_text_whole(text)) {
		free(text);
		return -EINVAL;
	}
	memset(header, 0, sizeof(*header));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "{\"version\":", 11) == 0) {
			header->pid = (long)json_u64(line, "pid");
			header->updated = (long long)json_u64(line, "updated");
			header->page_size = json_u64(line, "page_size");
			header->dry_run = json_bool(line, "dry_run");
		} else if (strncmp(line, "{\"name\":", 8) == 0 && *nr_scopes < max) {
			parse_scope_line(line, &scopes[(*nr_scopes)++]);
		}
	}
	free(text);
	return 0;
}
