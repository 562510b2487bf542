// SPDX-License-Identifier: GPL-2.0
/*
 * upcc - the command line side of unmapped page cache control.
 *
 *   upcc status [--json] [--bytes] [--state FILE | --config FILE]
 *                               per scope: memory, file LRU, mapped, unmapped,
 *                               dirty, target, trigger, backend, reclaimed;
 *                               whether upcd runs
 *   upcc top [-d SECONDS] [-n N] the daemon's state, redrawn with rates
 *   upcc files [PATH] [--top N]  cached files and resident pages
 *   upcc evict PATH...           drop files' clean unmapped pages
 * Sizes for people are upcc_size_format()'s (free -h style); --bytes
 * prints exact bytes; pages appear only in --json, as *_pages.
 *
 * Exit codes: 0 ok; 1 a measurement or action failed; 2 bad usage;
 * 3 (status, top) upcd is not running or its state is stale.
 */
#include <stdio.h>
#include <string.h>

#include "core/common.h"
#include "evictcmd.h"
#include "files.h"
#include "lib/log.h"
#include "status.h"
#include "top.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: upcc COMMAND [OPTION]...\n"
		"Unmapped page cache control: show and act on the page cache.\n\n"
		"Commands:\n"
		"  status [--state FILE]   per-scope memory, unmapped and dirty cache, target,\n"
		"                          backend and what upcd reclaimed so far; whether\n"
		"                          upcd runs (the config's state =, or --state FILE)\n"
		"  top [-d SECONDS]        what upcd is doing, redrawn with rates (reclaimed\n"
		"                          and inflow per second, rounds): its state file only\n"
		"  files [PATH]            cached files and their resident pages\n"
		"  evict PATH...           drop files' clean, unmapped cached pages\n"
		"  help                    this help\n\n"
		"Every command takes --bytes (exact byte counts instead of 1.5Gi), and\n"
		"all but top --json (machine-readable, pages as *_pages and *_bytes).\n"
		"Run \"upcc COMMAND --help\" for a command's options.\n"
		"Exit codes: 0 ok; 1 a measurement or action failed; 2 bad usage;\n"
		"3 (status, top) upcd is not running or its state is stale.\n");
}

static char status_name[] = "upcc status", top_name[] = "upcc top", files_name[] = "upcc files",
	    evict_name[] = "upcc evict";

static const struct {
	const char *name;
	char *prog_name;
	int (*main)(int argc, char **argv);
} commands[] = {
	{ "status", status_name, upcc_status_main },
	{ "top", top_name, upcc_top_main },
	{ "files", files_name, upcc_files_main },
	{ "evict", evict_name, upcc_evict_main },
};

int main(int argc, char **argv)
{
	const char *command = argc > 1 ? argv[1] : NULL;

	/* A line a lower floor logs from upcc says upcc, not upcd. */
	upcc_log_init("upcc", false);

	if (!command || strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
	    strcmp(command, "help") == 0) {
		usage(command ? stdout : stderr);
		return command ? 0 : UPCC_EXIT_USAGE;
	}
	if (strcmp(command, "--version") == 0 || strcmp(command, "-V") == 0) {
		printf("upcc %s\n", UPCC_VERSION);
		return 0;
	}
	/* Each command parses its own options, with argv[0] = "upcc COMMAND":
	 * getopt names argv[0] in its messages, and a bare "files:" does not
	 * say which program spoke.
	 */
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(command, commands[i].name) == 0) {
			argv[1] = commands[i].prog_name;
			return commands[i].main(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "upcc: unknown command \"%s\"\n", command);
	usage(stderr);
	return UPCC_EXIT_USAGE;
}
