/* SPDX-License-Identifier: GPL-2.0 */
/*
 * journal.h - journald's native protocol by hand (no libsystemd, as
 * notify.h): one datagram of fields to /run/systemd/journal/socket, so a
 * line carries SCOPE=, BACKEND=, RECLAIMED_BYTES=... that
 * `journalctl -u upcd SCOPE=data` and `-o verbose` see.  A stderr line
 * under journald gets a priority and nothing else.
 *
 * The format (systemd's "Native Journal Protocol"): NAME=value lines; a
 * value with a newline is sent as NAME, a newline, its length as a
 * little-endian 64-bit number, the value, a newline.  Names are upper
 * case letters, digits and '_', not starting with '_' (those are
 * journald's own, "trusted" fields).
 */
#ifndef UPCC_JOURNAL_H
#define UPCC_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#define UPCC_JOURNAL_SOCKET	"/run/systemd/journal/socket"

/* One structured field; a NULL name ends a list. */
struct upcc_journal_field {
	const char *name;
	const char *value;
};

/*
 * Is our stderr journald's stream: does $JOURNAL_STREAM ("DEV:INODE", set
 * by systemd for a unit whose output goes to the journal) name the file
 * on fd 2?  A unit's stderr redirected elsewhere (a shell in ExecStart
 * with 2>file) keeps the variable but is no longer the journal's.
 */
bool upcc_journal_stream_is_stderr(void);

/*
 * Build the datagram into @buf (@size bytes): PRIORITY=, SYSLOG_IDENTIFIER=
 * @identifier, MESSAGE=@message, then @fields up to the NULL name (a field
 * with a NULL value or a bad name is left out).  Its length, or -ENOBUFS.
 */
long upcc_journal_format(char *buf, size_t size, int priority, const char *identifier,
			 const char *message, const struct upcc_journal_field *fields);

/*
 * Send one entry to journald's socket (upcc_hooks.journal_socket in the
 * tests, else UPCC_JOURNAL_SOCKET).  0, or -errno: the caller falls back
 * to a stderr line, so nothing is lost when journald is away.  An entry
 * is at most UPCC_JOURNAL_MAX bytes (a datagram, no memfd): a longer one
 * (a line with several paths near PATH_MAX) is -ENOBUFS, and goes to
 * stderr as a plain line, without its fields.
 */
#define UPCC_JOURNAL_MAX	16384
int upcc_journal_send(int priority, const char *identifier, const char *message,
		      const struct upcc_journal_field *fields);

#endif /* UPCC_JOURNAL_H */
