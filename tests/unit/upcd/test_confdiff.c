// SPDX-License-Identifier: GPL-2.0
/*
 * test_confdiff.c - what a reload says it changed (issue 31 item 7): the
 * settings by upcd.conf's names and values as the file writes them,
 * scopes added and removed, nothing for an unchanged file; and the
 * STATUS= text (sdstatus.h).
 */
#include <string.h>

#include "unit.h"
#include "upcd/confdiff.h"
#include "upcd/sdstatus.h"

static void parse(const char *text, struct upcc_config *config)
{
	char error[256] = "";

	upcc_config_init(config);
	if (upcc_config_parse(text, "test.conf", config, error, sizeof(error)))
		fail_msg("%s", error);
}

static void test_nothing_changed(void **state)
{
	struct upcc_config a, b;
	char buf[512];

	(void)state;
	parse("interval = 1s\n[scope data]\ntype = path\npath = /srv\ntarget = 64Mi\n", &a);
	parse("interval = 1000ms\n[scope data]\ntype = path\npath = /srv\ntarget = 64M\n", &b);
	assert_int_equal(upcd_config_diff(&a, &b, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "nothing changed");
	upcc_config_free(&a);
	upcc_config_free(&b);
}

static void test_settings_and_scopes(void **state)
{
	struct upcc_config a, b;
	char buf[512];

	(void)state;
	parse("interval = 1s\ndry_run = yes\n"
	      "[scope data]\ntype = path\npath = /srv\ntarget = 1.5%\ntrigger = 16x\n"
	      "[scope old]\ntype = system\n", &a);
	parse("interval = 2m\n"
	      "[scope data]\ntype = path\npath = /srv\ntarget = 48Mi\ntrigger = 128M\n"
	      "exclude = /srv/pg_wal, /srv/big.img\n"
	      "[scope web]\ntype = node\nnode = 0\n", &b);
	assert_int_equal(upcd_config_diff(&a, &b, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "interval 1s -> 2m, dry_run yes -> no, scope web added, "
			    "scope old removed, scope data: target 1.5% -> 48Mi, "
			    "scope data: trigger 16x -> 128Mi, "
			    "scope data: exclude \"\" -> /srv/pg_wal, /srv/big.img");
	upcc_config_free(&a);
	upcc_config_free(&b);
}

/* The settings the working set and the damon backend added are named. */
static void test_wset_cap_and_damon_min_age(void **state)
{
	struct upcc_config a, b;
	char buf[512];

	(void)state;
	parse("damon_min_age = 5s\n[scope data]\ntype = path\npath = /srv\n", &a);
	parse("damon_min_age = 2s\n[scope data]\ntype = path\npath = /srv\n"
	      "working_set_cap = 2x\n", &b);
	assert_int_equal(upcd_config_diff(&a, &b, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "damon_min_age 5s -> 2s, scope data: working_set_cap 4x -> 2x");
	upcc_config_free(&a);
	upcc_config_free(&b);
}

/* A list longer than the buffer is cut, and says so. */
static void test_cut(void **state)
{
	struct upcc_config a, b;
	char buf[40];

	(void)state;
	parse("interval = 1s\n", &a);
	parse("interval = 2s\ntick = 1s\ndry_run = yes\ncompact = no\n", &b);
	assert_int_equal(upcd_config_diff(&a, &b, buf, sizeof(buf)), 4);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_string_equal(buf + sizeof(buf) - 4, "...");
	upcc_config_free(&a);
	upcc_config_free(&b);
}

static void test_status_text(void **state)
{
	struct upcc_scope_run runs[5];
	char buf[512];

	(void)state;
	memset(runs, 0, sizeof(runs));
	for (int i = 0; i < 5; i++)
		snprintf(runs[i].scope.name, sizeof(runs[i].scope.name), "s%d", i);
	runs[0].state.measured_unix_usec = 1;
	runs[0].state.last.unmapped_pages = 10496;		/* 41Mi */
	runs[0].state.policy.target_pages = 16384;		/* 64Mi */
	runs[0].state.counters.reclaimed_pages_total = 314573;	/* 1.2Gi */
	runs[0].state.last_round_usec = 7000000;
	runs[1].state.measured_unix_usec = 1;
	runs[1].state.policy.target_pages = 256;
	runs[1].state.effective_target_pages = 512;		/* the one it aims at */
	runs[2].state.sample_error = -13;
	upcd_status_text(buf, sizeof(buf), runs, 5, 4096, false, 10000000);
	assert_string_equal(buf, "s0 41Mi/64Mi, reclaimed 1.2Gi; s1 0B/2.0Mi, reclaimed 0B; "
			    "s2 cannot measure, reclaimed 0B; +2 more; last round 3s ago");
	upcd_status_text(buf, sizeof(buf), runs, 1, 4096, true, 7000000 + 300000000);
	assert_string_equal(buf, "dry run: s0 41Mi/64Mi, reclaimed 1.2Gi; last round 5 min ago");
	runs[0].state.last_round_usec = 0;
	upcd_status_text(buf, sizeof(buf), runs, 1, 4096, false, 1);
	assert_string_equal(buf, "s0 41Mi/64Mi, reclaimed 1.2Gi; no round yet");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_changed),
		cmocka_unit_test(test_settings_and_scopes),
		cmocka_unit_test(test_wset_cap_and_damon_min_age),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_status_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
