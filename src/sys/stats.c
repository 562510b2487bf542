// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - parsers for /proc/meminfo, node meminfo, memory.stat, vmstat.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/readtext.h"
#include "stats.h"
#include "sysfs.h"


static const char *const meminfo_names[UPCC_MI_NR_FIELDS] = {
	[UPCC_MI_MEM_TOTAL] = "MemTotal",
	[UPCC_MI_MEM_FREE] = "MemFree",
	[UPCC_MI_ACTIVE_FILE] = "Active(file)",
	[UPCC_MI_INACTIVE_FILE] = "Inactive(file)",
	[UPCC_MI_MAPPED] = "Mapped",
	[UPCC_MI_DIRTY] = "Dirty",
	[UPCC_MI_WRITEBACK] = "Writeback",
	[UPCC_MI_SHMEM] = "Shmem",
	[UPCC_MI_SWAP_TOTAL] = "SwapTotal",
};

static const char *const memstat_names[UPCC_MS_NR_FIELDS] = {
	[UPCC_MS_ANON] = "anon",
	[UPCC_MS_FILE] = "file",
	[UPCC_MS_ACTIVE_FILE] = "active_file",
	[UPCC_MS_INACTIVE_FILE] = "inactive_file",
	[UPCC_MS_FILE_MAPPED] = "file_mapped",
	[UPCC_MS_FILE_DIRTY] = "file_dirty",
	[UPCC_MS_FILE_WRITEBACK] = "file_writeback",
	[UPCC_MS_SHMEM] = "shmem",
};

static const char *const vmstat_names[UPCC_VS_NR_FIELDS] = {
	[UPCC_VS_NR_FREE_PAGES] = "nr_free_pages",
	[UPCC_VS_NR_ACTIVE_FILE] = "nr_active_file",
	[UPCC_VS_NR_INACTIVE_FILE] = "nr_inactive_file",
	[UPCC_VS_NR_MAPPED] = "nr_mapped",
	[UPCC_VS_NR_FILE_PAGES] = "nr_file_pages",
	[UPCC_VS_NR_DIRTY] = "nr_dirty",
	[UPCC_VS_NR_WRITEBACK] = "nr_writeback",
	[UPCC_VS_PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[UPCC_VS_PGSTEAL_DIRECT] = "pgsteal_direct",
	[UPCC_VS_KSWAPD_UNMAPPED_WAKE] = "kswapd_unmapped_wake",
	[UPCC_VS_PGSCAN_UNMAPPED] = "pgscan_unmapped",
	[UPCC_VS_PGSTEAL_UNMAPPED] = "pgsteal_unmapped",
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *cursor, const char *end)
{
	while (cursor < end && is_blank(*cursor))
		cursor++;
	return cursor;
}

/*
 * Decimal digits in [cursor, end) into *value, saturating: a counter that
 * outgrows 64 bits (only a corrupt file can) must not wrap to a small one.
 * Returns the first byte after the digits, or NULL if there was none.
 */
static const char *parse_u64_saturating(const char *cursor, const char *end, uint64_t *value)
{
	const char *start = cursor;
	uint64_t result = 0;

	while (cursor < end && *cursor >= '0' && *cursor <= '9') {
		unsigned int digit = (unsigned int)(*cursor - '0');

		if (result > (UINT64_MAX - digit) / 10)
			result = UINT64_MAX;
		else
			result = result * 10 + digit;
		cursor++;
	}
	if (cursor == start)
		return NULL;
	*value = result;
	return cursor;
}

static int find_name(const char *const *names, int count, const char *name, size_t len)
{
	for (int i = 0; i < count; i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return i;
	return -1;
}

/* The value part of a line: digits, then blanks and an optional unit, then end. */
static int parse_value(const char *cursor, const char *end, const char *unit, uint64_t *value)
{
	cursor = skip_blanks(cursor, end);
	cursor = parse_u64_saturating(cursor, end, value);
	if (!cursor)
		return -EINVAL;
	cursor = skip_blanks(cursor, end);
	if (unit && (size_t)(end - cursor) >= strlen(unit) &&
	    memcmp(cursor, unit, strlen(unit)) == 0)
		cursor += strlen(unit);
	cursor = skip_blanks(cursor, end);
	return cursor == end ? 0 : -EINVAL;
}

/* "Node 12 " prefix of a node meminfo line: returns the rest, sets *node. */
static const char *strip_node_prefix(const char *line, const char *end, int *node)
{
	uint64_t id;
	const char *cursor;

	if (end - line < 5 || memcmp(line, "Node ", 5) != 0)
		return line;
	cursor = parse_u64_saturating(line + 5, end, &id);
	if (!cursor || id > 1u << 20)
		return NULL;
	*node = (int)id;
	return skip_blanks(cursor, end);
}

static int meminfo_line(const char *line, const char *end, struct upcc_meminfo *info)
{
	const char *colon, *name;
	int node = -1, field;
	uint64_t value;

	name = strip_node_prefix(line, end, &node);
	if (!name)
		return -EINVAL;
	if (info->present && node != info->node_id)
		return -EINVAL;	/* a mix of nodes, or of node and system lines */
	colon = memchr(name, ':', (size_t)(end - name));
	if (!colon)
		return 0;
	field = find_name(meminfo_names, UPCC_MI_NR_FIELDS, name, (size_t)(colon - name));
	if (field < 0)
		return 0;
	if (parse_value(colon + 1, end, "kB", &value))
		return -EINVAL;
	info->node_id = node;
	info->kb[field] = value;
	info->present |= 1u << field;
	return 0;
}

/* memory.stat and vmstat: "name value" lines. */
static int keyed_line(const char *line, const char *end, const char *const *names,
		      int count, uint64_t *values, unsigned int *present)
{
	const char *space = line;
	int field;

	while (space < end && !is_blank(*space))
		space++;
	field = find_name(names, count, line, (size_t)(space - line));
	if (field < 0)
		return 0;
	if (parse_value(space, end, NULL, &values[field]))
		return -EINVAL;
	*present |= 1u << field;
	return 0;
}

enum stats_format { FORMAT_MEMINFO, FORMAT_MEMSTAT, FORMAT_VMSTAT };

static int parse_lines(const char *text, enum stats_format format, void *out)
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		int err;

		if (!end)
			end = line + strlen(line);
		switch (format) {
		case FORMAT_MEMINFO:
			err = meminfo_line(line, end, out);
			break;
		case FORMAT_MEMSTAT: {
			struct upcc_memstat *stat = out;

			err = keyed_line(line, end, memstat_names, UPCC_MS_NR_FIELDS,
					 stat->bytes, &stat->present);
			break;
		}
		default: {
			struct upcc_vmstat *stat = out;

			err = keyed_line(line, end, vmstat_names, UPCC_VS_NR_FIELDS,
					 stat->value, &stat->present);
			break;
		}
		}
		if (err)
			return err;
		line = *end ? end + 1 : end;
	}
	return 0;
}

int upcc_meminfo_parse(const char *text, struct upcc_meminfo *info)
{
	struct upcc_meminfo parsed = { .node_id = -1 };
	int err = parse_lines(text, FORMAT_MEMINFO, &parsed);

	if (err)
		return err;
	if (!parsed.present)
		return -ENODATA;
	*info = parsed;
	return 0;
}

int upcc_memstat_parse(const char *text, struct upcc_memstat *stat)
{
	struct upcc_memstat parsed = { .present = 0 };
	int err = parse_lines(text, FORMAT_MEMSTAT, &parsed);

	if (err)
		return err;
	if (!parsed.present)
		return -ENODATA;
	*stat = parsed;
	return 0;
}

int upcc_vmstat_parse(const char *text, struct upcc_vmstat *stat)
{
	struct upcc_vmstat parsed = { .present = 0 };
	int err = parse_lines(text, FORMAT_VMSTAT, &parsed);

	if (err)
		return err;
	if (!parsed.present)
		return -ENODATA;
	*stat = parsed;
	return 0;
}

#define DEFINE_READ(fn, parse, type)				\
int fn(const char *path, type *out)				\
{								\
	char *text;						\
	int err = upcc_read_text(path, &text);			\
								\
	if (err)						\
		return err;					\
	err = parse(text, out);					\
	free(text);						\
	return err;						\
}

DEFINE_READ(upcc_meminfo_read, upcc_meminfo_parse, struct upcc_meminfo)
DEFINE_READ(upcc_memstat_read, upcc_memstat_parse, struct upcc_memstat)
DEFINE_READ(upcc_vmstat_read, upcc_vmstat_parse, struct upcc_vmstat)

int upcc_meminfo_read_system(struct upcc_meminfo *info)
{
	char path[PATH_MAX];
	int err = upcc_sysfs_path(path, sizeof(path), "/proc/meminfo");

	return err ? err : upcc_meminfo_read(path, info);
}

int upcc_id_list_parse(const char *text, int *ids, size_t max)
{
	const char *cursor = text, *end = text + strlen(text);
	size_t count = 0;
	int last = -1;

	while (end > cursor && (end[-1] == '\n' || is_blank(end[-1])))
		end--;
	while (cursor < end) {
		uint64_t first, final;

		cursor = parse_u64_saturating(cursor, end, &first);
		if (!cursor || first > 1u << 20)
			return -EINVAL;
		final = first;
		if (cursor < end && *cursor == '-') {
			cursor = parse_u64_saturating(cursor + 1, end, &final);
			if (!cursor || final < first || final > 1u << 20)
				return -EINVAL;
		}
		if ((int)first <= last)
			return -EINVAL;	/* the kernel prints ascending, disjoint ranges */
		for (uint64_t id = first; id <= final && count < max; id++)
			ids[count++] = (int)id;
		last = (int)final;
		if (cursor < end && *cursor != ',')
			return -EINVAL;
		if (cursor < end)
			cursor++;
		if (cursor == end && end[-1] == ',')
			return -EINVAL;
	}
	return (int)count;
}
