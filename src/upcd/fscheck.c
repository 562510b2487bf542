// SPDX-License-Identifier: GPL-2.0
/*
 * fscheck.c - what the config names, checked on the filesystem; see
 * fscheck.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fscheck.h"
#include "lib/atomicfile.h"
#include "lib/log.h"

/* Where a setting came from: "FILE:LINE: state PATH", "--state=PATH" or
 * "state PATH (the default)".
 */
static const char *setting_where(char *buf, size_t len, const char *key, const char *path,
				 const char *option, const char *config_path, unsigned int line)
{
	if (option)
		snprintf(buf, len, "--%s=%s", key, path);
	else if (line)
		snprintf(buf, len, "%s:%u: %s %s", config_path, line, key, path);
	else
		snprintf(buf, len, "%s %s (the default)", key, path);
	return buf;
}

/*
 * A report file is written by renaming a temporary over its name, which
 * fails on a directory at every write: one there now is refused.  What
 * else may be there (a symlink, a FIFO) is replaced, never followed.
 */
static int check_report_file(const char *key, const char *path, const char *option,
			     const char *config_path, unsigned int line, const char *example,
			     char *error, size_t error_len)
{
	char where[PATH_MAX + 64];
	struct stat st;

	if (!path[0] || lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	snprintf(error, error_len,
		 "%s: is a directory; upcd writes the %s file by renaming a temporary over it: name a file (%s/%s)",
		 setting_where(where, sizeof(where), key, path, option, config_path, line), key,
		 path, example);
	return -EISDIR;
}

int upcd_check_report_files(const struct upcd_options *options, const struct upcc_config *config,
			    const char *config_path, char *error, size_t error_len)
{
	int err;

	err = check_report_file("state", config->state_path, options->state, config_path,
				config->state_line, "state.json", error, error_len);
	if (err)
		return err;
	return check_report_file("metrics", config->metrics_path, options->metrics, config_path,
				 config->metrics_line, "upcc.prom", error, error_len);
}

/* A path or cgroup scope's root as the filesystem has it now. */
struct scope_root {
	const struct upcc_config_scope *entry;
	bool exists;			/* else not created yet: nothing to compare */
	dev_t dev;
	ino_t ino;
	char real[PATH_MAX];		/* realpath(3) */
};

static void resolve_root(const struct upcc_config_scope *entry, struct scope_root *root)
{
	struct stat st;

	root->entry = entry;
	root->exists = (entry->scope.kind == UPCC_SCOPE_PATH ||
			entry->scope.kind == UPCC_SCOPE_CGROUP) &&
		       realpath(entry->scope.path, root->real) && stat(root->real, &st) == 0;
	if (root->exists) {
		root->dev = st.st_dev;
		root->ino = st.st_ino;
	}
}

/* "FILE:LINE: [scope NAME] path PATH" or "--scope=KIND:PATH". */
static const char *scope_where(char *buf, size_t len, const char *config_path,
			       const struct upcc_config_scope *entry)
{
	const struct upcc_scope *scope = &entry->scope;

	if (entry->path_line)
		snprintf(buf, len, "%s:%u: [scope %s] path %s", config_path, entry->path_line,
			 scope->name, scope->path);
	else
		snprintf(buf, len, "--scope=%s:%s", upcc_scope_kind_name(scope->kind), scope->path);
	return buf;
}

/* The other scope of a pair, as a message names it after the first. */
static const char *other_where(char *buf, size_t len, const struct upcc_config_scope *entry)
{
	const struct upcc_scope *scope = &entry->scope;

	if (entry->path_line)
		snprintf(buf, len, "[scope %s] (line %u, path %s)", scope->name, entry->path_line,
			 scope->path);
	else
		snprintf(buf, len, "--scope=%s:%s", upcc_scope_kind_name(scope->kind), scope->path);
	return buf;
}

/* Is @inner's root under @outer's?  Only where @outer's control reaches
 * it: a path scope stays on its filesystem unless it crosses mounts.
 */
static bool root_holds(const struct scope_root *outer, const struct scope_root *inner)
{
	size_t len = strlen(outer->real);

	if (strncmp(outer->real, inner->real, len) != 0 ||
	    (inner->real[len] != '/' && strcmp(outer->real, "/") != 0))
		return false;
	return outer->entry->scope.kind == UPCC_SCOPE_CGROUP ||
	       outer->entry->scope.cross_mounts || outer->dev == inner->dev;
}

/*
 * @a and @b, two existing roots of one kind: one directory (refused),
 * one under the other (warned: the inner pages have two controllers, but
 * a tree and a busy subtree of it is a layout people mean), or apart.
 */
static int compare_roots(const struct scope_root *a, const struct scope_root *b,
			 const char *config_path, char *error, size_t error_len)
{
	const char *what = a->entry->scope.kind == UPCC_SCOPE_PATH ? "tree" : "cgroup";
	char where[PATH_MAX + 128], other[PATH_MAX + 128];
	const struct scope_root *outer, *inner;

	if (a->dev == b->dev && a->ino == b->ino) {
		bool bind = strcmp(a->real, b->real) != 0;

		snprintf(error, error_len,
			 "%s and %s are one %s, %s%s%s: two scopes would act on the same pages",
			 scope_where(where, sizeof(where), config_path, b->entry),
			 other_where(other, sizeof(other), a->entry), what, b->real,
			 bind ? " and " : "", bind ? a->real : "");
		return -EINVAL;
	}
	if (root_holds(a, b)) {
		outer = a;
		inner = b;
	} else if (root_holds(b, a)) {
		outer = b;
		inner = a;
	} else {
		return 0;
	}
	upcc_log(LOG_WARNING, "%s is inside %s: the pages %s %s have two controllers",
		 scope_where(where, sizeof(where), config_path, inner->entry),
		 other_where(other, sizeof(other), outer->entry),
		 inner->entry->scope.kind == UPCC_SCOPE_PATH ? "under" : "charged to", inner->real);
	return 0;
}

int upcd_check_scope_roots(const struct upcc_config *config, const char *config_path,
			   char *error, size_t error_len)
{
	struct scope_root *roots = calloc(config->nr_scopes, sizeof(*roots));
	int err = 0;

	if (!roots && config->nr_scopes) {
		snprintf(error, error_len, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < config->nr_scopes; i++)
		resolve_root(&config->scopes[i], &roots[i]);
	for (size_t i = 0; !err && i < config->nr_scopes; i++)
		for (size_t j = i + 1; !err && j < config->nr_scopes; j++)
			if (roots[i].exists && roots[j].exists &&
			    roots[i].entry->scope.kind == roots[j].entry->scope.kind)
				err = compare_roots(&roots[i], &roots[j], config_path, error,
						    error_len);
	free(roots);
	return err;
}

int upcd_check_report_dir(const char *path, bool can_make, char *what, size_t what_len)
{
	char dir[PATH_MAX], parent[PATH_MAX], why[PATH_MAX + 128] = "";
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash) {	/* config.c takes absolute paths only: not reached */
		snprintf(what, what_len, "not an absolute path");
		return -EINVAL;
	}
	*(slash == dir ? slash + 1 : slash) = '\0';
	fd = upcc_atomic_open_dir(dir, why, sizeof(why));
	if (fd >= 0) {
		close(fd);
		if (access(dir, W_OK) != 0) {
			int err = -errno;

			snprintf(what, what_len, "directory %s: cannot write in it: %s", dir,
				 strerror(-err));
			return err;
		}
		snprintf(what, what_len, "directory %s: ok", dir);
		return 0;
	}
	if (fd != -ENOENT || !can_make) {
		/* A rule's refusal names the directory itself; an error's text does not. */
		snprintf(what, what_len, "%s%s%s%s", strstr(why, dir) ? "" : "directory ",
			 strstr(why, dir) ? "" : dir, strstr(why, dir) ? "" : ": ", why);
		if (fd == -ENOENT)
			snprintf(what + strlen(what), what_len - strlen(what),
				 " (upcd does not make this one: make it first)");
		return fd;
	}
	/* The state file's directory: upcd makes it (0755) in its parent. */
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	*(slash == parent ? slash + 1 : slash) = '\0';
	fd = upcc_atomic_open_dir(parent, why, sizeof(why));
	if (fd < 0) {
		snprintf(what, what_len, "directory %s: missing, and upcd cannot make it: %s", dir,
			 why);
		return fd;
	}
	close(fd);
	if (access(parent, W_OK) != 0) {
		int err = -errno;

		snprintf(what, what_len, "directory %s: missing, and upcd cannot make it in %s: %s",
			 dir, parent, strerror(-err));
		return err;
	}
	snprintf(what, what_len, "directory %s: missing, upcd makes it (in %s: ok)", dir, parent);
	return 0;
}
