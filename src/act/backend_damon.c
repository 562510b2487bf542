// SPDX-License-Identifier: GPL-2.0
/*
 * backend_damon.c - one long-running DAMOS "pageout" scheme on the physical
 * address space, through /sys/kernel/mm/damon/admin: its kdamond is
 * started when the scope's backend is set up and kept until it is let go
 * (stop, reload), because the access history DAMON builds over time is
 * the point.  A fresh kdamond has none: "no access seen" at its start is
 * every region, so a scheme set up per request would page out the hot set
 * with the cold.  The scheme also asks for an age ("damon_min_age"): a
 * region is cold only after DAMON saw no access to it for that long.
 *
 * Between steps the scheme idles on a 1-byte size quota (less than a
 * page: damos_quota_is_full() skips every region, no folio is walked);
 * a step raises the quota, a bounded share a window, until the scheme's
 * sz_applied says it paged out what upcd decided, then lowers it again.
 *
 * Keeping to the rules: the scheme's filters reject anonymous pages
 * ("anon"), mapped pages ("unmapped" with matching=N) and pages accessed
 * since DAMON last looked ("young": a region DAMON saw cold may still hold
 * a page used between two samples); for a cgroup scope a "memcg" filter
 * rejects other cgroups' pages.  The "unmapped" filter type only exists
 * from Linux 6.15: 6.12's mm/damon/sysfs-schemes.c has anon, memcg, young,
 * addr and target, none of which keeps mapped file pages out, and
 * damon_pa_pageout() reclaims with may_unmap=1.  So on older kernels
 * this backend does not probe as usable.  Dirty file pages are safe either
 * way: reclaim_pages() runs from kdamond, not kswapd, and shrink_folio_list()
 * never starts filesystem writeback outside kswapd; nor does it wake the
 * flusher, since it does not go through shrink_inactive_list(), whose
 * wakeup_flusher_threads() is why memcg refuses to act on a dirty scope.
 *
 * DAMON belongs to whoever set it up first: if any kdamond exists that is
 * not provably ours, the backend refuses and auto falls back.  Ours means
 * the marker file (MARKER) names this boot, a kdamond pid that kdamond 0
 * has now, and an upcd that is no longer running: then it is what a killed
 * upcd left behind, and it is removed before a new one starts.
 */
#include "backend.h"
#include "core/size.h"
#include "lib/atomicfile.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/pace.h"
#include "sys/procstat.h"
#include "sys/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DAMON_ADMIN		"/sys/kernel/mm/damon/admin"
#define CGROUP2_MOUNT		"/sys/fs/cgroup"
#define BOOT_ID			"/proc/sys/kernel/random/boot_id"
/* /run is emptied at boot, like DAMON's state: a marker never outlives it. */
#define MARKER_DIR		"/run/upcc"
#define MARKER_NAME		"damon-kdamond"
#define MARKER			MARKER_DIR "/" MARKER_NAME
/*
 * A step polls sz_applied 5 times a quota window, so that it lowers the
 * quota before the next window applies what is left once more (polling
 * once a window let a step page out twice what it asked).  It ends after
 * STEP_LIMIT_MS, EBUSY retries included, or at once when a signal waits
 * (lib/pace.h): with the idle quota's two writes and the last read, a
 * busy DAMON keeps a step under 10 s, well within WatchdogSec=30s.
 */
#define POLL_INTERVAL_MS	20
#define STEP_LIMIT_MS		5000
/*
 * DAMON's own sysfs defaults, written out because the scheme's age is
 * counted in aggregation intervals: min_age / AGGR_US.  The quota's
 * window is short so that a step's new quota takes effect at once (the
 * effective quota is recomputed only when a window starts).
 */
#define SAMPLE_US		5000
#define AGGR_US			100000
#define UPDATE_US		1000000
#define QUOTA_RESET_MS		100
#define QUOTA_IDLE		"1"
/*
 * What a raised quota lets one window page out, whatever the step asked:
 * if upcd dies (SIGKILL) before it lowers the quota, its kdamond goes on
 * applying it every window until the next upcd removes it.  So a window
 * gets at most WINDOW_BYTES (40 MiB/s of cold, unmapped, not young page
 * cache), and kdamond at most QUOTA_MS of its time on the action per
 * window (DAMOS's time quota, "ms"): 20% of a CPU, orphaned or not.
 */
#define WINDOW_BYTES		(4ull << 20)
#define QUOTA_MS		"20"

#define KDAMOND	"kdamonds/0/"
#define CTX	KDAMOND "contexts/0/"
#define SCHEME	CTX "schemes/0/"

struct damon_priv {
	char admin[PATH_MAX];
	char memcg_path[PATH_MAX];	/* cgroup scope: path below the cgroup2 mount */
	unsigned long long ram_start, ram_end;	/* end exclusive */
	uint64_t min_age_ms;
	long kdamond_pid;		/* 0: no kdamond of ours */
	uint64_t kdamond_cpu_usec;	/* its CPU at the last step */
};

static int admin_file(const char *admin, const char *rel, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", admin, rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * DAMON's sysfs files answer -EBUSY while another writer holds
 * damon_sysfs_lock (mutex_trylock in mm/damon/sysfs.c): someone reading
 * a kdamond's state or pid, or our own commit still in flight.  A busy
 * file is read again, for up to BUSY_RETRIES x 10 ms, so that a reader
 * elsewhere cannot make us take our kdamond for someone else's.
 */
#define BUSY_RETRIES	50

static int admin_write(const char *admin, const char *rel, const char *value)
{
	struct timespec pause = { 0, 10 * 1000000L };
	char path[PATH_MAX + 256];
	int err = admin_file(admin, rel, path, sizeof(path));

	for (int i = 0; !err || err == -EBUSY; i++) {
		err = upcc_sysfs_write(path, value);
		if (err != -EBUSY || i == BUSY_RETRIES)
			break;
		nanosleep(&pause, NULL);
	}
	return err;
}

static int admin_read(const char *admin, const char *rel, char *buf, size_t len)
{
	struct timespec pause = { 0, 10 * 1000000L };
	char path[PATH_MAX + 256];
	int err = admin_file(admin, rel, path, sizeof(path));

	for (int i = 0; !err || err == -EBUSY; i++) {
		err = upcc_sysfs_read_line(path, buf, len);
		if (err != -EBUSY || i == BUSY_RETRIES)
			break;
		nanosleep(&pause, NULL);
	}
	return err;
}

static int admin_read_ull(const char *admin, const char *rel, unsigned long long *value)
{
	char text[32];
	int err = admin_read(admin, rel, text, sizeof(text));

	if (err)
		return err;
	return sscanf(text, "%llu", value) == 1 ? 0 : -EINVAL;
}

/*
 * kdamond 0's pid into *@pid, 0 when it is off (the file says -1); or
 * -errno.  -EBUSY (the file stayed busy through the retries) says nothing
 * of whose kdamond it is: the callers must not take it for "not ours".
 */
static int read_kdamond_pid(const char *admin, long *pid)
{
	char text[32];
	int err = admin_read(admin, KDAMOND "pid", text, sizeof(text));

	if (err)
		return err;
	if (sscanf(text, "%ld", pid) != 1)
		return -EINVAL;
	if (*pid < 0)
		*pid = 0;
	return 0;
}

/*
 * The marker: "BOOT_ID KDAMOND_PID UPCD_PID UPCD_START".  A kdamond's pid
 * is not reused while the thread lives, and the boot id tells this boot's
 * pids from the last one's, should /run not be a tmpfs.  upcd's pid alone
 * could be reused, by the next upcd itself after a crash: its start time
 * (field 22 of /proc/PID/stat) tells them apart.  0 for a marker written
 * before the start time was (three fields).
 */
struct marker {
	char boot_id[64];
	long kdamond_pid, upcd_pid;
	unsigned long long upcd_start;
};

static int read_boot_id(char *buf, size_t len)
{
	char path[PATH_MAX];

	if (upcc_sysfs_path(path, sizeof(path), BOOT_ID))
		return -ENAMETOOLONG;
	return upcc_sysfs_read_line(path, buf, len);
}

/* This process's start time, 0 if unknown (never under the test root). */
static unsigned long long own_start_time(void)
{
	struct upcc_procstat st;

	return upcc_procstat_read("/proc/self/stat", &st) ? 0 : st.start_time;
}

/*
 * The marker's directory, opened as atomicfile.h opens every directory
 * upcd writes in: no symbolic link on the way, owned by root or us, and
 * writable by nobody else, so what is in it is ours to trust.
 */
static int open_marker_dir(void)
{
	char dir[PATH_MAX];

	if (upcc_sysfs_path(dir, sizeof(dir), MARKER_DIR))
		return -ENAMETOOLONG;
	return upcc_atomic_open_dir(dir, NULL, 0);
}

/*
 * The marker's text: never through a symbolic link (O_NOFOLLOW), never a
 * FIFO's open that waits for a writer (O_NONBLOCK) or a device's, only a
 * regular file of root's or ours.
 */
static int read_marker_text(char *buf, size_t len)
{
	int dirfd = open_marker_dir(), fd, err = 0;
	struct stat st;
	ssize_t n;

	if (dirfd < 0)
		return dirfd;
	fd = openat(dirfd, MARKER_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	close(dirfd);
	if (err)
		return err;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid()))
		err = -EINVAL;
	n = err ? 0 : read(fd, buf, len - 1);
	if (n < 0)
		err = -errno;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return err;
}

static int read_marker(struct marker *marker)
{
	char text[256];
	int err = read_marker_text(text, sizeof(text)), n;

	if (err)
		return err;
	marker->upcd_start = 0;
	n = sscanf(text, "%63s %ld %ld %llu", marker->boot_id, &marker->kdamond_pid,
		   &marker->upcd_pid, &marker->upcd_start);
	return n >= 3 ? 0 : -EINVAL;
}

/* Whole or not at all, through atomicfile.h (no link, no one else's folder). */
static int write_marker(long pid)
{
	char path[PATH_MAX], boot_id[64], text[160], why[256] = "";
	int err;

	if (read_boot_id(boot_id, sizeof(boot_id)))
		snprintf(boot_id, sizeof(boot_id), "-");
	if (upcc_sysfs_path(path, sizeof(path), MARKER))
		return -ENAMETOOLONG;
	snprintf(text, sizeof(text), "%s %ld %ld %llu\n", boot_id, pid, (long)getpid(),
		 own_start_time());
	err = upcc_atomic_write(path, text, strlen(text), UPCC_ATOMIC_MKDIR, why, sizeof(why));
	if (err)
		upcc_log(LOG_WARNING, "damon: cannot write its marker: %s", why);
	return err;
}

static void remove_marker(void)
{
	int dirfd = open_marker_dir();

	if (dirfd >= 0) {
		unlinkat(dirfd, MARKER_NAME, 0);	/* a link planted there: the link */
		close(dirfd);
	}
}

/*
 * Is the marker's upcd, not this one, running?  Its pid is alive, its
 * start time is the marker's (else the pid was reused) and its comm says
 * upcd, in this pid namespace.
 */
static bool upcd_running(const struct marker *marker)
{
	char rel[64], path[PATH_MAX], comm[32];
	struct upcc_procstat st;
	long pid = marker->upcd_pid;

	if (pid <= 0 || (kill((pid_t)pid, 0) && errno == ESRCH))
		return false;
	snprintf(rel, sizeof(rel), "/proc/%ld/stat", pid);
	if (marker->upcd_start &&
	    !upcc_sysfs_path(path, sizeof(path), rel) && !upcc_procstat_read(path, &st) &&
	    st.start_time != marker->upcd_start)
		return false;
	snprintf(rel, sizeof(rel), "/proc/%ld/comm", pid);
	return !upcc_sysfs_path(path, sizeof(path), rel) &&
	       upcc_sysfs_read_line(path, comm, sizeof(comm)) == 0 &&
	       strcmp(comm, "upcd") == 0;
}

/* Does the marker name this very upcd (not a crashed one of our pid)? */
static bool marker_is_this_upcd(const struct marker *marker)
{
	return marker->upcd_pid == (long)getpid() &&
	       (!marker->upcd_start || marker->upcd_start == own_start_time());
}

enum damon_owner {
	DAMON_FREE,		/* no kdamond */
	DAMON_LEFTOVER,		/* one kdamond, left by an upcd that is gone */
	DAMON_FOREIGN,		/* someone else's, or a running upcd's */
	DAMON_ABSENT,		/* no DAMON sysfs interface */
};

/* Who has DAMON?  @why says, for DAMON_LEFTOVER and DAMON_FOREIGN. */
static enum damon_owner damon_owner(const char *admin, char *why, size_t why_len)
{
	unsigned long long nr;
	struct marker marker;
	char boot_id[64];
	long pid;
	int err;

	if (admin_read_ull(admin, "kdamonds/nr_kdamonds", &nr))
		return DAMON_ABSENT;
	if (nr == 0)
		return DAMON_FREE;
	if (read_marker(&marker)) {
		snprintf(why, why_len, "DAMON already in use by someone else (%llu kdamond%s, "
			 "no upcd marker): never taken over", nr, nr == 1 ? "" : "s");
		return DAMON_FOREIGN;
	}
	err = read_kdamond_pid(admin, &pid);
	if (err == -EBUSY) {
		snprintf(why, why_len, "DAMON's sysfs files stayed busy (someone else holds "
			 "them): whose kdamond it is cannot be told, not taken over");
		return DAMON_FOREIGN;
	}
	/* A pid of 0: kdamond 0 is off, which the marker's kdamond may have
	 * become by itself (its context failed): then it is told by the
	 * boot id and the marker's upcd alone.
	 */
	if (nr != 1 || err || (pid && pid != marker.kdamond_pid) ||
	    read_boot_id(boot_id, sizeof(boot_id)) || strcmp(boot_id, marker.boot_id)) {
		snprintf(why, why_len, "DAMON already in use by someone else (%llu kdamond%s; "
			 "upcd's marker names kdamond %ld of another boot or one that is gone): "
			 "never taken over", nr, nr == 1 ? "" : "s", marker.kdamond_pid);
		return DAMON_FOREIGN;
	}
	if (marker_is_this_upcd(&marker)) {
		/* Another scope of ours has it: DAMON's sysfs gives a kdamond
		 * per context, but this backend keeps to kdamond 0.
		 */
		snprintf(why, why_len, "DAMON already in use by another damon scope of this upcd "
			 "(kdamond %ld): one damon scope per upcd", pid);
		return DAMON_FOREIGN;
	}
	if (marker.upcd_pid != (long)getpid() && upcd_running(&marker)) {
		snprintf(why, why_len, "DAMON already in use by the upcd of pid %ld (kdamond %ld): "
			 "never taken over", marker.upcd_pid, pid);
		return DAMON_FOREIGN;
	}
	if (pid)
		snprintf(why, why_len, "kdamond %ld was left running by upcd %ld, which is gone",
			 pid, marker.upcd_pid);
	else
		snprintf(why, why_len, "kdamond %ld of upcd %ld, which is gone, was left "
			 "stopped", marker.kdamond_pid, marker.upcd_pid);
	return DAMON_LEFTOVER;
}

static int damon_probe(const struct upcc_scope *scope, char *why, size_t why_len)
{
	char admin[PATH_MAX], owner_why[256] = "";
	enum damon_owner owner;

	if (scope->kind == UPCC_SCOPE_PATH || scope->kind == UPCC_SCOPE_NODE) {
		snprintf(why, why_len, "physical-address DAMOS cannot aim at a %s",
			 scope->kind == UPCC_SCOPE_PATH ? "directory tree" : "single node");
		return -ENOTSUP;
	}
	if (upcc_sysfs_path(admin, sizeof(admin), DAMON_ADMIN))
		return -ENAMETOOLONG;
	owner = damon_owner(admin, owner_why, sizeof(owner_why));
	if (owner == DAMON_ABSENT) {
		snprintf(why, why_len, "no DAMON sysfs interface (CONFIG_DAMON_SYSFS)");
		return -ENOENT;
	}
	if (owner == DAMON_FOREIGN) {
		snprintf(why, why_len, "%s", owner_why);
		return -EBUSY;
	}
	if (!upcc_kernel_at_least(6, 15)) {
		snprintf(why, why_len, "no DAMOS filter keeps mapped pages out before 6.15 "
			 "('unmapped' type)");
		return -ENOTSUP;
	}
	snprintf(why, why_len, "a long-running DAMOS pageout of cold pages, anon, mapped "
		 "and young filtered out%s%s", owner == DAMON_LEFTOVER ? "; to be removed: " : "",
		 owner == DAMON_LEFTOVER ? owner_why : "");
	return 0;
}

/*
 * One region spanning every populated zone: from the lowest zone's first
 * pfn to the end of the highest, out of /proc/zoneinfo ("spanned" pages
 * from "start_pfn" on, per zone).  Not /proc/iomem's "System RAM": DAMON's
 * own default (damon_set_region_system_rams_default(), which the sysfs
 * interface does not even apply: a paddr target without regions monitors
 * nothing) walks those resources, and not every architecture registers
 * them (User-Mode Linux's iomem is empty); and iomem shows zeros without
 * root.  Every architecture has zones, whatever its memory model, and
 * zoneinfo is world-readable.  Holes in the span (between nodes, or the
 * PCI hole inside a zone) cost nothing but sampling accuracy:
 * damon_get_folio() skips pfns without an online page.
 */
static int zone_span(unsigned long long *start, unsigned long long *end)
{
	unsigned long long spanned = 0, first = 0, last = 0, pfn;
	char path[PATH_MAX], line[256];
	uint64_t page = upcc_page_size();
	bool found = false;
	FILE *f;

	if (upcc_sysfs_path(path, sizeof(path), "/proc/zoneinfo"))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Node ", 5) == 0)
			spanned = 0;	/* a new zone: its own "spanned" comes next */
		else if (sscanf(line, " spanned %llu", &spanned) == 1)
			continue;
		else if (sscanf(line, " start_pfn: %llu", &pfn) == 1 && spanned) {
			if (!found || pfn < first)
				first = pfn;
			if (!found || pfn + spanned > last)
				last = pfn + spanned;
			found = true;
		}
	}
	fclose(f);
	if (!found || last <= first)
		return -ENODATA;
	*start = first * page;
	*end = last * page;
	return 0;
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

struct admin_step {
	const char *rel;
	const char *value;
};

/* @optional: files newer kernels have, skipped where absent. */
static int write_steps(const char *admin, const struct admin_step *steps, size_t count,
		       bool optional)
{
	for (size_t i = 0; i < count; i++) {
		int err = admin_write(admin, steps[i].rel, steps[i].value);

		if (err && !(optional && err == -ENOENT))
			return err;
	}
	return 0;
}

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

#define NR(steps)	(sizeof(steps) / sizeof((steps)[0]))

/*
 * The context and its one scheme, idle.  The access pattern's ranges are
 * all written: sysfs starts every min and max at 0, and a scheme whose
 * size range is [0, 0] matches no region.
 */
static int write_scheme(const struct damon_priv *priv)
{
	char start[32], end[32], age[32], sample[16], aggr[16], update[16], reset[16];
	bool cgroup = priv->memcg_path[0] != '\0';
	const struct admin_step context[] = {
		{ CTX "operations", "paddr" },
		{ CTX "monitoring_attrs/intervals/sample_us", sample },
		{ CTX "monitoring_attrs/intervals/aggr_us", aggr },
		{ CTX "monitoring_attrs/intervals/update_us", update },
		{ CTX "targets/nr_targets", "1" },
		{ CTX "targets/0/regions/nr_regions", "1" },
		{ CTX "targets/0/regions/0/start", start },
		{ CTX "targets/0/regions/0/end", end },
		{ CTX "schemes/nr_schemes", "1" },
		{ SCHEME "action", "pageout" },
		{ SCHEME "access_pattern/sz/min", "0" },
		{ SCHEME "access_pattern/sz/max", end },
		{ SCHEME "access_pattern/nr_accesses/min", "0" },
		{ SCHEME "access_pattern/nr_accesses/max", "0" },
		{ SCHEME "access_pattern/age/min", age },
		{ SCHEME "access_pattern/age/max", "4294967295" },
		{ SCHEME "quotas/bytes", QUOTA_IDLE },
		{ SCHEME "quotas/ms", QUOTA_MS },
		{ SCHEME "quotas/reset_interval_ms", reset },
		/* The oldest regions first, when the quota cannot take all. */
		{ SCHEME "quotas/weights/sz_permil", "0" },
		{ SCHEME "quotas/weights/nr_accesses_permil", "0" },
		{ SCHEME "quotas/weights/age_permil", "1000" },
		{ SCHEME "filters/nr_filters", cgroup ? "4" : "3" },
		{ SCHEME "filters/0/type", "anon" },
		{ SCHEME "filters/0/matching", "Y" },
		{ SCHEME "filters/0/allow", "N" },
		{ SCHEME "filters/1/type", "unmapped" },
		{ SCHEME "filters/1/matching", "N" },
		{ SCHEME "filters/1/allow", "N" },
		{ SCHEME "filters/2/type", "young" },
		{ SCHEME "filters/2/matching", "Y" },
		{ SCHEME "filters/2/allow", "N" },
	};
	/* Charge the quota only what was paged out (7.x): a region whose
	 * pages the filters all keep costs none of it.
	 */
	const struct admin_step newer[] = {
		{ SCHEME "quotas/fail_charge_num", "0" },
		{ SCHEME "quotas/fail_charge_denom", "1" },
	};
	const struct admin_step memcg[] = {
		{ SCHEME "filters/3/type", "memcg" },
		{ SCHEME "filters/3/memcg_path", priv->memcg_path },
		{ SCHEME "filters/3/matching", "N" },
		{ SCHEME "filters/3/allow", "N" },
	};
	int err;

	snprintf(start, sizeof(start), "%llu", priv->ram_start);
	snprintf(end, sizeof(end), "%llu", priv->ram_end);
	/* Rounded up: a page is never cold sooner than min_age says. */
	snprintf(age, sizeof(age), "%llu",
		 (unsigned long long)((priv->min_age_ms * 1000 + AGGR_US - 1) / AGGR_US));
	snprintf(sample, sizeof(sample), "%u", SAMPLE_US);
	snprintf(aggr, sizeof(aggr), "%u", AGGR_US);
	snprintf(update, sizeof(update), "%u", UPDATE_US);
	snprintf(reset, sizeof(reset), "%u", QUOTA_RESET_MS);
	err = check_paddr(priv->admin);
	if (!err)
		err = write_steps(priv->admin, context, NR(context), false);
	if (!err)
		err = write_steps(priv->admin, newer, NR(newer), true);
	if (!err && cgroup)
		err = write_steps(priv->admin, memcg, NR(memcg), false);
	return err;
}

/* Stop kdamond 0 and remove it, if it is the only one. */
static void stop_kdamond(const char *admin)
{
	unsigned long long nr;

	admin_write(admin, KDAMOND "state", "off");
	if (!admin_read_ull(admin, "kdamonds/nr_kdamonds", &nr) && nr == 1)
		admin_write(admin, "kdamonds/nr_kdamonds", "0");
}

static int start_kdamond(struct damon_priv *priv)
{
	int err = admin_write(priv->admin, "kdamonds/nr_kdamonds", "1");

	/* Refused (-EBUSY: another tool's kdamond runs since claim_damon, or
	 * it holds the files): nothing of ours exists to undo, and kdamond 0,
	 * if any, is theirs.
	 */
	if (err)
		return err;
	err = admin_write(priv->admin, KDAMOND "contexts/nr_contexts", "1");
	if (!err)
		err = write_scheme(priv);
	if (!err)
		err = admin_write(priv->admin, KDAMOND "state", "on");
	if (!err)
		err = read_kdamond_pid(priv->admin, &priv->kdamond_pid);
	if (!err) {
		/* "on" returns once kdamond runs; one that stopped at once (its
		 * context refused) shows pid -1: say so rather than wait.
		 */
		err = priv->kdamond_pid ? write_marker(priv->kdamond_pid) : -ESRCH;
		if (err == -ESRCH)
			upcc_log(LOG_WARNING, "damon: kdamond stopped as soon as it started");
	}
	if (err) {
		/* Leave DAMON as we found it: kdamond 0 is the one we made. */
		stop_kdamond(priv->admin);
		remove_marker();
		priv->kdamond_pid = 0;
	}
	return err;
}

/* Claim DAMON: free, or what a killed upcd left (removed, and said so). */
static int claim_damon(const char *admin)
{
	char why[256] = "";

	switch (damon_owner(admin, why, sizeof(why))) {
	case DAMON_FREE:
		remove_marker();	/* a stale one, of a kdamond gone since */
		return 0;
	case DAMON_LEFTOVER:
		upcc_log(LOG_NOTICE, "damon: %s: stopping and removing it", why);
		stop_kdamond(admin);
		remove_marker();
		return 0;
	case DAMON_FOREIGN:
		upcc_log(LOG_WARNING, "damon: %s", why);
		return -EBUSY;
	case DAMON_ABSENT:
	default:
		return -ENOENT;
	}
}

static int damon_init(struct upcc_backend *backend, const struct upcc_scope *scope)
{
	struct damon_priv *priv = calloc(1, sizeof(*priv));
	int err;

	if (!priv)
		return -ENOMEM;
	priv->min_age_ms = backend->damon_min_age_ms;
	err = upcc_sysfs_path(priv->admin, sizeof(priv->admin), DAMON_ADMIN);
	if (!err)
		err = zone_span(&priv->ram_start, &priv->ram_end);
	if (!err && scope->kind == UPCC_SCOPE_CGROUP)
		err = set_memcg_path(priv, scope);
	if (!err)
		err = claim_damon(priv->admin);
	if (!err)
		err = start_kdamond(priv);
	if (err) {
		free(priv);
		return err;
	}
	backend->priv = priv;
	return 0;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The scheme's sz_applied, fresh. */
static int read_applied(const char *admin, unsigned long long *applied)
{
	int err = admin_write(admin, KDAMOND "state", "update_schemes_stats");

	return err ? err : admin_read_ull(admin, SCHEME "stats/sz_applied", applied);
}

/* A new size quota, in force from the next window (QUOTA_RESET_MS). */
static int set_quota(const char *admin, const char *bytes)
{
	int err = admin_write(admin, SCHEME "quotas/bytes", bytes);

	return err ? err : admin_write(admin, KDAMOND "state", "commit");
}

/* Stop the step?  Its time is up, or a signal (stop, reload) waits. */
static bool step_over(uint64_t start_usec)
{
	return upcc_monotonic_usec() - start_usec >= STEP_LIMIT_MS * 1000ull ||
	       upcc_pace_stop_now();
}

/*
 * Let the scheme page out up to @bytes: each window's quota is what is
 * still missing, at most WINDOW_BYTES, lowered as sz_applied grows, and
 * back to idle at the end, whatever happened.  Cut short (time, signal),
 * the step reports what was paged out, as fadvise's does.
 */
static int damos_step(const struct damon_priv *priv, uint64_t bytes, uint64_t *applied)
{
	unsigned long long base, now = 0, quota = 0;
	uint64_t start_usec = upcc_monotonic_usec();
	char text[32];
	int err = read_applied(priv->admin, &base);

	*applied = 0;
	while (!err && *applied < bytes && !step_over(start_usec)) {
		unsigned long long want = bytes - *applied;

		if (want > WINDOW_BYTES)
			want = WINDOW_BYTES;
		if (want != quota) {	/* a commit costs a kdamond round trip */
			snprintf(text, sizeof(text), "%llu", want);
			quota = want;	/* idle again below even if this fails half-way */
			err = set_quota(priv->admin, text);
			if (err)
				break;
		}
		sleep_ms(POLL_INTERVAL_MS);
		err = read_applied(priv->admin, &now);
		if (!err)
			*applied = now > base ? now - base : 0;
	}
	if (quota && set_quota(priv->admin, QUOTA_IDLE) && !err)
		err = -EIO;
	/* What kdamond paged out before the idle quota took hold. */
	if (quota && !read_applied(priv->admin, &now) && now > base)
		*applied = now - base;
	return err;
}

/* @pid's utime + stime (sys/procstat.h), under the test root. */
static int thread_cpu_usec(long pid, uint64_t *usec)
{
	char rel[64], path[PATH_MAX];
	long hz = sysconf(_SC_CLK_TCK);
	struct upcc_procstat st;
	int err;

	snprintf(rel, sizeof(rel), "/proc/%ld/stat", pid);
	if (upcc_sysfs_path(path, sizeof(path), rel))
		return -ENAMETOOLONG;
	err = upcc_procstat_read(path, &st);
	if (err)
		return err;
	if (hz <= 0)
		return -EINVAL;
	*usec = (st.utime + st.stime) * 1000000ull / (unsigned long long)hz;
	return 0;
}

/* What kdamond spent since the last step: it monitors between steps too. */
static uint64_t kdamond_cpu_delta(struct damon_priv *priv)
{
	uint64_t now, delta;

	if (thread_cpu_usec(priv->kdamond_pid, &now))
		return 0;
	delta = now > priv->kdamond_cpu_usec ? now - priv->kdamond_cpu_usec : 0;
	priv->kdamond_cpu_usec = now;
	return delta;
}

/* Is kdamond 0 still the one we started?  -EBUSY if not, or if that
 * cannot be told now (a step is skipped either way).
 */
static int still_ours(const struct damon_priv *priv)
{
	unsigned long long nr;
	long pid;

	if (admin_read_ull(priv->admin, "kdamonds/nr_kdamonds", &nr) || nr != 1 ||
	    read_kdamond_pid(priv->admin, &pid) || pid != priv->kdamond_pid)
		return -EBUSY;
	return 0;
}

/*
 * Is kdamond 0 ours to remove at fini?  1 yes, 0 no, or -errno when it
 * cannot be told (-EBUSY: the files stayed busy).  Ours: the one we
 * started, running; or off (it stopped by itself: its pid is -1 then)
 * while the marker still names it and this upcd, as nobody else writes
 * our marker: else every start this boot would refuse it as foreign.
 */
static int ours_at_fini(const struct damon_priv *priv)
{
	unsigned long long nr;
	struct marker marker;
	long pid;
	int err = admin_read_ull(priv->admin, "kdamonds/nr_kdamonds", &nr);

	if (!err && nr != 1)
		return 0;
	if (!err)
		err = read_kdamond_pid(priv->admin, &pid);
	if (err)
		return err;
	if (pid)
		return pid == priv->kdamond_pid;
	return !read_marker(&marker) && marker.kdamond_pid == priv->kdamond_pid &&
	       marker_is_this_upcd(&marker);
}

static int damon_reclaim(struct upcc_backend *backend, const struct upcc_scope *scope,
			 uint64_t round, uint64_t nr_pages, struct upcc_action_result *result)
{
	struct damon_priv *priv = backend->priv;
	uint64_t page = upcc_page_size(), applied = 0;
	uint64_t start_usec;
	int err;

	(void)scope;
	(void)round;	/* the scheme carries what DAMON learnt, not the round */
	if (!upcc_reclaim_begin(backend, nr_pages, result, &start_usec))
		return 0;
	if (!priv || !priv->kdamond_pid)
		return -EINVAL;	/* init was not called, or failed */
	/* Someone stopped or replaced our kdamond: never act on theirs. */
	err = still_ours(priv);
	if (!err)
		err = damos_step(priv, nr_pages * page, &applied);
	if (!err)
		result->kernel_cpu_usec = kdamond_cpu_delta(priv);
	result->reclaimed_pages = applied / page;
	result->scanned_items = 1;
	return upcc_reclaim_end(result, start_usec, err);
}

/* How often fini asks again when DAMON's files stay busy (0.5 s each). */
#define FINI_BUSY_TRIES	4

static void damon_fini(struct upcc_backend *backend)
{
	struct damon_priv *priv = backend->priv;
	int ours = -EBUSY;

	for (int i = 0; priv && priv->kdamond_pid && ours == -EBUSY && i < FINI_BUSY_TRIES; i++)
		ours = ours_at_fini(priv);
	if (priv && priv->kdamond_pid && ours == 1) {
		stop_kdamond(priv->admin);
		remove_marker();
	} else if (priv && priv->kdamond_pid && ours < 0) {
		/* Left with the marker: the next start proves it a leftover. */
		upcc_log(LOG_WARNING, "damon: cannot tell whether kdamond %ld is still ours "
			 "(%s): left as it is", priv->kdamond_pid, strerror(-ours));
	}
	free(priv);
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
