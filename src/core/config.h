/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - upcd's configuration: the file (/etc/upcc/upcd.conf) and the
 * command line options that override it.
 *
 * Format (docs/upcd.md): ini-like, '#' or ';' comments, "key = value".
 * Keys before any section, or in [daemon], are daemon-wide:
 *     interval = 1s | 500ms | 2m      backend = auto|fadvise|damon|memcg|dropcache
 *     allow_dropcache = yes|no        metrics = FILE       state = FILE
 *     tick = 100ms | 1s               (the sampling tick; a round still
 *                                      refreshes at most every interval)
 *     compact = yes|no                (compaction after reclaim, act/compact.h)
 *     dry_run = yes|no                (decide and report, reclaim nothing)
 * Each [scope NAME] section is one scope:
 *     type = system|node|cgroup|path  node = N  path = /abs/dir
 *     target = 1% | 64M | 1000        trigger = 16x | 512M | 2%
 *     step_shift = 0..63              max_step = 0 (none) | 64M | 1000
 *     backend = ... (overrides the daemon's)   cross_mounts = yes|no
 * Any error names the file and line; nothing is half-applied.
 */
#ifndef UPCC_CONFIG_H
#define UPCC_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "scope.h"
#include "values.h"

#define UPCC_DEFAULT_CONFIG_PATH	"/etc/upcc/upcd.conf"
#define UPCC_DEFAULT_STATE_PATH		"/run/upcc/state.json"
#define UPCC_DEFAULT_INTERVAL_MS	1000u
#define UPCC_DEFAULT_TICK_MS		100u	/* the sampling tick (control.h) */
/*
 * The damon backend's min_age: a region DAMON saw unused for 5 s is cold.
 * Long enough that a set read every few seconds stays; short enough that
 * a stream's pages, never read again, go 5 s after their read (the bound
 * under a stream is about 5 s of it).  DAMON_RECLAIM's 120 s is for anon
 * memory and swap, whose refault costs a disk read of its own.
 */
#define UPCC_DEFAULT_DAMON_MIN_AGE_MS	5000u
#define UPCC_MAX_SCOPES			64
#define UPCC_BACKEND_NAME_LEN		16
/* For messages: every name `backend =` takes. */
#define UPCC_BACKEND_NAMES_TEXT		"auto, fadvise, damon, memcg or dropcache"

struct upcc_config_scope {
	struct upcc_scope scope;		/* kind, name, node_id, path, config */
	char backend_name[UPCC_BACKEND_NAME_LEN]; /* "" = the daemon's */
	unsigned int path_line;			/* where "path =" is; 0: --scope */
};

struct upcc_config {
	struct upcc_config_scope *scopes;	/* heap array, nr_scopes long */
	size_t nr_scopes;
	char backend_name[UPCC_BACKEND_NAME_LEN];
	uint64_t interval_ms;
	uint64_t tick_ms;			/* the sampling tick (upcc_control_tick) */
	uint64_t damon_min_age_ms;		/* the damon backend's min_age */
	bool allow_dropcache;
	bool compact;				/* may compact for free page reporting */
	bool dry_run;				/* the file's, or --dry-run: act on nothing */
	char metrics_path[PATH_MAX];		/* "" = no metrics file */
	char state_path[PATH_MAX];
	/* The lines that set them, for messages; 0: not the file. */
	unsigned int metrics_line, state_line;
};

/*
 * Defaults: no scopes yet, backend "auto", interval 1s, dropcache not
 * allowed, compaction allowed (it still needs a reporting balloon).
 */
void upcc_config_init(struct upcc_config *config);
void upcc_config_free(struct upcc_config *config);

/* The seed's per-scope defaults: target 1%, trigger 16x, step shift 3. */
void upcc_scope_config_default(struct upcc_scope_config *scope_config);

/*
 * Parse @text (named @filename in messages) into @config, which must be
 * freshly initialised.  0, or -EINVAL with "FILE:LINE: what" in @error
 * (and @config left initialised but possibly partly filled: free it).
 * A file without any [scope] gets the one default scope "system".
 */
int upcc_config_parse(const char *text, const char *filename, struct upcc_config *config,
		      char *error, size_t error_len);

/* Every error after the first, "FILE:LINE: what" as in @error. */
typedef void (*upcc_config_error_fn)(const char *message, void *context);

/*
 * The same for the @len bytes at @text, which need no NUL after them: a
 * NUL among them is an error at its line ("not a text file"), the last.
 * The first error goes to @error, every later one to @more if it is set
 * (upcd --check lists them all).  What an error leaves unknown is not
 * checked further: the keys under a bad section header, the whole-scope
 * checks of a scope with a bad line.
 */
int upcc_config_parse_text(const char *text, size_t len, const char *filename,
			   struct upcc_config *config, char *error, size_t error_len,
			   upcc_config_error_fn more, void *context);

/* Read and parse @path; also -errno with a message if it cannot be read. */
int upcc_config_load(const char *path, struct upcc_config *config, char *error,
		     size_t error_len);

/* The same, every error after the first to @more (upcc_config_parse_text). */
int upcc_config_load_all(const char *path, struct upcc_config *config, char *error,
			 size_t error_len, upcc_config_error_fn more, void *context);

/* Add one scope with default settings (for --scope and the built-in default). */
struct upcc_config_scope *upcc_config_add_scope(struct upcc_config *config,
						enum upcc_scope_kind kind, const char *name);

/* "system", "node:N", "cgroup:PATH", "path:DIR" into a new scope of @config. */
int upcc_config_add_scope_spec(struct upcc_config *config, const char *spec,
			       char *error, size_t error_len);

/* The value parsers, shared with the command line, are values.h's. */
bool upcc_backend_name_valid(const char *name);	/* auto or a backend's name */

#endif /* UPCC_CONFIG_H */
