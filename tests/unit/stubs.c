// SPDX-License-Identifier: GPL-2.0
/*
 * stubs.c - weak stand-ins for the acting half's functions, linked ONLY into
 * unit tests (never into build/upcd or build/upcc), so that measure.c's path
 * dispatch is testable without a tree of cached files.  A strong definition
 * from src/invsample.c, when an archive member pulls it in, wins.
 */
#include <errno.h>
#include <string.h>

#include "scope.h"

#define STUB_PATH_PAGES	4242u

__attribute__((weak)) int upcc_path_sample(struct upcc_scope *scope, struct upcc_sample *sample)
{
	if (strcmp(scope->path, "/nonexistent") == 0)
		return -ENOENT;
	memset(sample, 0, sizeof(*sample));
	sample->file_lru_pages = STUB_PATH_PAGES;
	sample->unmapped_pages = STUB_PATH_PAGES;
	sample->total_pages = STUB_PATH_PAGES * 2;
	return 0;
}
