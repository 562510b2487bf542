/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mapped.h - the files some process maps, from every /proc/PID/maps: they
 * are counted as mapped and never evicted.
 */
#ifndef UPCC_MAPPED_H
#define UPCC_MAPPED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/idset.h"

/* The (dev, ino) of every file mapped by any process, sorted. */
struct upcc_mapped_set {
	struct upcc_file_id *ids;
	size_t count;
	size_t capacity;
	size_t unreadable;	/* maps files we may not read (EACCES: no CAP_SYS_PTRACE) */
};

/* Read every /proc/PID/maps (under the tests' root, sysfs.h).  0 or -errno. */
int upcc_mapped_set_load(struct upcc_mapped_set *set);
/* Parse one maps file's text into @set (unsorted until _finish). */
int upcc_mapped_set_parse(struct upcc_mapped_set *set, const char *text);
void upcc_mapped_set_finish(struct upcc_mapped_set *set);
bool upcc_mapped_set_has(const struct upcc_mapped_set *set, dev_t dev, ino_t ino);
void upcc_mapped_set_free(struct upcc_mapped_set *set);

#endif /* UPCC_MAPPED_H */
