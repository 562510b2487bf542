// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - bounded human summaries (see text.h).
 */
#include "text.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void upcc_text_append(char *text, size_t len, const char *fmt, ...)
{
	static const char cut[] = "...";
	size_t used = strlen(text);
	va_list args;
	int n;

	if (len < sizeof(cut))
		return;		/* no room even for the marker: left alone */
	va_start(args, fmt);
	n = vsnprintf(text + used, len - used, fmt, args);
	va_end(args);
	if (n < 0)
		text[used] = '\0';
	else if ((size_t)n >= len - used)
		/* Whatever did not fit, even all of it: the end says so.  A
		 * text marked already gets the same marker again.
		 */
		memcpy(text + len - sizeof(cut), cut, sizeof(cut));
}

/*
 * Characters that reorder or hide text, or break a line (text.h):
 * "file\u202Etxt.exe" shows as "fileexe.txt", a tag character is drawn as
 * nothing at all, and some viewers start a line at U+2028.  Joiners
 * (U+200C/D) stay: scripts and emoji need them to be drawn right.
 */
static bool hides_or_reorders(uint32_t cp)
{
	return cp == 0x061c ||				/* arabic letter mark */
	       cp == 0x200b ||				/* zero width space */
	       cp == 0x200e || cp == 0x200f ||		/* LRM, RLM */
	       cp == 0x2028 || cp == 0x2029 ||		/* line, paragraph separator */
	       (cp >= 0x202a && cp <= 0x202e) ||	/* LRE, RLE, PDF, LRO, RLO */
	       (cp >= 0x2060 && cp <= 0x2064) ||	/* word joiner, invisible operators */
	       (cp >= 0x2066 && cp <= 0x206f) ||	/* LRI, RLI, FSI, PDI; deprecated */
	       cp == 0xfeff ||				/* zero width no-break space */
	       (cp >= 0xfff9 && cp <= 0xfffb) ||	/* interlinear annotation */
	       (cp >= 0xe0000 && cp <= 0xe007f);	/* tags */
}

/* Length of the valid UTF-8 sequence at @s, 0 if it is not one or if it
 * encodes a C1 control (U+0080..U+009F), which terminals may obey, or a
 * character that reorders or hides text.
 */
static size_t utf8_printable_len(const unsigned char *s)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;		/* continuation, overlong lead or beyond U+10FFFF */
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* An overlong form (ESC in three bytes, which a lax decoder reads as
	 * ESC), a UTF-16 surrogate, or beyond U+10FFFF: not UTF-8.
	 */
	if (cp < (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	if (s[0] == 0xc2 && s[1] < 0xa0)
		return 0;		/* C1 control */
	if (hides_or_reorders(cp))
		return 0;
	return len;
}

/* Emit @in piecewise through @put: a byte or a run that is safe as it is. */
static void printable_pieces(const char *in, void (*put)(void *ctx, const char *piece, size_t len),
			     void *ctx)
{
	const unsigned char *s = (const unsigned char *)in;

	while (*s) {
		size_t len = 1;
		char escaped[5];

		if (*s >= 0x20 && *s < 0x7f) {
			put(ctx, (const char *)s, 1);
		} else if (*s >= 0x80 && (len = utf8_printable_len(s)) != 0) {
			put(ctx, (const char *)s, len);
		} else {
			len = 1;
			snprintf(escaped, sizeof(escaped), "\\x%02x", *s);
			put(ctx, escaped, 4);
		}
		s += len;
	}
}

struct printable_buffer {
	char *out;
	size_t len, used;
	bool cut;
};

static void put_buffer(void *ctx, const char *piece, size_t len)
{
	struct printable_buffer *b = ctx;

	if (b->cut || b->used + len >= b->len) {
		b->cut = true;
		return;
	}
	memcpy(b->out + b->used, piece, len);
	b->used += len;
	b->out[b->used] = '\0';
}

void upcc_text_printable(char *out, size_t len, const char *in)
{
	struct printable_buffer b = { .out = out, .len = len };

	if (!len)
		return;
	out[0] = '\0';
	printable_pieces(in, put_buffer, &b);
	if (b.cut && len >= 4)
		memcpy(out + (b.used + 4 <= len ? b.used : len - 4), "...", 4);
}

static void put_stream(void *ctx, const char *piece, size_t len)
{
	fwrite(piece, 1, len, ctx);
}

void upcc_fputs_printable(const char *in, FILE *stream)
{
	printable_pieces(in, put_stream, stream);
}
