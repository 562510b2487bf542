/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jsonstr.h - JSON output: the one string escaper of every --json and of the
 * state file.
 *
 * A file name is bytes, JSON text is Unicode: every string written here is
 * well-formed UTF-8, so any JSON parser reads it.  Valid UTF-8 goes out as
 * it is; a byte that is not part of valid UTF-8 is written as U+FFFD, and
 * a name (upcc_json_member) that held one gets a twin "KEY_hex" with its
 * exact bytes in hex.  Lossless and unambiguous (KEY_hex is there exactly
 * when the name is not UTF-8), where escaping bad bytes as \u00XX would
 * read back as other characters, and as lone surrogates (\udcXX, Python's
 * surrogateescape) is JSON that strict parsers refuse and others turn into
 * U+FFFD without a word.
 */
#ifndef UPCC_JSONSTR_H
#define UPCC_JSONSTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Is @text well-formed UTF-8 (no overlong form, surrogate, or code point
 * past U+10FFFF)?
 */
bool upcc_json_utf8_valid(const char *text);

/* @text as a JSON string: quotes, backslashes, control bytes, U+2028 and
 * U+2029 escaped; each byte not part of valid UTF-8 as U+FFFD.
 */
void upcc_json_string(FILE *out, const char *text);

/* The member "@key":@text, and if @text is not valid UTF-8 the member
 * "@key_hex" after it: @text's bytes, two lowercase hex digits each.
 */
void upcc_json_member(FILE *out, const char *key, const char *text);

/* A "_hex" member's bytes into @buf (@size with the NUL): 0, or -EINVAL if
 * @hex is not an even count of hex digits, holds a NUL byte, or does not fit.
 */
int upcc_json_hex_decode(const char *hex, char *buf, size_t size);

#endif /* UPCC_JSONSTR_H */
