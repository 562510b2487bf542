// SPDX-License-Identifier: GPL-2.0
/*
 * pace.c - let long work yield to signals and the watchdog; see pace.h.
 */
#include "pace.h"

#include <stddef.h>

static upcc_pace_fn pace_fn;
static void *pace_ctx;
static unsigned int pace_calls;

void upcc_pace_set(upcc_pace_fn fn, void *ctx)
{
	pace_fn = fn;
	pace_ctx = ctx;
	pace_calls = 0;
}

bool upcc_pace_stop_now(void)
{
	return pace_fn && pace_fn(pace_ctx);
}

bool upcc_pace_stop(void)
{
	if (!pace_fn || ++pace_calls % UPCC_PACE_EVERY)
		return false;
	return pace_fn(pace_ctx);
}
