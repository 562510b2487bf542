/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pace.h - long work (a walk of a big tree, a pass over the inventory)
 * stays responsive: every so many items it lets the daemon ping the
 * systemd watchdog and asks whether a signal (stop, reload) is waiting,
 * in which case the work stops early and the caller reports -EINTR.
 *
 * The hook is the process's one, like its signals: upcd sets it; upcc and
 * the tests leave it unset and nothing is ever interrupted.
 */
#ifndef UPCC_PACE_H
#define UPCC_PACE_H

#include <stdbool.h>

/* Called now and then by long work: true means stop as soon as possible. */
typedef bool (*upcc_pace_fn)(void *ctx);

void upcc_pace_set(upcc_pace_fn fn, void *ctx);

/* Cheap to call per item: runs the hook once every UPCC_PACE_EVERY calls. */
#define UPCC_PACE_EVERY	64u
bool upcc_pace_stop(void);

/* Run the hook now (between steps and rounds). */
bool upcc_pace_stop_now(void);

#endif /* UPCC_PACE_H */
