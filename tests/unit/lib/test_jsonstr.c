// SPDX-License-Identifier: GPL-2.0
/*
 * test_jsonstr.c - the JSON string escaper: always well-formed UTF-8 out,
 * and a name's exact bytes in its _hex twin when it is not UTF-8
 * (issue 31 item 6).  tests/unit/programs/operator.sh runs a real JSON
 * parser over what the programs write.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/jsonstr.h"

/* What @write makes of @text, as a string to compare. */
static const char *written(void (*write)(FILE *, const char *), const char *text)
{
	static char *buf;
	size_t len;
	FILE *out;

	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	write(out, text);
	fclose(out);
	return buf;
}

static void member_of(FILE *out, const char *text)
{
	upcc_json_member(out, "path", text);
}

static void expect_json(const char *text, const char *json)
{
	assert_string_equal(written(upcc_json_string, text), json);
}

static void test_escapes(void **state)
{
	(void)state;
	expect_json("", "\"\"");
	expect_json("plain /a b", "\"plain /a b\"");
	expect_json("q\"b\\", "\"q\\\"b\\\\\"");
	expect_json("\x01\n\x1f\x7f", "\"\\u0001\\u000a\\u001f\\u007f\"");
	/* Valid UTF-8 goes out as it is, U+2028 and U+2029 escaped. */
	expect_json("caf\xc3\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbd", "\"caf\xc3\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbd\"");
	expect_json("a\xe2\x80\xa8z\xe2\x80\xa9", "\"a\\u2028z\\u2029\"");
	expect_json("\xe2\x80\xaf", "\"\xe2\x80\xaf\"");		/* U+202F: not a separator */
}

/* Each byte outside well-formed UTF-8 is one U+FFFD; what follows it is read
 * afresh, so a valid character after a bad lead is kept.
 */
static void test_invalid_bytes(void **state)
{
	(void)state;
	expect_json("bad\xffname", "\"bad\\ufffdname\"");
	expect_json("\x80\xbf", "\"\\ufffd\\ufffd\"");		/* lone continuations */
	expect_json("\xc0\xaf", "\"\\ufffd\\ufffd\"");		/* overlong '/' */
	expect_json("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");	/* overlong */
	expect_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");	/* surrogate U+D800 */
	expect_json("\xed\xb3\xbf", "\"\\ufffd\\ufffd\\ufffd\"");	/* U+DCFF: surrogateescape's */
	expect_json("\xf0\x8f\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	expect_json("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");	/* past U+10FFFF */
	expect_json("\xf5\x80", "\"\\ufffd\\ufffd\"");
	expect_json("\xc3" "A", "\"\\ufffdA\"");			/* cut short */
	expect_json("end\xe2\x82", "\"end\\ufffd\\ufffd\"");	/* cut by the end */
	expect_json("\xc3\"", "\"\\ufffd\\\"\"");
}

static void test_utf8_valid(void **state)
{
	(void)state;
	assert_true(upcc_json_utf8_valid(""));
	assert_true(upcc_json_utf8_valid("ascii \x01\x7f"));
	assert_true(upcc_json_utf8_valid("\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80"));
	assert_true(upcc_json_utf8_valid("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"));
	assert_false(upcc_json_utf8_valid("\xff"));
	assert_false(upcc_json_utf8_valid("\xc1\xbf"));
	assert_false(upcc_json_utf8_valid("\xed\xa0\x80"));
	assert_false(upcc_json_utf8_valid("\xf4\x90\x80\x80"));
	assert_false(upcc_json_utf8_valid("\xe2\x82"));
}

/* A name that is UTF-8 is the string alone; one that is not has its exact
 * bytes beside it, and they decode back.
 */
static void test_member(void **state)
{
	char back[64];

	(void)state;
	assert_string_equal(written(member_of, "/srv/caf\xc3\xa9"), "\"path\":\"/srv/caf\xc3\xa9\"");
	assert_string_equal(written(member_of, "/a\xff\n"),
			    "\"path\":\"/a\\ufffd\\u000a\",\"path_hex\":\"2f61ff0a\"");
	assert_int_equal(upcc_json_hex_decode("2f61ff0a", back, sizeof(back)), 0);
	assert_string_equal(back, "/a\xff\n");
	assert_int_equal(upcc_json_hex_decode("2F61FF", back, sizeof(back)), 0);
	assert_string_equal(back, "/a\xff");
	assert_int_equal(upcc_json_hex_decode("", back, sizeof(back)), 0);
	assert_string_equal(back, "");
	assert_int_equal(upcc_json_hex_decode("2f6", back, sizeof(back)), -EINVAL);
	assert_int_equal(upcc_json_hex_decode("2g", back, sizeof(back)), -EINVAL);
	assert_int_equal(upcc_json_hex_decode("2f00ff", back, sizeof(back)), -EINVAL);
	assert_int_equal(upcc_json_hex_decode("616263", back, 3), -EINVAL);	/* no room for the NUL */
	assert_int_equal(upcc_json_hex_decode("616263", back, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_invalid_bytes),
		cmocka_unit_test(test_utf8_valid),
		cmocka_unit_test(test_member),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
