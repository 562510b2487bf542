/* SPDX-License-Identifier: GPL-2.0 */
/*
 * coltable.h - the CLI's column table: columns declared once (header,
 * width, type, JSON key), from which the header, each row, human or
 * exact (--bytes), and each row's JSON record are written, as util-linux
 * fincore drives its output from one table of columns.
 */
#ifndef UPCC_COLTABLE_H
#define UPCC_COLTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UPCC_COLTABLE_MAX	16

enum upcc_column_type {
	UPCC_COLUMN_PAGES,		/* a size: value pages, shown in bytes */
	UPCC_COLUMN_PERCENT,		/* value, shown "N%" */
	UPCC_COLUMN_BOOL,		/* value, shown yes/no, true/false in JSON */
	UPCC_COLUMN_TEXT,		/* text */
};

struct upcc_column {
	const char *header;
	enum upcc_column_type type;
	int width;			/* 0: a size's (8, or 13 exact); else the width */
	int extra;			/* added to it (a header wider than its cells) */
	bool left;			/* left-aligned */
	bool escape;			/* the last column: written unpadded, escaped for a terminal */
	int gap;			/* spaces before it; the first column has none */
	const char *json;		/* its key in a JSON record; NULL: not there */
};

/* One row's cell: @value for the numeric types, @text for text, or
 * @text shown instead of the value ("-", "?": not known).
 */
struct upcc_cell {
	uint64_t value;
	const char *text;
};

struct upcc_coltable {
	const struct upcc_column *columns;
	size_t nr_columns;
	uint64_t page_size;
	bool exact;			/* --bytes: sizes in bytes */
	int widths[UPCC_COLTABLE_MAX];
};

void upcc_coltable_init(struct upcc_coltable *table, const struct upcc_column *columns,
			size_t nr_columns, uint64_t page_size, bool exact);

/* Widen @column to fit @text (a long scope name). */
void upcc_coltable_fit(struct upcc_coltable *table, size_t column, const char *text);

void upcc_coltable_header(const struct upcc_coltable *table, FILE *out);

/* A row of @cells, one a column, as the header has them. */
void upcc_coltable_row(const struct upcc_coltable *table, const struct upcc_cell *cells, FILE *out);

/* The @nr columns @order names as JSON members "key":value (a column
 * with no key, a text not given, a value not known left out), comma-separated:
 * the caller writes the braces and any members of its own.  A size column
 * keyed "X_pages" has its twin "X_bytes"; a text that is not UTF-8, its
 * "KEY_hex" (jsonstr.h).
 */
void upcc_coltable_json(const struct upcc_coltable *table, const struct upcc_cell *cells,
			const size_t *order, size_t nr, FILE *out);

#endif /* UPCC_COLTABLE_H */
