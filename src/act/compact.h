/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compact.h - make the memory upcd freed reportable to the host.
 *
 * virtio-balloon's free page reporting hands the host only free blocks of
 * at least pageblock order (2 MiB on x86_64).  Page cache dropped one page
 * at a time leaves order-0 holes between pages still in use: the guest
 * has freed it, the host never gets it.  Inside a guest whose balloon
 * device offers reporting, upcd asks the kernel to compact memory once the
 * rounds since the last compaction have freed enough, at most every
 * UPCC_COMPACT_GAP_USEC.  Compaction migrates movable pages, mapped ones
 * included: they move and stay resident; nothing is evicted.  Only what
 * the guest-wide scopes (system, node) reclaim counts: a path or cgroup
 * scope bounds part of a machine's cache, often on a host upcd shares.
 * Anywhere else (bare metal, a balloon without reporting, no balloon) upcd
 * never compacts: the CPU would buy nothing.
 */
#ifndef UPCC_COMPACT_H
#define UPCC_COMPACT_H

#include <stdbool.h>
#include <stdint.h>

/* Freed since the last compaction before the next one: 16 pageblocks. */
#define UPCC_COMPACT_MIN_FREED_BYTES	(32ull << 20)
#define UPCC_COMPACT_GAP_USEC		(10ull * 1000 * 1000)

/* The balloon feature bit of free page reporting (virtio_balloon.h). */
#define UPCC_VIRTIO_BALLOON_F_REPORTING	5

struct upcc_compact {
	bool enabled;			/* a bound balloon reports free pages */
	char why[192];			/* the device, or why compaction is off */
	uint64_t freed_pages;		/* reclaimed since the last compaction */
	uint64_t last_usec;		/* monotonic time of the last one, 0: none */
	uint64_t runs_total;
	uint64_t errors_total;
	uint64_t cpu_usec_total;	/* CPU upcd's thread spent compacting */
	int last_error;			/* -errno of the last failed write, 0 */
};

/*
 * Look for a virtio-balloon device bound to its driver whose negotiated
 * features include free page reporting, and for the compaction sysctl.
 * Unless @allowed (the config's "compact = no"): then off, nothing looked
 * at, and compact_memory is never written.  The counters are kept: a
 * reload probes again.
 */
void upcc_compact_probe(struct upcc_compact *compact, bool allowed);

/*
 * After a round that reclaimed @freed_pages: compact when enabled, enough
 * was freed since the last compaction and the gap has passed.  True if it
 * compacted (or tried: last_error says).  Its CPU goes to cpu_usec_total,
 * which upcd reports apart from its own.
 */
bool upcc_compact_after_round(struct upcc_compact *compact, uint64_t freed_pages,
			      uint64_t page_size, uint64_t now_usec);

#endif /* UPCC_COMPACT_H */
