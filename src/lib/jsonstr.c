// SPDX-License-Identifier: GPL-2.0
/*
 * jsonstr.c - the one JSON string escaper; see jsonstr.h.
 */
#include "jsonstr.h"

#include <errno.h>
#include <string.h>

/*
 * Length of the well-formed UTF-8 sequence at @s (Unicode 15, table 3-7),
 * 0 if there is none: no overlong form, no surrogate (U+D800..U+DFFF), no
 * code point past U+10FFFF, no sequence cut short.  What a strict decoder
 * (Python's, serde_json's) refuses is exactly what is not taken here.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;		/* a continuation, an overlong lead, past U+10FFFF */
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0)
		lo = 0xa0;		/* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;		/* a surrogate */
	else if (s[0] == 0xf0)
		lo = 0x90;		/* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;		/* past U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

bool upcc_json_utf8_valid(const char *text)
{
	for (const unsigned char *s = (const unsigned char *)text; *s;) {
		size_t len = utf8_len(s);

		if (!len)
			return false;
		s += len;
	}
	return true;
}

/* U+2028 and U+2029, which JSON allows raw but JavaScript did not. */
static bool is_line_separator(const unsigned char *s, size_t len)
{
	return len == 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9);
}

void upcc_json_string(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;

	fputc('"', out);
	while (*s) {
		size_t len = utf8_len(s);

		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s < 0x20 || *s == 0x7f)
			fprintf(out, "\\u%04x", *s);
		else if (!len)
			fputs("\\ufffd", out);	/* the exact bytes: upcc_json_member */
		else if (is_line_separator(s, len))
			fprintf(out, "\\u%04x", 0x2000 | (s[2] - 0x80));
		else
			fwrite(s, 1, len, out);
		s += len ? len : 1;
	}
	fputc('"', out);
}

void upcc_json_member(FILE *out, const char *key, const char *text)
{
	fprintf(out, "\"%s\":", key);
	upcc_json_string(out, text);
	if (upcc_json_utf8_valid(text))
		return;
	fprintf(out, ",\"%s_hex\":\"", key);
	for (const unsigned char *s = (const unsigned char *)text; *s; s++)
		fprintf(out, "%02x", *s);
	fputc('"', out);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int upcc_json_hex_decode(const char *hex, char *buf, size_t size)
{
	size_t len = strlen(hex), n = len / 2;

	if (len % 2 || n >= size)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);

		/* A NUL would cut the name short: not a name upcc wrote. */
		if (high < 0 || low < 0 || (high | low) == 0)
			return -EINVAL;
		buf[i] = (char)(high << 4 | low);
	}
	buf[n] = '\0';
	return 0;
}
