// SPDX-License-Identifier: GPL-2.0
/* test_wset.c - the working set (src/core/wset.c), with a fake clock and a
 * fake inflow: a refault is the working set only if its refault distance
 * fits in what the scope may hold; what is held is capped, the shortest
 * distances first; the effective target is raised only for a refaulting
 * set bigger than the target, at most by the cap, decaying back to the
 * target within 30 s once it is not in use.
 */
#include "unit.h"
#include "core/wset.h"

#define SEC	(1000ull * 1000)
#define NO_CAP	UINT64_MAX
#define MIB	256ull		/* 4 KiB pages */

/* The scope of these tests: a 32 MiB target, the default cap (4 x). */
#define TARGET	(32 * MIB)
#define CAP	(UPCC_WSET_DEFAULT_CAP_RATIO * TARGET)
#define HOLD	(TARGET + CAP)

/* A scope as the inventory sees it: its clock and its inflow, advanced by
 * refreshes of @refresh_usec at @rate pages a second.
 */
struct scope {
	struct upcc_wset_now now;
	uint64_t rate;
	uint64_t refresh_usec;
};

static void refresh(struct scope *s)
{
	s->now.usec += s->refresh_usec;
	s->now.inflow_pages += s->rate * s->refresh_usec / SEC;
}

/* Refreshes until @until_usec, the drop @d not back: still watched, or
 * given up (WATCHING is returned while it is).
 */
static enum upcc_wset_verdict not_back_until(struct scope *s, struct upcc_wset_drop *d,
					     uint64_t dropped, uint64_t until_usec)
{
	enum upcc_wset_verdict v = UPCC_WSET_WATCHING;
	uint64_t distance;

	while (s->now.usec + s->refresh_usec <= until_usec && v == UPCC_WSET_WATCHING) {
		refresh(s);
		v = upcc_wset_judge(d, dropped, 0, &s->now, &distance);
	}
	return v;
}

/* A set that fits in the target leaves it alone: W1 gives back as before. */
static void test_wset_fits(void **state)
{
	struct upcc_wset w = { 0 };

	(void)state;
	assert_true(upcc_wset_update(&w, 1000, NO_CAP, 0, false, 1 * SEC) == 1000);
	assert_true(upcc_wset_update(&w, 1000, NO_CAP, 600, true, 2 * SEC) == 1000);
	assert_string_equal(upcc_wset_reason(&w), "target");
}

static void test_wset_raise_and_decay(void **state)
{
	struct upcc_wset w = { 0 };
	uint64_t eff;

	(void)state;
	eff = upcc_wset_update(&w, 1000, NO_CAP, 3000, true, 100 * SEC);
	assert_true(eff == 3000);		/* holds the set */
	assert_true(eff <= 1000 + 3000);	/* at most target + refaulting set */
	assert_string_equal(upcc_wset_reason(&w), "working set in use");
	/* No longer in use: linear decay from the last use, gone in 30 s. */
	eff = upcc_wset_update(&w, 1000, NO_CAP, 3000, false, 110 * SEC);
	assert_true(eff > 1000 && eff < 3000);
	assert_true(eff >= 2333 && eff <= 2334);
	assert_string_equal(upcc_wset_reason(&w), "working set decaying");
	eff = upcc_wset_update(&w, 1000, NO_CAP, 0, false, 129 * SEC);
	assert_true(eff > 1000);
	eff = upcc_wset_update(&w, 1000, NO_CAP, 0, false, 130 * SEC);
	assert_true(eff == 1000);
	assert_string_equal(upcc_wset_reason(&w), "target");
	/* In use again: raised again at once. */
	assert_true(upcc_wset_update(&w, 1000, NO_CAP, 1500, true, 131 * SEC) == 1500);
}

static void test_wset_saturates(void **state)
{
	struct upcc_wset w = { 0 };

	(void)state;
	assert_true(upcc_wset_update(&w, UINT64_MAX - 1, NO_CAP, UINT64_MAX, true, SEC) == UINT64_MAX);
}

/*
 * A backup-like stream loops over 1 GiB at 64 MiB/s (16 s a loop) beside
 * the scope's other reads (8 MiB/s).  One of its 2 MiB ranges is dropped
 * late, 6 s before the stream comes back to it: back within 10 s, which
 * made it "hot" by the clock; but 432 MiB came in since, more than the
 * scope may hold (160 MiB).  Had the scope held it, it would have gone
 * first: not the working set, and never held.
 */
static void test_wset_looping_stream_not_kept(void **state)
{
	struct scope s = { .now = { .usec = 100 * SEC, .inflow_pages = 5000 * MIB,
				    .hold_pages = HOLD },
			   .rate = 72 * MIB, .refresh_usec = SEC / 4 };
	struct upcc_wset_drop d;
	uint64_t distance = 0, dropped = 2 * MIB;

	(void)state;
	upcc_wset_drop_start(&d, &s.now);
	/* Given up as soon as more than the hold came in: nothing to wait for. */
	assert_int_equal(not_back_until(&s, &d, dropped, s.now.usec + 6 * SEC),
			 UPCC_WSET_NOT_WORKING_SET);
	assert_true(s.now.usec - d.usec < 3 * SEC);
	assert_true(s.now.inflow_pages - d.inflow_at_drop > HOLD);
	/* And had the watch gone on (a look at the return), still not. */
	upcc_wset_drop_start(&d, &(struct upcc_wset_now){ .usec = 100 * SEC,
							  .inflow_pages = 5000 * MIB,
							  .hold_pages = HOLD });
	d.inflow_not_back = d.inflow_at_drop + 6 * 72 * MIB - 18 * MIB;
	s.now.usec = 106 * SEC;
	s.now.inflow_pages = d.inflow_at_drop + 6 * 72 * MIB;
	assert_int_equal(upcc_wset_judge(&d, dropped, dropped, &s.now, &distance),
			 UPCC_WSET_NOT_WORKING_SET);
}

/*
 * A report re-reads its 128 MiB every 20 s in a quiet scope (2 MiB/s of
 * other reads).  Its pages come back after 40 MiB of inflow: well within
 * what the scope may hold, however long that took.  It is the working set,
 * all of it held (128 MiB is within the 160 MiB hold), and the effective
 * target rises to hold it: target + (128 - 32) MiB.
 */
static void test_wset_reread_set_kept(void **state)
{
	struct scope s = { .now = { .usec = 100 * SEC, .inflow_pages = 7000 * MIB,
				    .hold_pages = HOLD },
			   .rate = 2 * MIB, .refresh_usec = SEC };
	struct upcc_wset_item items[64];
	struct upcc_wset_drop d[64];
	struct upcc_wset wset = { 0 };
	uint64_t held, distance = 0, dropped = 2 * MIB;

	(void)state;
	for (int i = 0; i < 64; i++)
		upcc_wset_drop_start(&d[i], &s.now);
	assert_int_equal(not_back_until(&s, &d[0], dropped, 119 * SEC), UPCC_WSET_WATCHING);
	for (int i = 0; i < 64; i++) {
		d[i].inflow_not_back = d[0].inflow_not_back;
		d[i].usec = d[0].usec;
		d[i].look_usec = d[0].look_usec;
	}
	refresh(&s);		/* 20 s on: the report reads it all again */
	s.now.inflow_pages += 128 * MIB;
	for (int i = 0; i < 64; i++) {
		assert_int_equal(upcc_wset_judge(&d[i], dropped, dropped, &s.now, &distance),
				 UPCC_WSET_WORKING_SET);
		assert_true(distance <= 40 * MIB);
		items[i] = (struct upcc_wset_item){ .distance = distance, .pages = dropped };
	}
	held = upcc_wset_keep(items, 64, HOLD);
	assert_true(held == 128 * MIB);
	for (int i = 0; i < 64; i++)
		assert_true(items[i].keep);
	assert_true(upcc_wset_update(&wset, TARGET, CAP, held, true, s.now.usec) ==
		    TARGET + 96 * MIB);
	assert_string_equal(upcc_wset_reason(&wset), "working set in use");
}

/*
 * Three sets refault at once: 100 MiB at a short distance, 100 MiB at a
 * middling one, 300 MiB at a long one (all within the hold).  What is held
 * is capped: the shortest distances first, while they fit in the hold; the
 * rest is not protected.  The raise is at most the cap, and says so.
 */
static void test_wset_cap_holds(void **state)
{
	struct upcc_wset_item items[250];
	struct upcc_wset wset = { 0 };
	uint64_t held, eff;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 50; i++)	/* listed longest first: the order is ours */
		items[n++] = (struct upcc_wset_item){ .distance = 150 * MIB, .pages = 6 * MIB };
	for (int i = 0; i < 100; i++)
		items[n++] = (struct upcc_wset_item){ .distance = 10 * MIB, .pages = MIB };
	for (int i = 0; i < 100; i++)
		items[n++] = (struct upcc_wset_item){ .distance = 60 * MIB + (uint64_t)i,
						      .pages = MIB };
	held = upcc_wset_keep(items, n, HOLD);
	assert_true(held <= HOLD);
	assert_true(held == 160 * MIB);
	for (size_t i = 0; i < n; i++) {
		if (items[i].distance == 10 * MIB)
			assert_true(items[i].keep);
		if (items[i].distance == 150 * MIB)
			assert_false(items[i].keep);
		if (items[i].distance >= 60 * MIB && items[i].distance < 61 * MIB)
			assert_true(items[i].keep == (items[i].distance < 60 * MIB + 60));
	}
	/* A set of 500 MiB in use raises the target by the cap, no more. */
	eff = upcc_wset_update(&wset, TARGET, CAP, 500 * MIB, true, 10 * SEC);
	assert_true(eff == TARGET + CAP);
	assert_string_equal(upcc_wset_reason(&wset), "working set in use, capped");
	/* A cap of 0 (working_set_cap = 0x): the target is the bound. */
	assert_true(upcc_wset_update(&wset, TARGET, 0, 500 * MIB, true, 11 * SEC) == TARGET);
}

/* A refault one refresh after the drop is at distance 0 (the lower bound):
 * a set re-read between two refreshes is not charged the refresh's inflow.
 */
static void test_wset_distance_lower_bound(void **state)
{
	struct upcc_wset_now now = { .usec = SEC, .inflow_pages = 1000, .hold_pages = 100 };
	struct upcc_wset_drop d;
	uint64_t distance = 7;

	(void)state;
	upcc_wset_drop_start(&d, &now);
	now.usec += SEC;
	now.inflow_pages += 5000;	/* more than the hold, within one refresh */
	assert_int_equal(upcc_wset_judge(&d, 40, 10, &now, &distance), UPCC_WSET_WORKING_SET);
	assert_true(distance == 0);
	/* The same return seen only a minute after the drop (a paced walk):
	 * more than the hold came in, and no look says whether before or
	 * after the pages did: not proven, not kept.
	 */
	upcc_wset_drop_start(&d, &now);
	now.usec += 60 * SEC;
	now.inflow_pages += 5000;
	assert_int_equal(upcc_wset_judge(&d, 40, 10, &now, &distance),
			 UPCC_WSET_NOT_WORKING_SET);
	/* Not back at that look: given up, more than the hold came in. */
	upcc_wset_drop_start(&d, &now);
	now.inflow_pages += 101;
	assert_int_equal(upcc_wset_judge(&d, 40, 9, &now, &distance),
			 UPCC_WSET_NOT_WORKING_SET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wset_fits),
		cmocka_unit_test(test_wset_raise_and_decay),
		cmocka_unit_test(test_wset_saturates),
		cmocka_unit_test(test_wset_looping_stream_not_kept),
		cmocka_unit_test(test_wset_reread_set_kept),
		cmocka_unit_test(test_wset_cap_holds),
		cmocka_unit_test(test_wset_distance_lower_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
