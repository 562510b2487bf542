// SPDX-License-Identifier: GPL-2.0
/*
 * values.c - the values a setting takes, parsed; see values.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "values.h"

int upcc_parse_bool(const char *text, bool *value)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(text, yes[i]) == 0) {
			*value = true;
			return 0;
		}
		if (strcasecmp(text, no[i]) == 0) {
			*value = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* "1s", "500ms", "2m", "1h", or bare seconds; at least 10ms, at most a day. */
int upcc_parse_interval_ms(const char *text, uint64_t *interval_ms)
{
	unsigned long long count;
	uint64_t unit_ms;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	count = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	if (strcmp(end, "ms") == 0)
		unit_ms = 1;
	else if (strcmp(end, "s") == 0 || *end == '\0')
		unit_ms = 1000;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		unit_ms = 60 * 1000;
	else if (strcmp(end, "h") == 0)
		unit_ms = 3600 * 1000;
	else
		return -EINVAL;
	if (count > 86400000ull / unit_ms || count * unit_ms < 10)
		return -EINVAL;
	*interval_ms = count * unit_ms;
	return 0;
}

int upcc_parse_target(const char *text, struct upcc_scope_config *scope_config)
{
	return upcc_amount_parse(text, &scope_config->target);
}

/* "Nx": *@ratio is N, @min..1000000.  -EINVAL if not that form, or out of range. */
static int parse_ratio(const char *text, unsigned long min, unsigned int *ratio)
{
	size_t len = strlen(text);
	unsigned long n;
	char *end;

	if (len < 2 || (text[len - 1] != 'x' && text[len - 1] != 'X') ||
	    !isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	n = strtoul(text, &end, 10);
	if (errno || end != text + len - 1 || n < min || n > 1000000)
		return -EINVAL;
	*ratio = (unsigned int)n;
	return 0;
}

/* Does @text end in "x" (a ratio, right or wrong)? */
static bool is_ratio(const char *text)
{
	size_t len = strlen(text);

	return len >= 1 && (text[len - 1] == 'x' || text[len - 1] == 'X');
}

/* "16x" (a multiple of the target, as UNMAPPED_PAGE_RATIO) or an amount. */
int upcc_parse_trigger(const char *text, struct upcc_scope_config *scope_config)
{
	if (is_ratio(text)) {
		if (parse_ratio(text, 1, &scope_config->trigger_ratio))
			return -EINVAL;
		scope_config->trigger_is_ratio = true;
		return 0;
	}
	if (upcc_amount_parse(text, &scope_config->trigger))
		return -EINVAL;
	scope_config->trigger_is_ratio = false;
	return 0;
}

int upcc_parse_wset_cap(const char *text, struct upcc_scope_config *scope_config)
{
	if (is_ratio(text)) {
		if (parse_ratio(text, 0, &scope_config->wset_cap_ratio))
			return -EINVAL;
		scope_config->wset_cap_is_ratio = true;
		return 0;
	}
	if (upcc_amount_parse(text, &scope_config->wset_cap))
		return -EINVAL;
	scope_config->wset_cap_is_ratio = false;
	return 0;
}

/*
 * A report file (metrics, state) is written by renaming a temporary over
 * its name, which fails on a directory only once upcd runs: refuse what
 * names one whatever the filesystem holds.
 */
int upcc_parse_file_path(const char *text, char *path, size_t size)
{
	const char *last = strrchr(text, '/');
	size_t len = strlen(text);

	if (text[0] != '/')
		return -EINVAL;
	if (len >= size)
		return -ENAMETOOLONG;
	last = last ? last + 1 : text;
	if (!*last || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
		return -EISDIR;
	memcpy(path, text, len + 1);
	return 0;
}
