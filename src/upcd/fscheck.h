/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fscheck.h - what the config names, checked on the filesystem when upcd
 * starts, reloads or runs --check: what the parser (core/config.h) cannot
 * know without looking, refused before anything runs rather than failing
 * every round.
 */
#ifndef UPCC_FSCHECK_H
#define UPCC_FSCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "cmdline.h"
#include "core/config.h"

/*
 * The state and metrics files of @config (read from @config_path, the
 * command line in @options on top): an existing directory there is
 * refused.  0, or -EISDIR with "FILE:LINE: state PATH: is a directory..."
 * (or "--state=PATH: ...") in @error.
 */
int upcd_check_report_files(const struct upcd_options *options, const struct upcc_config *config,
			    const char *config_path, char *error, size_t error_len);

/*
 * --check: can the state or metrics file @path be written where it is,
 * as the writer will (lib/atomicfile.h, upcc_atomic_open_dir): its
 * directory exists (or, @can_make, as for the state file, is missing and
 * its parent is one upcd may make it in), no component is a symbolic
 * link, it is root's or ours, no group or other user may write it (but
 * for the sticky bit), and we may write in it.  Nothing is made or
 * written.  0 or -errno, and in @what "directory DIR: ok" or what is
 * wrong with it.
 */
int upcd_check_report_dir(const char *path, bool can_make, char *what, size_t what_len);

/*
 * The roots of @config's path scopes, and of its cgroup scopes, resolved
 * (realpath(3), then (st_dev, st_ino)): two of one kind over one
 * directory (a symlink, "..", a bind mount) are refused, -EINVAL with
 * both named in @error; one inside another is logged as a warning and
 * allowed.  A root that does not exist yet is not compared.
 */
int upcd_check_scope_roots(const struct upcc_config *config, const char *config_path,
			   char *error, size_t error_len);

#endif /* UPCC_FSCHECK_H */
