/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idset.h - a set of files by (dev, ino): how a walk counts a hard-linked
 * file, or a directory reached again through a bind mount, once.
 */
#ifndef UPCC_IDSET_H
#define UPCC_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct upcc_file_id {
	dev_t dev;
	ino_t ino;
};

/* Open addressing; zero-initialised is an empty set. */
struct upcc_id_set {
	struct upcc_file_id *slots;
	bool *used;
	size_t nr_slots;		/* a power of two, or 0 */
	size_t count;
};

/* 1 if (@dev, @ino) was added, 0 if it was there already, -ENOMEM. */
int upcc_id_set_add(struct upcc_id_set *set, dev_t dev, ino_t ino);
void upcc_id_set_free(struct upcc_id_set *set);

#endif /* UPCC_IDSET_H */
