// SPDX-License-Identifier: GPL-2.0
/* test_size.c - the amount parser and its resolution to pages. */
#include <errno.h>

#include "unit.h"
#include "core/size.h"

static void expect_amount(const char *text, enum upcc_amount_unit unit, uint64_t value)
{
	struct upcc_amount amount = { UPCC_AMOUNT_PAGES, 77 };

	assert_int_equal(upcc_amount_parse(text, &amount), 0);
	assert_int_equal(amount.unit, unit);
	assert_true(amount.value == value);
}

static void expect_invalid(const char *text)
{
	struct upcc_amount amount = { UPCC_AMOUNT_PAGES, 77 };

	assert_int_equal(upcc_amount_parse(text, &amount), -EINVAL);
	/* Bad input changes nothing. */
	assert_int_equal(amount.unit, UPCC_AMOUNT_PAGES);
	assert_true(amount.value == 77);
}

static void test_pages(void **state)
{
	(void)state;
	expect_amount("0", UPCC_AMOUNT_PAGES, 0);
	expect_amount("655", UPCC_AMOUNT_PAGES, 655);
	expect_amount("18446744073709551615", UPCC_AMOUNT_PAGES, UINT64_MAX);
}

static void test_bytes(void **state)
{
	(void)state;
	expect_amount("4096B", UPCC_AMOUNT_BYTES, 4096);
	expect_amount("64K", UPCC_AMOUNT_BYTES, 64ull << 10);
	expect_amount("64M", UPCC_AMOUNT_BYTES, 64ull << 20);
	expect_amount("2G", UPCC_AMOUNT_BYTES, 2ull << 30);
	expect_amount("1T", UPCC_AMOUNT_BYTES, 1ull << 40);
	expect_amount("3mb", UPCC_AMOUNT_BYTES, 3ull << 20);
	expect_amount("16777215T", UPCC_AMOUNT_BYTES, 16777215ull << 40);
}

static void test_percent(void **state)
{
	(void)state;
	expect_amount("1%", UPCC_AMOUNT_PERCENT, 100);
	expect_amount("1.5%", UPCC_AMOUNT_PERCENT, 150);
	expect_amount("0.25%", UPCC_AMOUNT_PERCENT, 25);
	expect_amount("100%", UPCC_AMOUNT_PERCENT, 10000);
	expect_amount("0%", UPCC_AMOUNT_PERCENT, 0);
}

static void test_invalid(void **state)
{
	(void)state;
	expect_invalid("");
	expect_invalid("-1");
	expect_invalid("+1");
	expect_invalid(" 1");
	expect_invalid("1 ");
	expect_invalid("1X");
	expect_invalid("1KK");
	expect_invalid("1.5");		/* a fraction is only for percent */
	expect_invalid("1.5M");
	expect_invalid("1.%");
	expect_invalid("1.234%");
	expect_invalid("101%");
	expect_invalid("100.01%");
	expect_invalid("%");
	expect_invalid("M");
	expect_invalid("18446744073709551616");	/* 2^64 */
	expect_invalid("16777216T");			/* 2^64 bytes */
	expect_invalid("1%%");
	expect_invalid("0x10");
	assert_int_equal(upcc_amount_parse(NULL, &(struct upcc_amount){ 0 }), -EINVAL);
}

static void test_resolve(void **state)
{
	struct upcc_amount pages = { UPCC_AMOUNT_PAGES, 1000 };
	struct upcc_amount bytes = { UPCC_AMOUNT_BYTES, (64ull << 20) + 100 };
	struct upcc_amount percent = { UPCC_AMOUNT_PERCENT, 100 };
	struct upcc_amount half = { UPCC_AMOUNT_PERCENT, 50 };
	struct upcc_amount all = { UPCC_AMOUNT_PERCENT, 10000 };

	(void)state;
	assert_true(upcc_amount_pages(&pages, 5, 4096) == 1000);
	assert_true(upcc_amount_pages(&bytes, 0, 4096) == 16384);	/* rounds down */
	assert_true(upcc_amount_pages(&bytes, 0, 65536) == 1024);
	assert_true(upcc_amount_pages(&bytes, 0, 0) == 0);
	assert_true(upcc_amount_pages(&percent, 6170892, 4096) == 61708);
	assert_true(upcc_amount_pages(&half, 1000, 4096) == 5);
	assert_true(upcc_amount_pages(&all, UINT64_MAX, 4096) == UINT64_MAX);
	/* No overflow for a huge scope: 1% of 2^64-1 is exact. */
	assert_true(upcc_amount_pages(&percent, UINT64_MAX, 4096) == UINT64_MAX / 100);
}

/* Issue 12: sizes for people, free -h style ("target 0.0 MiB" for 10 pages). */
static void test_format(void **state)
{
	static const struct { uint64_t bytes; const char *text; } cases[] = {
		{ 0, "0B" }, { 1023, "1023B" }, { 1024, "1.0Ki" }, { 40960, "40Ki" },
		{ 1536 * 1024, "1.5Mi" }, { 1048575, "1.0Mi" }, { 23ull << 30, "23Gi" },
		{ UINT64_MAX, "16Ei" },
	};
	char buf[UPCC_SIZE_TEXT_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(upcc_size_format(buf, sizeof(buf), cases[i].bytes),
				    cases[i].text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
