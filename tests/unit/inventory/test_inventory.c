// SPDX-License-Identifier: GPL-2.0
/*
 * test_inventory.c - the mapped-file set, the bounded cold-first table,
 * eviction that keeps the rules, and the path scope's sample, on real files.
 */
#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "sys/cachestat.h"
#include "lib/hooks.h"

#include "inventory/inventory.h"
#include "inventory/ranges.h"
#include "sys/measure.h"
#include "lib/pace.h"

/* The judge's now (core/wset.h): the test's clock, no inflow, no hold. */
static const struct upcc_wset_now *at(uint64_t usec)
{
	static struct upcc_wset_now now;

	now = (struct upcc_wset_now){ .usec = usec, .inflow_pages = 0, .hold_pages = UINT64_MAX };
	return &now;
}

static char tree[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	upcc_hooks.residency = NULL;
	/* A filesystem-wide fanotify mark on the host's build/ filesystem would
	 * watch every other job's files: fanotify learning is tested on the
	 * integration suite's own loop filesystem instead.
	 */
	upcc_hooks.no_fanotify = 1;
	upcc_hooks.root = NULL;
	return ua_mkdtemp(tree, sizeof(tree)) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ua_rm_rf(tree);
	return 0;
}

static const char maps_text[] =
	"55d0c0a00000-55d0c0a28000 r--p 00000000 fd:01 1234       /usr/bin/prog\n"
	"55d0c0a28000-55d0c0b00000 r-xp 00028000 fd:01 1234       /usr/bin/prog\n"
	"55d0c2000000-55d0c2021000 rw-p 00000000 00:00 0          [heap]\n"
	"7f0000000000-7f0000100000 r--s 00000000 08:12 99         /data/x (deleted)\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0          [stack]\n"
	"garbage line\n";

static void test_mapped_set_parse(void **state)
{
	struct upcc_mapped_set set = { 0 };

	(void)state;
	assert_int_equal(upcc_mapped_set_parse(&set, maps_text), 0);
	upcc_mapped_set_finish(&set);
	assert_int_equal(set.count, 2);		/* prog once, x; anon/garbage out */
	assert_true(upcc_mapped_set_has(&set, makedev(0xfd, 1), 1234));
	assert_true(upcc_mapped_set_has(&set, makedev(8, 0x12), 99));
	assert_false(upcc_mapped_set_has(&set, makedev(0xfd, 1), 99));
	assert_false(upcc_mapped_set_has(&set, makedev(0, 0), 0));
	upcc_mapped_set_free(&set);
}

static void test_mapped_set_fake_proc(void **state)
{
	char dir[PATH_MAX + 32], file[PATH_MAX + 64];
	struct upcc_mapped_set set = { 0 };

	(void)state;
	snprintf(dir, sizeof(dir), "%s/fp/proc/4242", tree);
	assert_int_equal(ua_mkdir_p(dir), 0);
	snprintf(file, sizeof(file), "%s/maps", dir);
	assert_int_equal(ua_write_file(file, maps_text), 0);
	snprintf(dir, sizeof(dir), "%s/fp/proc/self-not-a-pid", tree);
	assert_int_equal(ua_mkdir_p(dir), 0);
	snprintf(dir, sizeof(dir), "%s/fp", tree);
	upcc_hooks.root = dir;
	assert_int_equal(upcc_mapped_set_load(&set), 0);
	upcc_hooks.root = NULL;
	assert_int_equal(set.count, 2);
	upcc_mapped_set_free(&set);
}

/* Evicting a just-written file needs cachestat's dirty count: the mincore
 * rule (rightly) waits for the flusher's expiry first.
 */
static void need_cachestat(void)
{
	if (upcc_residency_method() != UPCC_RESIDENCY_CACHESTAT || ua_under_valgrind())
		skip();
}

static struct upcc_residency cached(uint64_t pages)
{
	struct upcc_residency res = { .file_pages = 100, .cached_pages = pages,
				      .state_known = true };

	return res;
}

static void test_coldness_order(void **state)
{
	struct upcc_inventory inv;
	struct upcc_inventory_entry *order[8];
	struct upcc_residency res;

	(void)state;
	assert_int_equal(upcc_inventory_init(&inv, tree, false, 16), 0);
	inv.scan = 1;
	res = cached(10);
	assert_int_equal(upcc_inventory_note(&inv, 1, 1, "/idle", &res, 100, false), 0);
	res = cached(10);
	assert_int_equal(upcc_inventory_note(&inv, 1, 2, "/growing", &res, 100, false), 0);
	res = cached(50);
	assert_int_equal(upcc_inventory_note(&inv, 1, 3, "/mapped", &res, 100, true), 0);
	res = cached(0);
	assert_int_equal(upcc_inventory_note(&inv, 1, 4, "/uncached", &res, 100, false), 0);
	assert_int_equal(inv.count, 3);		/* nothing cached: not kept */
	inv.scan = 2;
	res = cached(10);
	upcc_inventory_note(&inv, 1, 1, "/idle", &res, 100, false);
	res = cached(20);
	upcc_inventory_note(&inv, 1, 2, "/growing", &res, 100, false);
	inv.scan = 3;
	res = cached(8);
	upcc_inventory_note(&inv, 1, 1, "/idle", &res, 100, false);	/* shrank: still idle */
	res = cached(20);
	upcc_inventory_note(&inv, 1, 2, "/growing", &res, 200, false);	/* atime moved */
	assert_int_equal(upcc_inventory_coldest(&inv, order, 8), 2);	/* mapped left out */
	assert_string_equal(order[0]->path, "/idle");
	assert_int_equal(order[0]->idle_scans, 2);
	assert_string_equal(order[1]->path, "/growing");
	assert_int_equal(order[1]->idle_scans, 0);
	upcc_inventory_fini(&inv);
}

/*
 * The working set: a file a quarter of whose dropped pages came back is
 * hot and left out of the eviction order; one read past its drop (a
 * stream) is not, and its watch ends after the watch window.
 */
static void test_refault_protects(void **state)
{
	struct upcc_inventory inv;
	struct upcc_inventory_entry *order[8], *hot, *stream;
	struct upcc_residency res;
	uint64_t now = 1000ull * 1000 * 1000;

	(void)state;
	assert_int_equal(upcc_inventory_init(&inv, tree, false, 16), 0);
	inv.scan = 1;
	res = cached(256);
	assert_int_equal(upcc_inventory_note(&inv, 1, 1, "/hot", &res, 100, false), 0);
	res = cached(4096);
	assert_int_equal(upcc_inventory_note(&inv, 1, 2, "/stream", &res, 100, false), 0);
	hot = &inv.entries[0];
	stream = &inv.entries[1];
	/* Both dropped whole in scan 1. */
	hot->drop_watch_pages = 256;
	hot->drop_pages = 256;
	stream->drop_watch_pages = 4096;
	stream->drop_pages = 4096;
	hot->drop_scan = stream->drop_scan = 1;
	hot->drop.usec = stream->drop.usec = now;
	inv.scan = 2;
	assert_true(upcc_inventory_note_refault(&inv, hot, 128, at(now + 1000)));
	assert_false(upcc_inventory_note_refault(&inv, stream, 0, at(now + 1000)));
	assert_true(inv.last.refaulted_pages == 128);
	assert_true(inv.last.hot_in_use);
	assert_true(upcc_inventory_entry_hot(hot, now + 1000));
	assert_false(upcc_inventory_entry_hot(stream, now + 1000));
	assert_true(hot->drop_watch_pages == 0);	/* judged: the watch ends */
	assert_true(stream->drop_watch_pages != 0);	/* still watched */
	/* The hot file is never the coldest: only the stream is in the order. */
	hot->cached_pages = 256;
	stream->cached_pages = 4096;
	hot->hot_until_usec = UINT64_MAX;	/* this process's clock is not the test's */
	assert_int_equal(upcc_inventory_coldest(&inv, order, 8), 1);
	assert_string_equal(order[0]->path, "/stream");
	/* A few pages back of a big drop (a read in progress) are not a re-read. */
	inv.scan = UPCC_INVENTORY_DROP_WATCH_SCANS + 1;
	assert_false(upcc_inventory_note_refault(&inv, stream, 256, at(now + 2000)));
	assert_true(stream->drop_watch_pages == 0);	/* watched long enough */
	upcc_inventory_fini(&inv);
}

/*
 * "Came back" is a quarter or more of a drop, and a page at least: one rule
 * (core/wset.h) for files and ranges.  A file one page short of a quarter
 * is still watched; at a quarter it is hot for UPCC_WSET_HOT_USEC.
 */
static void test_came_back_is_a_quarter(void **state)
{
	struct upcc_inventory inv;
	struct upcc_inventory_entry *e;
	struct upcc_residency res = cached(256);
	uint64_t now = 1000ull * 1000 * 1000;

	(void)state;
	assert_false(upcc_wset_came_back(0, 0));
	assert_false(upcc_wset_came_back(0, 4));
	assert_true(upcc_wset_came_back(1, 1));
	assert_true(upcc_wset_came_back(1, 4));
	assert_false(upcc_wset_came_back(1, 5));
	assert_true(upcc_wset_came_back(2, 5));
	assert_int_equal(upcc_inventory_init(&inv, tree, false, 8), 0);
	inv.scan = 1;
	assert_int_equal(upcc_inventory_note(&inv, 1, 1, "/f", &res, 100, false), 0);
	e = &inv.entries[0];
	e->drop_watch_pages = e->drop_pages = 256;
	e->drop_scan = 1;
	e->drop.usec = now;
	inv.scan = 2;
	assert_false(upcc_inventory_note_refault(&inv, e, 63, at(now + 1000)));
	assert_true(e->drop_watch_pages != 0);
	assert_true(upcc_inventory_note_refault(&inv, e, 64, at(now + 2000)));
	assert_true(e->hot_until_usec == now + 2000 + UPCC_WSET_HOT_USEC);
	assert_true(e->drop_watch_pages == 0);
	upcc_inventory_fini(&inv);
}

static void test_capacity_bound(void **state)
{
	struct upcc_inventory inv;
	struct upcc_residency res;
	char name[32];

	(void)state;
	assert_int_equal(upcc_inventory_init(&inv, tree, false, 8), 0);
	for (unsigned int i = 1; i <= 100; i++) {
		res = cached(i);
		snprintf(name, sizeof(name), "/f%u", i);
		assert_int_equal(upcc_inventory_note(&inv, 1, i, name, &res, 0, false), 0);
		assert_true(inv.count <= 8);
	}
	assert_true(inv.dropped_full > 0);
	/* The biggest files survive shedding: the last one is always there. */
	res = cached(100);
	upcc_inventory_note(&inv, 1, 100, "/f100", &res, 0, false);
	assert_true(inv.count <= 8);
	upcc_inventory_fini(&inv);
	assert_int_equal(upcc_inventory_init(&inv, tree, false, (size_t)1 << 31), -EINVAL);
	assert_null(inv.entries);
}

/* Each test that walks gets its own directory, so files of one test do not
 * show up in another's counts.
 */
static char sub[PATH_MAX + 64];

static const char *make_sub(const char *name)
{
	snprintf(sub, sizeof(sub), "%s/%s", tree, name);
	assert_int_equal(ua_mkdir_p(sub), 0);
	return sub;
}

struct real_tree {
	char clean[PATH_MAX * 2], mapped[PATH_MAX * 2], dirty[PATH_MAX * 2];
	void *map;
	size_t map_len;
};

static void make_real_tree(struct real_tree *t)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	snprintf(t->clean, sizeof(t->clean), "%s/clean", sub);
	snprintf(t->mapped, sizeof(t->mapped), "%s/mapped", sub);
	snprintf(t->dirty, sizeof(t->dirty), "%s/dirty", sub);
	assert_int_equal(ua_cached_file(t->clean, 64, 1), 0);
	assert_int_equal(ua_cached_file(t->mapped, 32, 1), 0);
	assert_int_equal(ua_cached_file(t->dirty, 16, 0), 0);
	fd = open(t->mapped, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	t->map_len = 32 * (size_t)page;
	t->map = mmap(NULL, t->map_len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(t->map != MAP_FAILED);
	for (size_t off = 0; off < t->map_len; off += (size_t)page)
		(void)*(volatile char *)((char *)t->map + off);
}

static uint64_t cached_pages_of_range(const char *path, uint64_t first, uint64_t count)
{
	struct stat st;
	uint64_t cached;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(upcc_residency_range(fd, &st, first, count, &cached), 0);
	close(fd);
	return cached;
}

static uint64_t cached_pages_of(const char *path)
{
	return cached_pages_of_range(path, 0, UINT64_MAX);	/* clamped to the file */
}

static void test_refresh_and_evict(void **state)
{
	struct upcc_inventory inv;
	struct upcc_inventory_entry *order[8];
	struct upcc_evict_result result;
	struct real_tree t;
	size_t n;

	(void)state;
	need_cachestat();
	make_sub("refresh");
	make_real_tree(&t);
	assert_int_equal(upcc_inventory_init(&inv, sub, false, 0), 0);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.last.sum.files, 3);
	assert_int_equal(inv.last.sum.cached_pages, 64 + 32 + 16);
	assert_int_equal(inv.last.sum.mapped_pages, 32);
	n = upcc_inventory_coldest(&inv, order, 8);
	assert_int_equal(n, 2);			/* clean and dirty; mapped never */
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(upcc_inventory_evict(&inv, order[i], 0, &result), 0);
		if (strstr(order[i]->path, "/dirty")) {
			assert_true(result.skipped_dirty);
			assert_int_equal(result.after_pages, 16);
		} else {
			assert_false(result.skipped_dirty);
			assert_int_equal(result.before_pages, 64);
			assert_int_equal(result.after_pages, 0);
		}
	}
	assert_int_equal(cached_pages_of(t.clean), 0);
	assert_int_equal(cached_pages_of(t.mapped), 32);
	assert_int_equal(cached_pages_of(t.dirty), 16);
	munmap(t.map, t.map_len);
	upcc_inventory_fini(&inv);
}

/* A limited eviction takes a tail window, not the whole file. */
static void test_evict_limit(void **state)
{
	char path[PATH_MAX + 16];
	struct upcc_evict_result result;
	struct stat st;
	int fd;

	(void)state;
	need_cachestat();
	snprintf(path, sizeof(path), "%s/big", tree);
	assert_int_equal(ua_cached_file(path, 1024, 1), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(upcc_evict_fd_limit(fd, &st, NULL, 100, &result), 0);
	close(fd);
	assert_int_equal(result.before_pages, 1024);
	assert_true(result.before_pages - result.after_pages >= 100);
	assert_true(result.after_pages >= 512);	/* far from all of it */
}

/* Evict the file at @path through the inventory, as a round would. */
static struct upcc_inventory_entry *evict_one(struct upcc_inventory *inv, const char *path,
					      uint64_t limit, struct upcc_evict_result *result)
{
	struct upcc_inventory_entry *order[4];

	assert_int_equal(upcc_inventory_init(inv, path, false, 0), 0);
	assert_int_equal(upcc_inventory_refresh(inv), 0);
	assert_int_equal(upcc_inventory_coldest(inv, order, 4), 1);
	order[0]->active = false;	/* not seen growing: as a reader between windows */
	assert_int_equal(upcc_inventory_evict(inv, order[0], limit, result), 0);
	return order[0];
}

/*
 * A file whose cache stops short of its end may have its reader in the run
 * that ends there, with readahead ahead of it: it loses its head first, and
 * only pages below that run are watched for refaults (the reader going on
 * brings back what was dropped ahead of it, which is no re-read).  A file
 * cached to its end is watched over the first half of it.
 */
static void test_evict_reader_in_file(void **state)
{
	char path[PATH_MAX + 16];
	struct upcc_inventory inv;
	struct upcc_inventory_entry *e;
	struct upcc_evict_result result;
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	(void)state;
	need_cachestat();
	snprintf(path, sizeof(path), "%s/reader", make_sub("reader"));
	/* Read up to page 512 of 1024, nothing dropped behind the reader yet. */
	assert_int_equal(ua_cached_file(path, 1024, 1), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(posix_fadvise(fd, 512 * page, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	e = evict_one(&inv, sub, 100, &result);
	assert_int_equal(result.before_pages, 512);
	assert_true(result.before_pages - result.after_pages >= 100);
	assert_int_equal(cached_pages_of_range(path, 448, 64), 64);	/* the reader's end kept */
	assert_true(cached_pages_of_range(path, 0, 100) < 100);	/* the head went */
	assert_int_equal(e->drop_watch_pages, 0);	/* the reader may be anywhere in it */
	/* Taken again in the same refresh: the run the first drop cut does
	 * not widen the watch (the reader may be below it).
	 */
	assert_int_equal(upcc_inventory_evict(&inv, e, 100, &result), 0);
	assert_true(result.before_pages > result.after_pages);
	assert_int_equal(e->drop_watch_pages, 0);
	upcc_inventory_fini(&inv);

	/* Its head dropped before (pages [256, 768) cached): below 256 only. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	for (long p = 256; p < 768; p++)
		assert_true(pread(fd, &(char){ 0 }, 1, p * page) == 1);
	assert_int_equal(posix_fadvise(fd, 768 * page, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	e = evict_one(&inv, sub, 0, &result);
	assert_int_equal(result.before_pages, 512);
	assert_int_equal(result.after_pages, 0);
	assert_int_equal(e->drop_watch_pages, 256);
	upcc_inventory_fini(&inv);

	/* Cached to its end: the first half. */
	assert_int_equal(ua_cached_file(path, 1024, 1), 0);
	e = evict_one(&inv, sub, 0, &result);
	assert_int_equal(result.after_pages, 0);
	assert_int_equal(e->drop_watch_pages, 512);
	upcc_inventory_fini(&inv);

	/* The head a tail drop left, untouched since, at a later refresh: our
	 * leftover, no reader's run, so watched over its first half.
	 */
	assert_int_equal(ua_cached_file(path, 1024, 1), 0);
	e = evict_one(&inv, sub, 100, &result);
	assert_true(result.after_pages >= 512 && result.after_pages < 1024);
	inv.scan++;
	assert_int_equal(upcc_inventory_evict(&inv, e, 0, &result), 0);
	assert_int_equal(result.after_pages, 0);
	assert_true(e->drop_watch_pages >= 256);
	upcc_inventory_fini(&inv);
}

/*
 * Issue 30: a stream that just got to the end of a file (its cache one run
 * to the end, grown at the last refresh) kept the upper half of it, as a
 * random reader does: a backup of 64 MiB files held 32 MiB of each it had
 * just finished.  It keeps the stream's window, twice the readahead.
 */
static void test_evict_stream_at_end(void **state)
{
	char path[PATH_MAX + 16];
	struct upcc_inventory inv;
	struct upcc_inventory_entry *order[4];
	struct upcc_evict_result result;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t window = 2 * UPCC_INVENTORY_READAHEAD_BYTES / (uint64_t)page;
	int fd;

	(void)state;
	need_cachestat();
	snprintf(path, sizeof(path), "%s/stream", make_sub("streamend"));
	assert_int_equal(ua_cached_file(path, 6144, 1), 0);	/* 24 MiB */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(posix_fadvise(fd, 1024 * page, 0, POSIX_FADV_DONTNEED), 0);
	assert_int_equal(upcc_inventory_init(&inv, sub, false, 0), 0);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	for (long p = 1024; p < 6144; p++)	/* the stream reads on, to the end */
		assert_true(pread(fd, &(char){ 0 }, 1, p * page) == 1);
	close(fd);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(upcc_inventory_coldest(&inv, order, 4), 1);
	assert_true(order[0]->active);
	assert_int_equal(upcc_inventory_evict(&inv, order[0], 0, &result), 0);
	assert_int_equal(result.before_pages, 6144);
	assert_true(result.after_pages <= window);
	assert_true(cached_pages_of_range(path, 6144 - window, window) >= window - 64);
	upcc_inventory_fini(&inv);
}

/*
 * A drop by ranges leaves the file's inflow base at what it left: pages
 * read back afterwards are inflow (the refault distance counts them), not
 * lost under the count from before the drop.
 */
static void test_range_drop_counts_inflow(void **state)
{
	char path[PATH_MAX + 16];
	struct upcc_inventory inv;
	struct upcc_inventory_entry *entry;
	struct upcc_evict_result result;
	uint64_t file_pages = UPCC_RANGES_MIN_PAGES + 2048, inflow;
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	(void)state;
	need_cachestat();
	if (page != 4096)
		skip();
	snprintf(path, sizeof(path), "%s/big", make_sub("rangeinflow"));
	assert_int_equal(ua_cached_file(path, file_pages, 1), 0);
	assert_int_equal(upcc_inventory_init(&inv, sub, false, 0), 0);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.count, 1);
	entry = &inv.entries[0];
	entry->hot_until_usec = UINT64_MAX;	/* hot: dropped by ranges */
	/* A range goes only once seen not growing, between the looks of two
	 * refreshes: the first call looks.
	 */
	assert_int_equal(upcc_inventory_evict(&inv, entry, 4096, &result), 0);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(upcc_inventory_evict(&inv, entry, 4096, &result), 0);
	assert_true(result.before_pages > result.after_pages);
	inflow = inv.inflow_pages;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	for (uint64_t p = 0; p < file_pages; p++)	/* read back whole */
		assert_true(pread(fd, &(char){ 0 }, 1, (off_t)p * page) == 1);
	close(fd);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	/* Most of what the drop took came back as inflow (this machine's own
	 * reclaim may take a little meanwhile).
	 */
	assert_true(inv.inflow_pages - inflow >=
		    (result.before_pages - result.after_pages) * 3 / 4);
	upcc_inventory_fini(&inv);
}

/* An entry whose path now names another file is not touched. */
static void test_evict_replaced_file(void **state)
{
	struct upcc_inventory inv;
	struct upcc_inventory_entry *order[8];
	struct upcc_evict_result result;
	char path[PATH_MAX * 2], other[PATH_MAX * 2];

	(void)state;
	need_cachestat();
	make_sub("replaced");
	snprintf(path, sizeof(path), "%s/victim", sub);
	snprintf(other, sizeof(other), "%s/../other", sub);
	assert_int_equal(ua_cached_file(path, 8, 1), 0);
	assert_int_equal(upcc_inventory_init(&inv, sub, false, 0), 0);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(ua_cached_file(other, 8, 1), 0);
	assert_int_equal(rename(other, path), 0);
	assert_int_equal(upcc_inventory_coldest(&inv, order, 8), 1);
	assert_int_equal(upcc_inventory_evict(&inv, order[0], 0, &result), -ESTALE);
	assert_int_equal(cached_pages_of(path), 8);
	upcc_inventory_fini(&inv);
}

static void test_path_sample(void **state)
{
	struct upcc_scope scope;
	struct upcc_sample sample;
	struct real_tree t;

	(void)state;
	need_cachestat();
	memset(&scope, 0, sizeof(scope));
	scope.kind = UPCC_SCOPE_PATH;
	snprintf(scope.path, sizeof(scope.path), "%s", make_sub("sample"));
	make_real_tree(&t);
	assert_int_equal(upcc_measure_path(&scope, &sample), 0);
	assert_int_equal(sample.file_lru_pages, 64 + 32 + 16);
	assert_int_equal(sample.mapped_pages, 32);
	assert_int_equal(sample.unmapped_pages, 64 + 16);
	assert_true(sample.dirty_pages > 0);
	assert_true(sample.total_pages > 0);
	munmap(t.map, t.map_len);
	scope.kind = UPCC_SCOPE_SYSTEM;
	assert_int_equal(upcc_measure_path(&scope, &sample), -EINVAL);
	scope.kind = UPCC_SCOPE_PATH;
	snprintf(scope.path, sizeof(scope.path), "/proc");
	assert_int_equal(upcc_measure_path(&scope, &sample), -EMEDIUMTYPE);
}

/* Two "disks" for the mount tests: @one (tree/disk1, a 16-page file f) and
 * @two (tree/@second_name, an 8-page file g).
 */
#define DISK_PATH_LEN (PATH_MAX + 16)

static void make_two_disks(char *one, char *two, const char *second_name)
{
	char file[PATH_MAX + 32];

	snprintf(one, DISK_PATH_LEN, "%s/disk1", tree);
	snprintf(two, DISK_PATH_LEN, "%s/%s", tree, second_name);
	assert_int_equal(ua_mkdir_p(one), 0);
	assert_int_equal(ua_mkdir_p(two), 0);
	snprintf(file, sizeof(file), "%s/f", one);
	assert_int_equal(ua_cached_file(file, 16, 1), 0);
	snprintf(file, sizeof(file), "%s/g", two);
	assert_int_equal(ua_cached_file(file, 8, 1), 0);
}

/* The system scope's inventory: each listed mount is a root of its own,
 * walked once per refresh; a mount that is gone is left out; none at all is
 * an empty inventory, not an error.  The "mounts" are the test's own
 * directories (a fixture mountinfo naming them), so nothing else is read.
 */
static void test_mounts_inventory(void **state)
{
	char text[8 * PATH_MAX], one[DISK_PATH_LEN], two[DISK_PATH_LEN];
	struct upcc_mount_list mounts = { 0 };
	struct upcc_inventory inv;
	struct stat st;
	unsigned int maj, min;

	(void)state;
	make_two_disks(one, two, "disk 2");
	assert_int_equal(stat(tree, &st), 0);
	maj = major(st.st_dev);
	min = minor(st.st_dev);
	snprintf(text, sizeof(text),
		 "1 0 %u:%u /disk1 %s rw - ext4 /dev/t rw\n"
		 "2 0 %u:%u /disk1 %s rw - ext4 /dev/t rw\n"		/* bind: once */
		 "3 0 %u:%u /disk\\0402 %s/disk\\0402 rw - ext4 /dev/t rw\n"
		 "4 0 %u:%u /gone %s/gone rw - ext4 /dev/t rw\n"
		 "5 0 0:30 / %s rw - tmpfs tmpfs rw\n",
		 maj, min, one, maj, min, one, maj, min, tree, maj, min, tree, tree);
	assert_int_equal(upcc_mounts_parse(&mounts, text), 0);
	assert_int_equal(mounts.count, 3);
	assert_int_equal(upcc_inventory_init_mounts(&inv, &mounts, 16), 0);
	upcc_mounts_free(&mounts);
	assert_int_equal(inv.nr_roots, 2);		/* /gone does not resolve */
	assert_true(inv.from_mounts);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.walks, 1);
	assert_int_equal(inv.last.walk.files, 2);	/* each mount walked once */
	assert_int_equal(inv.last.sum.files, 2);
	assert_int_equal(inv.count, 2);
	assert_true(inv.last.sum.cached_pages >= 24);
	/* A mount unmounted since is passed over, not the refresh's error. */
	ua_rm_rf(two);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.root_errors, 1);
	assert_int_equal(inv.count, 1);
	upcc_inventory_fini(&inv);

	assert_int_equal(upcc_inventory_init_mounts(&inv, &mounts, 0), 0);
	assert_int_equal(inv.nr_roots, 0);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.count, 0);
	assert_int_equal(inv.walks, 0);
	upcc_inventory_fini(&inv);
}

/* Write a mountinfo fixture listing the test's directories @dirs as ext4
 * mounts (each its own subtree, as bind mounts are) and point
 * upcc_hooks.mountinfo at it.
 */
static void fixture_mount_table(const char *const *dirs, size_t nr_dirs)
{
	static char fixture[PATH_MAX + 16];
	char text[4 * PATH_MAX];
	size_t used = 0;
	struct stat st;

	assert_int_equal(stat(tree, &st), 0);
	text[0] = '\0';
	for (size_t i = 0; i < nr_dirs; i++) {
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "%zu 0 %u:%u /d%zu %s rw - ext4 /dev/t rw\n", i + 1,
					 major(st.st_dev), minor(st.st_dev), i, dirs[i]);
		assert_true(used < sizeof(text));
	}
	snprintf(fixture, sizeof(fixture), "%s/mountinfo", tree);
	assert_int_equal(ua_write_file(fixture, text), 0);
	upcc_hooks.mountinfo = fixture;
}

/* A disk mounted after start joins at the next full walk, one unmounted
 * leaves with its files; a mount table that cannot be read changes nothing.
 */
static void test_mounts_follow_table(void **state)
{
	char one[DISK_PATH_LEN], two[DISK_PATH_LEN];
	const char *dirs[2] = { one, two };
	struct upcc_mount_list mounts = { 0 };
	struct upcc_inventory inv;

	(void)state;
	make_two_disks(one, two, "disk2");

	fixture_mount_table(dirs, 1);
	assert_int_equal(upcc_mounts_load(&mounts, NULL), 0);
	assert_int_equal(upcc_inventory_init_mounts(&inv, &mounts, 0), 0);
	upcc_mounts_free(&mounts);
	inv.follow_mount_table = true;
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.nr_roots, 1);
	assert_int_equal(inv.count, 1);

	fixture_mount_table(dirs, 2);		/* disk2 mounted */
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.nr_roots, 2);
	assert_int_equal(inv.mounts_joined, 1);
	assert_non_null(strstr(inv.roots_changed, "mounted "));
	assert_non_null(strstr(inv.roots_changed, two));
	assert_int_equal(inv.count, 2);
	assert_string_equal(inv.roots[1].path, two);

	fixture_mount_table(dirs + 1, 1);	/* disk1 unmounted */
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.nr_roots, 1);
	assert_int_equal(inv.mounts_left, 1);
	assert_non_null(strstr(inv.roots_changed, "unmounted "));
	assert_non_null(strstr(inv.roots_changed, one));
	assert_int_equal(inv.count, 1);		/* f went with its disk */
	assert_string_equal(inv.roots[0].path, two);

	assert_int_equal(upcc_inventory_refresh(&inv), 0);	/* no change, no news */
	assert_string_equal(inv.roots_changed, "");
	upcc_hooks.mountinfo = "/nonexistent/mountinfo";
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.nr_roots, 1);
	assert_int_equal(inv.count, 1);
	upcc_inventory_fini(&inv);
	upcc_hooks.mountinfo = NULL;
}

/* Issue 12: a file with nine more hard links is one file's cache, in the
 * path sample as in the inventory (1 MiB read as 10 MiB before).
 */
static void test_hard_links_counted_once(void **state)
{
	char file[PATH_MAX + 96], name[PATH_MAX + 96];
	struct upcc_scope scope;
	struct upcc_sample sample;
	struct upcc_inventory inv;

	(void)state;
	need_cachestat();
	memset(&scope, 0, sizeof(scope));
	scope.kind = UPCC_SCOPE_PATH;
	snprintf(scope.path, sizeof(scope.path), "%s", make_sub("links"));
	snprintf(file, sizeof(file), "%s/file", scope.path);
	assert_int_equal(ua_cached_file(file, 16, 1), 0);
	for (int i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "%s/link%d", scope.path, i);
		assert_int_equal(link(file, name), 0);
	}
	assert_int_equal(upcc_measure_path(&scope, &sample), 0);
	assert_in_range(sample.file_lru_pages, 16 - HOST_RECLAIM_SLACK, 16);	/* not 160 */
	assert_int_equal(upcc_inventory_init(&inv, scope.path, false, 0), 0);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_in_range(inv.last.sum.cached_pages, 16 - HOST_RECLAIM_SLACK, 16);
	assert_int_equal(inv.last.sum.files, 1);
	assert_int_equal(inv.last.walk.skipped_duplicate, 9);
	upcc_inventory_fini(&inv);
}

/*
 * Issue 12: a table too small for the tree still gives the path sample
 * from its refresh (before, -EOPNOTSUPP for ever after the first
 * overflow, and every step walked the tree twice): each refresh walks
 * the tree once and counts every file, kept in the table or not.
 */
static void test_overflowed_table_samples_from_one_walk(void **state)
{
	char file[PATH_MAX + 96];
	const char *dir = make_sub("overflow");
	struct upcc_inventory inv;
	struct upcc_sample sample;

	(void)state;
	need_cachestat();
	for (int i = 0; i < 40; i++) {
		snprintf(file, sizeof(file), "%s/f%d", dir, i);
		assert_int_equal(ua_cached_file(file, 2, 1), 0);
	}
	assert_int_equal(upcc_inventory_init(&inv, dir, false, 8), 0);
	for (uint64_t refresh = 1; refresh <= 3; refresh++) {
		assert_int_equal(upcc_inventory_refresh(&inv), 0);
		assert_true(inv.dropped_full > 0);
		assert_true(inv.walks == refresh);	/* one walk per refresh */
		assert_int_equal(upcc_inventory_sample(&inv, &sample), 0);
		/* All 40 files' 80 pages, less what the shared host may reclaim. */
		assert_in_range(sample.file_lru_pages, 80 - HOST_RECLAIM_SLACK, 80);
		assert_int_equal(inv.last.sum.files, 40);
	}
	upcc_inventory_fini(&inv);
}

static bool stop_at_once(void *ctx)
{
	(void)ctx;
	return true;
}

/* Issue 12: a waiting signal cuts a refresh short, which then forgets
 * nothing and is not taken for the whole tree.
 */
static void test_refresh_interrupted(void **state)
{
	char file[PATH_MAX + 96];
	const char *dir = make_sub("interrupted");
	struct upcc_inventory inv;

	(void)state;
	for (int i = 0; i < 200; i++) {
		snprintf(file, sizeof(file), "%s/f%d", dir, i);
		assert_int_equal(ua_write_file(file, "x"), 0);
	}
	assert_int_equal(upcc_inventory_init(&inv, dir, false, 0), 0);
	upcc_pace_set(stop_at_once, NULL);
	assert_int_equal(upcc_inventory_refresh(&inv), -EINTR);
	upcc_pace_set(NULL, NULL);
	assert_true(inv.last.sum.files < 200);
	assert_true(inv.fan.need_walk);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.last.walk.files, 200);
	upcc_inventory_fini(&inv);
}

/* A fake page cache for the tick: every file wholly cached; calls counted. */
static unsigned int fake_cachestat_calls;

static int fake_all_cached(int fd, uint64_t off, uint64_t len, struct upcc_cachestat *cs)
{
	struct stat st;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), size;

	(void)off;
	(void)len;
	if (fstat(fd, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	memset(cs, 0, sizeof(*cs));
	cs->nr_cache = (size + page - 1) / page;
	fake_cachestat_calls++;
	return 0;
}

static void note_file(struct upcc_inventory *inv, const char *path, uint64_t cached)
{
	struct upcc_residency res = { .cached_pages = cached, .state_known = true };
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	res.file_pages = upcc_residency_file_pages(&st);
	assert_int_equal(upcc_inventory_note(inv, st.st_dev, st.st_ino, path, &res, 0, false), 0);
	for (size_t i = 0; i < inv->count; i++)
		if (inv->entries[i].ino == st.st_ino)
			inv->entries[i].active = true;	/* an open event named it */
}

/*
 * An inventory of @dir that fanotify watches: an empty non-blocking pipe
 * stands for the group, so no event ever comes.  Close pipe_fds[1] after.
 */
static void init_watched(struct upcc_inventory *inv, const char *dir, int pipe_fds[2])
{
	assert_int_equal(upcc_inventory_init(inv, dir, false, 0), 0);
	assert_int_equal(pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC), 0);
	inv->fan.fd = pipe_fds[0];
}

/*
 * Issue 10, cost: a touched file the last measure found wholly cached
 * cannot gain cache by being read, so the tick stats it and does not
 * measure it again (a hot set re-read every 0.2 s was 250 opens and
 * cachestats a second); a touched file partly cached, or one that grew
 * since, is measured.
 */
static void test_tick_measures_only_what_can_grow(void **state)
{
	char full[PATH_MAX + 96], part[PATH_MAX + 96];
	const char *dir = make_sub("tick");
	struct upcc_inventory inv;
	struct upcc_sample sample;
	int pipe_fds[2];

	(void)state;
	snprintf(full, sizeof(full), "%s/full", dir);
	snprintf(part, sizeof(part), "%s/part", dir);
	assert_int_equal(ua_cached_file(full, 4, 1), 0);
	assert_int_equal(ua_cached_file(part, 8, 1), 0);
	init_watched(&inv, dir, pipe_fds);
	inv.scan = 1;
	note_file(&inv, full, 4);
	note_file(&inv, part, 2);
	upcc_hooks.cachestat = fake_all_cached;
	fake_cachestat_calls = 0;
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), 0);
	assert_int_equal(fake_cachestat_calls, 1);		/* part only */
	assert_int_equal(sample.file_lru_pages, 4 + 8);
	assert_false(sample.unchanged);

	/* Grown (a writer appended): the stat sees it, the tick measures it. */
	assert_int_equal(ua_cached_file(full, 5, 1), 0);
	fake_cachestat_calls = 0;
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), 0);
	assert_int_equal(fake_cachestat_calls, 2);
	assert_int_equal(sample.file_lru_pages, 5 + 8);
	upcc_hooks.cachestat = NULL;
	close(pipe_fds[1]);
	upcc_inventory_fini(&inv);
}

/* The fake clock of the pacing tests. */
static uint64_t pace_now;

static uint64_t pace_clock(void)
{
	return pace_now;
}

/* A file's cache as fake_half_cached says: half its pages, or all of them. */
static bool fake_whole;

static int fake_half_cached(int fd, uint64_t off, uint64_t len, struct upcc_cachestat *cs)
{
	int err = fake_all_cached(fd, off, len, cs);

	if (!err && !fake_whole)
		cs->nr_cache /= 2;
	return err;
}

/*
 * Issue 30, cost: a measure costs in proportion to the file's cache, and
 * the tick runs ten times a second: a file measured (by the tick, or a
 * refresh) is measured by the tick again only UPCC_INVENTORY_TICK_USEC_PER_MIB
 * per MiB it holds later, and counted meanwhile as that measure found it.
 */
static void test_tick_paced_by_cache(void **state)
{
	char big[PATH_MAX + 96];
	const char *dir = make_sub("tickpace");
	struct upcc_inventory inv;
	struct upcc_sample sample;
	int pipe_fds[2];

	(void)state;
	snprintf(big, sizeof(big), "%s/big", dir);
	assert_int_equal(ua_cached_file(big, 2048, 1), 0);	/* 8 MiB */
	init_watched(&inv, dir, pipe_fds);
	pace_now = 5000ull * 1000 * 1000;
	upcc_hooks.monotonic_usec = pace_clock;
	inv.scan = 1;
	note_file(&inv, big, 1);				/* 4 KiB: no wait */
	upcc_hooks.cachestat = fake_half_cached;
	fake_whole = false;
	fake_cachestat_calls = 0;
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), 0);
	assert_int_equal(fake_cachestat_calls, 1);
	assert_int_equal(sample.file_lru_pages, 1024);		/* 4 MiB: 16 ms */
	fake_whole = true;
	pace_now += 10 * 1000;
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), 0);
	assert_int_equal(fake_cachestat_calls, 1);		/* not yet */
	assert_int_equal(sample.file_lru_pages, 1024);
	pace_now += 6 * 1000;
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), 0);
	assert_int_equal(fake_cachestat_calls, 2);
	assert_int_equal(sample.file_lru_pages, 2048);
	/* A refresh's measure counts as well: 4 MiB, 16 ms before the next. */
	pace_now += 100 * 1000;
	inv.scan = 2;
	note_file(&inv, big, 1024);
	pace_now += 10 * 1000;
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), 0);
	assert_int_equal(fake_cachestat_calls, 2);		/* measured a moment ago */
	pace_now += 7 * 1000;
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), 0);
	assert_int_equal(fake_cachestat_calls, 3);
	upcc_hooks.cachestat = NULL;
	upcc_hooks.monotonic_usec = NULL;
	close(pipe_fds[1]);
	upcc_inventory_fini(&inv);
}

/*
 * Issue 32: a path scope whose root was a mount point and is one no more
 * was unmounted (nothing of the inventory's keeps it mounted): its refresh
 * and its tick fail with -ENODEV, where they measured the mount point's
 * empty directory, and its table is kept.  Back, the tick takes it as it
 * is (marks it again, where it was marked) and asks for the round, whose
 * refresh walks it and says so, once.  Unmount and return are faked here
 * (the root recorded as a mount point it is not, then on a device it is
 * not on); tests/integration/run.sh unmounts a loop filesystem for real.
 */
static void test_path_root_unmounted(void **state)
{
	char file[PATH_MAX + 96];
	const char *dir = make_sub("unmounted");
	struct upcc_inventory inv;
	struct upcc_sample sample;
	int pipe_fds[2];

	(void)state;
	snprintf(file, sizeof(file), "%s/f", dir);
	assert_int_equal(ua_cached_file(file, 8, 1), 0);
	init_watched(&inv, dir, pipe_fds);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.count, 1);

	inv.roots[0].mount_point = true;		/* unmounted */
	assert_int_equal(upcc_inventory_refresh(&inv), -ENODEV);
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), -ENODEV);
	assert_true(inv.root_gone);
	assert_int_equal(inv.count, 1);			/* kept for its return */

	inv.roots[0].mount_point = false;		/* mounted again, ... */
	inv.roots[0].dev++;				/* ... from another device */
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), 0);
	assert_false(sample.unchanged);			/* the round is not left out */
	assert_false(inv.root_gone);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.walk_why, UPCC_INV_WALK_MOUNTS);
	assert_non_null(strstr(inv.roots_changed, "mounted again "));
	assert_non_null(strstr(inv.roots_changed, dir));
	assert_int_equal(inv.count, 1);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_string_equal(inv.roots_changed, "");	/* said once */
	close(pipe_fds[1]);
	upcc_inventory_fini(&inv);
}

/*
 * Issue 10, cost: with fanotify, a refresh counts a file nothing opened
 * and that was not growing as it was last measured (one stat), and
 * measures it again at least every UPCC_INVENTORY_REMEASURE_SCANS
 * refreshes; a file that grew in size is measured at once.
 */
static void test_refresh_skips_unchanged(void **state)
{
	char a[PATH_MAX + 96], b[PATH_MAX + 96];
	const char *dir = make_sub("unchanged");
	struct upcc_inventory inv;
	unsigned int scans;
	int pipe_fds[2];

	(void)state;
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	assert_int_equal(ua_cached_file(a, 4, 1), 0);
	assert_int_equal(ua_cached_file(b, 8, 1), 0);
	init_watched(&inv, dir, pipe_fds);
	upcc_hooks.cachestat = fake_all_cached;
	assert_int_equal(upcc_inventory_refresh(&inv), 0);	/* the first walk */
	assert_int_equal(inv.last.sum.cached_pages, 4 + 8);
	fake_cachestat_calls = 0;
	for (scans = 1; scans < UPCC_INVENTORY_REMEASURE_SCANS; scans++)
		assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(fake_cachestat_calls, 0);
	assert_int_equal(inv.last.sum.cached_pages, 4 + 8);
	assert_int_equal(inv.count, 2);
	/* The bound: measured again, both. */
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(fake_cachestat_calls, 2);
	/* Grown: measured at the next refresh. */
	assert_int_equal(ua_cached_file(b, 9, 1), 0);
	fake_cachestat_calls = 0;
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(fake_cachestat_calls, 1);
	assert_int_equal(inv.last.sum.cached_pages, 4 + 9);
	upcc_hooks.cachestat = NULL;
	close(pipe_fds[1]);
	upcc_inventory_fini(&inv);
}

/*
 * Hostile review L2: a file whose path passes PATH_MAX (21 levels of
 * 250-byte names) is the scope's like any other: the refresh measures it
 * (and its sample counts it), the tick and a refresh that does not walk
 * open it again by its path, and eviction drops it.  It was left out of
 * every walk, its cache out of upcd's reach.
 */
static void test_long_path_measured_and_dropped(void **state)
{
	struct upcc_inventory_entry *order[4];
	struct upcc_evict_result result;
	struct upcc_residency res;
	struct upcc_inventory inv;
	struct upcc_sample sample;
	struct stat st;
	int pipe_fds[2], fd;
	char *file;

	(void)state;
	need_cachestat();
	file = ua_long_path_file(make_sub("long"), 21, "deepfile", 16, &fd);
	assert_non_null(file);
	assert_int_equal(fstat(fd, &st), 0);
	init_watched(&inv, sub, pipe_fds);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);	/* the first walk */
	assert_int_equal(inv.last.walk.skipped_depth, 0);
	assert_int_equal(inv.last.sum.files, 1);
	assert_int_equal(inv.last.sum.cached_pages, 16);
	assert_int_equal(upcc_inventory_sample(&inv, &sample), 0);
	assert_int_equal(sample.file_lru_pages, 16);
	assert_int_equal(upcc_inventory_coldest(&inv, order, 4), 1);
	assert_string_equal(order[0]->path, file);
	/* The tick opens it again by its path. */
	order[0]->active = true;
	assert_int_equal(upcc_inventory_tick_sample(&inv, &sample), 0);
	assert_int_equal(sample.file_lru_pages, 16);
	order[0]->active = false;

	assert_int_equal(upcc_inventory_evict(&inv, order[0], 0, &result), 0);
	assert_int_equal(result.before_pages, 16);
	assert_int_equal(result.after_pages, 0);
	assert_int_equal(upcc_residency_fd(fd, &st, &res), 0);
	assert_int_equal(res.cached_pages, 0);
	/* A refresh that does not walk measures the dropped file again by
	 * its path (its drop is watched): it stays known.
	 */
	assert_true(inv.entries[0].drop_watch_pages > 0);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.walk_why, UPCC_INV_WALK_NONE);
	assert_int_equal(inv.count, 1);
	assert_int_equal(inv.entries[0].measured_scan, inv.scan);
	close(fd);
	free(file);
	close(pipe_fds[1]);
	upcc_inventory_fini(&inv);
	ua_rm_rf(sub);
}

/*
 * Issue 30 / hostile test M2: without fanotify (the root not a mount
 * point), a tree whose walk costs a second of CPU was walked at every
 * refresh, a core forever.  Walks are paced by their cost: the next waits
 * until the last took at most 1/UPCC_INVENTORY_WALK_PACE of the time since
 * it began.  A refresh in between does not walk; its totals are the last
 * walk's less what upcd dropped since.  (The walk's cost is set by the
 * test: a real one costly enough would make the test slow.)
 */
static void test_unmarked_walks_paced(void **state)
{
	struct upcc_inventory inv;
	struct upcc_inventory_entry *order[4];
	struct upcc_evict_result result;
	struct upcc_sample sample;
	char file[PATH_MAX + 96];

	(void)state;
	need_cachestat();
	snprintf(file, sizeof(file), "%s/f", make_sub("paced"));
	assert_int_equal(ua_cached_file(file, 64, 1), 0);
	pace_now = 1000ull * 1000 * 1000;
	upcc_hooks.monotonic_usec = pace_clock;
	assert_int_equal(upcc_inventory_init(&inv, sub, false, 0), 0);
	assert_true(inv.fan.fd < 0);
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.walks, 1);
	assert_int_equal(inv.last.sum.cached_pages, 64);
	/* A cheap walk is never paced. */
	pace_now += 1000;
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_int_equal(inv.walks, 2);
	assert_false(inv.paced);
	/* A dear one (1 s of CPU) is walked again 200 s on, not before. */
	inv.walk_cpu_usec = 1000ull * 1000;
	pace_now += 1000ull * 1000;
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_true(inv.paced);
	assert_int_equal(inv.walks, 2);
	assert_int_equal(inv.walks_paced, 1);
	assert_int_equal(inv.last.sum.cached_pages, 64);
	/* What upcd drops in between comes off the totals the sample reports. */
	assert_int_equal(upcc_inventory_coldest(&inv, order, 4), 1);
	assert_int_equal(upcc_inventory_evict(&inv, order[0], 0, &result), 0);
	assert_int_equal(upcc_inventory_sample(&inv, &sample), 0);
	assert_int_equal(sample.file_lru_pages, 0);
	pace_now += 198ull * 1000 * 1000;
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_true(inv.paced);
	pace_now += 1000ull * 1000;
	assert_int_equal(upcc_inventory_refresh(&inv), 0);
	assert_false(inv.paced);
	assert_int_equal(inv.walks, 3);
	upcc_hooks.monotonic_usec = NULL;
	upcc_inventory_fini(&inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapped_set_parse),
		cmocka_unit_test(test_mapped_set_fake_proc),
		cmocka_unit_test(test_coldness_order),
		cmocka_unit_test(test_refault_protects),
		cmocka_unit_test(test_came_back_is_a_quarter),
		cmocka_unit_test(test_capacity_bound),
		cmocka_unit_test(test_refresh_and_evict),
		cmocka_unit_test(test_evict_limit),
		cmocka_unit_test(test_evict_reader_in_file),
		cmocka_unit_test(test_evict_replaced_file),
		cmocka_unit_test(test_path_sample),
		cmocka_unit_test(test_mounts_inventory),
		cmocka_unit_test(test_mounts_follow_table),
		cmocka_unit_test(test_path_root_unmounted),
		cmocka_unit_test(test_hard_links_counted_once),
		cmocka_unit_test(test_overflowed_table_samples_from_one_walk),
		cmocka_unit_test(test_refresh_interrupted),
		cmocka_unit_test(test_tick_measures_only_what_can_grow),
		cmocka_unit_test(test_refresh_skips_unchanged),
		cmocka_unit_test(test_long_path_measured_and_dropped),
		cmocka_unit_test(test_unmarked_walks_paced),
		cmocka_unit_test(test_tick_paced_by_cache),
		cmocka_unit_test(test_evict_stream_at_end),
		cmocka_unit_test(test_range_drop_counts_inflow),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
