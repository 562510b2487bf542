/* SPDX-License-Identifier: GPL-2.0 */
/*
 * values.h - the values a setting takes, parsed: a boolean, an interval,
 * a target, a trigger; for the config file and the command line alike.
 */
#ifndef UPCC_VALUES_H
#define UPCC_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scope.h"

/* 0 or -EINVAL. */
int upcc_parse_interval_ms(const char *text, uint64_t *interval_ms);
int upcc_parse_trigger(const char *text, struct upcc_scope_config *scope_config);
/* "4x" (a multiple of the target, 0x: no raise) or an amount. */
int upcc_parse_wset_cap(const char *text, struct upcc_scope_config *scope_config);
int upcc_parse_target(const char *text, struct upcc_scope_config *scope_config);
int upcc_parse_bool(const char *text, bool *value);

/*
 * A file's absolute path (the metrics and state files) into @path (@size
 * bytes): 0, -EINVAL if not absolute, -EISDIR if it names a directory
 * ("/", a trailing "/", a last "." or ".."), -ENAMETOOLONG.
 */
int upcc_parse_file_path(const char *text, char *path, size_t size);

#endif /* UPCC_VALUES_H */
