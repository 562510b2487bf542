// SPDX-License-Identifier: GPL-2.0
/*
 * fscheck.c - what the config names, checked on the filesystem; see
 * fscheck.h.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fscheck.h"

/* Where a setting came from: "FILE:LINE: state PATH", "--state=PATH" or
 * "state PATH (the default)".
 */
static const char *setting_where(char *buf, size_t len, const char *key, const char *path,
				 const char *option, const char *config_path, unsigned int line)
{
	if (option)
		snprintf(buf, len, "--%s=%s", key, path);
	else if (line)
		snprintf(buf, len, "%s:%u: %s %s", config_path, line, key, path);
	else
		snprintf(buf, len, "%s %s (the default)", key, path);
	return buf;
}

/*
 * A report file is written by renaming a temporary over its name, which
 * fails on a directory at every write: one there now is refused.  What
 * else may be there (a symlink, a FIFO) is replaced, never followed.
 */
static int check_report_file(const char *key, const char *path, const char *option,
			     const char *config_path, unsigned int line, const char *example,
			     char *error, size_t error_len)
{
	char where[PATH_MAX + 64];
	struct stat st;

	if (!path[0] || lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	snprintf(error, error_len,
		 "%s: is a directory; upcd writes the %s file by renaming a temporary over it: name a file (%s/%s)",
		 setting_where(where, sizeof(where), key, path, option, config_path, line), key,
		 path, example);
	return -EISDIR;
}

int upcd_check_report_files(const struct upcd_options *options, const struct upcc_config *config,
			    const char *config_path, char *error, size_t error_len)
{
	int err;

	err = check_report_file("state", config->state_path, options->state, config_path,
				config->state_line, "state.json", error, error_len);
	if (err)
		return err;
	return check_report_file("metrics", config->metrics_path, options->metrics, config_path,
				 config->metrics_line, "upcc.prom", error, error_len);
}
