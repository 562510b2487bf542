/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ranges.h - the cold ranges of one large file in use.
 *
 * A file whose dropped pages came back is the working set, and the
 * inventory stops dropping it whole.  But a large file read at random (a
 * database's relation file, a VM image, an index) is in use only in
 * places: most of its cache can be pages read once.  Kept whole, it holds
 * the scope far above target plus what is really re-read; dropped whole,
 * it costs its reader the hot part.  So such a file is judged range by
 * range, as the inventory judges files:
 *
 *  - a range whose cache did not grow between two looks may be dropped,
 *    the least cached first (a range read a little at random is used less
 *    than one cached whole), the later in the file first on a tie;
 *  - a dropped range that came back at a refault distance within what the
 *    scope may hold (a quarter of its pages: core/wset.h, the files'
 *    rule) is hot: kept for
 *    UPCC_WSET_HOT_USEC, twice that each time it proves hot again (up to
 *    8x), so a working set is probed less and less often;
 *  - a range that proved hot is probed again by an eighth of it only (the
 *    next eighth that holds cache, in turn): if it is still hot, the probe
 *    costs its reader an eighth of a range read back, not all of it; if
 *    nothing at all comes back it is no longer known hot, and its next
 *    drop is whole; if a little does, the next eighth is probed in turn.
 *    An eighth left empty by an earlier probe is passed over; a range no
 *    eighth of which can be dropped (large folios across them) goes whole;
 *  - the file's working set is the cache of its hot ranges only.
 *
 * The caller keeps the mapped and dirty rules (sys/evict.h); this file only
 * measures ranges, drops them with POSIX_FADV_DONTNEED and keeps their state.
 */
#ifndef UPCC_RANGES_H
#define UPCC_RANGES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "core/wset.h"
#include "sys/residency.h"

/*
 * Page counts, not bytes as elsewhere in upcc (upcc_page_size()): a range
 * is a fixed number of pages, whose counts its state keeps in 16 bits and
 * whose quarter and eighths are judged in pages.  The numbers were chosen
 * and measured on 4 KiB pages, where a range is 2 MiB (the largest
 * page-cache folio on x86-64, so no folio straddles two ranges) and files
 * of 32 MiB and more are judged by ranges; on larger pages both are as
 * many times larger, which nothing here has measured.
 */
#define UPCC_RANGE_PAGES	512u		/* 2 MiB of 4 KiB pages */
#define UPCC_RANGES_MIN_PAGES	(16u * UPCC_RANGE_PAGES)	/* 32 MiB of 4 KiB pages */
#define UPCC_RANGE_HOT_MAX_SHIFT 3u
#define UPCC_RANGE_PROBES	8u		/* a hot range is probed by 1/8 */
#define UPCC_RANGE_PROBE_PAGES	(UPCC_RANGE_PAGES / UPCC_RANGE_PROBES)

struct upcc_range {
	struct upcc_wset_drop drop;	/* when it was last dropped, by both clocks */
	uint64_t distance;		/* its refault distance, when it proved hot */
	uint64_t hot_until_usec;	/* kept until then */
	uint16_t cached;		/* at the last look */
	uint16_t dropped;		/* what that drop took, watched; 0 = none */
	uint16_t left;			/* cached right after it */
	uint8_t hot_level;		/* times it proved hot, capped; 0 once cold */
	bool seen;			/* looked at once: growth can be judged */
	uint8_t probes;			/* eighths probed: which one is next */
	bool may_go;			/* the last look found it may be dropped */
};

struct upcc_ranges {
	uint64_t nr;
	/* The last look (upcc_ranges_look): in which pass, and the file's
	 * residency it summed, less what drops took since.
	 */
	uint64_t look_pass;
	bool looked;
	struct upcc_residency look_sum;
	struct upcc_range range[];
};

/* Is a file of @file_pages judged by ranges once it is in use? */
bool upcc_ranges_apply(uint64_t file_pages);

/* The ranges' state for a file of @file_pages, kept over a change of size.
 * NULL on ENOMEM (the old state is then still valid).
 */
struct upcc_ranges *upcc_ranges_resize(struct upcc_ranges *ranges, uint64_t file_pages);
void upcc_ranges_free(struct upcc_ranges *ranges);

/*
 * Judge the dropped ranges of the file on @fd whose watch runs: one that
 * came back (core/wset.h) is hot; a watch that ran out is ended.  Returns the
 * pages found back in ranges that proved hot (0: none, or an error).
 */
uint64_t upcc_ranges_watch(struct upcc_ranges *ranges, int fd, const struct stat *st,
			   const struct upcc_wset_now *now);

/*
 * Look at every range of the file on @fd: judge the watched drops, note
 * growth and which ranges may go (above), and sum the file's residency
 * into *@file (cached, dirty and writeback: the caller's eviction rules
 * need no measure of the whole file).  Once per @pass (the caller's
 * refresh): a later look in the same pass reuses the first, *@fresh false
 * and *@file as it summed less what drops took since.  A look costs a
 * cachestat per range, and a control round asks several times; growth
 * judged between looks a moment apart says little anyway.  0 or -errno.
 */
int upcc_ranges_look(struct upcc_ranges *ranges, int fd, const struct stat *st, uint64_t pass,
		     const struct upcc_wset_now *now, struct upcc_residency *file, bool *fresh);

/*
 * Drop the ranges the last look found may go, the least cached first,
 * until @limit_pages are gone (0: every such range).  After a reused look
 * (@recheck) each range is measured again first and left alone if it grew
 * since (in use) or holds dirty or writeback pages (DONTNEED would start
 * writeback on them).  *dropped gets the pages the drops took.  0 or -errno.
 */
int upcc_ranges_drop(struct upcc_ranges *ranges, int fd, const struct stat *st,
		     uint64_t limit_pages, bool recheck, const struct upcc_wset_now *now,
		     uint64_t *dropped);

/* The cached pages of the ranges hot at @now_usec, as last looked at. */
uint64_t upcc_ranges_hot_pages(const struct upcc_ranges *ranges, uint64_t now_usec);

#endif /* UPCC_RANGES_H */
