/* SPDX-License-Identifier: GPL-2.0 */
/*
 * size.h - amounts of memory as users write them: "655" pages, "64M",
 * "64Mi", "1.5GiB" bytes (K, M, G, T, P, E suffixes, powers of 1024, with
 * or without i and B: what upcc_size_format() prints reads back), or "1%"
 * of a scope's memory.
 */
#ifndef UPCC_SIZE_H
#define UPCC_SIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum upcc_amount_unit {
	UPCC_AMOUNT_PAGES,
	UPCC_AMOUNT_BYTES,
	UPCC_AMOUNT_PERCENT,	/* value is in hundredths of a percent: "1.5%" = 150 */
};

struct upcc_amount {
	enum upcc_amount_unit unit;
	uint64_t value;
};

/* Parse @text into @amount.  Returns 0, or -EINVAL (with *amount unchanged)
 * for anything malformed, negative, out of range or with trailing junk.
 */
int upcc_amount_parse(const char *text, struct upcc_amount *amount);

/* Resolve @amount to pages for a scope of @total_pages and @page_size bytes. */
uint64_t upcc_amount_pages(const struct upcc_amount *amount, uint64_t total_pages,
			   uint64_t page_size);

/*
 * @bytes for people, as free -h writes it (powers of 1024): "0B", "40Ki",
 * "1.5Mi", "23Gi"; one decimal below 10 of a unit.  Returns @buf.
 */
#define UPCC_SIZE_TEXT_LEN	24
const char *upcc_size_format(char *buf, size_t len, uint64_t bytes);

/* The same, or with @exact the byte count itself ("1536"): --bytes. */
const char *upcc_size_text(char *buf, size_t len, uint64_t bytes, bool exact);

/* The page size, asked once (4096 if sysconf cannot say). */
uint64_t upcc_page_size(void);

#endif /* UPCC_SIZE_H */
