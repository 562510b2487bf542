// SPDX-License-Identifier: GPL-2.0
/*
 * test_text.c - bounded summaries: appended in pieces, marked when cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/text.h"

static void test_append_fits(void **state)
{
	char text[16] = "";

	(void)state;
	upcc_text_append(text, sizeof(text), "%s", "fadvise");
	upcc_text_append(text, sizeof(text), ": %d", 42);
	assert_string_equal(text, "fadvise: 42");
	upcc_text_append(text, sizeof(text), "%s", "");
	assert_string_equal(text, "fadvise: 42");
}

/* Exactly full is not cut: only what does not fit gets the marker. */
static void test_append_exact(void **state)
{
	char text[8] = "";

	(void)state;
	upcc_text_append(text, sizeof(text), "1234567");
	assert_string_equal(text, "1234567");
}

static void test_append_cut(void **state)
{
	char text[16] = "";

	(void)state;
	upcc_text_append(text, sizeof(text), "fadvise: 42");
	upcc_text_append(text, sizeof(text), " and much more");
	assert_string_equal(text, "fadvise: 42 ...");
	assert_int_equal(strlen(text), sizeof(text) - 1);
	upcc_text_append(text, sizeof(text), "x");	/* marked: stays as it is */
	assert_string_equal(text, "fadvise: 42 ...");
}

/* Buffers too small for the marker are left alone, never overrun. */
static void test_append_tiny(void **state)
{
	char text[3] = "";
	char canary[4] = "abc";

	(void)state;
	upcc_text_append(text, sizeof(text), "long text");
	assert_string_equal(text, "");
	upcc_text_append(canary, 1, "x");
	assert_string_equal(canary, "abc");
}

/* Issue 12: text dropped because fewer than 4 bytes were left is marked
 * too, as text.h promises ("1234567" + "; and more" in 10 bytes).
 */
static void test_append_cut_when_nearly_full(void **state)
{
	char text[10] = "";

	(void)state;
	upcc_text_append(text, sizeof(text), "1234567");
	upcc_text_append(text, sizeof(text), "; and more");
	assert_string_equal(text, "123456...");
	upcc_text_append(text, sizeof(text), "x");
	assert_string_equal(text, "123456...");
}

/* Issue 12: names reach a terminal with their control bytes shown, not sent. */
static void test_printable(void **state)
{
	char out[64], tiny[12];

	(void)state;
	upcc_text_printable(out, sizeof(out), "x\033]0;pwned\a\nrow");
	assert_string_equal(out, "x\\x1b]0;pwned\\x07\\x0arow");
	upcc_text_printable(out, sizeof(out), "caf\xc3\xa9 \xe2\x82\xac ok");
	assert_string_equal(out, "caf\xc3\xa9 \xe2\x82\xac ok");	/* UTF-8 kept */
	upcc_text_printable(out, sizeof(out), "c1\xc2\x9b[2J raw\x9b bad\xc3 del\x7f");
	assert_string_equal(out, "c1\\xc2\\x9b[2J raw\\x9b bad\\xc3 del\\x7f");
	upcc_text_printable(tiny, sizeof(tiny), "\033\033\033\033");
	assert_string_equal(tiny, "\\x1b\\x1b...");
	assert_true(strlen(tiny) < sizeof(tiny));
}

/*
 * Issue 32 (review 3): format controls that reorder or hide text are shown
 * as bytes, as C1 controls are: "invoice\u202Efdp.exe" would be read as
 * "invoiceexe.pdf".  Other characters, joiners among them, stay as they are.
 */
static void test_printable_bidi(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "invoice\xe2\x80\xae" "fdp.exe", "invoice\\xe2\\x80\\xae" "fdp.exe" },	/* RLO */
		{ "a\xe2\x80\xaa" "b\xe2\x80\xac" "c", "a\\xe2\\x80\\xaa" "b\\xe2\\x80\\xac" "c" },
		{ "\xe2\x80\x8e\xe2\x80\x8f", "\\xe2\\x80\\x8e\\xe2\\x80\\x8f" },	/* LRM, RLM */
		{ "\xe2\x81\xa6x\xe2\x81\xa9", "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9" },	/* LRI, PDI */
		{ "\xe2\x81\xa7\xe2\x81\xa8", "\\xe2\\x81\\xa7\\xe2\\x81\\xa8" },	/* RLI, FSI */
		{ "\xd8\x9c", "\\xd8\\x9c" },						/* ALM */
		{ "zw\xe2\x80\x8bsp", "zw\\xe2\\x80\\x8bsp" },				/* ZWSP */
		{ "\xef\xbb\xbf" "bom", "\\xef\\xbb\\xbf" "bom" },			/* U+FEFF */
		{ "tag\xf3\xa0\x81\x81", "tag\\xf3\\xa0\\x81\\x81" },			/* U+E0041 */
		{ "l\xe2\x80\xa8p\xe2\x80\xa9", "l\\xe2\\x80\\xa8p\\xe2\\x80\\xa9" },	/* U+2028/9 */
		/* Kept: Hebrew, ZWJ in an emoji, the characters around the ranges. */
		{ "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d" },
		{ "\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb",
		  "\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb" },
		{ "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xb0\xd8\x9b",
		  "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xb0\xd8\x9b" },
	};
	char out[96];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		upcc_text_printable(out, sizeof(out), cases[i].in);
		assert_string_equal(out, cases[i].out);
	}
}

/* text.h: "bytes that are not UTF-8 become \xNN", the sequences that
 * look like UTF-8 but are not among them: overlong forms (ESC, U+202E),
 * surrogates, beyond U+10FFFF.  The largest character and U+FFFD stay.
 */
static void test_printable_not_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "o\xe0\x80\x9b[2J", "o\\xe0\\x80\\x9b[2J" },
		{ "\xf0\x82\x80\xae" "x", "\\xf0\\x82\\x80\\xae" "x" },
		{ "s\xed\xa0\x80", "s\\xed\\xa0\\x80" },
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },
		{ "\xf4\x8f\xbf\xbd\xef\xbf\xbd", "\xf4\x8f\xbf\xbd\xef\xbf\xbd" },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		upcc_text_printable(out, sizeof(out), cases[i].in);
		assert_string_equal(out, cases[i].out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_fits),
		cmocka_unit_test(test_append_exact),
		cmocka_unit_test(test_append_cut),
		cmocka_unit_test(test_append_tiny),
		cmocka_unit_test(test_append_cut_when_nearly_full),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_printable_bidi),
		cmocka_unit_test(test_printable_not_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
