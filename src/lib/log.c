// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - lines to the journal or stderr; see log.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "text.h"

static bool log_journal;
static bool log_verbose;
static const char *log_name;	/* NULL before upcc_log_init: the executable's */

static const char *program_name(void)
{
	return log_name ? log_name : program_invocation_short_name;
}

void upcc_log_init(const char *name, bool verbose)
{
	log_journal = upcc_journal_stream_is_stderr();
	log_verbose = verbose;
	log_name = name;
}

bool upcc_log_to_journal(void)
{
	return log_journal;
}

static void log_line(int priority, const struct upcc_journal_field *fields, const char *format,
		     va_list args)
{
	char raw[1024], line[1024];

	if (priority >= LOG_DEBUG && !log_verbose)
		return;
	vsnprintf(raw, sizeof(raw), format, args);
	/* File and mount names reach the log: no escape sequence, no forged line. */
	upcc_text_printable(line, sizeof(line), raw);
	if (log_journal && upcc_journal_send(priority, program_name(), line, fields) == 0)
		return;
	/* One fprintf per line, so concurrent writers never interleave within it. */
	if (log_journal)
		fprintf(stderr, "<%d>%s\n", priority, line);
	else
		fprintf(stderr, "%s: %s\n", program_name(), line);
}

void upcc_log(int priority, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	log_line(priority, NULL, format, args);
	va_end(args);
}

void upcc_log_fields(int priority, const struct upcc_journal_field *fields, const char *format,
		     ...)
{
	va_list args;

	va_start(args, format);
	log_line(priority, fields, format, args);
	va_end(args);
}
