/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.h - one line per event on stderr.  Under systemd (JOURNAL_STREAM set)
 * each line starts with a "<N>" syslog priority, which journald reads as the
 * entry's level; on a terminal the prefix is left out and the program's
 * name ("upcd: ") is put in its place.
 */
#ifndef UPCC_LOG_H
#define UPCC_LOG_H

#include <stdbool.h>
#include <syslog.h>

/*
 * Decide once whether to prefix priorities; @name is the program a line
 * on a terminal is from (both programs link this file, so it cannot be
 * built in); @verbose lets LOG_DEBUG through.
 */
void upcc_log_init(const char *name, bool verbose);

void upcc_log(int priority, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif /* UPCC_LOG_H */
