// SPDX-License-Identifier: GPL-2.0
/*
 * backend_damon.c - a DAMOS "pageout" scheme on the physical address space,
 * through /sys/kernel/mm/damon/admin, set up for one request and torn down
 * after it.
 *
 * Keeping to the rules: the scheme's filters reject anonymous pages ("anon")
 * and mapped pages ("unmapped" with matching=N); for a cgroup scope a
 * "memcg" filter rejects other cgroups' pages.  The "unmapped" filter type
 * only exists from Linux 6.15: 6.12's mm/damon/sysfs-schemes.c has anon,
 * memcg, young, addr and target, none of which keeps mapped file pages out,
 * and damon_pa_pageout() reclaims with may_unmap=1.  So on older kernels
 * this backend does not probe as usable.  Dirty file pages are safe either
 * way: reclaim_pages() runs from kdamond, not kswapd, and shrink_folio_list()
 * never starts filesystem writeback outside kswapd; nor does it wake the
 * flusher, since it does not go through shrink_inactive_list(), whose
 * wakeup_flusher_threads() is why memcg refuses to act on a dirty scope.
 *
 * DAMON belongs to whoever set it up first: if any kdamond exists
 * (nr_kdamonds != 0) the backend refuses and auto falls back.
 */
#include "backend.h"
#include "core/size.h"
#include "lib/clock.h"
#include "sys/sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DAMON_ADMIN		"/sys/kernel/mm/damon/admin"
#define CGROUP2_MOUNT		"/sys/fs/cgroup"
#define POLL_INTERVAL_MS	100
#define POLL_LIMIT_MS		5000

struct damon_priv {
	char admin[PATH_MAX];
	char memcg_path[PATH_MAX];	/* cgroup scope: path below the cgroup2 mount */
	unsigned long long ram_start, ram_end;	/* end exclusive */
};

static int admin_file(const char *admin, const char *rel, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", admin, rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int admin_write(const char *admin, const char *rel, const char *value)
{
	char path[PATH_MAX + 256];
	int err = admin_file(admin, rel, path, sizeof(path));

	return err ? err : upcc_sysfs_write(path, value);
}

static int admin_read(const char *admin, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX + 256];
	int err = admin_file(admin, rel, path, sizeof(path));

	return err ? err : upcc_sysfs_read_line(path, buf, len);
}

/* Is DAMON free for us?  0, -ENOENT (no sysfs interface) or -EBUSY. */
static int damon_free(const char *admin)
{
	char value[32];
	int err = admin_read(admin, "kdamonds/nr_kdamonds", value, sizeof(value));

	if (err)
		return -ENOENT;
	return strcmp(value, "0") == 0 ? 0 : -EBUSY;
}

static int damon_probe(const struct upcc_scope *scope, char *why, size_t why_len)
{
	char admin[PATH_MAX];
	int err;

	if (scope->kind == UPCC_SCOPE_PATH || scope->kind == UPCC_SCOPE_NODE) {
		snprintf(why, why_len, "physical-address DAMOS cannot aim at a %s",
			 scope->kind == UPCC_SCOPE_PATH ? "directory tree" : "single node");
		return -ENOTSUP;
	}
	if (upcc_sysfs_path(admin, sizeof(admin), DAMON_ADMIN))
		return -ENAMETOOLONG;
	err = damon_free(admin);
	if (err == -ENOENT) {
		snprintf(why, why_len, "no DAMON sysfs interface (CONFIG_DAMON_SYSFS)");
		return err;
	}
	if (err == -EBUSY) {
		snprintf(why, why_len, "DAMON already in use by someone else: never taken over");
		return err;
	}
	if (!upcc_kernel_at_least(6, 15)) {
		snprintf(why, why_len, "no DAMOS filter keeps mapped pages out before 6.15 "
			 "('unmapped' type)");
		return -ENOTSUP;
	}
	snprintf(why, why_len, "DAMOS pageout of cold pages, anon and mapped filtered out");
	return 0;
}

/*
 * One region spanning every top-level "System RAM" range of /proc/iomem.
 * damo takes the largest range only, which leaves out e.g. all RAM above
 * 4 GiB on a machine whose low range is bigger; holes in the span cost
 * nothing but sampling accuracy (damon_get_folio() skips invalid pfns).
 */
static int system_ram_span(unsigned long long *start, unsigned long long *end)
{
	char path[PATH_MAX], line[256];
	bool found = false;
	FILE *f;

	if (upcc_sysfs_path(path, sizeof(path), "/proc/iomem"))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;

		if (line[0] == ' ' || !strstr(line, ": System RAM"))
			continue;
		if (sscanf(line, "%llx-%llx", &s, &e) != 2 || e < s)
			continue;
		if (!found || s < *start)
			*start = s;
		if (!found || e + 1 > *end)
			*end = e + 1;
		found = true;
	}
	fclose(f);
	/* Without root, iomem shows zeros: no usable range. */
	return found && *end > *start + 1 ? 0 : -ENODATA;
}

static int set_memcg_path(struct damon_priv *priv, const struct upcc_scope *scope)
{
	const char *rel = scope->path;
	size_t mount_len = strlen(CGROUP2_MOUNT);

	if (strncmp(rel, CGROUP2_MOUNT, mount_len) == 0 &&
	    (rel[mount_len] == '/' || rel[mount_len] == '\0'))
		rel += mount_len;
	if (!*rel)
		rel = "/";
	if (strlen(rel) >= sizeof(priv->memcg_path))
		return -ENAMETOOLONG;
	strcpy(priv->memcg_path, rel);
	return 0;
}

static int damon_init(struct upcc_backend *backend, const struct upcc_scope *scope)
{
	struct damon_priv *priv = calloc(1, sizeof(*priv));
	int err;

	if (!priv)
		return -ENOMEM;
	err = upcc_sysfs_path(priv->admin, sizeof(priv->admin), DAMON_ADMIN);
	if (!err)
		err = system_ram_span(&priv->ram_start, &priv->ram_end);
	if (!err && scope->kind == UPCC_SCOPE_CGROUP)
		err = set_memcg_path(priv, scope);
	if (err) {
		free(priv);
		return err;
	}
	backend->priv = priv;
	return 0;
}

struct admin_step {
	const char *rel;
	const char *value;
};

static int write_steps(const char *admin, const struct admin_step *steps, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		int err = admin_write(admin, steps[i].rel, steps[i].value);

		if (err)
			return err;
	}
	return 0;
}

#define CTX	"kdamonds/0/contexts/0/"
#define SCHEME	CTX "schemes/0/"

/* avail_operations lists one operations set per line. */
static int check_paddr(const char *admin)
{
	char path[PATH_MAX + 256], line[64];
	bool found = false;
	FILE *f;

	if (admin_file(admin, CTX "avail_operations", path, sizeof(path)))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return 0;	/* older kernels lack the file; writing "paddr" will tell */
	while (!found && fgets(line, sizeof(line), f))
		found = strcmp(line, "paddr\n") == 0 || strcmp(line, "paddr") == 0;
	fclose(f);
	return found ? 0 : -ENOTSUP;
}

static int write_scheme(const struct damon_priv *priv, uint64_t bytes)
{
	char start[32], end[32], quota[32];
	bool cgroup = priv->memcg_path[0] != '\0';
	const struct admin_step context[] = {
		{ CTX "operations", "paddr" },
		{ CTX "targets/nr_targets", "1" },
		{ CTX "targets/0/regions/nr_regions", "1" },
		{ CTX "targets/0/regions/0/start", start },
		{ CTX "targets/0/regions/0/end", end },
		{ CTX "schemes/nr_schemes", "1" },
		{ SCHEME "action", "pageout" },
		{ SCHEME "access_pattern/nr_accesses/max", "0" },
		{ SCHEME "quotas/bytes", quota },
		{ SCHEME "quotas/reset_interval_ms", "1000" },
		{ SCHEME "filters/nr_filters", cgroup ? "3" : "2" },
		{ SCHEME "filters/0/type", "anon" },
		{ SCHEME "filters/0/matching", "Y" },
		{ SCHEME "filters/0/allow", "N" },
		{ SCHEME "filters/1/type", "unmapped" },
		{ SCHEME "filters/1/matching", "N" },
		{ SCHEME "filters/1/allow", "N" },
	};
	const struct admin_step memcg[] = {
		{ SCHEME "filters/2/type", "memcg" },
		{ SCHEME "filters/2/memcg_path", priv->memcg_path },
		{ SCHEME "filters/2/matching", "N" },
		{ SCHEME "filters/2/allow", "N" },
	};
	int err;

	snprintf(start, sizeof(start), "%llu", priv->ram_start);
	snprintf(end, sizeof(end), "%llu", priv->ram_end);
	snprintf(quota, sizeof(quota), "%llu", (unsigned long long)bytes);
	err = check_paddr(priv->admin);
	if (!err)
		err = write_steps(priv->admin, context, sizeof(context) / sizeof(context[0]));
	if (!err && cgroup)
		err = write_steps(priv->admin, memcg, sizeof(memcg) / sizeof(memcg[0]));
	return err;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Let the scheme run until it applied @bytes or the time is up. */
static uint64_t wait_applied(const char *admin, uint64_t bytes)
{
	unsigned long long applied = 0;
	char value[32];

	for (unsigned int waited = 0; waited < POLL_LIMIT_MS; waited += POLL_INTERVAL_MS) {
		sleep_ms(POLL_INTERVAL_MS);
		if (admin_write(admin, "kdamonds/0/state", "update_schemes_stats"))
			break;
		if (admin_read(admin, SCHEME "stats/sz_applied", value, sizeof(value)) ||
		    sscanf(value, "%llu", &applied) != 1)
			break;
		if (applied >= bytes)
			break;
	}
	return applied;
}

static int damos_once(const struct damon_priv *priv, uint64_t bytes, uint64_t *applied)
{
	int err = admin_write(priv->admin, "kdamonds/nr_kdamonds", "1");

	if (err)
		return err;
	err = admin_write(priv->admin, "kdamonds/0/contexts/nr_contexts", "1");
	if (!err)
		err = write_scheme(priv, bytes);
	if (!err)
		err = admin_write(priv->admin, "kdamonds/0/state", "on");
	if (!err)
		*applied = wait_applied(priv->admin, bytes);
	/* Leave DAMON as we found it, whatever happened above. */
	admin_write(priv->admin, "kdamonds/0/state", "off");
	admin_write(priv->admin, "kdamonds/nr_kdamonds", "0");
	return err;
}

static int damon_reclaim(struct upcc_backend *backend, const struct upcc_scope *scope,
			 uint64_t round, uint64_t nr_pages, struct upcc_action_result *result)
{
	struct damon_priv *priv = backend->priv;
	uint64_t page = upcc_page_size(), applied = 0;
	uint64_t start_usec;
	int err;

	(void)scope;
	(void)round;	/* nothing of a step outlives it */
	if (!upcc_reclaim_begin(backend, nr_pages, result, &start_usec))
		return 0;
	if (!priv)
		return -EINVAL;	/* init was not called */
	/* Someone may have started DAMON since we probed: still never take over. */
	err = damon_free(priv->admin);
	if (!err)
		err = damos_once(priv, nr_pages * page, &applied);
	result->reclaimed_pages = applied / page;
	result->scanned_items = 1;
	return upcc_reclaim_end(result, start_usec, err);
}

static void damon_fini(struct upcc_backend *backend)
{
	free(backend->priv);
	backend->priv = NULL;
}

const struct upcc_backend_ops upcc_backend_damon = {
	.name = "damon",
	.probe = damon_probe,
	.init = damon_init,
	.reclaim = damon_reclaim,
	.fini = damon_fini,
	.may_unmap = false,
	.auto_rank = 1,
};
