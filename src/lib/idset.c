// SPDX-License-Identifier: GPL-2.0
/*
 * idset.c - a set of files by (dev, ino); see idset.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "idset.h"

static size_t id_hash(dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)ino ^ ((uint64_t)dev << 32 | (uint64_t)dev >> 32)) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 29);
}

/* The slot holding (@dev, @ino), or the empty one where it would go. */
static size_t find_slot(const struct upcc_id_set *set, dev_t dev, ino_t ino)
{
	size_t mask = set->nr_slots - 1, i = id_hash(dev, ino) & mask;

	while (set->used[i] && (set->slots[i].dev != dev || set->slots[i].ino != ino))
		i = (i + 1) & mask;
	return i;
}

static int grow(struct upcc_id_set *set)
{
	struct upcc_id_set bigger = { .nr_slots = set->nr_slots ? set->nr_slots * 2 : 64 };

	bigger.slots = malloc(bigger.nr_slots * sizeof(*bigger.slots));
	bigger.used = calloc(bigger.nr_slots, sizeof(*bigger.used));
	if (!bigger.slots || !bigger.used) {
		upcc_id_set_free(&bigger);
		return -ENOMEM;
	}
	for (size_t i = 0; i < set->nr_slots; i++) {
		size_t slot;

		if (!set->used[i])
			continue;
		slot = find_slot(&bigger, set->slots[i].dev, set->slots[i].ino);
		bigger.slots[slot] = set->slots[i];
		bigger.used[slot] = true;
	}
	bigger.count = set->count;
	upcc_id_set_free(set);
	*set = bigger;
	return 0;
}

int upcc_id_set_add(struct upcc_id_set *set, dev_t dev, ino_t ino)
{
	size_t slot;

	/* At most half full: probes stay short. */
	if (2 * (set->count + 1) > set->nr_slots && grow(set))
		return -ENOMEM;
	slot = find_slot(set, dev, ino);
	if (set->used[slot])
		return 0;
	set->slots[slot].dev = dev;
	set->slots[slot].ino = ino;
	set->used[slot] = true;
	set->count++;
	return 1;
}

void upcc_id_set_free(struct upcc_id_set *set)
{
	free(set->slots);
	free(set->used);
	set->slots = NULL;
	set->used = NULL;
	set->nr_slots = 0;
	set->count = 0;
}
