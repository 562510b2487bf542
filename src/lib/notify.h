/* SPDX-License-Identifier: GPL-2.0 */
/*
 * notify.h - the sd_notify protocol by hand (no libsystemd): one datagram
 * of "KEY=VALUE" lines to the AF_UNIX socket named by $NOTIFY_SOCKET.
 */
#ifndef UPCC_NOTIFY_H
#define UPCC_NOTIFY_H

#include <stdint.h>

/*
 * Send @state ("READY=1", "WATCHDOG=1", "STOPPING=1", "STATUS=...").
 * 0 if sent, 1 if not under systemd (no $NOTIFY_SOCKET), else -errno.
 */
int upcc_notify(const char *state);

/* "STATUS=" plus a printf message. */
int upcc_notify_status(const char *format, ...) __attribute__((format(printf, 1, 2)));

/*
 * The watchdog period systemd asks for, in microseconds, from
 * $WATCHDOG_USEC (and $WATCHDOG_PID, when set, must be us); 0 if none.
 */
uint64_t upcc_notify_watchdog_usec(void);

#endif /* UPCC_NOTIFY_H */
