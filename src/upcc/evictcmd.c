// SPDX-License-Identifier: GPL-2.0
/*
 * evictcmd.c - the `upcc evict` command: drop the clean, unmapped page
 * cache of a tree's files.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* O_NOATIME, O_PATH */
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/evict.h"
#include "cli.h"
#include "core/common.h"
#include "evictcmd.h"
#include "lib/jsonstr.h"
#include "sys/mapped.h"
#include "sys/residency.h"
#include "core/size.h"
#include "lib/text.h"
#include "sys/walk.h"

struct evict_run {
	struct upcc_mapped_set mapped;
	bool quiet, dry_run, json, exact;
	uint64_t listed;		/* rows printed (JSON: objects in "files") */
	uint64_t files, dropped_pages, skipped_dirty, skipped_mapped, errors;
	uint64_t skipped_dirty_pages, skipped_mapped_pages;
};

/*
 * One file's line: what was done, the pages dropped and those cached
 * before, then the path; a JSON object under --json.  Sizes in one unit
 * (or --bytes), columns aligned under the header.
 */
static void evict_row(struct evict_run *run, const char *action, uint64_t dropped,
		      uint64_t cached, const char *path)
{
	int w = run->exact ? 13 : 10;

	if (run->quiet || !cached)
		return;
	if (run->json) {
		fputs(run->listed ? ",\n{" : "\n{", stdout);
		upcc_json_member(stdout, "path", path);
		fprintf(stdout, ",\"action\":\"%s\",\"dropped_pages\":%" PRIu64
			",\"dropped_bytes\":%" PRIu64 ",\"cached_pages\":%" PRIu64
			",\"cached_bytes\":%" PRIu64 "}", action, dropped,
			upcc_mul_saturating(dropped, upcc_page_size()), cached,
			upcc_mul_saturating(cached, upcc_page_size()));
		run->listed++;
		return;
	}
	if (!run->listed++)
		printf("%-20s %*s %*s  %s\n", "ACTION", w, run->dry_run ? "WOULD_DROP" : "DROPPED",
		       w, "CACHED", "FILE");
	printf("%-20s %*s %*s  ", action, w, SIZE_TEXT(dropped, run->exact), w,
	       SIZE_TEXT(cached, run->exact));
	upcc_put_path_line(stdout, path);
}

/* JSON action names have no spaces: "skipped_dirty" for "skipped (dirty)". */
#define ACTION(run, text, key)	((run)->json ? (key) : (text))

/* What evict would do, by the same rules (evict.h's guard), without doing it. */
static int dry_run_visit(struct evict_run *run, int fd, const struct stat *st, const char *path)
{
	struct upcc_evict_result result;
	struct upcc_residency res;
	int may = upcc_evict_begin(fd, st, &run->mapped, &res, &result);

	if (may < 0) {
		run->errors++;
		return 0;
	}
	if (result.skipped_mapped) {
		run->skipped_mapped++;
		run->skipped_mapped_pages += res.cached_pages;
		evict_row(run, ACTION(run, "would skip (mapped)", "would_skip_mapped"), 0,
			  res.cached_pages, path);
	} else if (result.skipped_dirty) {
		run->skipped_dirty++;
		run->skipped_dirty_pages += res.cached_pages;
		evict_row(run, ACTION(run, "would skip (dirty)", "would_skip_dirty"), 0,
			  res.cached_pages, path);
	} else {
		run->dropped_pages += res.cached_pages;
		evict_row(run, ACTION(run, "would drop", "would_drop"), res.cached_pages,
			  res.cached_pages, path);
	}
	return 0;
}

static int evict_visit(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct evict_run *run = ctx;
	struct upcc_evict_result result;
	int err;

	run->files++;
	if (run->dry_run)
		return dry_run_visit(run, fd, st, path);
	err = upcc_evict_fd(fd, st, &run->mapped, &result);
	if (err) {
		run->errors++;
		fputs("upcc evict: ", stderr);
		upcc_fputs_printable(path, stderr);
		fprintf(stderr, ": %s\n", strerror(-err));
		return 0;
	}
	if (result.skipped_mapped) {
		run->skipped_mapped++;
		run->skipped_mapped_pages += result.before_pages;
		evict_row(run, ACTION(run, "skipped (mapped)", "skipped_mapped"), 0,
			  result.before_pages, path);
	} else if (result.skipped_dirty) {
		run->skipped_dirty++;
		run->skipped_dirty_pages += result.before_pages;
		evict_row(run, ACTION(run, "skipped (dirty)", "skipped_dirty"), 0,
			  result.before_pages, path);
	} else if (result.before_pages) {
		uint64_t dropped = result.before_pages > result.after_pages
					   ? result.before_pages - result.after_pages : 0;

		run->dropped_pages += dropped;
		evict_row(run, "dropped", dropped, result.before_pages, path);
	}
	return 0;
}

static void evict_usage(FILE *out)
{
	fputs("usage: upcc evict [--cross-mounts] [--dry-run] [--quiet] [--json] [--bytes] PATH...\n"
	      "\n"
	      "Drop the clean page cache of each file under each PATH, like\n"
	      "`vmtouch -e`, with upcd's rules: files with dirty or writeback pages\n"
	      "are skipped (dropping would start writeback), files any process maps\n"
	      "are skipped, symlinks are never followed and only regular files are\n"
	      "opened.  Reports, per file and in total, what was dropped (measured\n"
	      "before and after) as sizes (Ki, Mi, Gi: powers of 1024).\n"
	      "\n"
	      "  --cross-mounts  descend into other mounts (never a pseudo filesystem)\n"
	      "  --dry-run       say what would be dropped, drop nothing\n"
	      "  --quiet         only the summary line (--json: no \"files\" list)\n"
	      "  --json          one JSON object on stdout (counts in *_pages and *_bytes)\n"
	      "  --bytes         exact byte counts instead of sizes\n"
	      "  --help          this text\n"
	      "\n"
	      "Exit: 0 done (skipped files are not failures); 1 a PATH or file\n"
	      "could not be evicted; 2 bad usage (nothing done).\n", out);
}

static void evict_summary(const struct evict_run *run)
{
	uint64_t page = upcc_page_size();

	if (run->json) {
		fprintf(stdout, "%s],\"total\":{\"files\":%" PRIu64 ",\"dropped_pages\":%" PRIu64
			",\"dropped_bytes\":%" PRIu64 ",\"skipped_dirty\":%" PRIu64
			",\"skipped_dirty_pages\":%" PRIu64 ",\"skipped_dirty_bytes\":%" PRIu64
			",\"skipped_mapped\":%" PRIu64 ",\"skipped_mapped_pages\":%" PRIu64
			",\"skipped_mapped_bytes\":%" PRIu64 ",\"errors\":%" PRIu64 "}}\n",
			run->listed ? "\n" : "", run->files, run->dropped_pages,
			upcc_mul_saturating(run->dropped_pages, page), run->skipped_dirty,
			run->skipped_dirty_pages, upcc_mul_saturating(run->skipped_dirty_pages, page),
			run->skipped_mapped, run->skipped_mapped_pages,
			upcc_mul_saturating(run->skipped_mapped_pages, page), run->errors);
		return;
	}
	printf("evict: %" PRIu64 " %s, %s %s; skipped %" PRIu64 " dirty (%s), %" PRIu64
	       " mapped (%s); %" PRIu64 " %s\n", run->files, upcc_plural(run->files, "file", "files"),
	       SIZE_TEXT(run->dropped_pages, run->exact),
	       run->dry_run ? "would be dropped (dry run)" : "dropped", run->skipped_dirty,
	       SIZE_TEXT(run->skipped_dirty_pages, run->exact), run->skipped_mapped,
	       SIZE_TEXT(run->skipped_mapped_pages, run->exact), run->errors,
	       upcc_plural(run->errors, "error", "errors"));
}

int upcc_evict_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "cross-mounts", no_argument, NULL, 'x' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct upcc_walk_options walk_options = { 0 };
	struct evict_run run;
	int opt, status = UPCC_EXIT_OK;

	memset(&run, 0, sizeof(run));
	optind = 0;
	while ((opt = getopt_long(argc, argv, "xnqh", options, NULL)) != -1) {
		switch (opt) {
		case 'x':
			walk_options.cross_mounts = true;
			break;
		case 'n':
			run.dry_run = true;
			break;
		case 'q':
			run.quiet = true;
			break;
		case 'j':
			run.json = true;
			break;
		case 'b':
			run.exact = true;
			break;
		case 'h':
			evict_usage(stdout);
			return UPCC_EXIT_OK;
		default:
			evict_usage(stderr);
			return UPCC_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "upcc evict: no PATH given\n");
		evict_usage(stderr);
		return UPCC_EXIT_USAGE;
	}
	if (upcc_mapped_set_load(&run.mapped)) {
		/* Without the mapped set the mapped-file rule cannot be kept. */
		fprintf(stderr, "upcc evict: cannot read /proc/*/maps: refusing to evict\n");
		return UPCC_EXIT_FAILURE;
	}
	if (run.mapped.unreadable)
		fprintf(stderr, "upcc evict: %zu processes' maps unreadable (CAP_SYS_PTRACE?): "
			"their mapped files are not skipped whole, though their mapped pages "
			"are never dropped\n", run.mapped.unreadable);
	if (run.json)
		printf("{\"dry_run\":%s,\"page_size\":%" PRIu64 ",\"files\":[",
		       run.dry_run ? "true" : "false", upcc_page_size());
	for (int i = optind; i < argc; i++) {
		struct upcc_walk_stats stats;
		int err = upcc_walk(argv[i], &walk_options, evict_visit, &run, &stats);

		if (err) {
			fputs("upcc evict: ", stderr);
			upcc_fputs_printable(argv[i], stderr);
			fprintf(stderr, ": %s\n", upcc_walk_error(err));
			status = UPCC_EXIT_FAILURE;
		}
	}
	upcc_mapped_set_free(&run.mapped);
	if (run.errors)
		status = UPCC_EXIT_FAILURE;
	evict_summary(&run);
	return status;
}
