// SPDX-License-Identifier: GPL-2.0
/* test_wset.c - the effective target (src/core/wset.c): raised only for a
 * refaulting working set bigger than the target, at most target + that
 * set, decaying back to the target within 30 s once it is not in use.
 */
#include "unit.h"
#include "core/wset.h"

#define SEC	(1000ull * 1000)

/* A set that fits in the target leaves it alone: W1 gives back as before. */
static void test_wset_fits(void **state)
{
	struct upcc_wset w = { 0 };

	(void)state;
	assert_true(upcc_wset_update(&w, 1000, 0, false, 1 * SEC) == 1000);
	assert_true(upcc_wset_update(&w, 1000, 600, true, 2 * SEC) == 1000);
	assert_string_equal(upcc_wset_reason(&w), "target");
}

static void test_wset_raise_and_decay(void **state)
{
	struct upcc_wset w = { 0 };
	uint64_t eff;

	(void)state;
	eff = upcc_wset_update(&w, 1000, 3000, true, 100 * SEC);
	assert_true(eff == 3000);		/* holds the set */
	assert_true(eff <= 1000 + 3000);	/* at most target + refaulting set */
	assert_string_equal(upcc_wset_reason(&w), "working set in use");
	/* No longer in use: linear decay from the last use, gone in 30 s. */
	eff = upcc_wset_update(&w, 1000, 3000, false, 110 * SEC);
	assert_true(eff > 1000 && eff < 3000);
	assert_true(eff >= 2333 && eff <= 2334);
	assert_string_equal(upcc_wset_reason(&w), "working set decaying");
	eff = upcc_wset_update(&w, 1000, 0, false, 129 * SEC);
	assert_true(eff > 1000);
	eff = upcc_wset_update(&w, 1000, 0, false, 130 * SEC);
	assert_true(eff == 1000);
	assert_string_equal(upcc_wset_reason(&w), "target");
	/* In use again: raised again at once. */
	assert_true(upcc_wset_update(&w, 1000, 1500, true, 131 * SEC) == 1500);
}

static void test_wset_saturates(void **state)
{
	struct upcc_wset w = { 0 };

	(void)state;
	assert_true(upcc_wset_update(&w, UINT64_MAX - 1, UINT64_MAX, true, SEC) == UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wset_fits),
		cmocka_unit_test(test_wset_raise_and_decay),
		cmocka_unit_test(test_wset_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
