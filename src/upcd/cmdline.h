/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmdline.h - upcd's command line laid over the config file, at start and
 * on every reload.
 */
#ifndef UPCC_CMDLINE_H
#define UPCC_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/config.h"

/* What the command line says, applied on top of the config file. */
struct upcd_options {
	const char *config_path;	/* NULL: the default, optional */
	bool once, dry_run, verbose, check;
	const char *backend;
	const char *scopes[UPCC_MAX_SCOPES];
	size_t nr_scopes;
	const char *target, *trigger, *interval, *metrics, *state;
	const char *tick;
};

/*
 * Parse upcd's arguments into @options.  0, or an exit code: -h and -V
 * print and exit(0) here.
 */
int upcd_parse_options(int argc, char **argv, struct upcd_options *options);

/*
 * The config file (if any) plus the command line, into @config, checked
 * (a scope that can never be measured here is an error now).  0, or
 * -errno with the reason logged and @config freed.
 */
int upcd_build_config(const struct upcd_options *options, struct upcc_config *config);

#endif /* UPCC_CMDLINE_H */
