// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_state.c - the state file reader (json-c), then its writer: what it
 * writes is well-formed UTF-8 and reads back to the same names and paths
 * (their _hex twins, issue 31 item 6).
 */
#include "fuzz.h"

#include <stdio.h>

#include "lib/jsonstr.h"
#include "report/state.h"

/* @scope as the writer writes it, in a state file of its own: a heap text. */
static char *written(const struct upcc_state_scope *scope, uint64_t page_size)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	fputs("{\"version\":2,\"daemon\":{\"pid\":1,\"updated\":1},\"scopes\":[", out);
	upcc_state_scope_json(out, scope, page_size);
	fputs("]}", out);
	fclose(out);
	return buf;
}

/* Written, it is UTF-8, and its names and paths read back as they were. */
static void check_round_trip(const struct upcc_state_scope *scope, uint64_t page_size)
{
	static struct upcc_state_scope back;
	struct upcc_state_header header;
	char *text = written(scope, page_size);
	size_t count = 0;

	if (!text)
		return;
	if (!upcc_json_utf8_valid(text))
		abort();
	if (upcc_state_parse(text, &header, &back, 1, &count) || count != 1 ||
	    strcmp(back.name, scope->name) || strcmp(back.path, scope->path))
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct upcc_state_scope scopes[4];
	struct upcc_state_header header;
	size_t count = 0;
	char *text = fuzz_text(data, size);

	if (!text)
		return 0;
	if (upcc_state_parse(text, &header, scopes, 4, &count) == 0) {
		for (size_t i = 0; i < count; i++)
			check_round_trip(&scopes[i], header.page_size);
	} else if (count) {
		abort();	/* a refused file fills no scope */
	}
	free(text);
	return 0;
}
