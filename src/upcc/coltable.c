// SPDX-License-Identifier: GPL-2.0
/*
 * coltable.c - the CLI's column table; see coltable.h.
 */
#include <inttypes.h>
#include <string.h>

#include "coltable.h"
#include "lib/jsonstr.h"
#include "core/policy.h"
#include "core/size.h"
#include "lib/text.h"

void upcc_coltable_init(struct upcc_coltable *table, const struct upcc_column *columns,
			size_t nr_columns, uint64_t page_size, bool exact)
{
	table->columns = columns;
	table->nr_columns = nr_columns < UPCC_COLTABLE_MAX ? nr_columns : UPCC_COLTABLE_MAX;
	table->page_size = page_size;
	table->exact = exact;
	for (size_t i = 0; i < table->nr_columns; i++)
		table->widths[i] = (columns[i].width ? columns[i].width : exact ? 13 : 8) +
				   columns[i].extra;
}

void upcc_coltable_fit(struct upcc_coltable *table, size_t column, const char *text)
{
	if (column < table->nr_columns && (int)strlen(text) > table->widths[column])
		table->widths[column] = (int)strlen(text);
}

static void put_cell(const struct upcc_coltable *table, size_t i, const char *text, FILE *out)
{
	const struct upcc_column *column = &table->columns[i];

	if (i)
		fprintf(out, "%*s", column->gap ? column->gap : 1, "");
	if (column->escape)
		upcc_fputs_printable(text, out);
	else
		fprintf(out, column->left ? "%-*s" : "%*s", table->widths[i], text);
}

void upcc_coltable_header(const struct upcc_coltable *table, FILE *out)
{
	for (size_t i = 0; i < table->nr_columns; i++)
		put_cell(table, i, table->columns[i].header, out);
	fputc('\n', out);
}

/* @cell as a person reads it, in @buf. */
static const char *cell_text(const struct upcc_coltable *table, size_t i,
			     const struct upcc_cell *cell, char *buf, size_t len)
{
	if (cell->text)
		return cell->text;
	switch (table->columns[i].type) {
	case UPCC_COLUMN_PAGES:
		return upcc_size_text(buf, len, upcc_mul_saturating(cell->value, table->page_size),
				      table->exact);
	case UPCC_COLUMN_PERCENT:
		snprintf(buf, len, "%" PRIu64 "%%", cell->value);
		return buf;
	case UPCC_COLUMN_BOOL:
		return cell->value ? "yes" : "no";
	case UPCC_COLUMN_TEXT:
		break;
	}
	return "";
}

void upcc_coltable_row(const struct upcc_coltable *table, const struct upcc_cell *cells, FILE *out)
{
	char buf[32];

	for (size_t i = 0; i < table->nr_columns; i++)
		put_cell(table, i, cell_text(table, i, &cells[i], buf, sizeof(buf)), out);
	fputc('\n', out);
}

/*
 * "KEY_pages":N and its twin "KEY_bytes":N*page_size (saturated), as every
 * --json gives a count of pages: a reader needs no page size to get bytes.
 */
static void pages_member(const struct upcc_coltable *table, const char *key, uint64_t pages,
			 FILE *out)
{
	static const char suffix[] = "_pages";
	size_t len = strlen(key), stem;

	fprintf(out, "\"%s\":%" PRIu64, key, pages);
	if (len < sizeof(suffix))
		return;
	stem = len - (sizeof(suffix) - 1);
	if (strcmp(key + stem, suffix) == 0)
		fprintf(out, ",\"%.*s_bytes\":%" PRIu64, (int)stem, key,
			upcc_mul_saturating(pages, table->page_size));
}

void upcc_coltable_json(const struct upcc_coltable *table, const struct upcc_cell *cells,
			const size_t *order, size_t nr, FILE *out)
{
	bool first = true;

	for (size_t k = 0; k < nr; k++) {
		size_t i = order[k];
		const struct upcc_column *column = &table->columns[i];

		/* A value not known ("?") is left out, as is a text not given. */
		if (i >= table->nr_columns || !column->json ||
		    (column->type == UPCC_COLUMN_TEXT) != (cells[i].text != NULL))
			continue;
		if (!first)
			fputc(',', out);
		first = false;
		switch (column->type) {
		case UPCC_COLUMN_TEXT:
			upcc_json_member(out, column->json, cells[i].text);	/* with a _hex twin */
			break;
		case UPCC_COLUMN_BOOL:
			fprintf(out, "\"%s\":%s", column->json, cells[i].value ? "true" : "false");
			break;
		case UPCC_COLUMN_PAGES:
			pages_member(table, column->json, cells[i].value, out);
			break;
		default:
			fprintf(out, "\"%s\":%" PRIu64, column->json, cells[i].value);
			break;
		}
	}
}
