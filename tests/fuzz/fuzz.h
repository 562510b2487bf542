/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what every libFuzzer target here shares: the input as a
 * NUL-terminated string (every parser under test takes text).
 */
#ifndef UPCC_FUZZ_H
#define UPCC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A heap copy of @data with a NUL after it (the parsers stop at a NUL
 * inside, as they do on a file's text).  NULL if out of memory.
 */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
	}
	return text;
}

#endif /* UPCC_FUZZ_H */
