/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli.h - what the upcc commands (status, files, evict) say alike: sizes,
 * plurals, paths on a line, walk errors.
 */
#ifndef UPCC_CLI_H
#define UPCC_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "core/policy.h"
#include "core/size.h"

/* Bytes for people (free -h style) or, with --bytes, exact. */
#define SIZE_TEXT(pages, exact) \
	upcc_size_text((char[UPCC_SIZE_TEXT_LEN]){ 0 }, UPCC_SIZE_TEXT_LEN, \
		       upcc_mul_saturating((pages), upcc_page_size()), (exact))

/* "1 file", "2 files". */
const char *upcc_plural(uint64_t n, const char *one, const char *many);

/* A file name as the end of a line of human output: escapes shown, not sent. */
void upcc_put_path_line(FILE *out, const char *path);

/* What a walk's error on the root means, for a person. */
const char *upcc_walk_error(int err);

#endif /* UPCC_CLI_H */
