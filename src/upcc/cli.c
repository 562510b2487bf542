// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - what the upcc commands say alike; see cli.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lib/text.h"

const char *upcc_plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void upcc_put_path_line(FILE *out, const char *path)
{
	upcc_fputs_printable(path, out);
	fputc('\n', out);
}

const char *upcc_walk_error(int err)
{
	switch (err) {
	case -ELOOP:
		return "is a symlink: never followed";
	case -ENOTDIR:
		return "is not a regular file or directory: never opened";
	case -EMEDIUMTYPE:
		return "is on a pseudo or memory-backed filesystem";
	default:
		return strerror(-err);
	}
}
