/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - parsers for the kernel's memory accounting files.
 *
 * Each parser takes the file's text (so that tests feed fixtures) and has a
 * _read() twin that takes a path.  Unknown lines are ignored (the kernel
 * adds fields over time); a known field with a malformed number is an
 * error; values beyond 64 bits saturate at UINT64_MAX rather than wrap.
 * Which fields were seen is recorded in ->present, so a caller can tell a
 * zero from a missing field (e.g. an old kernel without Active(file)).
 */
#ifndef UPCC_STATS_H
#define UPCC_STATS_H

#include <stddef.h>
#include <stdint.h>

/* /proc/meminfo and /sys/devices/system/node/nodeN/meminfo, in kB. */
enum upcc_meminfo_field {
	UPCC_MI_MEM_TOTAL,
	UPCC_MI_MEM_FREE,
	UPCC_MI_ACTIVE_FILE,
	UPCC_MI_INACTIVE_FILE,
	UPCC_MI_MAPPED,
	UPCC_MI_DIRTY,
	UPCC_MI_WRITEBACK,
	UPCC_MI_SHMEM,
	UPCC_MI_SWAP_TOTAL,		/* /proc/meminfo only: memcg needs "no swap" */
	UPCC_MI_NR_FIELDS,
};

struct upcc_meminfo {
	uint64_t kb[UPCC_MI_NR_FIELDS];
	unsigned int present;		/* bit (1u << field) per field seen */
	int node_id;			/* -1 for /proc/meminfo, N for "Node N" lines */
};

/* cgroup v2 memory.stat, in bytes. */
enum upcc_memstat_field {
	UPCC_MS_ANON,
	UPCC_MS_FILE,
	UPCC_MS_ACTIVE_FILE,
	UPCC_MS_INACTIVE_FILE,
	UPCC_MS_FILE_MAPPED,
	UPCC_MS_FILE_DIRTY,
	UPCC_MS_FILE_WRITEBACK,
	UPCC_MS_SHMEM,
	UPCC_MS_NR_FIELDS,
};

struct upcc_memstat {
	uint64_t bytes[UPCC_MS_NR_FIELDS];
	unsigned int present;
};

/* /proc/vmstat, in pages or events. */
enum upcc_vmstat_field {
	UPCC_VS_NR_FREE_PAGES,
	UPCC_VS_NR_ACTIVE_FILE,
	UPCC_VS_NR_INACTIVE_FILE,
	UPCC_VS_NR_MAPPED,
	UPCC_VS_NR_FILE_PAGES,
	UPCC_VS_NR_DIRTY,
	UPCC_VS_NR_WRITEBACK,
	UPCC_VS_PGSTEAL_KSWAPD,
	UPCC_VS_PGSTEAL_DIRECT,
	UPCC_VS_KSWAPD_UNMAPPED_WAKE,	/* the kernel series' counters */
	UPCC_VS_PGSCAN_UNMAPPED,
	UPCC_VS_PGSTEAL_UNMAPPED,
	UPCC_VS_NR_FIELDS,
};

struct upcc_vmstat {
	uint64_t value[UPCC_VS_NR_FIELDS];
	unsigned int present;
};

#define UPCC_HAS(stat, field)	(((stat)->present >> (field)) & 1u)

/*
 * Parse @text.  0 on success; -EINVAL if a known field is malformed or
 * "Node N" lines disagree on N; -ENODATA if no known field was seen.
 */
int upcc_meminfo_parse(const char *text, struct upcc_meminfo *info);
int upcc_memstat_parse(const char *text, struct upcc_memstat *stat);
int upcc_vmstat_parse(const char *text, struct upcc_vmstat *stat);

int upcc_meminfo_read(const char *path, struct upcc_meminfo *info);
int upcc_memstat_read(const char *path, struct upcc_memstat *stat);
int upcc_vmstat_read(const char *path, struct upcc_vmstat *stat);

/* /proc/meminfo, read under the tests' root (sysfs.h).  0 or -errno. */
int upcc_meminfo_read_system(struct upcc_meminfo *info);

/*
 * A kernel list like "0-3,8" (sysfs node/online) into @ids, ascending.
 * Returns how many ids were stored (at most @max), or -EINVAL.
 */
int upcc_id_list_parse(const char *text, int *ids, size_t max);

#endif /* UPCC_STATS_H */
