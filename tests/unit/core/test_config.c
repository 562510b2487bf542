// SPDX-License-Identifier: GPL-2.0
/* test_config.c - the config file parser, every error path, and option values. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "core/config.h"

/* Parse @text; on error, check the message names test.conf:@line and says @what. */
static void expect_error(const char *text, unsigned int line, const char *what)
{
	struct upcc_config config;
	char error[512] = "", prefix[64];

	upcc_config_init(&config);
	assert_int_equal(upcc_config_parse(text, "test.conf", &config, error, sizeof(error)),
			 -EINVAL);
	snprintf(prefix, sizeof(prefix), "test.conf:%u: ", line);
	if (strncmp(error, prefix, strlen(prefix)) != 0 || !strstr(error, what))
		fail_msg("for:\n%s\nexpected \"%s...%s\", got \"%s\"", text, prefix, what, error);
	upcc_config_free(&config);
}

static void parse_ok(const char *text, struct upcc_config *config)
{
	char error[512] = "";
	int err;

	upcc_config_init(config);
	err = upcc_config_parse(text, "test.conf", config, error, sizeof(error));
	if (err)
		fail_msg("unexpected error: %s", error);
}

static void test_empty_gives_default_scope(void **state)
{
	struct upcc_config config;
	const struct upcc_scope_config *sc;

	(void)state;
	parse_ok("# nothing but a comment\n\n; another\n", &config);
	assert_int_equal(config.nr_scopes, 1);
	assert_string_equal(config.scopes[0].scope.name, "system");
	assert_int_equal(config.scopes[0].scope.kind, UPCC_SCOPE_SYSTEM);
	sc = &config.scopes[0].scope.config;
	assert_int_equal(sc->target.unit, UPCC_AMOUNT_PERCENT);
	assert_true(sc->target.value == 100);
	assert_true(sc->trigger_is_ratio);
	assert_int_equal(sc->trigger_ratio, 16);
	assert_true(sc->wset_cap_is_ratio);
	assert_int_equal(sc->wset_cap_ratio, 4);
	assert_int_equal(sc->step_shift, 3);
	assert_true(sc->max_step.value == 0);
	assert_string_equal(config.backend_name, "auto");
	assert_true(config.interval_ms == 1000);
	assert_true(config.tick_ms == 100);	/* the sampling tick's default */
	assert_true(config.damon_min_age_ms == 5000);	/* docs/man/upcd.conf.5 */
	assert_false(config.allow_dropcache);
	assert_true(config.compact);	/* today's: still only under a reporting balloon */
	assert_false(config.dry_run);	/* today's: the daemon acts */
	assert_string_equal(config.state_path, UPCC_DEFAULT_STATE_PATH);
	upcc_config_free(&config);
}

static void test_full_file(void **state)
{
	static const char text[] =
		"interval = 500ms\n"
		"  backend = fadvise   # trailing comments are not allowed, so this is a value?\n";
	static const char full[] =
		"# upcd.conf\n"
		"interval = 2s\n"
		"tick = 250ms\n"
		"metrics = /var/lib/node_exporter/upcc.prom\n"
		"\n"
		"[scope all]\n"
		"type = system\n"
		"target = 64M\n"
		"trigger = 512M\n"
		"\n"
		"[ scope node1 ]\n"
		"type=node\n"
		"node=1\n"
		"target=2.5%\n"
		"trigger=8x\n"
		"step_shift=2\n"
		"max_step=1000\n"
		"working_set_cap=256M\n"
		"\n"
		"[scope web]\n"
		"type = cgroup\n"
		"path = /sys/fs/cgroup/web.slice\n"
		"backend = memcg\n"
		"\n"
		"[scope srv]\n"
		"type = path\n"
		"path = /srv\n"
		"cross_mounts = yes\n"
		"backend = dropcache\n"
		"\n"
		"[daemon]\n"
		"allow_dropcache = yes\n"
		"state = /tmp/upcc-state.json\n";
	struct upcc_config config;
	const struct upcc_scope *scope;

	(void)state;
	/* "#" after a value is part of it: backend names are checked, so it errs. */
	expect_error(text, 2, "backend \"fadvise   # trailing");

	parse_ok(full, &config);
	assert_true(config.interval_ms == 2000);
	assert_true(config.tick_ms == 250);
	assert_string_equal(config.metrics_path, "/var/lib/node_exporter/upcc.prom");
	assert_string_equal(config.state_path, "/tmp/upcc-state.json");
	assert_true(config.allow_dropcache);
	assert_int_equal(config.nr_scopes, 4);

	scope = &config.scopes[0].scope;
	assert_string_equal(scope->name, "all");
	assert_int_equal(scope->config.target.unit, UPCC_AMOUNT_BYTES);
	assert_true(scope->config.target.value == 64ull << 20);
	assert_false(scope->config.trigger_is_ratio);
	assert_true(scope->config.trigger.value == 512ull << 20);

	scope = &config.scopes[1].scope;
	assert_int_equal(scope->kind, UPCC_SCOPE_NODE);
	assert_int_equal(scope->node_id, 1);
	assert_true(scope->config.target.value == 250);
	assert_int_equal(scope->config.trigger_ratio, 8);
	assert_int_equal(scope->config.step_shift, 2);
	assert_true(scope->config.max_step.value == 1000);
	assert_false(scope->config.wset_cap_is_ratio);
	assert_true(scope->config.wset_cap.value == 256ull << 20);

	scope = &config.scopes[2].scope;
	assert_int_equal(scope->kind, UPCC_SCOPE_CGROUP);
	assert_string_equal(scope->path, "/sys/fs/cgroup/web.slice");
	assert_string_equal(config.scopes[2].backend_name, "memcg");

	scope = &config.scopes[3].scope;
	assert_int_equal(scope->kind, UPCC_SCOPE_PATH);
	assert_true(scope->cross_mounts);
	assert_string_equal(config.scopes[3].backend_name, "dropcache");
	upcc_config_free(&config);
}

static void test_section_errors(void **state)
{
	(void)state;
	expect_error("[scope a\ntype = system\n", 1, "malformed section header");
	expect_error("[scope a] junk\n", 1, "malformed section header");
	expect_error("\n[global]\n", 2, "unknown section [global]");
	expect_error("[scopes a]\n", 1, "unknown section");
	expect_error("[scope]\n", 1, "unknown section");
	expect_error("[scope bad name]\n", 1, "bad scope name");
	expect_error("[scope a\"b]\n", 1, "bad scope name");
	expect_error("[scope aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n", 1,
		     "bad scope name");
	expect_error("[scope a]\ntype = system\n[scope a]\ntype = system\n", 3,
		     "scope \"a\" defined twice");
}

/* damon_min_age: 0 (cold at once) or an interval; nothing else. */
static void test_damon_min_age(void **state)
{
	struct upcc_config config;

	(void)state;
	parse_ok("damon_min_age = 0\n", &config);
	assert_true(config.damon_min_age_ms == 0);
	upcc_config_free(&config);
	parse_ok("damon_min_age = 2m\n", &config);
	assert_true(config.damon_min_age_ms == 120000);
	upcc_config_free(&config);
	expect_error("interval = 1s\ndamon_min_age = soon\n", 2, "damon_min_age \"soon\"");
	expect_error("damon_min_age = -1\n", 1, "damon_min_age \"-1\"");
	expect_error("damon_min_age = 5s\ndamon_min_age = 6s\n", 2, "damon_min_age");
}

static void test_too_many_scopes(void **state)
{
	size_t size = (UPCC_MAX_SCOPES + 1) * 40 + 1, used = 0;
	char *text = malloc(size);

	(void)state;
	assert_non_null(text);
	for (int i = 0; i <= UPCC_MAX_SCOPES; i++)
		used += (size_t)snprintf(text + used, size - used, "[scope s%d]\ntype = system\n", i);
	expect_error(text, 2 * UPCC_MAX_SCOPES + 1, "too many scopes");
	free(text);
}

static void test_scope_consistency_errors(void **state)
{
	(void)state;
	expect_error("[scope a]\ntarget = 1%\n", 1, "missing \"type =\"");
	expect_error("[scope a]\ntype = node\n", 1, "type node needs \"node = N\"");
	expect_error("[scope a]\ntype = system\nnode = 0\n", 1, "\"node\" only applies to type node");
	expect_error("[scope a]\ntype = cgroup\n", 1, "type cgroup needs \"path = /DIR\"");
	expect_error("[scope a]\ntype = path\n", 1, "type path needs \"path = /DIR\"");
	expect_error("[scope a]\ntype = system\npath = /x\n", 1,
		     "\"path\" only applies to types cgroup and path");
	expect_error("[scope a]\ntype = node\nnode = 0\npath = /x\n", 1,
		     "\"path\" only applies");
	expect_error("[scope a]\ntype = cgroup\npath = /x\ncross_mounts = yes\n", 1,
		     "\"cross_mounts\" only applies to type path");
	/* The first scope's problem is found when the next section starts. */
	expect_error("[scope a]\n\n[scope b]\ntype = system\n", 1, "missing \"type =\"");
	expect_error("[scope a]\n[daemon]\n", 1, "missing \"type =\"");
}

static void test_line_errors(void **state)
{
	char *long_line = malloc(9000);

	(void)state;
	expect_error("interval 1s\n", 1, "expected \"key = value\"");
	expect_error("\n\n = 1s\n", 3, "missing key before '='");
	expect_error("interval =\n", 1, "interval: missing value");
	expect_error("interval =   \t\n", 1, "missing value");
	expect_error("target = 1%\n", 1, "unknown daemon key \"target\"");
	expect_error("interval = 1s\ninterval = 2s\n", 2, "interval given twice");
	expect_error("tick = 5ms\n", 1, "tick \"5ms\": expected 10ms..24h");
	expect_error("[scope a]\ntype = system\ncolour = blue\n", 3, "unknown key \"colour\" in [scope a]");
	expect_error("[scope a]\ntype = system\ntype = node\n", 3, "type given twice in [scope a]");
	assert_non_null(long_line);
	memset(long_line, 'x', 8999);
	long_line[8998] = '\0';
	expect_error(long_line, 1, "line longer than");
	free(long_line);
}

static void test_scope_value_errors(void **state)
{
	(void)state;
	expect_error("[scope a]\ntype = numa\n", 2, "type \"numa\": expected system");
	expect_error("[scope a]\ntype = cgroup\npath = sys/fs/cgroup\n", 3,
		     "path \"sys/fs/cgroup\": expected an absolute path");
	expect_error("[scope a]\ntype = node\nnode = -1\n", 3, "node \"-1\": expected a node number");
	expect_error("[scope a]\ntype = node\nnode = 1x\n", 3, "node \"1x\"");
	expect_error("[scope a]\ntype = node\nnode = 70000\n", 3, "node \"70000\"");
	expect_error("[scope a]\ntype = system\ntarget = 1 %\n", 3, "target \"1 %\"");
	expect_error("[scope a]\ntype = system\ntarget = 200%\n", 3, "target \"200%\"");
	expect_error("[scope a]\ntype = system\ntrigger = 0x\n", 3, "trigger \"0x\"");
	expect_error("[scope a]\ntype = system\ntrigger = x\n", 3, "trigger \"x\"");
	expect_error("[scope a]\ntype = system\ntrigger = 16y\n", 3, "trigger \"16y\"");
	expect_error("[scope a]\ntype = system\ntrigger = 1.5x\n", 3, "trigger \"1.5x\"");
	expect_error("[scope a]\ntype = system\nstep_shift = 64\n", 3, "step_shift \"64\": expected 0..63");
	expect_error("[scope a]\ntype = system\nstep_shift = three\n", 3, "step_shift \"three\"");
	expect_error("[scope a]\ntype = system\nstep_shift = 3k\n", 3, "step_shift \"3k\"");
	expect_error("[scope a]\ntype = system\nmax_step = lots\n", 3, "max_step \"lots\"");
	expect_error("[scope a]\ntype = system\nworking_set_cap = x\n", 3,
		     "working_set_cap \"x\"");
	expect_error("[scope a]\ntype = system\nworking_set_cap = -1x\n", 3,
		     "working_set_cap \"-1x\"");
	expect_error("[scope a]\ntype = system\nbackend = swap\n", 3, "backend \"swap\": expected auto");
	expect_error("[scope a]\ntype = path\npath = /x\ncross_mounts = maybe\n", 4,
		     "cross_mounts \"maybe\": expected yes or no");
}

static void test_daemon_value_errors(void **state)
{
	(void)state;
	expect_error("interval = soon\n", 1, "interval \"soon\": expected 10ms..24h");
	expect_error("interval = 5ms\n", 1, "interval \"5ms\"");
	expect_error("interval = 25h\n", 1, "interval \"25h\"");
	expect_error("interval = 0\n", 1, "interval \"0\"");
	expect_error("backend = ksm\n", 1, "backend \"ksm\"");
	expect_error("allow_dropcache = sure\n", 1, "allow_dropcache \"sure\": expected yes or no");
	expect_error("metrics = upcc.prom\n", 1, "metrics \"upcc.prom\": expected an absolute path");
	expect_error("state = run/state.json\n", 1, "state \"run/state.json\"");
}

/* compact = yes|no: daemon-wide, once, a boolean; not a scope's. */
static void test_compact_key(void **state)
{
	struct upcc_config config;

	(void)state;
	parse_ok("compact = no\n", &config);
	assert_false(config.compact);
	upcc_config_free(&config);
	parse_ok("[daemon]\ncompact = yes\n[scope a]\ntype = system\n", &config);
	assert_true(config.compact);
	upcc_config_free(&config);
	expect_error("compact = later\n", 1, "compact \"later\": expected yes or no");
	expect_error("compact = no\ncompact = yes\n", 2, "compact given twice");
	expect_error("[scope a]\ntype = system\ncompact = no\n", 3,
		     "unknown key \"compact\" in [scope a]");
}

/* dry_run = yes|no: daemon-wide, once, a boolean; not a scope's. */
static void test_dry_run_key(void **state)
{
	struct upcc_config config;

	(void)state;
	parse_ok("dry_run = yes\n", &config);
	assert_true(config.dry_run);
	upcc_config_free(&config);
	parse_ok("[daemon]\ndry_run = off\n[scope a]\ntype = system\n", &config);
	assert_false(config.dry_run);
	upcc_config_free(&config);
	expect_error("dry_run = observe\n", 1, "dry_run \"observe\": expected yes or no");
	expect_error("dry_run = yes\ndry_run = no\n", 2, "dry_run given twice");
	expect_error("[scope a]\ntype = system\ndry_run = yes\n", 3,
		     "unknown key \"dry_run\" in [scope a]");
}

/*
 * exclude = PATH[, PATH...]: a path scope's, each inside its path (as
 * written, however spelled, "path =" before or after it), kept relative.
 */
static void test_exclude_key(void **state)
{
	struct upcc_config config;
	const char *ex;

	(void)state;
	parse_ok("[scope d]\ntype = path\nexclude = /srv/data/pg_wal , /srv//data/./idx/\n"
		 "path = /srv/data/\n", &config);
	ex = config.scopes[0].scope.exclude;
	assert_string_equal(ex, "pg_wal");
	ex += strlen(ex) + 1;
	assert_string_equal(ex, "idx");
	ex += strlen(ex) + 1;
	assert_string_equal(ex, "");
	assert_true(upcc_scope_excluded(config.scopes[0].scope.exclude, "pg_wal"));
	assert_true(upcc_scope_excluded(config.scopes[0].scope.exclude, "idx/a/b"));
	assert_false(upcc_scope_excluded(config.scopes[0].scope.exclude, "pg_wal2"));
	assert_false(upcc_scope_excluded(config.scopes[0].scope.exclude, "data"));
	upcc_config_free(&config);
	/* No exclude: an empty list, nothing excluded. */
	parse_ok("[scope d]\ntype = path\npath = /srv\n", &config);
	assert_false(upcc_scope_excluded(config.scopes[0].scope.exclude, "a"));
	upcc_config_free(&config);

	expect_error("[scope d]\ntype = path\npath = /srv/data\nexclude = /srv/other\n", 4,
		     "exclude \"/srv/other\": not inside [scope d]'s path \"/srv/data\"");
	expect_error("[scope d]\ntype = path\npath = /srv/data\nexclude = /srv/database\n", 4,
		     "not inside");
	expect_error("[scope d]\ntype = path\nexclude = /srv/data/a, /srv/data/../etc\n"
		     "path = /srv/data\n", 3, "exclude \"/srv/data/../etc\": not inside");
	expect_error("[scope d]\ntype = path\npath = /srv/data\nexclude = /srv/data\n", 4,
		     "not inside");
	expect_error("[scope d]\ntype = path\npath = /srv/data\nexclude = pg_wal\n", 4,
		     "exclude \"pg_wal\": expected an absolute path");
	expect_error("[scope d]\ntype = path\npath = /srv/data\nexclude = ,\n", 4,
		     "exclude: expected PATH[, PATH...]");
	expect_error("[scope s]\ntype = system\nexclude = /srv\n", 3,
		     "[scope s]: \"exclude\" only applies to type path");
	expect_error("exclude = /srv\n", 1, "unknown daemon key \"exclude\"");
}

static void test_dropcache_needs_consent(void **state)
{
	struct upcc_config config;

	(void)state;
	expect_error("backend = dropcache\n", 1, "needs \"allow_dropcache = yes\"");
	expect_error("[scope a]\ntype = system\nbackend = dropcache\n", 3,
		     "[scope a]: backend dropcache needs");
	expect_error("allow_dropcache = no\n[scope a]\ntype = system\nbackend = dropcache\n", 4,
		     "needs \"allow_dropcache = yes\"");
	parse_ok("backend = dropcache\nallow_dropcache = on\n", &config);
	assert_true(config.allow_dropcache);
	upcc_config_free(&config);
}

static void test_load(void **state)
{
	struct upcc_config config;
	char error[512];

	(void)state;
	upcc_config_init(&config);
	assert_int_equal(upcc_config_load(FIXTURE("configs/no-such.conf"), &config, error,
					  sizeof(error)), -ENOENT);
	assert_non_null(strstr(error, "no-such.conf: cannot read"));
	upcc_config_free(&config);

	upcc_config_init(&config);
	assert_int_equal(upcc_config_load(FIXTURE("configs/example.conf"), &config, error,
					  sizeof(error)), 0);
	assert_int_equal(config.nr_scopes, 2);
	upcc_config_free(&config);

	upcc_config_init(&config);
	assert_int_equal(upcc_config_load(FIXTURE("configs/bad-line7.conf"), &config, error,
					  sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "bad-line7.conf:7: "));
	upcc_config_free(&config);
}

/* Issue 32 (L4): a NUL byte is an error at its line, not "cannot read:
 * Invalid argument"; a binary file is one.
 */
static void test_nul_byte(void **state)
{
	static const char text[] = "interval = 1s\n\n[scope a\0]\ntype = system\n";
	struct upcc_config config;
	char error[512];

	(void)state;
	upcc_config_init(&config);
	assert_int_equal(upcc_config_load(FIXTURE("configs/nul-line3.conf"), &config, error,
					  sizeof(error)), -EINVAL);
	if (!strstr(error, "nul-line3.conf:3: NUL byte at column 15: not a text file"))
		fail_msg("got \"%s\"", error);
	upcc_config_free(&config);

	upcc_config_init(&config);
	assert_int_equal(upcc_config_load(FIXTURE("configs/binary.conf"), &config, error,
					  sizeof(error)), -EINVAL);
	if (!strstr(error, "binary.conf:1: NUL byte at column 8: not a text file"))
		fail_msg("got \"%s\"", error);
	upcc_config_free(&config);

	/* The bytes as given, not up to the first NUL. */
	upcc_config_init(&config);
	assert_int_equal(upcc_config_parse_text(text, sizeof(text) - 1, "test.conf", &config,
						error, sizeof(error), NULL, NULL), -EINVAL);
	assert_string_equal(error, "test.conf:3: NUL byte at column 9: not a text file");
	upcc_config_free(&config);
	/* No NUL needed after them: the parser stops at @len. */
	parse_ok("interval = 2s", &config);
	upcc_config_free(&config);
	upcc_config_init(&config);
	assert_int_equal(upcc_config_parse_text("interval = 2sXXXX", 13, "test.conf", &config,
						error, sizeof(error), NULL, NULL), 0);
	assert_true(config.interval_ms == 2000);
	upcc_config_free(&config);
}

static void test_scope_specs(void **state)
{
	static const char *const bad[] = {
		"", "system:x", "node", "node:", "node:a", "node:-1", "cgroup", "cgroup:rel",
		"path:", "path:x", "numa:0", "systemd",
	};
	struct upcc_config config;
	char error[256];

	(void)state;
	upcc_config_init(&config);
	assert_int_equal(upcc_config_add_scope_spec(&config, "system", error, sizeof(error)), 0);
	assert_int_equal(upcc_config_add_scope_spec(&config, "node:3", error, sizeof(error)), 0);
	assert_int_equal(upcc_config_add_scope_spec(&config, "cgroup:/sys/fs/cgroup/a", error,
						    sizeof(error)), 0);
	assert_int_equal(upcc_config_add_scope_spec(&config, "path:/mnt/t", error, sizeof(error)), 0);
	assert_int_equal(config.nr_scopes, 4);
	assert_string_equal(config.scopes[1].scope.name, "node3");
	assert_int_equal(config.scopes[1].scope.node_id, 3);
	assert_int_equal(config.scopes[2].scope.kind, UPCC_SCOPE_CGROUP);
	assert_string_equal(config.scopes[3].scope.path, "/mnt/t");
	assert_string_equal(config.scopes[3].scope.name, "path:/mnt/t");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		error[0] = '\0';
		assert_int_equal(upcc_config_add_scope_spec(&config, bad[i], error, sizeof(error)),
				 -EINVAL);
		assert_non_null(strstr(error, "expected system, node:N"));
	}
	assert_int_equal(config.nr_scopes, 4);
	upcc_config_free(&config);
}

static void test_value_parsers(void **state)
{
	struct upcc_scope_config sc;
	uint64_t ms = 7;
	bool flag = false;

	(void)state;
	assert_int_equal(upcc_parse_interval_ms("10ms", &ms), 0);
	assert_true(ms == 10);
	assert_int_equal(upcc_parse_interval_ms("3", &ms), 0);
	assert_true(ms == 3000);
	assert_int_equal(upcc_parse_interval_ms("2m", &ms), 0);
	assert_true(ms == 120000);
	assert_int_equal(upcc_parse_interval_ms("24h", &ms), 0);
	assert_true(ms == 86400000);
	assert_int_equal(upcc_parse_interval_ms("-1s", &ms), -EINVAL);
	assert_int_equal(upcc_parse_interval_ms("99999999999999999999s", &ms), -EINVAL);
	assert_true(ms == 86400000);

	upcc_scope_config_default(&sc);
	assert_int_equal(upcc_parse_trigger("4X", &sc), 0);
	assert_int_equal(sc.trigger_ratio, 4);
	assert_int_equal(upcc_parse_trigger("1G", &sc), 0);
	assert_false(sc.trigger_is_ratio);
	assert_int_equal(upcc_parse_trigger("1000001x", &sc), -EINVAL);
	assert_int_equal(upcc_parse_wset_cap("0x", &sc), 0);	/* no raise: allowed */
	assert_true(sc.wset_cap_is_ratio && sc.wset_cap_ratio == 0);
	assert_int_equal(upcc_parse_wset_cap("2%", &sc), 0);
	assert_false(sc.wset_cap_is_ratio);
	assert_int_equal(upcc_parse_wset_cap("1000001x", &sc), -EINVAL);
	assert_int_equal(upcc_parse_target("1000", &sc), 0);
	assert_int_equal(sc.target.unit, UPCC_AMOUNT_PAGES);

	assert_int_equal(upcc_parse_bool("YES", &flag), 0);
	assert_true(flag);
	assert_int_equal(upcc_parse_bool("off", &flag), 0);
	assert_false(flag);
	assert_int_equal(upcc_parse_bool("", &flag), -EINVAL);
	assert_true(upcc_backend_name_valid("auto"));
	assert_true(upcc_backend_name_valid("damon"));
	assert_false(upcc_backend_name_valid("Auto"));
}

/* Issue 12: a '#' after a path value is not silently part of the path. */
static void test_trailing_comment_on_paths(void **state)
{
	(void)state;
	expect_error("metrics = /x/m.prom   # textfile\n", 1,
		     "metrics \"/x/m.prom   # textfile\": expected an absolute path (comments go");
	expect_error("state = /run/s.json\t; here\n", 1, "state \"/run/s.json\t; here\"");
	expect_error("[scope d]\ntype = path\npath = /dir # c\n", 3, "path \"/dir # c\"");
}

/* Issue 32 (L4): metrics and state name a file; what can only be a
 * directory is refused when the file is read, not at the first write.
 */
static void test_report_paths_name_files(void **state)
{
	static const char *const dirs[] = { "/", "/run/upcc/", "/x/.", "/x/..", "//", "/x//" };
	struct upcc_config config;
	char path[64];

	(void)state;
	expect_error("metrics = /\n", 1,
		     "metrics \"/\": names a directory; expected a file's absolute path");
	expect_error("[daemon]\nstate = /run/upcc/\n", 2,
		     "state \"/run/upcc/\": names a directory; expected a file's absolute path (/run/upcc/state.json)");
	expect_error("metrics = /var/lib/..\n", 1, "metrics \"/var/lib/..\": names a directory");
	expect_error("state = /run/.\n", 1, "state \"/run/.\": names a directory");
	parse_ok("metrics = /x/.prom\nstate = /x/..json\n", &config);
	assert_string_equal(config.metrics_path, "/x/.prom");
	assert_string_equal(config.state_path, "/x/..json");
	upcc_config_free(&config);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		assert_int_equal(upcc_parse_file_path(dirs[i], path, sizeof(path)), -EISDIR);
	assert_int_equal(upcc_parse_file_path("x/y", path, sizeof(path)), -EINVAL);
	assert_int_equal(upcc_parse_file_path("", path, sizeof(path)), -EINVAL);
	assert_int_equal(upcc_parse_file_path("/a/b.prom", path, 9), -ENAMETOOLONG);
	assert_int_equal(upcc_parse_file_path("/a/b.prom", path, 10), 0);
	assert_string_equal(path, "/a/b.prom");
}

/* Issue 32 (L5): two path scopes, or two cgroup scopes, over one tree,
 * however spelled, are refused; the error names both sections and lines.
 */
static void test_same_tree_twice(void **state)
{
	static const char *const same[] = { "/d1", "/d1/", "//d1", "/./d1/.", "/d1//./" };
	struct upcc_config config;
	char text[256], error[512];

	(void)state;
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		snprintf(text, sizeof(text),
			 "[scope a]\ntype = path\npath = /d1\n\n[scope b]\npath = %s\ntype = path\n",
			 same[i]);
		snprintf(error, sizeof(error),
			 "[scope b]: path \"%s\" is the tree of [scope a] (line 3): two scopes would act on the same pages",
			 same[i]);
		expect_error(text, 6, error);
	}
	expect_error("[scope a]\ntype = cgroup\npath = /sys/fs/cgroup/web\n"
		     "[scope b]\ntype = cgroup\npath = /sys/fs/cgroup//web/\n", 6,
		     "[scope b]: path \"/sys/fs/cgroup//web/\" is the cgroup of [scope a] (line 3)");
	/* Nested trees, other kinds, and ".." (which only the filesystem
	 * can resolve) are not the parser's to refuse.
	 */
	parse_ok("[scope a]\ntype = path\npath = /d1\n[scope b]\ntype = path\npath = /d1/sub\n"
		 "[scope c]\ntype = cgroup\npath = /d1\n[scope d]\ntype = path\npath = /x/../d1\n"
		 "[scope e]\ntype = path\npath = /d10\n", &config);
	assert_int_equal(config.nr_scopes, 5);
	assert_int_equal(config.scopes[0].path_line, 3);
	assert_int_equal(config.scopes[3].path_line, 12);
	upcc_config_free(&config);

	upcc_config_init(&config);
	assert_int_equal(upcc_config_add_scope_spec(&config, "path:/d1", error, sizeof(error)), 0);
	assert_int_equal(upcc_config_add_scope_spec(&config, "cgroup:/d1/", error, sizeof(error)),
			 0);
	assert_int_equal(upcc_config_add_scope_spec(&config, "path:/d1/", error, sizeof(error)),
			 -EINVAL);
	assert_string_equal(error, "--scope=path:/d1/: the same tree as --scope=path:/d1");
	assert_int_equal(upcc_config_add_scope_spec(&config, "cgroup://d1", error, sizeof(error)),
			 -EINVAL);
	assert_string_equal(error, "--scope=cgroup://d1: the same cgroup as --scope=cgroup:/d1/");
	assert_int_equal(upcc_config_add_scope_spec(&config, "path:/d1/sub", error, sizeof(error)),
			 0);
	assert_int_equal(config.nr_scopes, 3);
	upcc_config_free(&config);
}

struct errors_seen {
	unsigned int count;
	char lines[8][256];
};

static void keep_error(const char *message, void *context)
{
	struct errors_seen *seen = context;

	if (seen->count < 8)
		snprintf(seen->lines[seen->count], sizeof(seen->lines[0]), "%s", message);
	seen->count++;
}

/* Issue 32 (L4): every error of a file, for upcd --check: the first as
 * ever in @error, each later one once, none that only follows from
 * another (the keys under a bad header, a bad scope's whole-scope checks).
 */
static void test_every_error(void **state)
{
	static const char text[] =
		"interval = soon\n"		/* 1 */
		"[scope a]\n"
		"type = numa\n"			/* 3 */
		"path = /x\n"			/* (not "path only applies") */
		"[scope bad name]\n"		/* 5 */
		"type = system\n"		/* (its keys are not checked) */
		"colour = blue\n"
		"[scope b]\n"			/* 8: missing type */
		"target = 1%\n"
		"[daemon]\n"
		"tick = 1ms\n"			/* 11 */
		"backend = dropcache\n";		/* 12 */
	static const char *const more[] = {
		"test.conf:3: type \"numa\": expected system",
		"test.conf:5: bad scope name \"bad name\"",
		"test.conf:8: [scope b]: missing \"type =\"",
		"test.conf:11: tick \"1ms\"",
		"test.conf:12: backend dropcache drops every clean cache page",
	};
	struct errors_seen seen = { 0 };
	struct upcc_config config;
	char error[512];

	(void)state;
	upcc_config_init(&config);
	assert_int_equal(upcc_config_parse_text(text, sizeof(text) - 1, "test.conf", &config,
						error, sizeof(error), keep_error, &seen), -EINVAL);
	assert_string_equal(error, "test.conf:1: interval \"soon\": expected 10ms..24h (500ms, 1s, 2m)");
	if (seen.count != sizeof(more) / sizeof(more[0]))
		fail_msg("%u more errors, the first \"%s\"", seen.count, seen.lines[0]);
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		if (strncmp(seen.lines[i], more[i], strlen(more[i])) != 0)
			fail_msg("error %zu: expected \"%s...\", got \"%s\"", i + 2, more[i],
				 seen.lines[i]);
	upcc_config_free(&config);
}

/* Issue 12: two --scope of one name (the same spec, or long specs cut to
 * the same name) would be two Prometheus series of one label set.
 */
static void test_scope_spec_names_unique(void **state)
{
	char long_a[200], long_b[200], error[512];
	struct upcc_config config;

	(void)state;
	upcc_config_init(&config);
	assert_int_equal(upcc_config_add_scope_spec(&config, "path:/srv", error, sizeof(error)), 0);
	assert_int_equal(upcc_config_add_scope_spec(&config, "path:/srv", error, sizeof(error)),
			 -EINVAL);
	assert_non_null(strstr(error, "given twice"));
	assert_int_equal(upcc_config_add_scope_spec(&config, "node:1", error, sizeof(error)), 0);
	assert_int_equal(upcc_config_add_scope_spec(&config, "node:01", error, sizeof(error)),
			 -EINVAL);
	snprintf(long_a, sizeof(long_a), "path:/%0100d/a", 0);
	snprintf(long_b, sizeof(long_b), "path:/%0100d/b", 0);
	assert_int_equal(upcc_config_add_scope_spec(&config, long_a, error, sizeof(error)), 0);
	assert_int_equal(upcc_config_add_scope_spec(&config, long_b, error, sizeof(error)), 0);
	assert_int_equal(config.nr_scopes, 4);
	assert_string_not_equal(config.scopes[2].scope.name, config.scopes[3].scope.name);
	assert_int_equal(strlen(config.scopes[2].scope.name), 63);
	assert_int_equal(strncmp(config.scopes[2].scope.name, long_a, 50), 0);
	assert_string_equal(config.scopes[2].scope.path, long_a + 5);
	upcc_config_free(&config);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_gives_default_scope),
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_section_errors),
		cmocka_unit_test(test_damon_min_age),
		cmocka_unit_test(test_too_many_scopes),
		cmocka_unit_test(test_scope_consistency_errors),
		cmocka_unit_test(test_line_errors),
		cmocka_unit_test(test_scope_value_errors),
		cmocka_unit_test(test_daemon_value_errors),
		cmocka_unit_test(test_compact_key),
		cmocka_unit_test(test_dry_run_key),
		cmocka_unit_test(test_exclude_key),
		cmocka_unit_test(test_dropcache_needs_consent),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_scope_specs),
		cmocka_unit_test(test_value_parsers),
		cmocka_unit_test(test_trailing_comment_on_paths),
		cmocka_unit_test(test_report_paths_name_files),
		cmocka_unit_test(test_same_tree_twice),
		cmocka_unit_test(test_every_error),
		cmocka_unit_test(test_scope_spec_names_unique),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
