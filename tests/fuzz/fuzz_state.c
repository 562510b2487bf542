// SPDX-License-Identifier: GPL-2.0
/* fuzz_state.c - the state file reader (json-c), then its writer. */
#include "fuzz.h"

#include <stdio.h>

#include "report/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct upcc_state_scope scopes[4];
	struct upcc_state_header header;
	size_t count = 0;
	char *text = fuzz_text(data, size);
	FILE *sink;

	if (!text)
		return 0;
	if (upcc_state_parse(text, &header, scopes, 4, &count) == 0) {
		sink = fopen("/dev/null", "w");
		for (size_t i = 0; sink && i < count; i++)
			upcc_state_scope_json(sink, &scopes[i], header.page_size);
		if (sink)
			fclose(sink);
	} else if (count) {
		abort();	/* a refused file fills no scope */
	}
	free(text);
	return 0;
}
