// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - stderr logging with journald priorities; see log.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "text.h"

static bool log_prefix_priority;
static bool log_verbose;
static const char *log_name;	/* NULL before upcc_log_init: the executable's */

void upcc_log_init(const char *name, bool verbose)
{
	log_prefix_priority = getenv("JOURNAL_STREAM") != NULL;
	log_verbose = verbose;
	log_name = name;
}

void upcc_log(int priority, const char *format, ...)
{
	char raw[1024], line[1024];
	va_list args;

	if (priority >= LOG_DEBUG && !log_verbose)
		return;
	va_start(args, format);
	vsnprintf(raw, sizeof(raw), format, args);
	va_end(args);
	/* File and mount names reach the log: no escape sequence, no forged line. */
	upcc_text_printable(line, sizeof(line), raw);
	/* One fprintf per line, so concurrent writers never interleave within it. */
	if (log_prefix_priority)
		fprintf(stderr, "<%d>%s\n", priority, line);
	else
		fprintf(stderr, "%s: %s\n", log_name ? log_name : program_invocation_short_name,
			line);
}
