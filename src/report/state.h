/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.h - the daemon's state file (/run/upcc/state.json, --state FILE),
 * written atomically after each round, read by `upcc status`, whose
 * --json output has the same shape and keys (docs/upcd.md, "State file").
 *
 * Schema version 2:
 *   {"version":2,"page_size":N,
 *    "daemon":{"pid":N,"start_time":TICKS,"updated":EPOCH_S,"heartbeat_ms":N,
 *              "dry_run":B,"running":B,"stale":B,"compaction_enabled":B,
 *              "compactions_total":N,"compaction_cpu_usec_total":N},
 *    "scopes":[
 *    {"name":S,"kind":S,"node":N,"path":S,"backend":S,"backend_ready":B,
 *     "backend_why":S,"reclaiming":B,
 *     "memory_pages"/"_bytes", "file_lru_*", "mapped_*", "unmapped_*",
 *     "dirty_*", "writeback_*", "target_*", "effective_target_*",
 *     "effective_target_reason":S, "trigger_*",
 *     "working_set_*", "working_set_cap_*", "working_set_items":N,
 *     "reclaimed_pages_total","reclaimed_bytes_total","actions_total",
 *     "action_errors_total","action_usec_total","refused_steps_total",
 *     "rounds_total","kernel_cpu_usec_total"}
 *    ]}
 * "running" is true and "stale" false as written (the writer runs); upcc
 * status --json says whether the process pid/start_time still runs
 * (upcc_state_daemon_alive) and whether it missed its heartbeats
 * (upcc_state_stale).  "heartbeat_ms" is the writer's promise: it rewrites
 * the file at least this often; 0 (a --once run, an older upcd) promises
 * nothing.
 * Every page count is labelled _pages and has a _bytes twin (saturating).
 * The writer puts each scope on a line of its own; the reader (json-c)
 * takes any JSON layout.  New keys may be added within a version; a
 * reader ignores keys it does not know.
 */
#ifndef UPCC_STATE_H
#define UPCC_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "act/compact.h"
#include "control/control.h"

#define UPCC_STATE_VERSION	2

/*
 * A running daemon's state is stale once it is older than this many
 * heartbeats, plus the slack: room for a slow round (a big tree's walk)
 * and a small step of the wall clock, which "updated" is in.
 */
#define UPCC_STATE_STALE_HEARTBEATS	3
#define UPCC_STATE_STALE_SLACK_S	10

/* One scope, as the state file and `upcc status --json` give it. */
struct upcc_state_scope {
	char name[64];
	char kind[16];			/* system, node, cgroup, path */
	int node_id;
	char path[PATH_MAX];
	bool has_backend;		/* the backend fields below are known */
	char backend[UPCC_BACKEND_NAME_LEN];
	char backend_why[UPCC_BACKEND_WHY_LEN + 128];
	bool backend_ready;
	bool reclaiming;
	char error[128];		/* upcc status: why it could not be measured */
	uint64_t memory_pages;		/* the last sample */
	uint64_t file_lru_pages;
	uint64_t mapped_pages;
	uint64_t unmapped_pages;
	uint64_t dirty_pages;
	uint64_t writeback_pages;
	uint64_t target_pages;
	uint64_t effective_target_pages;	/* what the control aims at now */
	char effective_target_reason[64];	/* "target" unless raised */
	uint64_t trigger_pages;
	uint64_t working_set_pages;	/* held as working set (core/wset.h) */
	uint64_t working_set_cap_pages;	/* its raise above the target at most */
	uint64_t working_set_items;	/* the files and ranges it is */
	uint64_t reclaimed_pages_total;
	uint64_t actions_total;
	uint64_t action_errors_total;
	uint64_t action_usec_total;
	uint64_t refused_steps_total;	/* steps the backend declined */
	uint64_t rounds_total;		/* control rounds (upcc top's rounds/s) */
	uint64_t kernel_cpu_usec_total;	/* the backend's kernel thread: kdamond */
};

struct upcc_state_header {
	int version;
	long pid;
	unsigned long long start_time;	/* /proc/PID/stat starttime: clock ticks after boot */
	long long updated;		/* seconds since the epoch */
	uint64_t heartbeat_ms;		/* rewritten at least this often; 0: no promise */
	bool dry_run;
	uint64_t page_size;
	bool compaction_enabled;	/* compact.h: a reporting balloon */
	uint64_t compactions_total;
	uint64_t compaction_cpu_usec_total;
};

/* Fill the record's sample and policy fields (the effective target, if
 * not set, is the target).
 */
void upcc_state_scope_measured(struct upcc_state_scope *out, const struct upcc_sample *sample,
			       const struct upcc_policy *policy);

/* @run's scope as a state record. */
void upcc_state_scope_from_run(const struct upcc_scope_run *run, struct upcc_state_scope *out);

/* One scope's JSON object (no newline): the state file's and status --json's. */
void upcc_state_scope_json(FILE *out, const struct upcc_state_scope *scope, uint64_t page_size);

/* This process's /proc/self/stat starttime, 0 if unknown. */
unsigned long long upcc_state_start_time(void);

/*
 * Is the daemon that wrote @header still running: is there a process
 * @header->pid whose /proc/PID/stat starttime (field 22) is the state's
 * start_time?  A pid reused by another process, or none, is false.
 */
bool upcc_state_daemon_alive(const struct upcc_state_header *header);

/*
 * Has the writer of @header missed its heartbeats: at @now (epoch
 * seconds), is "updated" older than UPCC_STATE_STALE_HEARTBEATS of them
 * plus UPCC_STATE_STALE_SLACK_S?  A daemon alive but stale is stuck (or
 * stopped); a state with no heartbeat is never stale by its age.
 */
bool upcc_state_stale(const struct upcc_state_header *header, long long now);

/*
 * @heartbeat_ms: how often at least the writer rewrites the file (0: no
 * promise); @compact: the daemon's compaction, or NULL (reported as off).
 */
int upcc_state_format(FILE *out, const struct upcc_scope_run *runs, size_t nr_runs,
		      uint64_t page_size, bool dry_run, uint64_t heartbeat_ms,
		      const struct upcc_compact *compact);
/*
 * Write the state to @path (lib/atomicfile.h: no symbolic link on the way,
 * a directory only root or we may change), making its directory (0755,
 * /run/upcc on a fresh tmpfs) if it is missing.  0 or -errno, and @why
 * (@why_len bytes, may be NULL) says why for the log.
 */
int upcc_state_write(const char *path, const struct upcc_scope_run *runs, size_t nr_runs,
		     uint64_t page_size, bool dry_run, uint64_t heartbeat_ms,
		     const struct upcc_compact *compact, char *why, size_t why_len);

/*
 * Read a state file; fills up to @max scopes.  0, or a negative errno:
 * -EINVAL for anything but a whole version-2 state (bad JSON, a cut file,
 * another version, a missing daemon pid or time).
 */
int upcc_state_read(const char *path, struct upcc_state_header *header,
		    struct upcc_state_scope *scopes, size_t max, size_t *nr_scopes);

/* The same on text already read (for the fuzzer). */
int upcc_state_parse(const char *text, struct upcc_state_header *header,
		     struct upcc_state_scope *scopes, size_t max, size_t *nr_scopes);

#endif /* UPCC_STATE_H */
