/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jsonstr.h - JSON output: the one string escaper of every --json and of the
 * state file.
 */
#ifndef UPCC_JSONSTR_H
#define UPCC_JSONSTR_H

#include <stdio.h>

/* @text as a JSON string: quotes, backslashes and control bytes escaped. */
void upcc_json_string(FILE *out, const char *text);

#endif /* UPCC_JSONSTR_H */
