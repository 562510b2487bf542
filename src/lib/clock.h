/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock.h - the monotonic clock in microseconds, for the "how long" of every
 * action report.  Monotonic, so that a wall clock step never makes an action
 * look negative or hours long.
 */
#ifndef UPCC_CLOCK_H
#define UPCC_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t upcc_monotonic_usec(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

#endif /* UPCC_CLOCK_H */
