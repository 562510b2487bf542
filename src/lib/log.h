/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.h - one line per event.  Under journald (our stderr is the stream
 * $JOURNAL_STREAM names) each line is a native journal entry (journal.h)
 * with its priority and structured fields; if journald's socket does not
 * take it, a stderr line that starts with a "<N>" syslog priority, which
 * journald reads as the entry's level.  Elsewhere a plain stderr line
 * with the program's name ("upcd: ") in front, and no fields.
 */
#ifndef UPCC_LOG_H
#define UPCC_LOG_H

#include <stdbool.h>
#include <syslog.h>

#include "journal.h"

/*
 * Decide once where lines go (the journal, stderr with priorities, plain
 * stderr); @name is the program a line is from (both programs link this
 * file, so it cannot be built in); @verbose lets LOG_DEBUG through.
 */
void upcc_log_init(const char *name, bool verbose);

/* Are lines native journal entries (upcc_log_fields' fields kept)? */
bool upcc_log_to_journal(void);

void upcc_log(int priority, const char *format, ...) __attribute__((format(printf, 2, 3)));

/*
 * The same with structured fields (a list ended by a NULL name): in the
 * journal they are the entry's; on stderr they are dropped, the line
 * itself says what they say.
 */
void upcc_log_fields(int priority, const struct upcc_journal_field *fields, const char *format,
		     ...) __attribute__((format(printf, 3, 4)));

#endif /* UPCC_LOG_H */
