/* SPDX-License-Identifier: GPL-2.0 */
/*
 * text.h - bounded human summaries (a backend's `why`, what changed in an
 * inventory): appended to in pieces, never overrun, and marked when cut.
 */
#ifndef UPCC_SUMMARY_H
#define UPCC_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

/*
 * Append printf-style text to @text (@len bytes in all).  A summary that no
 * longer fits ends in "..." rather than being cut silently; once marked,
 * later appends leave it as it is.
 */
void upcc_text_append(char *text, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Copy @in to @out (@len bytes in all, cut with "..." if need be) fit for a
 * terminal: control characters (C0, DEL, C1) and bytes that are not UTF-8
 * become "\xNN", so a file name or a string from a state file can neither
 * send escape sequences nor start a line of its own.  So do, byte by byte,
 * the characters that reorder or hide text: the bidirectional controls
 * (U+061C, U+200E/F, U+202A-E, U+2066-9), the invisible format characters
 * (U+200B, U+2060-4, U+206A-F, U+FEFF, U+FFF9-B, the tags U+E0000-7F), and
 * the line and paragraph separators (U+2028/9); the joiners U+200C/D stay.
 */
void upcc_text_printable(char *out, size_t len, const char *in);

/* The same, written to @stream: no length limit. */
void upcc_fputs_printable(const char *in, FILE *stream);

#endif
