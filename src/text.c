// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - bounded human summaries (see text.h).
 */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void upcc_text_append(char *text, size_t len, const char *fmt, ...)
{
	static const char cut[] = "...";
	size_t used = strlen(text);
	va_list args;
	int n;

	if (len < sizeof(cut))
		return;		/* no room even for the marker: left alone */
	va_start(args, fmt);
	n = vsnprintf(text + used, len - used, fmt, args);
	va_end(args);
	if (n < 0)
		text[used] = '\0';
	else if ((size_t)n >= len - used)
		/* Whatever did not fit, even all of it: the end says so.  A
		 * text marked already gets the same marker again.
		 */
		memcpy(text + len - sizeof(cut), cut, sizeof(cut));
}
