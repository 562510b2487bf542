/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.h - the daemon's per-scope state file (/run/upcc/state.json,
 * --state FILE), written atomically after each round, read by `upcc status`.
 *
 * JSON, with each scope's object on a line of its own so that the reader
 * here can stay small: it reads only files this writer made.
 */
#ifndef UPCC_STATE_H
#define UPCC_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "control.h"

/* What `upcc status` needs from the daemon about one scope. */
struct upcc_state_scope {
	char name[64];
	char kind[16];			/* system, node, cgroup, path */
	int node_id;
	char path[PATH_MAX];
	char backend[UPCC_BACKEND_NAME_LEN];
	char backend_why[UPCC_BACKEND_WHY_LEN];
	bool backend_ready;
	bool reclaiming;
	uint64_t target_pages;
	uint64_t trigger_pages;
	uint64_t reclaimed_pages_total;
	uint64_t actions_total;
	uint64_t action_errors_total;
	uint64_t action_usec_total;
	uint64_t refused_steps_total;	/* steps the backend declined */
};

struct upcc_state_header {
	long pid;
	long long updated;		/* seconds since the epoch */
	bool dry_run;
	uint64_t page_size;
};

int upcc_state_format(FILE *out, const struct upcc_scope_run *runs, size_t nr_runs,
		      uint64_t page_size, bool dry_run);
int upcc_state_write(const char *path, const struct upcc_scope_run *runs, size_t nr_runs,
		     uint64_t page_size, bool dry_run);

/* Read a state file; fills up to @max scopes.  0 or a negative errno. */
int upcc_state_read(const char *path, struct upcc_state_header *header,
		    struct upcc_state_scope *scopes, size_t max, size_t *nr_scopes);


#endif /* UPCC_STATE_H */
