/* SPDX-License-Identifier: GPL-2.0 */
/*
 * text.h - bounded human summaries (a backend's `why`, what changed in an
 * inventory): appended to in pieces, never overrun, and marked when cut.
 */
#ifndef UPCC_TEXT_H
#define UPCC_TEXT_H

#include <stddef.h>

/*
 * Append printf-style text to @text (@len bytes in all).  A summary that no
 * longer fits ends in "..." rather than being cut silently; once marked,
 * later appends leave it as it is.
 */
void upcc_text_append(char *text, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
