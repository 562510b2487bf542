// SPDX-License-Identifier: GPL-2.0
/*
 * sdstatus.c - the STATUS= text; see sdstatus.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core/size.h"
#include "sdstatus.h"

/* Append to @buf, keeping it a string when it is full. */
static void append(char *buf, size_t size, size_t *at, const char *format, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t size, size_t *at, const char *format, ...)
{
	va_list args;
	int n;

	if (*at >= size)
		return;
	va_start(args, format);
	n = vsnprintf(buf + *at, size - *at, format, args);
	va_end(args);
	if (n > 0)
		*at += (size_t)n;
}

static const char *size_text(char buf[UPCC_SIZE_TEXT_LEN], uint64_t pages, uint64_t page_size)
{
	return upcc_size_format(buf, UPCC_SIZE_TEXT_LEN, upcc_mul_saturating(pages, page_size));
}

/* "3s ago", "4 min ago": whole units, as systemctl's own lines say it. */
static void append_age(char *buf, size_t size, size_t *at, uint64_t usec)
{
	uint64_t s = usec / 1000000;

	if (s < 120)
		append(buf, size, at, "%llus ago", (unsigned long long)s);
	else
		append(buf, size, at, "%llu min ago", (unsigned long long)(s / 60));
}

void upcd_status_text(char *buf, size_t size, const struct upcc_scope_run *runs, size_t nr_runs,
		      uint64_t page_size, bool dry_run, uint64_t now)
{
	char unmapped[UPCC_SIZE_TEXT_LEN], aim[UPCC_SIZE_TEXT_LEN], reclaimed[UPCC_SIZE_TEXT_LEN];
	uint64_t last_round = 0;
	size_t at = 0;

	buf[0] = '\0';
	if (dry_run)
		append(buf, size, &at, "dry run: ");
	for (size_t i = 0; i < nr_runs; i++) {
		const struct upcc_scope_state *state = &runs[i].state;
		uint64_t target = state->effective_target_pages ? state->effective_target_pages :
				  state->policy.target_pages;

		if (state->last_round_usec > last_round)
			last_round = state->last_round_usec;
		if (i >= UPCD_STATUS_SCOPES)
			continue;
		append(buf, size, &at, "%s%s ", i ? "; " : "", runs[i].scope.name);
		if (state->sample_error || !state->measured_unix_usec)
			append(buf, size, &at, "%s", state->sample_error ? "cannot measure" :
			       "not measured yet");
		else
			append(buf, size, &at, "%s/%s", size_text(unmapped, state->last.unmapped_pages,
								  page_size),
			       size_text(aim, target, page_size));
		append(buf, size, &at, ", reclaimed %s",
		       size_text(reclaimed, state->counters.reclaimed_pages_total, page_size));
	}
	if (nr_runs > UPCD_STATUS_SCOPES)
		append(buf, size, &at, "; +%zu more", nr_runs - UPCD_STATUS_SCOPES);
	append(buf, size, &at, "; ");
	if (last_round && now >= last_round) {
		append(buf, size, &at, "last round ");
		append_age(buf, size, &at, now - last_round);
	} else {
		append(buf, size, &at, "no round yet");
	}
}
