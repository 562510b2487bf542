// SPDX-License-Identifier: GPL-2.0
/*
 * files.c - the `upcc files` command: the files of a tree with the most
 * page cache.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_NOATIME, O_PATH, getline, makedev */
#endif
#include "coltable.h"
#include "cli.h"
#include "core/common.h"
#include "files.h"
#include "core/size.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/hooks.h"
#include "sys/mapped.h"
#include "lib/jsonstr.h"
#include "sys/residency.h"
#include "lib/text.h"
#include "sys/walk.h"

#define DEFAULT_TOP	20u
#define MAX_TOP		1000000u


/*
 * A walk of a big tree takes seconds: on a terminal, stderr shows how far
 * it got, a line rewritten in place, after PROGRESS_AFTER_USEC and then
 * every PROGRESS_EVERY_USEC; erased when the walk ends.  Never when stderr
 * is not a terminal (a log, a pipe).
 */
#define PROGRESS_AFTER_USEC	1000000ull
#define PROGRESS_EVERY_USEC	250000ull

struct progress {
	bool on;		/* stderr is a terminal */
	bool shown;		/* a line is on the screen */
	uint64_t start, next;
	unsigned int calls;
};

static void progress_init(struct progress *p)
{
	memset(p, 0, sizeof(*p));
	p->on = isatty(STDERR_FILENO) == 1;
	p->start = upcc_monotonic_usec();
	p->next = p->start + (upcc_hooks.progress_now ? 0 : PROGRESS_AFTER_USEC);
}

static void progress_update(struct progress *p, uint64_t files, uint64_t cached_pages)
{
	uint64_t now;

	if (!p->on || (++p->calls % 64 && !upcc_hooks.progress_now))
		return;
	now = upcc_monotonic_usec();
	if (now < p->next)
		return;
	p->next = now + PROGRESS_EVERY_USEC;
	fprintf(stderr, "\rupcc files: %" PRIu64 " %s, %s cached, %.0f s\033[K", files,
		upcc_plural(files, "file", "files"), SIZE_TEXT(cached_pages, false),
		(double)(now - p->start) / 1e6);
	fflush(stderr);
	p->shown = true;
}

static void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

struct file_row {
	uint64_t cached_pages;
	uint64_t file_pages;
	uint64_t dirty_pages;
	uint64_t writeback_pages;
	bool mapped;
	bool state_known;	/* dirty and writeback measured (cachestat) */
	char *path;
};

/* The N files with the most cached pages, as a min-heap on cached_pages:
 * memory stays at N rows however big the tree.
 */
struct top_files {
	struct file_row *rows;
	size_t count, max;
	struct upcc_mapped_set mapped;
	struct upcc_residency_sum totals;
	struct upcc_walk_stats walk;
	uint64_t unknown_files;		/* measured by mincore: dirty state unknown */
	uint64_t fallback_files;	/* of them, those cachestat refused */
	uint64_t unmeasured;		/* opened, but neither method could measure */
	int unmeasured_error;		/* the last one's -errno */
	int error;
	struct progress progress;
};

static void heap_swap(struct file_row *a, struct file_row *b)
{
	struct file_row t = *a;

	*a = *b;
	*b = t;
}

static void heap_sift_down(struct top_files *top, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;

		if (l < top->count && top->rows[l].cached_pages < top->rows[min].cached_pages)
			min = l;
		if (r < top->count && top->rows[r].cached_pages < top->rows[min].cached_pages)
			min = r;
		if (min == i)
			return;
		heap_swap(&top->rows[i], &top->rows[min]);
		i = min;
	}
}

static void heap_sift_up(struct top_files *top, size_t i)
{
	while (i > 0 && top->rows[(i - 1) / 2].cached_pages > top->rows[i].cached_pages) {
		heap_swap(&top->rows[i], &top->rows[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static int top_offer(struct top_files *top, const struct file_row *row, const char *path)
{
	char *copy;

	if (top->max == 0)
		return 0;	/* --top 0: totals only */
	if (top->count == top->max && top->rows[0].cached_pages >= row->cached_pages)
		return 0;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	if (top->count == top->max) {
		free(top->rows[0].path);
		top->rows[0] = *row;
		top->rows[0].path = copy;
		heap_sift_down(top, 0);
		return 0;
	}
	top->rows[top->count] = *row;
	top->rows[top->count].path = copy;
	heap_sift_up(top, top->count++);
	return 0;
}

static int files_visit(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct top_files *top = ctx;
	struct upcc_residency res;
	struct file_row row;
	int err;

	/* Left out of the totals, so counted and said: never "0B cached". */
	err = upcc_residency_fd(fd, st, &res);
	if (err) {
		top->unmeasured++;
		top->unmeasured_error = err;
		return 0;
	}
	row.cached_pages = res.cached_pages;
	row.file_pages = res.file_pages;
	row.dirty_pages = res.dirty_pages;
	row.writeback_pages = res.writeback_pages;
	row.mapped = upcc_mapped_set_has(&top->mapped, st->st_dev, st->st_ino);
	row.path = NULL;
	row.state_known = res.state_known;
	if (!res.state_known) {
		top->unknown_files++;
		if (upcc_residency_method() == UPCC_RESIDENCY_CACHESTAT)
			top->fallback_files++;
	}
	upcc_residency_add(&top->totals, &res, row.mapped);
	progress_update(&top->progress, top->totals.files, top->totals.cached_pages);
	if (!res.cached_pages)
		return 0;
	top->error = top_offer(top, &row, path);
	return top->error ? 1 : 0;
}

static int compare_rows_desc(const void *a, const void *b)
{
	const struct file_row *x = a, *y = b;

	if (x->cached_pages != y->cached_pages)
		return x->cached_pages > y->cached_pages ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* upcc files' columns: the table's order; --json has path first. */
enum { COL_CACHED, COL_SIZE, COL_RES, COL_DIRTY, COL_WRITEBACK, COL_MAPPED, COL_FILE, NR_COLS };

static const struct upcc_column files_columns[NR_COLS] = {
	[COL_CACHED] = { "CACHED", UPCC_COLUMN_PAGES, .json = "cached_pages" },
	[COL_SIZE] = { "SIZE", UPCC_COLUMN_PAGES, .json = "file_pages" },
	[COL_RES] = { "RES%", UPCC_COLUMN_PERCENT, .width = 5 },
	[COL_DIRTY] = { "DIRTY", UPCC_COLUMN_PAGES, .json = "dirty_pages" },
	[COL_WRITEBACK] = { "WRITEBACK", UPCC_COLUMN_PAGES, .extra = 1, .json = "writeback_pages" },
	[COL_MAPPED] = { "MAPPED", UPCC_COLUMN_BOOL, .width = 6, .json = "mapped" },
	[COL_FILE] = { "FILE", UPCC_COLUMN_TEXT, .escape = true, .gap = 2, .json = "path" },
};

static const size_t files_json_order[] = {
	COL_FILE, COL_CACHED, COL_SIZE, COL_DIRTY, COL_WRITEBACK, COL_MAPPED,
};

/* A file's cells; dirty and writeback "?" where the method cannot tell. */
static void file_cells(const struct file_row *r, struct upcc_cell cells[NR_COLS])
{
	const char *unknown = r->state_known ? NULL : "?";

	cells[COL_CACHED] = (struct upcc_cell){ r->cached_pages, NULL };
	cells[COL_SIZE] = (struct upcc_cell){ r->file_pages, NULL };
	cells[COL_RES] = (struct upcc_cell){ r->file_pages ? r->cached_pages * 100 / r->file_pages : 0,
					     NULL };
	cells[COL_DIRTY] = (struct upcc_cell){ r->dirty_pages, unknown };
	cells[COL_WRITEBACK] = (struct upcc_cell){ r->writeback_pages, unknown };
	cells[COL_MAPPED] = (struct upcc_cell){ r->mapped, NULL };
	cells[COL_FILE] = (struct upcc_cell){ 0, r->path };
}

/* ,"NAME_pages":N,"NAME_bytes":N: the twins upcc --help promises. */
static void total_pair(FILE *out, const char *name, uint64_t pages)
{
	fprintf(out, ",\"%s_pages\":%" PRIu64 ",\"%s_bytes\":%" PRIu64, name, pages, name,
		upcc_mul_saturating(pages, upcc_page_size()));
}

static void print_files_json(FILE *out, const struct top_files *top, const char *root)
{
	struct upcc_coltable table;
	struct upcc_cell cells[NR_COLS];

	upcc_coltable_init(&table, files_columns, NR_COLS, upcc_page_size(), true);
	fputc('{', out);
	upcc_json_member(out, "root", root);
	fprintf(out, ",\"method\":\"%s\",\"page_size\":%" PRIu64 ",\"files\":[",
		upcc_residency_method_name(upcc_residency_method()), upcc_page_size());
	for (size_t i = 0; i < top->count; i++) {
		file_cells(&top->rows[i], cells);
		fputs(i ? ",{" : "{", out);
		upcc_coltable_json(&table, cells, files_json_order,
				   sizeof(files_json_order) / sizeof(files_json_order[0]), out);
		fputc('}', out);
	}
	fprintf(out, "],\"total\":{\"files\":%" PRIu64, top->totals.files);
	total_pair(out, "cached", top->totals.cached_pages);
	total_pair(out, "mapped", top->totals.mapped_pages);
	total_pair(out, "dirty", top->totals.dirty_pages);
	total_pair(out, "writeback", top->totals.writeback_pages);
	fprintf(out, ",\"dirty_unknown_files\":%" PRIu64 "},\"skipped\":{\"special\":%" PRIu64
		",\"mounts\":%" PRIu64 ",\"pseudo\":%" PRIu64 ",\"depth\":%" PRIu64
		",\"raced\":%" PRIu64 ",\"duplicate\":%" PRIu64 ",\"errors\":%" PRIu64 "}}\n",
		top->unknown_files, top->walk.skipped_special, top->walk.skipped_mounts,
		top->walk.skipped_pseudo, top->walk.skipped_depth,
		top->walk.skipped_raced, top->walk.skipped_duplicate,
		top->walk.errors + top->unmeasured);
}

static void print_files_table(FILE *out, const struct top_files *top, bool exact)
{
	const struct upcc_residency_sum *t = &top->totals;
	struct upcc_coltable table;
	struct upcc_cell cells[NR_COLS];

	upcc_coltable_init(&table, files_columns, NR_COLS, upcc_page_size(), exact);
	upcc_coltable_header(&table, out);
	for (size_t i = 0; i < top->count; i++) {
		file_cells(&top->rows[i], cells);
		upcc_coltable_row(&table, cells, out);
	}
	fprintf(out, "total: %" PRIu64 " %s, %s cached, %s of it in mapped files, ", t->files,
		upcc_plural(t->files, "file", "files"), SIZE_TEXT(t->cached_pages, exact),
		SIZE_TEXT(t->mapped_pages, exact));
	/* A total of dirty pages is only one if every file's were seen. */
	if (upcc_residency_method() == UPCC_RESIDENCY_CACHESTAT && !top->unknown_files)
		fprintf(out, "%s dirty, %s writeback", SIZE_TEXT(t->dirty_pages, exact),
			SIZE_TEXT(t->writeback_pages, exact));
	else
		fputs("dirty unknown", out);
	fprintf(out, " (%s", upcc_residency_method_name(upcc_residency_method()));
	if (top->fallback_files)
		fprintf(out, "; mincore for %" PRIu64 " %s cachestat refused", top->fallback_files,
			upcc_plural(top->fallback_files, "file", "files"));
	fputs(")\n", out);
}

static void files_usage(FILE *out)
{
	fputs("usage: upcc files [PATH] [--top N] [--json] [--bytes] [--cross-mounts]\n"
	      "\n"
	      "List the files under PATH (default: the current directory) that hold\n"
	      "page cache, most cached first, like fincore: cached, file size, dirty\n"
	      "and writeback as sizes (Ki, Mi, Gi: powers of 1024).  Symlinks are never\n"
	      "followed and only regular files are opened; other mounts (a bind mount\n"
	      "of the same filesystem too) are skipped unless --cross-mounts.  On a\n"
	      "terminal, a long walk shows its progress on stderr.\n"
	      "\n"
	      "  --top N         show the N most cached files (default 20; 0 = totals only)\n"
	      "  --json          one JSON object on stdout (counts in *_pages and *_bytes)\n"
	      "  --bytes         exact byte counts instead of sizes\n"
	      "  --cross-mounts  descend into other mounts (never a pseudo filesystem)\n"
	      "  --help          this text\n"
	      "\n"
	      "Exit: 0 listed; 1 PATH could not be walked, or a file under it could not\n"
	      "be measured; 2 bad usage.\n", out);
}

static int parse_count(const char *text, unsigned int max, unsigned int *value)
{
	char *end;
	unsigned long n;

	if (!text || !*text || *text == '-' || *text == '+')
		return -EINVAL;
	errno = 0;
	n = strtoul(text, &end, 10);
	if (errno || *end || n > max)
		return -EINVAL;
	*value = (unsigned int)n;
	return 0;
}

static void free_rows(struct top_files *top)
{
	for (size_t i = 0; i < top->count; i++)
		free(top->rows[i].path);
	free(top->rows);
	upcc_mapped_set_free(&top->mapped);
}

/* What the walk could not count is said, never left out silently. */
static void warn_left_out(const struct upcc_walk_stats *walk)
{
	if (walk->skipped_depth)
		fprintf(stderr, "upcc files: %" PRIu64 " directories deeper than %u levels not walked\n",
			walk->skipped_depth, UPCC_WALK_DEFAULT_MAX_DEPTH);
	if (walk->skipped_raced)
		fprintf(stderr, "upcc files: %" PRIu64 " entries changed while walked, not counted\n",
			walk->skipped_raced);
	if (walk->errors)
		fprintf(stderr, "upcc files: %" PRIu64 " entries could not be read, not counted\n",
			walk->errors);
}

static int run_files(const char *root, unsigned int max, bool json, bool cross_mounts,
		     bool exact)
{
	struct upcc_walk_options options = { .cross_mounts = cross_mounts };
	struct top_files top;
	int err;

	memset(&top, 0, sizeof(top));
	top.max = max;
	top.rows = calloc(max ? max : 1, sizeof(*top.rows));
	if (!top.rows) {
		fprintf(stderr, "upcc files: out of memory\n");
		return UPCC_EXIT_FAILURE;
	}
	if (upcc_mapped_set_load(&top.mapped))
		fprintf(stderr, "upcc files: cannot read /proc/*/maps: mapped column may be wrong\n");
	progress_init(&top.progress);
	err = upcc_walk(root, &options, files_visit, &top, &top.walk);
	progress_end(&top.progress);
	if (err) {
		fputs("upcc files: ", stderr);
		upcc_fputs_printable(root, stderr);
		fprintf(stderr, ": %s\n", err > 0 ? strerror(-top.error) : upcc_walk_error(err));
		free_rows(&top);
		return UPCC_EXIT_FAILURE;
	}
	qsort(top.rows, top.count, sizeof(*top.rows), compare_rows_desc);
	if (json) {
		print_files_json(stdout, &top, root);
	} else {
		print_files_table(stdout, &top, exact);
		warn_left_out(&top.walk);
	}
	/* A total short of files it could not measure is not a result. */
	if (top.unmeasured)
		fprintf(stderr, "upcc files: %" PRIu64 " %s could not be measured (%s), not counted\n",
			top.unmeasured, upcc_plural(top.unmeasured, "file", "files"),
			strerror(-top.unmeasured_error));
	free_rows(&top);
	return top.unmeasured ? UPCC_EXIT_FAILURE : UPCC_EXIT_OK;
}

int upcc_files_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "top", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "cross-mounts", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int top = DEFAULT_TOP;
	bool json = false, cross = false, exact = false;
	int opt;

	optind = 0;	/* glibc: full re-initialisation, whoever parsed before */
	while ((opt = getopt_long(argc, argv, "t:jxh", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (parse_count(optarg, MAX_TOP, &top)) {
				fprintf(stderr, "upcc files: --top wants a count 0..%u, not '%s'\n",
					MAX_TOP, optarg);
				return UPCC_EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'b':
			exact = true;
			break;
		case 'x':
			cross = true;
			break;
		case 'h':
			files_usage(stdout);
			return UPCC_EXIT_OK;
		default:
			files_usage(stderr);
			return UPCC_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "upcc files: one PATH at most (got %d)\n", argc - optind);
		return UPCC_EXIT_USAGE;
	}
	return run_files(optind < argc ? argv[optind] : ".", top, json, cross, exact);
}
