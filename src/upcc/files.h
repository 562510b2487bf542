/* SPDX-License-Identifier: GPL-2.0 */
/*
 * files.h - `upcc files` (cached files and their resident pages, like
 * fincore) and `upcc evict` (drop files' clean unmapped pages, like
 * `vmtouch -e`, with upcd's rules: never a dirty or writeback file, never a
 * mapped one, never through a symlink).
 *
 * Exit codes: 0 done; 1 a path could not be read or evicted (the others
 * still were); 2 bad usage (nothing done).
 */
#ifndef UPCC_FILES_H
#define UPCC_FILES_H

#include "core/common.h"

/* argv[0] is the command name ("files"/"evict"). */
int upcc_files_main(int argc, char **argv);
int upcc_evict_main(int argc, char **argv);	/* evictcmd.c */

/* Shared by the two commands. */
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

#endif /* UPCC_FILES_H */
