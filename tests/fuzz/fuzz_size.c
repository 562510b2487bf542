// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_size.c - the command line's value parsers: amounts, triggers,
 * intervals, booleans, --scope specs; and the human size formatter, with
 * the property that what it prints reads back (issue 31 item 5).
 */
#include "fuzz.h"

#include <stdio.h>

#include "core/config.h"
#include "core/size.h"
#include "lib/text.h"

/* Past about 15.5 EiB the formatter prints "16Ei", which 64 bits cannot hold. */
#define LARGEST_READ_BACK	((15ull << 60) + (7ull << 56))

/* @bytes printed for people reads back within the rounding it shows, and
 * exactly as --bytes prints it with a B: else abort, a finding.
 */
static void check_reads_back(uint64_t bytes)
{
	char text[UPCC_SIZE_TEXT_LEN], exact[UPCC_SIZE_TEXT_LEN + 1];
	struct upcc_amount amount;
	uint64_t unit = 1, diff;
	size_t len;

	upcc_size_format(text, sizeof(text), bytes);
	len = strlen(text);
	if (len >= 2 && text[len - 1] == 'i') {
		for (const char *u = "KMGTPE"; *u && *u != text[len - 2]; u++)
			unit <<= 10;
		unit <<= 10;
	}
	if (upcc_amount_parse(text, &amount) || amount.unit != UPCC_AMOUNT_BYTES)
		abort();
	diff = amount.value > bytes ? amount.value - bytes : bytes - amount.value;
	/* Half the last digit shown, plus the double the formatter divides
	 * in (53 bits) and the byte a decimal may be rounded down by.
	 */
	if (diff > (unit == 1 ? 0 : (strchr(text, '.') ? unit / 20 : unit / 2) + (bytes >> 52) + 1))
		abort();
	snprintf(exact, sizeof(exact), "%sB", upcc_size_text(text, sizeof(text), bytes, true));
	if (upcc_amount_parse(exact, &amount) || amount.value != bytes)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct upcc_scope_config scope_config;
	struct upcc_config config;
	struct upcc_amount amount;
	char error[256], out[64], *text = fuzz_text(data, size);
	uint64_t value;
	bool flag;

	if (!text)
		return 0;
	if (upcc_amount_parse(text, &amount) == 0) {
		(void)upcc_amount_pages(&amount, UINT64_MAX / 3, 4096);
		/* Any amount of bytes it took, printed, reads back. */
		if (amount.unit == UPCC_AMOUNT_BYTES && amount.value <= LARGEST_READ_BACK)
			check_reads_back(amount.value);
	}
	upcc_scope_config_default(&scope_config);
	(void)upcc_parse_trigger(text, &scope_config);
	(void)upcc_parse_target(text, &scope_config);
	(void)upcc_parse_interval_ms(text, &value);
	(void)upcc_parse_bool(text, &flag);
	upcc_config_init(&config);
	(void)upcc_config_add_scope_spec(&config, text, error, sizeof(error));
	upcc_config_free(&config);
	value = 0;
	memcpy(&value, data, size < sizeof(value) ? size : sizeof(value));
	upcc_size_format(out, sizeof(out), value);
	if (value <= LARGEST_READ_BACK)
		check_reads_back(value);
	upcc_text_printable(out, sizeof(out), text);
	out[0] = '\0';
	upcc_text_append(out, 12, "%s", text);
	free(text);
	return 0;
}
