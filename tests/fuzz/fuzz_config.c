// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_config.c - the config file parser, then the policy it resolves to.
 * The bytes go in as a file's do (upcc_config_load): NULs and all, with
 * no NUL after them, so a read past the end is ASan's to catch.
 */
#include "fuzz.h"

#include "core/config.h"
#include "core/resolve.h"

/* Every error after the first: a terminated line, as the first. */
static void more_error(const char *message, void *context)
{
	(void)context;
	if (strlen(message) >= 512)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct upcc_config config;
	char error[512];

	upcc_config_init(&config);
	if (upcc_config_parse_text((const char *)data, size, "fuzz.conf", &config, error,
				   sizeof(error), more_error, NULL) == 0) {
		for (size_t i = 0; i < config.nr_scopes; i++) {
			const struct upcc_scope *scope = &config.scopes[i].scope;
			struct upcc_sample sample = { .total_pages = 6170892, .unmapped_pages = 758160 };
			enum upcc_phase phase = UPCC_PHASE_IDLE;
			struct upcc_wset wset = { 0 };

			(void)upcc_plan_step(&scope->config, &sample, &phase, &wset, 0, 4096);
		}
	} else if (!memchr(error, '\0', sizeof(error))) {
		abort();	/* an error message is always terminated */
	}
	upcc_config_free(&config);
	return 0;
}
