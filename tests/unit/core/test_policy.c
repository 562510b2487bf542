// SPDX-License-Identifier: GPL-2.0
/* test_policy.c - the seed's policy arithmetic (src/core/policy.c). */
#include "unit.h"
#include "core/policy.h"

static void test_ratio_to_pages(void **state)
{
	(void)state;
	assert_true(upcc_ratio_to_pages(6170892, 1) == 61708);
	assert_true(upcc_ratio_to_pages(99, 1) == 0);
	assert_true(upcc_ratio_to_pages(100, 1) == 1);
	assert_true(upcc_ratio_to_pages(1000, 250) == 1000);	/* clamped to 100% */
	assert_true(upcc_ratio_to_pages(UINT64_MAX, 100) == UINT64_MAX);
	assert_true(upcc_ratio_to_pages(UINT64_MAX, 1) == UINT64_MAX / 100);
}

static void test_unmapped(void **state)
{
	(void)state;
	assert_true(upcc_unmapped_file_pages(1000, 200) == 800);
	assert_true(upcc_unmapped_file_pages(200, 1000) == 0);	/* clamped */
	assert_true(upcc_unmapped_file_pages(0, 0) == 0);
}

static void test_default(void **state)
{
	struct upcc_policy policy = upcc_policy_default(1000000);
	struct upcc_policy huge = upcc_policy_default(UINT64_MAX);

	(void)state;
	assert_true(policy.target_pages == 10000);
	assert_true(policy.trigger_pages == 160000);
	assert_int_equal(policy.step_shift, 3);
	assert_true(huge.trigger_pages == (UINT64_MAX / 100) * 16);	/* no overflow */
}

static void test_wake_and_step(void **state)
{
	struct upcc_policy policy = upcc_policy_default(1000000);

	(void)state;
	assert_false(upcc_should_wake(&policy, 160000));
	assert_true(upcc_should_wake(&policy, 160001));
	assert_true(upcc_reclaim_step(&policy, 10000) == 0);
	assert_true(upcc_reclaim_step(&policy, 90000) == 10000);
	policy.step_shift = 64;
	assert_true(upcc_reclaim_step(&policy, 90000) == 0);
}

static void test_decide_hysteresis(void **state)
{
	struct upcc_policy policy = upcc_policy_default(1000000);
	enum upcc_phase phase = UPCC_PHASE_IDLE;

	(void)state;
	/* Between target and trigger, an idle scope stays idle. */
	assert_true(upcc_decide(&policy, &phase, 100000) == 0);
	assert_int_equal(phase, UPCC_PHASE_IDLE);
	/* Above the trigger it wakes and asks for an eighth of the excess. */
	assert_true(upcc_decide(&policy, &phase, 170000) == 20000);
	assert_int_equal(phase, UPCC_PHASE_RECLAIMING);
	/* Once woken it keeps going below the trigger... */
	assert_true(upcc_decide(&policy, &phase, 100000) == 11250);
	/* ...asks for one page for a tiny excess... */
	assert_true(upcc_decide(&policy, &phase, 10003) == 1);
	/* ...and goes idle at the target. */
	assert_true(upcc_decide(&policy, &phase, 10000) == 0);
	assert_int_equal(phase, UPCC_PHASE_IDLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ratio_to_pages),
		cmocka_unit_test(test_unmapped),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_wake_and_step),
		cmocka_unit_test(test_decide_hysteresis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
