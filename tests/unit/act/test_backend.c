// SPDX-License-Identifier: GPL-2.0
/*
 * test_backend.c - backend registry and auto choice; the global backends'
 * write sequences against a fake sysfs/cgroupfs/procfs in a temp dir
 * (upcc_hooks.root), never the host's; fadvise on real files, with the
 * fake tree's /proc.
 */
#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "act/backend.h"
#include "core/size.h"
#include "lib/clock.h"
#include "lib/hooks.h"
#include "lib/pace.h"
#include "inventory/inventory.h"
#include "sys/measure.h"
#include "sys/procstat.h"
#include "sys/residency.h"
#include "sys/sysfs.h"

static char root[PATH_MAX];
static char log_path[PATH_MAX + 16];

#define ADMIN	"/sys/kernel/mm/damon/admin/"
#define K0	ADMIN "kdamonds/0/"
#define C0	K0 "contexts/0/"
#define S0	C0 "schemes/0/"

static void fake(const char *rel, const char *text)
{
	char path[PATH_MAX * 2], dir[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(ua_mkdir_p(dir), 0);
	assert_int_equal(ua_write_file(path, text), 0);
}

static char *slurp(const char *rel_or_abs, bool in_root)
{
	char path[PATH_MAX * 2];
	static char buf[65536];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s%s", in_root ? root : "", rel_or_abs);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* This process's start time, as the damon marker records it. */
static unsigned long long self_start(void)
{
	struct upcc_procstat st;

	assert_int_equal(upcc_procstat_read("/proc/self/stat", &st), 0);
	return st.start_time;
}

static void fake_damon_tree(const char *nr_kdamonds)
{
	static const char *const files[] = {
		K0 "state", K0 "contexts/nr_contexts", C0 "operations",
		C0 "monitoring_attrs/intervals/sample_us", C0 "monitoring_attrs/intervals/aggr_us",
		C0 "monitoring_attrs/intervals/update_us",
		C0 "targets/nr_targets", C0 "targets/0/regions/nr_regions",
		C0 "targets/0/regions/0/start", C0 "targets/0/regions/0/end",
		C0 "schemes/nr_schemes", S0 "action", S0 "access_pattern/sz/min",
		S0 "access_pattern/sz/max", S0 "access_pattern/nr_accesses/min",
		S0 "access_pattern/nr_accesses/max", S0 "access_pattern/age/min",
		S0 "access_pattern/age/max",
		S0 "quotas/bytes", S0 "quotas/ms", S0 "quotas/reset_interval_ms", S0 "quotas/weights/sz_permil",
		S0 "quotas/weights/nr_accesses_permil", S0 "quotas/weights/age_permil",
		S0 "filters/nr_filters",
		S0 "filters/0/type", S0 "filters/0/matching", S0 "filters/0/allow",
		S0 "filters/1/type", S0 "filters/1/matching", S0 "filters/1/allow",
		S0 "filters/2/type", S0 "filters/2/matching", S0 "filters/2/allow",
		S0 "filters/3/type", S0 "filters/3/memcg_path", S0 "filters/3/matching",
		S0 "filters/3/allow",
	};
	char path[PATH_MAX * 2];

	/* No marker of an earlier run: each case says whose DAMON it is. */
	snprintf(path, sizeof(path), "%s/run/upcc/damon-kdamond", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/run", root);
	assert_int_equal(ua_mkdir_p(path), 0);	/* as on any system: /run is there */
	fake("/proc/sys/kernel/random/boot_id", "b00710d0-0000-4000-8000-000000000001\n");
	fake(K0 "pid", "4242\n");
	/* kdamond's utime 150 and stime 50 clock ticks; its comm has a space. */
	fake("/proc/4242/stat", "4242 (kdamond.0 x) S 2 0 0 0 -1 2129984 0 0 0 0 150 50 0 0 "
				"20 0 1 0 100 0 0\n");
	fake(ADMIN "kdamonds/nr_kdamonds", nr_kdamonds);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		fake(files[i], "");
	fake(C0 "avail_operations", "vaddr\nfvaddr\npaddr\n");
	fake(S0 "stats/sz_applied", "409600\n");
	/* Four zones, one empty (no start_pfn): 0x1000 up to 0x140000000 on
	 * 4 KiB pages, spanning a hole between DMA32 and Normal.
	 */
	fake("/proc/zoneinfo", "Node 0, zone      DMA\n  pages free     3968\n"
			       "        spanned  4095\n        present  3998\n"
			       "  start_pfn:           1\n"
			       "Node 0, zone    DMA32\n        spanned  520192\n"
			       "  start_pfn:           4096\n"
			       "Node 0, zone   Normal\n        spanned  262144\n"
			       "  start_pfn:           1048576\n"
			       "Node 0, zone  Movable\n  pages free     0\n"
			       "        spanned  0\n        present  0\n");
}

/*
 * What the fadvise backend reads of /proc under the one root: a meminfo
 * that gives MemTotal (the path scope's memory) and a /proc without
 * processes, so no file is mapped.  Written by each fadvise case, since the
 * cases before it leave other meminfos behind.
 */
static void fake_proc(void)
{
	fake("/proc/meminfo", "MemTotal: 1000000 kB\nActive(file): 4000 kB\n"
			      "Inactive(file): 4000 kB\nMapped: 1000 kB\n");
}

static int setup(void **state)
{
	(void)state;
	if (!ua_mkdtemp(root, sizeof(root)))
		return -1;
	snprintf(log_path, sizeof(log_path), "%s/writes.log", root);
	upcc_hooks.root = root;
	/* A filesystem-wide fanotify mark on the host's build/ filesystem would
	 * watch every other job's files: fanotify learning is tested on the
	 * integration suite's own loop filesystem instead.
	 */
	upcc_hooks.no_fanotify = 1;
	upcc_hooks.backend_log = log_path;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	upcc_hooks.root = NULL;
	upcc_hooks.backend_log = NULL;
	upcc_hooks.kernel_release = NULL;
	ua_rm_rf(root);
	return 0;
}

static int per_test(void **state)
{
	(void)state;
	unlink(log_path);
	return 0;
}

static struct upcc_scope scope_of(enum upcc_scope_kind kind, const char *path)
{
	struct upcc_scope scope;

	memset(&scope, 0, sizeof(scope));
	scope.kind = kind;
	if (path && strlen(path) < sizeof(scope.path))
		strcpy(scope.path, path);
	return scope;
}

static void test_find(void **state)
{
	(void)state;
	assert_ptr_equal(upcc_backend_find("fadvise"), &upcc_backend_fadvise);
	assert_ptr_equal(upcc_backend_find("memcg"), &upcc_backend_memcg);
	assert_ptr_equal(upcc_backend_find("damon"), &upcc_backend_damon);
	assert_ptr_equal(upcc_backend_find("dropcache"), &upcc_backend_dropcache);
	assert_null(upcc_backend_find("auto"));
	assert_null(upcc_backend_find("bogus"));
	assert_null(upcc_backend_find(NULL));
	assert_true(upcc_backend_memcg.may_unmap);
	assert_false(upcc_backend_fadvise.may_unmap);
}

static void test_select_unknown(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);

	(void)state;
	assert_int_equal(upcc_backend_select(&backend, "bogus", &scope), -ENOENT);
	assert_null(backend.ops);
	assert_non_null(strstr(backend.why, "unknown backend"));
}

static void test_dropcache(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	struct upcc_action_result result;

	(void)state;
	fake("/proc/sys/vm/drop_caches", "");
	fake("/proc/meminfo", "MemTotal: 1000000 kB\nActive(file): 4000 kB\n"
			      "Inactive(file): 4000 kB\nMapped: 1000 kB\n");
	assert_int_equal(upcc_backend_select(&backend, "dropcache", &scope), -EPERM);
	assert_null(slurp(log_path, false));
	backend.allow_dropcache = true;
	assert_int_equal(upcc_backend_select(&backend, "dropcache", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 10, &result), 0);
	assert_string_equal(slurp("/proc/sys/vm/drop_caches", true), "1");
	assert_string_equal(slurp(log_path, false), "/proc/sys/vm/drop_caches 1\n");
	backend.ops->fini(&backend);
	scope = scope_of(UPCC_SCOPE_PATH, "/srv");
	assert_int_equal(upcc_backend_select(&backend, "dropcache", &scope), -ENOTSUP);
}

static void test_memcg_sequence(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_CGROUP, "/sys/fs/cgroup/work");
	struct upcc_action_result result;
	char expect[128];

	(void)state;
	fake("/sys/fs/cgroup/work/memory.reclaim", "");
	fake("/sys/fs/cgroup/work/memory.stat",
	     "anon 0\nfile 8192000\nfile_dirty 0\nfile_writeback 0\n");
	fake("/proc/meminfo", "MemTotal: 1000000 kB\nSwapTotal: 0 kB\n");
	assert_int_equal(upcc_backend_select(&backend, "memcg", &scope), 0);
	assert_non_null(strstr(backend.why, "may unmap"));
	assert_non_null(strstr(backend.why, "no swap"));
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 10, &result), 0);
	snprintf(expect, sizeof(expect), "%ld swappiness=0", 10 * sysconf(_SC_PAGESIZE));
	assert_string_equal(slurp("/sys/fs/cgroup/work/memory.reclaim", true), expect);
	assert_int_equal(result.requested_pages, 10);
	assert_string_equal(result.refused, "");
	/* dry run: nothing written */
	unlink(log_path);
	backend.dry_run = true;
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 10, &result), 0);
	assert_null(slurp(log_path, false));
	backend.ops->fini(&backend);
	/* Not for a tree or a node. */
	scope = scope_of(UPCC_SCOPE_PATH, "/srv");
	assert_int_equal(upcc_backend_select(&backend, "memcg", &scope), -ENOTSUP);
	/* A cgroup without the memory controller's file. */
	scope = scope_of(UPCC_SCOPE_CGROUP, "/sys/fs/cgroup/none");
	assert_int_equal(upcc_backend_select(&backend, "memcg", &scope), -ENOENT);
}

/* memory.reclaim wakes the flusher when all it scans is dirty: memcg must
 * write nothing while its scope has a dirty or writeback page, or when it
 * cannot tell, and say why.
 */
static void expect_memcg_refusal(struct upcc_backend *backend, struct upcc_scope *scope,
				 const char *reclaim_file, const char *why)
{
	struct upcc_action_result result;

	unlink(log_path);
	assert_int_equal(backend->ops->reclaim(backend, scope, 0, 10, &result), 0);
	assert_non_null(strstr(result.refused, why));
	assert_int_equal(result.reclaimed_pages, 0);
	assert_null(slurp(log_path, false));		/* nothing written */
	assert_string_equal(slurp(reclaim_file, true), "");
}

static void test_memcg_refuses_dirty(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_CGROUP, "/sys/fs/cgroup/work");
	struct upcc_action_result result;
	long page = sysconf(_SC_PAGESIZE);
	char stat[128], want[64], size[UPCC_SIZE_TEXT_LEN];

	(void)state;
	fake("/sys/fs/cgroup/work/memory.reclaim", "");
	fake("/proc/meminfo", "MemTotal: 1000000 kB\nSwapTotal: 0 kB\nDirty: 0 kB\n"
			      "Writeback: 0 kB\n");
	snprintf(stat, sizeof(stat), "file 8192000\nfile_dirty %ld\nfile_writeback 0\n",
		 2 * page);
	fake("/sys/fs/cgroup/work/memory.stat", stat);
	assert_int_equal(upcc_backend_select(&backend, "memcg", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	/* Sizes, as every log line gives them (issue 11), not pages. */
	snprintf(want, sizeof(want), "%s dirty + 0B writeback",
		 upcc_size_format(size, sizeof(size), 2 * (uint64_t)page));
	expect_memcg_refusal(&backend, &scope, "/sys/fs/cgroup/work/memory.reclaim", want);
	snprintf(stat, sizeof(stat), "file 8192000\nfile_dirty 0\nfile_writeback %ld\n", page);
	fake("/sys/fs/cgroup/work/memory.stat", stat);
	snprintf(want, sizeof(want), "0B dirty + %s writeback",
		 upcc_size_format(size, sizeof(size), (uint64_t)page));
	expect_memcg_refusal(&backend, &scope, "/sys/fs/cgroup/work/memory.reclaim", want);
	/* A kernel that does not say is not taken for clean. */
	fake("/sys/fs/cgroup/work/memory.stat", "file 8192000\n");
	expect_memcg_refusal(&backend, &scope, "/sys/fs/cgroup/work/memory.reclaim",
			     "cannot tell");
	backend.ops->fini(&backend);

	/* The system scope counts /proc/meminfo, not the root's memory.stat. */
	scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	fake("/sys/fs/cgroup/memory.reclaim", "");
	fake("/sys/fs/cgroup/memory.stat", "file 8192000\nfile_dirty 0\nfile_writeback 0\n");
	fake("/proc/meminfo", "MemTotal: 1000000 kB\nSwapTotal: 0 kB\nDirty: 8 kB\n"
			      "Writeback: 0 kB\n");
	assert_int_equal(upcc_backend_select(&backend, "memcg", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	expect_memcg_refusal(&backend, &scope, "/sys/fs/cgroup/memory.reclaim", "dirty");
	/* Clean: it acts. */
	fake("/proc/meminfo", "MemTotal: 1000000 kB\nSwapTotal: 0 kB\nDirty: 0 kB\n"
			      "Writeback: 0 kB\n");
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 10, &result), 0);
	assert_string_equal(result.refused, "");
	assert_non_null(strstr(slurp("/sys/fs/cgroup/memory.reclaim", true), "swappiness=0"));
	backend.ops->fini(&backend);
}

/* auto never picks memcg (it may unmap): a cgroup scope on a kernel without
 * DAMON's unmapped filter has no automatic backend.
 */
static void test_auto_never_memcg(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_CGROUP, "/sys/fs/cgroup/work");

	(void)state;
	fake("/sys/fs/cgroup/work/memory.reclaim", "");
	fake_damon_tree("0\n");
	upcc_hooks.kernel_release = "6.12.118";
	assert_int_equal(upcc_backend_select(&backend, "auto", &scope), -ENOTSUP);
	assert_null(backend.ops);
	assert_non_null(strstr(backend.why, "memcg (may unmap)"));
	assert_non_null(strstr(backend.why, "6.15"));
	assert_null(slurp(log_path, false));	/* probing wrote nothing */
}

/* The order bench/ measured (docs/bench.md): fadvise first wherever it can
 * act, even where damon could; damon for what fadvise cannot aim at (a
 * cgroup); memcg never.
 */
static void test_auto_order(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);

	(void)state;
	fake("/sys/fs/cgroup/memory.reclaim", "");
	fake("/sys/fs/cgroup/work/memory.reclaim", "");
	fake_damon_tree("0\n");
	upcc_hooks.kernel_release = "6.15.2";
	assert_int_equal(upcc_backend_select(&backend, "auto", &scope), 0);
	assert_ptr_equal(backend.ops, &upcc_backend_fadvise);
	assert_int_equal(strncmp(backend.why, "auto: fadvise: ", 15), 0);
	assert_non_null(strstr(backend.why, "passed over: none"));

	scope = scope_of(UPCC_SCOPE_CGROUP, "/sys/fs/cgroup/work");
	assert_int_equal(upcc_backend_select(&backend, "auto", &scope), 0);
	assert_ptr_equal(backend.ops, &upcc_backend_damon);
	assert_non_null(strstr(backend.why, "passed over: fadvise (a file's pages cannot"));
	assert_null(strstr(backend.why, "memcg"));	/* never reached */
	assert_null(slurp(log_path, false));		/* probing wrote nothing */

	/* The registry lists them in that order, and auto_rank agrees. */
	assert_ptr_equal(upcc_backends[0], &upcc_backend_fadvise);
	assert_ptr_equal(upcc_backends[1], &upcc_backend_damon);
	assert_ptr_equal(upcc_backends[2], &upcc_backend_memcg);
	assert_ptr_equal(upcc_backends[3], &upcc_backend_dropcache);
	assert_null(upcc_backends[4]);
	for (int i = 0; upcc_backends[i]; i++)
		assert_int_equal(upcc_backends[i]->auto_rank, i);
}

static unsigned int count_lines(const char *text, const char *line)
{
	unsigned int n = 0;
	size_t len = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p += len)
		if ((p == text || p[-1] == '\n') && p[len] == '\n')
			n++;
	return n;
}

/*
 * sz_applied grows by @bytes 150 ms from now, as a kdamond paging out
 * would: a child writes it, so the backend's poll sees it move.
 */
static pid_t fake_pageout_later(unsigned long long from, unsigned long long bytes)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char text[32];

		usleep(150 * 1000);
		snprintf(text, sizeof(text), "%llu\n", from + bytes);
		fake(S0 "stats/sz_applied", text);
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
}

/* A pid that ran and is gone: a dead upcd, as a marker may name one. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	reap(pid);
	return pid;
}

/*
 * One kdamond for the backend's life: started at init with the scheme
 * idle, a step raises the quota and lowers it again, fini removes it.
 */
static void test_damon_sequence(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	struct upcc_action_result result;
	long page = sysconf(_SC_PAGESIZE);
	const char *log, *step;
	char line[128];
	pid_t child;

	(void)state;
	fake_damon_tree("0\n");
	upcc_hooks.kernel_release = "6.15.2";
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_ptr_equal(backend.ops, &upcc_backend_damon);
	backend.damon_min_age_ms = 5000;
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	log = slurp(log_path, false);
	assert_non_null(log);
	/* Starts by creating its own kdamond, with the scheme idle. */
	assert_int_equal(strncmp(log, ADMIN "kdamonds/nr_kdamonds 1\n", strlen(ADMIN) + 23), 0);
	assert_int_equal(count_lines(log, C0 "operations paddr"), 1);
	assert_int_equal(count_lines(log, S0 "action pageout"), 1);
	assert_int_equal(count_lines(log, S0 "filters/0/type anon"), 1);
	assert_int_equal(count_lines(log, S0 "filters/1/type unmapped"), 1);
	assert_int_equal(count_lines(log, S0 "filters/1/matching N"), 1);
	assert_int_equal(count_lines(log, S0 "filters/1/allow N"), 1);
	assert_int_equal(count_lines(log, S0 "filters/2/type young"), 1);
	assert_int_equal(count_lines(log, S0 "filters/nr_filters 3"), 1);
	/* 5 s of 100 ms aggregation intervals; sysfs's [0, 0] ranges opened. */
	assert_int_equal(count_lines(log, S0 "access_pattern/age/min 50"), 1);
	assert_int_equal(count_lines(log, S0 "access_pattern/nr_accesses/max 0"), 1);
	assert_int_equal(count_lines(log, S0 "access_pattern/sz/max 5368709120"), 1);
	assert_int_equal(count_lines(log, S0 "quotas/bytes 1"), 1);
	/* Every zone: pfn 1 up to pfn 0x140000, end exclusive. */
	assert_int_equal(count_lines(log, C0 "targets/0/regions/0/start 4096"), 1);
	assert_int_equal(count_lines(log, C0 "targets/0/regions/0/end 5368709120"), 1);
	assert_non_null(strstr(log, K0 "state on\n"));
	assert_null(strstr(log, K0 "state off\n"));
	/* The marker names this boot, the kdamond and this process. */
	snprintf(line, sizeof(line), "b00710d0-0000-4000-8000-000000000001 4242 %ld %llu\n",
		 (long)getpid(), self_start());
	assert_string_equal(slurp("/run/upcc/damon-kdamond", true), line);

	unlink(log_path);
	fake(S0 "stats/sz_applied", "1000000\n");
	child = fake_pageout_later(1000000, 409600);
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 409600 / (uint64_t)page,
					      &result), 0);
	reap(child);
	assert_int_equal(result.reclaimed_pages, 409600 / page);
	/* kdamond's CPU, counted as the step's; the next step counts anew. */
	assert_int_equal(result.kernel_cpu_usec, 200 * 1000000ull / sysconf(_SC_CLK_TCK));
	log = slurp(log_path, false);
	/* The step: its quota, committed, then idle again; no new kdamond. */
	step = strstr(log, S0 "quotas/bytes 409600\n" K0 "state commit\n");
	assert_non_null(step);
	assert_non_null(strstr(step, S0 "quotas/bytes 1\n" K0 "state commit\n"));
	assert_int_equal(count_lines(log, ADMIN "kdamonds/nr_kdamonds 1"), 0);
	assert_null(strstr(log, K0 "state off\n"));

	unlink(log_path);
	backend.ops->fini(&backend);
	log = slurp(log_path, false);
	assert_non_null(strstr(log, K0 "state off\n" ADMIN "kdamonds/nr_kdamonds 0\n"));
	assert_null(slurp("/run/upcc/damon-kdamond", true));
}

static void test_damon_cgroup_filter(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_CGROUP, "/sys/fs/cgroup/work/a");
	const char *log;

	(void)state;
	fake_damon_tree("0\n");
	upcc_hooks.kernel_release = "6.16.0";
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	log = slurp(log_path, false);
	assert_int_equal(count_lines(log, S0 "filters/nr_filters 4"), 1);
	assert_int_equal(count_lines(log, S0 "filters/3/type memcg"), 1);
	assert_int_equal(count_lines(log, S0 "filters/3/memcg_path /work/a"), 1);
	/* damon_min_age 0: cold as soon as DAMON saw no access. */
	assert_int_equal(count_lines(log, S0 "access_pattern/age/min 0"), 1);
	backend.ops->fini(&backend);
}

/* DAMON in use by someone else: refused at probe and at reclaim time, and
 * not one write is made to their kdamond.
 */
static void test_damon_never_takes_over(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	struct upcc_action_result result;

	(void)state;
	upcc_hooks.kernel_release = "6.15.0";
	fake_damon_tree("1\n");
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -EBUSY);
	assert_non_null(strstr(backend.why, "in use"));
	assert_non_null(strstr(backend.why, "no upcd marker"));
	/* Free at probe time: ours.  Then replaced under us: hands off. */
	fake_damon_tree("0\n");
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	fake(K0 "pid", "999\n");
	unlink(log_path);
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 100, &result), -EBUSY);
	backend.ops->fini(&backend);
	assert_null(slurp(log_path, false));
	assert_string_equal(slurp(ADMIN "kdamonds/nr_kdamonds", true), "1");
	/* Old kernel: no filter keeps mapped pages out. */
	fake_damon_tree("0\n");
	upcc_hooks.kernel_release = "6.12.118";
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -ENOTSUP);
}

/*
 * What a SIGKILLed upcd leaves: its kdamond on, its marker.  Provably
 * ours (this boot, that kdamond's pid, that upcd gone): removed, and a
 * new one started.  Any doubt (another boot, another pid, that upcd still
 * running): refused, untouched.
 */
static void test_damon_leftover(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	char marker[128], comm[64];
	const char *log;
	pid_t gone;

	(void)state;
	upcc_hooks.kernel_release = "7.3.4";
	gone = gone_pid();

	/* That upcd is still running (its comm says upcd): not a leftover.
	 * Our parent stands in for it: a live pid.
	 */
	fake_damon_tree("1\n");
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld\n",
		 (long)getppid());
	fake("/run/upcc/damon-kdamond", marker);
	snprintf(comm, sizeof(comm), "/proc/%ld/comm", (long)getppid());
	fake(comm, "upcd\n");
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -EBUSY);
	assert_non_null(strstr(backend.why, "upcd of pid"));
	fake(comm, "make\n");	/* any other program of that pid: gone */
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	/* This very upcd: another of its scopes has DAMON. */
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld\n",
		 (long)getpid());
	fake("/run/upcc/damon-kdamond", marker);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -EBUSY);
	assert_non_null(strstr(backend.why, "another damon scope of this upcd"));

	/* Another boot's marker, or another kdamond: refused. */
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000002 4242 %ld\n",
		 (long)gone);
	fake("/run/upcc/damon-kdamond", marker);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -EBUSY);
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4243 %ld\n",
		 (long)gone);
	fake("/run/upcc/damon-kdamond", marker);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -EBUSY);
	assert_null(slurp(log_path, false));

	/* Provably ours: stopped, removed, and a new one set up. */
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld\n",
		 (long)gone);
	fake("/run/upcc/damon-kdamond", marker);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_non_null(strstr(backend.why, "to be removed: kdamond 4242 was left running by upcd"));
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	log = slurp(log_path, false);
	{
		static const char removed[] = K0 "state off\n" ADMIN "kdamonds/nr_kdamonds 0\n"
					      ADMIN "kdamonds/nr_kdamonds 1\n";

		assert_int_equal(strncmp(log, removed, strlen(removed)), 0);
	}
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld %llu\n",
		 (long)getpid(), self_start());
	assert_string_equal(slurp("/run/upcc/damon-kdamond", true), marker);
	backend.ops->fini(&backend);
}

/*
 * upcd's pid alone proves nothing: a crashed upcd's pid may be the next
 * upcd's, or another upcd's.  The start time in the marker tells them apart.
 */
static void test_damon_marker_pid_reused(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	char marker[160], rel[64];

	(void)state;
	upcc_hooks.kernel_release = "7.3.4";
	fake_damon_tree("1\n");
	/* Our pid, another start time: the upcd that had our pid crashed. */
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld %llu\n",
		 (long)getpid(), self_start() + 1);
	fake("/run/upcc/damon-kdamond", marker);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_non_null(strstr(backend.why, "to be removed: kdamond 4242"));
	/* A running upcd (our parent stands in) of another start time: the
	 * marker's upcd is gone, its pid given to this one.
	 */
	snprintf(rel, sizeof(rel), "/proc/%ld/comm", (long)getppid());
	fake(rel, "upcd\n");
	snprintf(rel, sizeof(rel), "/proc/%ld/stat", (long)getppid());
	fake(rel, "1 (upcd) S 1 1 1 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 777 0 0\n");
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld 776\n",
		 (long)getppid());
	fake("/run/upcc/damon-kdamond", marker);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	/* The same start time: that upcd is running. */
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld 777\n",
		 (long)getppid());
	fake("/run/upcc/damon-kdamond", marker);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -EBUSY);
	assert_non_null(strstr(backend.why, "upcd of pid"));
	assert_null(slurp(log_path, false));
}

/*
 * The marker is never read through a symbolic link, nor from a FIFO
 * (whose open would wait for a writer): either is no marker of ours, and
 * the kdamond is refused as someone else's, at once.
 */
static void test_damon_marker_not_regular(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	char marker[160], path[PATH_MAX * 2], target[PATH_MAX * 2];
	pid_t gone;

	(void)state;
	upcc_hooks.kernel_release = "7.3.4";
	gone = gone_pid();
	fake_damon_tree("1\n");
	/* A valid leftover's marker, but reached through a link. */
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld\n",
		 (long)gone);
	fake("/elsewhere", marker);
	snprintf(path, sizeof(path), "%s/run/upcc/damon-kdamond", root);
	snprintf(target, sizeof(target), "%s/elsewhere", root);
	assert_int_equal(ua_mkdir_p(strcat(strcpy(marker, root), "/run/upcc")), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -EBUSY);
	assert_non_null(strstr(backend.why, "no upcd marker"));
	assert_int_equal(unlink(path), 0);
	/* A FIFO: refused without waiting for a writer (cmocka would hang). */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -EBUSY);
	assert_non_null(strstr(backend.why, "no upcd marker"));
	assert_int_equal(unlink(path), 0);
	assert_null(slurp(log_path, false));
	/* And a marker is written as a new file, never through a link there. */
	fake_damon_tree("0\n");
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld\n",
		 (long)gone);
	assert_string_equal(slurp("/elsewhere", true), marker);
	backend.ops->fini(&backend);
}

/* sysfs_fault hooks: nr_kdamonds refuses "1" (another tool's kdamond came
 * first); kdamond 0's pid stays busy for so many reads.
 */
static int busy_pid_reads;

static int fault_nr_kdamonds(const char *path, const char *value, bool write)
{
	size_t len = strlen(path), tail = strlen("kdamonds/nr_kdamonds");

	return write && len >= tail && !strcmp(path + len - tail, "kdamonds/nr_kdamonds") &&
	       !strcmp(value, "1") ? -EBUSY : 0;
}

static int fault_pid_busy(const char *path, const char *value, bool write)
{
	size_t len = strlen(path), tail = strlen("kdamonds/0/pid");

	(void)value;
	if (write || len < tail || strcmp(path + len - tail, "kdamonds/0/pid") || !busy_pid_reads)
		return 0;
	busy_pid_reads--;
	return -EBUSY;
}

/*
 * nr_kdamonds refused at init (-EBUSY: someone started a kdamond since
 * DAMON was found free): kdamond 0 is theirs, not one write to it.
 */
static void test_damon_start_refused(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	const char *log;

	(void)state;
	upcc_hooks.kernel_release = "7.3.4";
	fake_damon_tree("0\n");
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	upcc_hooks.sysfs_fault = fault_nr_kdamonds;
	assert_int_equal(backend.ops->init(&backend, &scope), -EBUSY);
	upcc_hooks.sysfs_fault = NULL;
	log = slurp(log_path, false);
	assert_non_null(log);
	assert_null(strstr(log, K0));
	assert_int_equal(count_lines(log, ADMIN "kdamonds/nr_kdamonds 0"), 0);
	assert_null(slurp("/run/upcc/damon-kdamond", true));
}

/*
 * Our kdamond stopped by itself (pid -1): fini still removes it and the
 * marker, else every start this boot refuses it; and a start finding one
 * so left by a gone upcd removes it too.
 */
static void test_damon_stopped_by_itself(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	char marker[160];
	pid_t gone;

	(void)state;
	upcc_hooks.kernel_release = "7.3.4";
	fake_damon_tree("0\n");
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	fake(K0 "pid", "-1\n");
	unlink(log_path);
	backend.ops->fini(&backend);
	assert_non_null(strstr(slurp(log_path, false), ADMIN "kdamonds/nr_kdamonds 0\n"));
	assert_null(slurp("/run/upcc/damon-kdamond", true));

	gone = gone_pid();
	fake_damon_tree("1\n");
	fake(K0 "pid", "-1\n");
	snprintf(marker, sizeof(marker), "b00710d0-0000-4000-8000-000000000001 4242 %ld 5\n",
		 (long)gone);
	fake("/run/upcc/damon-kdamond", marker);
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_non_null(strstr(backend.why, "was left stopped"));
	/* Another boot's: refused. */
	fake("/run/upcc/damon-kdamond", "b00710d0-0000-4000-8000-000000000002 4242 1 5\n");
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), -EBUSY);
}

/*
 * kdamond 0's pid busy (someone reads it) at fini for longer than one
 * read's retries: asked again, not taken for someone else's kdamond.
 */
static void test_damon_fini_busy(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);

	(void)state;
	upcc_hooks.kernel_release = "7.3.4";
	fake_damon_tree("0\n");
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	unlink(log_path);
	busy_pid_reads = 60;	/* one read retries 50 times */
	upcc_hooks.sysfs_fault = fault_pid_busy;
	backend.ops->fini(&backend);
	upcc_hooks.sysfs_fault = NULL;
	assert_int_equal(busy_pid_reads, 0);
	assert_non_null(strstr(slurp(log_path, false),
			       K0 "state off\n" ADMIN "kdamonds/nr_kdamonds 0\n"));
	assert_null(slurp("/run/upcc/damon-kdamond", true));
}

static unsigned int pace_calls, pace_stop_at;

static bool pace_after(void *ctx)
{
	(void)ctx;
	return ++pace_calls >= pace_stop_at;
}

/*
 * A step never hands a window more than a bounded share (an upcd killed
 * mid-step leaves its kdamond paging out that much a window), and a
 * signal ends it early with the quota idle again.
 */
static void test_damon_step_bounded(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	struct upcc_action_result result;
	const char *log, *last;
	uint64_t start;

	(void)state;
	upcc_hooks.kernel_release = "7.3.4";
	fake_damon_tree("0\n");
	assert_int_equal(upcc_backend_select(&backend, "damon", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	/* The kernel side limits itself too: 20 ms of kdamond a window. */
	assert_int_equal(count_lines(slurp(log_path, false), S0 "quotas/ms 20"), 1);
	unlink(log_path);
	/* 1 GiB asked; nothing paged out; a signal at the third poll. */
	pace_calls = 0;
	pace_stop_at = 3;
	upcc_pace_set(pace_after, NULL);
	start = upcc_monotonic_usec();
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0,
					      (1ull << 30) / upcc_page_size(), &result), 0);
	upcc_pace_set(NULL, NULL);
	assert_true(upcc_monotonic_usec() - start < 1000000);
	assert_int_equal(pace_calls, 3);
	log = slurp(log_path, false);
	assert_int_equal(count_lines(log, S0 "quotas/bytes 4194304"), 1);
	assert_null(strstr(log, S0 "quotas/bytes 1073741824"));
	last = strstr(log, S0 "quotas/bytes 1\n" K0 "state commit\n");
	assert_non_null(last);
	assert_null(strstr(last + 1, S0 "quotas/bytes 4194304"));
	assert_int_equal(result.reclaimed_pages, 0);
	backend.ops->fini(&backend);
}

static void test_kernel_at_least(void **state)
{
	(void)state;
	upcc_hooks.kernel_release = "6.12.118-1";
	assert_true(upcc_kernel_at_least(6, 12));
	assert_true(upcc_kernel_at_least(5, 19));
	assert_false(upcc_kernel_at_least(6, 13));
	upcc_hooks.kernel_release = "garbage";
	assert_false(upcc_kernel_at_least(1, 0));
	upcc_hooks.kernel_release = NULL;
	assert_true(upcc_kernel_at_least(3, 0));
}

/* fadvise on a real tree: the pages asked for go, measured by residency. */
static void test_fadvise_real(void **state)
{
	char dir[PATH_MAX * 2], path[PATH_MAX * 3];
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope;
	struct upcc_action_result result;
	struct upcc_residency res;
	struct stat st;
	int fd;

	(void)state;
	fake_proc();
	/* Needs cachestat: under mincore a just-written file is left alone. */
	if (upcc_residency_method() != UPCC_RESIDENCY_CACHESTAT || ua_under_valgrind())
		skip();
	snprintf(dir, sizeof(dir), "%s/tree", root);
	assert_int_equal(ua_mkdir_p(dir), 0);
	snprintf(path, sizeof(path), "%s/file", dir);
	assert_int_equal(ua_cached_file(path, 256, 1), 0);
	scope = scope_of(UPCC_SCOPE_PATH, dir);
	assert_int_equal(upcc_backend_select(&backend, "auto", &scope), 0);
	assert_ptr_equal(backend.ops, &upcc_backend_fadvise);
	assert_non_null(strstr(backend.why, "auto: fadvise"));	/* first in auto order */
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 64, &result), 0);
	assert_true(result.reclaimed_pages >= 64);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(upcc_residency_fd(fd, &st, &res), 0);
	close(fd);
	/* The count is measured, so it matches; the host's own reclaim may
	 * take a page or two between the backend's look and ours, never add.
	 */
	assert_in_range(res.cached_pages, 256 - result.reclaimed_pages - HOST_RECLAIM_SLACK,
			256 - result.reclaimed_pages);
	assert_true(res.cached_pages > 0);	/* a window, not the whole file */
	backend.ops->fini(&backend);
	scope = scope_of(UPCC_SCOPE_CGROUP, "/sys/fs/cgroup");
	assert_int_equal(upcc_backend_select(&backend, "fadvise", &scope), -ENOTSUP);
	scope = scope_of(UPCC_SCOPE_PATH, "/proc");
	assert_int_equal(upcc_backend_select(&backend, "fadvise", &scope), -EMEDIUMTYPE);
}

/* Write a mountinfo fixture naming each of @dirs (on its real device) as an
 * ext4 mount, beside an initramfs root and pseudo filesystems; or, with no
 * dirs, only those.  Each is a different directory of the filesystem (root
 * /mN), as bind mounts of one disk are.  upcc_hooks.mountinfo then points the
 * system scope at it.
 */
static void fixture_mountinfo_of(const char *const *dirs, size_t nr_dirs)
{
	static char fixture[PATH_MAX + 32];
	char text[8 * PATH_MAX];
	struct stat st;
	size_t used;

	used = (size_t)snprintf(text, sizeof(text), "1 1 0:2 / / rw - rootfs rootfs rw\n"
				"2 1 0:20 / /proc rw - proc proc rw\n"
				"3 1 0:21 / /run rw - tmpfs tmpfs rw\n");
	for (size_t i = 0; i < nr_dirs; i++) {
		assert_int_equal(stat(dirs[i], &st), 0);
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "%zu 1 %u:%u /m%zu %s rw shared:1 - ext4 /dev/test rw\n",
					 i + 4, major(st.st_dev), minor(st.st_dev), i, dirs[i]);
		assert_true(used < sizeof(text));
	}
	snprintf(fixture, sizeof(fixture), "%s/mountinfo", root);
	assert_int_equal(ua_write_file(fixture, text), 0);
	upcc_hooks.mountinfo = fixture;
	/* No filesystem-wide mark on the host's build filesystem. */
	upcc_hooks.no_fanotify = 1;
}

static void fixture_mountinfo(const char *dir)
{
	fixture_mountinfo_of(&dir, dir ? 1 : 0);
}

/* fadvise measures a path scope from its inventory's refresh, as the walk of
 * upcc_measure_path() would, and the reclaims of the same round work on that
 * refresh instead of making another; the system scope is not its to measure.
 */
static void test_fadvise_sample_path(void **state)
{
	char dir[PATH_MAX * 2], path[PATH_MAX * 3];
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope;
	struct upcc_sample from_inventory, from_walk;
	struct upcc_action_result result;
	const struct upcc_inventory *inv;
	uint32_t scan;

	(void)state;
	fake_proc();
	if (upcc_residency_method() != UPCC_RESIDENCY_CACHESTAT || ua_under_valgrind())
		skip();
	snprintf(dir, sizeof(dir), "%s/sampled", root);
	assert_int_equal(ua_mkdir_p(dir), 0);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(ua_cached_file(path, 96, 1), 0);
	snprintf(path, sizeof(path), "%s/b", dir);
	assert_int_equal(ua_cached_file(path, 32, 1), 0);
	scope = scope_of(UPCC_SCOPE_PATH, dir);
	assert_int_equal(upcc_backend_select(&backend, "fadvise", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	assert_non_null(backend.ops->sample);
	assert_int_equal(backend.ops->sample(&backend, &scope, 0, &from_inventory), 0);
	assert_int_equal(upcc_measure_path(&scope, &from_walk), 0);
	/* Measured one after the other: the host may reclaim a page between. */
	assert_in_range(from_inventory.file_lru_pages,
			from_walk.file_lru_pages, from_walk.file_lru_pages + HOST_RECLAIM_SLACK);
	assert_in_range(from_inventory.file_lru_pages, 128 - HOST_RECLAIM_SLACK, 128);
	assert_true(from_inventory.unmapped_pages == from_inventory.file_lru_pages);
	assert_true(from_inventory.total_pages == from_walk.total_pages);
	/* The inventory is the state's first member (backend_fadvise.c). */
	inv = backend.priv;
	scan = inv->scan;
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 40, &result), 0);
	assert_true(result.reclaimed_pages >= 40);
	assert_int_equal(inv->scan, scan);	/* no second refresh in the step */
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 8, &result), 0);
	assert_int_equal(inv->scan, scan);	/* the same round a moment later: its refresh */
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 1, 8, &result), 0);
	assert_int_equal(inv->scan, scan + 1);	/* a new round's reclaim refreshes */
	backend.ops->fini(&backend);

	scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	fixture_mountinfo(dir);
	assert_int_equal(upcc_backend_select(&backend, "fadvise", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	assert_int_equal(backend.ops->sample(&backend, &scope, 0, &from_inventory), -EOPNOTSUPP);
	backend.ops->fini(&backend);
	upcc_hooks.mountinfo = NULL;
	upcc_hooks.no_fanotify = 0;
}

/* The system scope on an initramfs root with no disk: it starts, says why
 * it has nothing to do, and reclaims nothing.
 */
static void test_fadvise_system_no_disk(void **state)
{
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	struct upcc_action_result result;

	(void)state;
	fake_proc();
	fixture_mountinfo(NULL);
	assert_int_equal(upcc_backend_select(&backend, "fadvise", &scope), 0);
	assert_non_null(strstr(backend.why, "no local disk-backed filesystem: nothing to reclaim"));
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 64, &result), 0);
	assert_int_equal(result.reclaimed_pages, 0);
	assert_int_equal(result.scanned_items, 0);
	backend.ops->fini(&backend);
	upcc_hooks.mountinfo = NULL;
	upcc_hooks.no_fanotify = 0;
}

/* ... and with a disk (the test's own directory): its files are the
 * inventory, and the pages asked for go from them.
 */
static void test_fadvise_system_disk(void **state)
{
	char dir[PATH_MAX * 2], path[PATH_MAX * 3];
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_NODE, NULL);
	struct upcc_action_result result;
	struct upcc_residency res;
	struct stat st;
	int fd;

	(void)state;
	fake_proc();
	snprintf(dir, sizeof(dir), "%s/data", root);
	assert_int_equal(ua_mkdir_p(dir), 0);
	fixture_mountinfo(dir);
	assert_int_equal(upcc_backend_select(&backend, "fadvise", &scope), 0);
	assert_non_null(strstr(backend.why, "; 1 local disk filesystem: "));
	assert_non_null(strstr(backend.why, " (ext4)"));
	if (upcc_residency_method() != UPCC_RESIDENCY_CACHESTAT || ua_under_valgrind()) {
		upcc_hooks.mountinfo = NULL;
		upcc_hooks.no_fanotify = 0;
		skip();		/* under mincore a just-written file is left alone */
	}
	snprintf(path, sizeof(path), "%s/file", dir);
	assert_int_equal(ua_cached_file(path, 128, 1), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 32, &result), 0);
	assert_true(result.reclaimed_pages >= 32);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(upcc_residency_fd(fd, &st, &res), 0);
	close(fd);
	assert_in_range(res.cached_pages, 128 - result.reclaimed_pages - HOST_RECLAIM_SLACK,
			128 - result.reclaimed_pages);
	backend.ops->fini(&backend);
	upcc_hooks.mountinfo = NULL;
	upcc_hooks.no_fanotify = 0;
}

/* The system scope's walks leave out directories deeper than the walk's
 * limit; the reclaim says how many in the scope's sample, which upcd logs.
 */
static void test_fadvise_system_walk_skips(void **state)
{
	char dir[PATH_MAX * 2], path[PATH_MAX * 3];
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	struct upcc_action_result result;
	size_t used;

	(void)state;
	fake_proc();
	snprintf(dir, sizeof(dir), "%s/deep", root);
	assert_int_equal(ua_mkdir_p(dir), 0);
	fixture_mountinfo(dir);
	used = (size_t)snprintf(path, sizeof(path), "%s", dir);
	for (unsigned int i = 0; i < UPCC_WALK_DEFAULT_MAX_DEPTH + 4; i++)
		used += (size_t)snprintf(path + used, sizeof(path) - used, "/d");
	assert_true(used < sizeof(path) - 8);
	assert_int_equal(ua_mkdir_p(path), 0);
	snprintf(path + used, sizeof(path) - used, "/f");
	assert_int_equal(ua_cached_file(path, 4, 1), 0);
	assert_int_equal(upcc_backend_select(&backend, "fadvise", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 1, &result), 0);
	assert_true(result.skipped_depth > 0);
	backend.ops->fini(&backend);
	upcc_hooks.mountinfo = NULL;
	upcc_hooks.no_fanotify = 0;
}

/* A change of the inventory's roots is said once: the steps of a round
 * after its first reuse the first one's refresh, and each said its news
 * again (a mount joining was logged every step).
 */
static void test_fadvise_note_once_a_refresh(void **state)
{
	char one[PATH_MAX * 2], two[PATH_MAX * 2];
	const char *dirs[2] = { one, two };
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	struct upcc_action_result result;

	(void)state;
	fake_proc();
	snprintf(one, sizeof(one), "%s/note1", root);
	snprintf(two, sizeof(two), "%s/note2", root);
	assert_int_equal(ua_mkdir_p(one), 0);
	assert_int_equal(ua_mkdir_p(two), 0);
	fixture_mountinfo_of(dirs, 1);
	assert_int_equal(upcc_backend_select(&backend, "fadvise", &scope), 0);
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 0, 8, &result), 0);
	fixture_mountinfo_of(dirs, 2);		/* a disk mounted */
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 1, 8, &result), 0);
	assert_non_null(strstr(result.note, "inventory: mounted "));
	assert_non_null(strstr(result.note, two));
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 1, 8, &result), 0);
	assert_string_equal(result.note, "");	/* the same round's next step */
	assert_int_equal(backend.ops->reclaim(&backend, &scope, 2, 8, &result), 0);
	assert_string_equal(result.note, "");	/* a new refresh, no change */
	backend.ops->fini(&backend);
	upcc_hooks.mountinfo = NULL;
	upcc_hooks.no_fanotify = 0;
}

/* Deep mount points (CI checks out under long paths): `why` names the first
 * three whole and counts the rest; detail() gives every root, whole.
 */
static void test_fadvise_system_long_paths(void **state)
{
	enum { NR_MOUNTS = 5 };
	char dirs[NR_MOUNTS][2 * PATH_MAX], line[2 * PATH_MAX + 64], deep[201];
	const char *dir_names[NR_MOUNTS];
	struct upcc_backend backend = { 0 };
	struct upcc_scope scope = scope_of(UPCC_SCOPE_SYSTEM, NULL);
	size_t nr_lines = 0, why_len;

	(void)state;
	fake_proc();
	memset(deep, 'd', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	for (size_t i = 0; i < NR_MOUNTS; i++) {
		snprintf(dirs[i], sizeof(dirs[i]), "%s/%s/m%zu", root, deep, i);
		assert_int_equal(ua_mkdir_p(dirs[i]), 0);
		dir_names[i] = dirs[i];
	}
	fixture_mountinfo_of(dir_names, NR_MOUNTS);
	assert_int_equal(upcc_backend_select(&backend, "fadvise", &scope), 0);
	/* The count comes first and the first mount always fits whole; how
	 * many more fit depends on where this runs, but a cut is marked.
	 */
	why_len = strlen(backend.why);
	assert_true(why_len < sizeof(backend.why));
	assert_non_null(strstr(backend.why, "; 5 local disk filesystems: "));
	assert_non_null(strstr(backend.why, dirs[0]));
	assert_null(strstr(backend.why, dirs[3]));
	assert_true(strstr(backend.why, " and 2 more") ||
		    (why_len == sizeof(backend.why) - 1 &&
		     strcmp(backend.why + why_len - 3, "...") == 0));
	assert_int_equal(backend.ops->init(&backend, &scope), 0);
	if (why_len + 64 < sizeof(backend.why))	/* room left: how it learns */
		assert_non_null(strstr(backend.why, "; inventory: walks"));
	while (backend.ops->detail(&backend, nr_lines, line, sizeof(line))) {
		assert_non_null(strstr(line, dirs[nr_lines]));
		nr_lines++;
	}
	assert_int_equal(nr_lines, NR_MOUNTS);
	backend.ops->fini(&backend);
	upcc_hooks.mountinfo = NULL;
	upcc_hooks.no_fanotify = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_find, per_test),
		cmocka_unit_test_setup(test_select_unknown, per_test),
		cmocka_unit_test_setup(test_dropcache, per_test),
		cmocka_unit_test_setup(test_memcg_sequence, per_test),
		cmocka_unit_test_setup(test_memcg_refuses_dirty, per_test),
		cmocka_unit_test_setup(test_auto_never_memcg, per_test),
		cmocka_unit_test_setup(test_auto_order, per_test),
		cmocka_unit_test_setup(test_damon_sequence, per_test),
		cmocka_unit_test_setup(test_damon_cgroup_filter, per_test),
		cmocka_unit_test_setup(test_damon_never_takes_over, per_test),
		cmocka_unit_test_setup(test_damon_leftover, per_test),
		cmocka_unit_test_setup(test_damon_marker_pid_reused, per_test),
		cmocka_unit_test_setup(test_damon_marker_not_regular, per_test),
		cmocka_unit_test_setup(test_damon_start_refused, per_test),
		cmocka_unit_test_setup(test_damon_stopped_by_itself, per_test),
		cmocka_unit_test_setup(test_damon_fini_busy, per_test),
		cmocka_unit_test_setup(test_damon_step_bounded, per_test),
		cmocka_unit_test_setup(test_kernel_at_least, per_test),
		cmocka_unit_test_setup(test_fadvise_real, per_test),
		cmocka_unit_test_setup(test_fadvise_sample_path, per_test),
		cmocka_unit_test_setup(test_fadvise_system_no_disk, per_test),
		cmocka_unit_test_setup(test_fadvise_system_disk, per_test),
		cmocka_unit_test_setup(test_fadvise_system_walk_skips, per_test),
		cmocka_unit_test_setup(test_fadvise_system_long_paths, per_test),
		cmocka_unit_test_setup(test_fadvise_note_once_a_refresh, per_test),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
