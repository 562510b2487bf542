// SPDX-License-Identifier: GPL-2.0
/*
 * jsonstr.c - the one JSON string escaper; see jsonstr.h.
 */
#include "jsonstr.h"

void upcc_json_string(FILE *out, const char *text)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}
