/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock.h - the clocks, in microseconds.  The monotonic one is every "when"
 * and "how long" of upcd and upcc (action reports, rounds, ticks, the
 * working set's decay, the inventory's coldness): monotonic, so that a
 * wall clock step never makes an action look negative or hours long, and
 * one, so that a test that fakes it (upcc_hooks.monotonic_usec) fakes
 * every reading.  The wall clock is only for times of day in reports.
 */
#ifndef UPCC_CLOCK_H
#define UPCC_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "hooks.h"

static inline uint64_t upcc_monotonic_usec(void)
{
	struct timespec now;

	if (upcc_hooks.monotonic_usec)
		return upcc_hooks.monotonic_usec();
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/*
 * The wall clock, in microseconds since the epoch: only for what is
 * reported as a time of day (the metrics' timestamps), never to measure
 * how long something took.
 */
static inline uint64_t upcc_realtime_usec(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/*
 * This thread's CPU time: what a piece of work costs (a walk, a
 * compaction), whatever else the machine runs.  0 if unavailable.
 */
static inline uint64_t upcc_thread_cpu_usec(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

#endif /* UPCC_CLOCK_H */
