// SPDX-License-Identifier: GPL-2.0
/*
 * size.c - amounts of memory as users write them; see size.h.
 *
 * Grammar: DIGITS                          pages
 *          DIGITS[.DIGITS]{K|M|G|T|P|E}[i][B]  bytes, powers of 1024
 *          DIGITS{B}                       bytes
 *          DIGITS[.D[D]]%                  hundredths of a percent, at most 100%
 * Letters in any case.  What upcc_size_format() prints ("64Mi", "1.5Gi",
 * "0B") reads back as the amount it shows, so a value copied from upcc
 * status or upcd's log goes into the config as it is.  No sign, no spaces,
 * no trailing junk: a config typo must be an error, never a silently
 * different amount.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "size.h"

/* 10^18 < 2^60: the remainder of fraction_bytes() never overflows, and 18
 * decimals already resolve an exbibyte to the byte.
 */
#define MAX_DECIMALS	18

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

/* The decimals after a '.': their value and count; NULL if none or too many. */
static const char *parse_decimals(const char *text, uint64_t *value, unsigned int *count)
{
	const char *cursor = parse_digits(text, value);

	if (!cursor || cursor - text > MAX_DECIMALS)
		return NULL;
	*count = (unsigned int)(cursor - text);
	return cursor;
}

/* K to E as upcc_size_format() writes them; K to T have always been read. */
static int suffix_shift(char suffix)
{
	switch (suffix) {
	case 'K': case 'k': return 10;
	case 'M': case 'm': return 20;
	case 'G': case 'g': return 30;
	case 'T': case 't': return 40;
	case 'P': case 'p': return 50;
	case 'E': case 'e': return 60;
	default: return -1;
	}
}

/*
 * floor(@decimals / 10^@count * 2^@shift), exactly: binary long division,
 * one bit of the unit at a time, with no floating point to round "1.5Gi"
 * to a byte off, and no 128-bit type (32-bit builds have none).
 */
static uint64_t fraction_bytes(uint64_t decimals, unsigned int count, int shift)
{
	uint64_t denominator = 1, remainder = decimals, result = 0;

	for (unsigned int i = 0; i < count; i++)
		denominator *= 10;
	for (int bit = 0; bit < shift; bit++) {
		remainder <<= 1;
		result <<= 1;
		if (remainder >= denominator) {
			remainder -= denominator;
			result |= 1;
		}
	}
	return result;
}

/* "1%", "1.5%", "0.25%" (@count decimals): hundredths of a percent. */
static int parse_percent(uint64_t whole, uint64_t decimals, unsigned int count,
			 const char *cursor, struct upcc_amount *amount)
{
	uint64_t hundredths = count == 1 ? decimals * 10 : decimals;

	if (count > 2 || cursor[0] != '%' || cursor[1] != '\0')
		return -EINVAL;
	if (whole > 100 || (whole == 100 && hundredths))
		return -EINVAL;
	amount->unit = UPCC_AMOUNT_PERCENT;
	amount->value = whole * 100 + hundredths;
	return 0;
}

/* "4096B", "64M", "64Mi", "64MiB", "1.5Gi": a fraction only of a unit. */
static int parse_bytes(uint64_t whole, uint64_t decimals, unsigned int count,
		       const char *cursor, struct upcc_amount *amount)
{
	int shift = suffix_shift(*cursor);
	uint64_t bytes, fraction;

	if (shift >= 0) {
		cursor++;
		if (*cursor == 'i' || *cursor == 'I')
			cursor++;
		if (*cursor == 'B' || *cursor == 'b')
			cursor++;
	} else if ((*cursor == 'B' || *cursor == 'b') && !count) {
		shift = 0;
		cursor++;
	} else {
		return -EINVAL;		/* an unknown suffix, or a fraction of a byte */
	}
	if (*cursor != '\0' || whole > (UINT64_MAX >> shift))
		return -EINVAL;
	bytes = whole << shift;
	fraction = fraction_bytes(decimals, count, shift);
	if (bytes > UINT64_MAX - fraction)
		return -EINVAL;
	amount->unit = UPCC_AMOUNT_BYTES;
	amount->value = bytes + fraction;
	return 0;
}

int upcc_amount_parse(const char *text, struct upcc_amount *amount)
{
	uint64_t whole, decimals = 0;
	unsigned int count = 0;
	const char *cursor;

	if (!text || !amount)
		return -EINVAL;
	cursor = parse_digits(text, &whole);
	if (!cursor)
		return -EINVAL;
	if (*cursor == '\0') {
		amount->unit = UPCC_AMOUNT_PAGES;
		amount->value = whole;
		return 0;
	}
	if (*cursor == '.') {
		cursor = parse_decimals(cursor + 1, &decimals, &count);
		if (!cursor)
			return -EINVAL;
	}
	if (*cursor == '%')
		return parse_percent(whole, decimals, count, cursor, amount);
	return parse_bytes(whole, decimals, count, cursor, amount);
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
