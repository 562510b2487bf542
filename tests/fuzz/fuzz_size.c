// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_size.c - the command line's value parsers: amounts, triggers,
 * intervals, booleans, --scope specs; and the human size formatter.
 */
#include "fuzz.h"

#include "core/config.h"
#include "core/size.h"
#include "lib/text.h"

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
	if (upcc_amount_parse(text, &amount) == 0)
		(void)upcc_amount_pages(&amount, UINT64_MAX / 3, 4096);
	upcc_scope_config_default(&scope_config);
	(void)upcc_parse_trigger(text, &scope_config);
	(void)upcc_parse_target(text, &scope_config);
	(void)upcc_parse_interval_ms(text, &value);
	(void)upcc_parse_bool(text, &flag);
	upcc_config_init(&config);
	(void)upcc_config_add_scope_spec(&config, text, error, sizeof(error));
	upcc_config_free(&config);
	memcpy(&value, data, size < sizeof(value) ? size : sizeof(value));
	upcc_size_format(out, sizeof(out), value);
	upcc_text_printable(out, sizeof(out), text);
	out[0] = '\0';
	upcc_text_append(out, 12, "%s", text);
	free(text);
	return 0;
}
