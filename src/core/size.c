// SPDX-License-Identifier: GPL-2.0
/*
 * size.c - amounts of memory as users write them; see size.h.
 *
 * Grammar: DIGITS                  pages
 *          DIGITS[KMGT][B]         bytes (powers of 1024); a bare "B" = bytes
 *          DIGITS[.D[D]]%          hundredths of a percent, at most 100%
 * No sign, no spaces, no trailing junk: a config typo must be an error,
 * never a silently different amount.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "size.h"

/* Read a run of decimal digits into *value; NULL on overflow or no digit. */
static const char *parse_digits(const char *text, uint64_t *value)
{
	uint64_t result = 0;
	const char *cursor = text;

	while (*cursor >= '0' && *cursor <= '9') {
		unsigned int digit = (unsigned int)(*cursor - '0');

		if (result > (UINT64_MAX - digit) / 10)
			return NULL;
		result = result * 10 + digit;
		cursor++;
	}
	if (cursor == text)
		return NULL;
	*value = result;
	return cursor;
}

static int suffix_shift(char suffix)
{
	switch (suffix) {
	case 'K': case 'k': return 10;
	case 'M': case 'm': return 20;
	case 'G': case 'g': return 30;
	case 'T': case 't': return 40;
	default: return -1;
	}
}

/* "1", "1.5", "0.25" followed by '%': hundredths of a percent. */
static int parse_percent(uint64_t whole, const char *cursor, struct upcc_amount *amount)
{
	uint64_t hundredths = 0;
	int decimals = 0;

	if (*cursor == '.') {
		cursor++;
		while (*cursor >= '0' && *cursor <= '9' && decimals < 2) {
			hundredths = hundredths * 10 + (uint64_t)(*cursor - '0');
			cursor++;
			decimals++;
		}
		if (decimals == 0)
			return -EINVAL;
	}
	if (decimals == 1)
		hundredths *= 10;
	if (cursor[0] != '%' || cursor[1] != '\0')
		return -EINVAL;
	if (whole > 100 || (whole == 100 && hundredths))
		return -EINVAL;
	amount->unit = UPCC_AMOUNT_PERCENT;
	amount->value = whole * 100 + hundredths;
	return 0;
}

int upcc_amount_parse(const char *text, struct upcc_amount *amount)
{
	const char *cursor;
	uint64_t value;
	int shift;

	if (!text || !amount)
		return -EINVAL;
	cursor = parse_digits(text, &value);
	if (!cursor)
		return -EINVAL;
	if (*cursor == '.' || *cursor == '%')
		return parse_percent(value, cursor, amount);
	if (*cursor == '\0') {
		amount->unit = UPCC_AMOUNT_PAGES;
		amount->value = value;
		return 0;
	}
	shift = suffix_shift(*cursor);
	if (shift >= 0)
		cursor++;
	else
		shift = 0;
	if (*cursor == 'B' || *cursor == 'b')
		cursor++;
	else if (shift == 0)
		return -EINVAL;		/* an unknown suffix */
	if (*cursor != '\0')
		return -EINVAL;
	if (shift && value > (UINT64_MAX >> shift))
		return -EINVAL;
	amount->unit = UPCC_AMOUNT_BYTES;
	amount->value = value << shift;
	return 0;
}

/* total * hundredths / 10000 without overflowing, exact like policy.c does. */
static uint64_t percent_of(uint64_t total_pages, uint64_t hundredths)
{
	return (total_pages / 10000) * hundredths +
	       (total_pages % 10000) * hundredths / 10000;
}

uint64_t upcc_amount_pages(const struct upcc_amount *amount, uint64_t total_pages,
			   uint64_t page_size)
{
	switch (amount->unit) {
	case UPCC_AMOUNT_PAGES:
		return amount->value;
	case UPCC_AMOUNT_BYTES:
		/* A partial page cannot be reclaimed on its own: round down. */
		return page_size ? amount->value / page_size : 0;
	case UPCC_AMOUNT_PERCENT:
		return percent_of(total_pages, amount->value > 10000 ? 10000 : amount->value);
	}
	return 0;
}

const char *upcc_size_format(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "KMGTPE";
	double value = (double)bytes;
	int unit = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%uB", (unsigned int)bytes);
		return buf;
	}
	while (value >= 1024.0 && unit < 5) {
		value /= 1024.0;
		unit++;
	}
	/* Rounded up to the next unit: 1023.96 Ki is "1.0Mi", not "1024Ki". */
	if (value >= 1023.95 && unit < 5) {
		value /= 1024.0;
		unit++;
	}
	if (value < 9.95)
		snprintf(buf, len, "%.1f%ci", value, units[unit]);
	else
		snprintf(buf, len, "%.0f%ci", value, units[unit]);
	return buf;
}

const char *upcc_size_text(char *buf, size_t len, uint64_t bytes, bool exact)
{
	if (exact) {
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
		return buf;
	}
	return upcc_size_format(buf, len, bytes);
}

uint64_t upcc_page_size(void)
{
	static uint64_t page_size;

	if (!page_size) {
		long size = sysconf(_SC_PAGESIZE);

		page_size = size > 0 ? (uint64_t)size : 4096;
	}
	return page_size;
}
