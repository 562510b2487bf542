// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_fanotify.c - the fanotify event parser on any bytes a read could
 * return: no root (so no handle is ever opened), a known callback that
 * answers by the inode, every byte as event records.
 */
#include "fuzz.h"

#include <unistd.h>

#include "sys/fanotify.h"

static int learn(void *ctx, int fd, const struct stat *st, const char *path)
{
	(void)ctx, (void)fd, (void)st, (void)path;
	return 0;
}

static bool known(void *ctx, dev_t dev, ino_t ino)
{
	(void)ctx, (void)dev;
	return ino & 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct upcc_fanotify fan = { .fd = -1 };
	struct upcc_fanotify_view view = { .learn = learn, .known = known };
	uint64_t budget = UINT64_MAX;
	char *copy = malloc(size ? size : 1);	/* unaligned reads are the parser's to handle */

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	memset(fan.seen, 0, sizeof(fan.seen));
	/* Some handles known, from the input's first bytes, so both lookups run. */
	for (size_t i = 0; i + 8 <= size && i < 64; i += 8) {
		uint64_t h;

		memcpy(&h, data + i, sizeof(h));
		fan.known[h % UPCC_FANOTIFY_SEEN_SLOTS].hash = h | 1;
		fan.known[h % UPCC_FANOTIFY_SEEN_SLOTS].ino = (ino_t)i;
	}
	upcc_fanotify_parse(&fan, &view, copy, size, getpid(), &budget);
	free(copy);
	return 0;
}
