// SPDX-License-Identifier: GPL-2.0
/*
 * scope.c - the scope kinds' names, for the config, the state file and
 * upcc status alike; two scopes' roots compared; see scope.h.
 */
#include <errno.h>
#include <string.h>

#include "scope.h"

static const char *const kind_names[] = {
	[UPCC_SCOPE_SYSTEM] = "system", [UPCC_SCOPE_NODE] = "node",
	[UPCC_SCOPE_CGROUP] = "cgroup", [UPCC_SCOPE_PATH] = "path",
};

#define NR_KINDS	(sizeof(kind_names) / sizeof(kind_names[0]))

const char *upcc_scope_kind_name(enum upcc_scope_kind kind)
{
	return (unsigned int)kind < NR_KINDS ? kind_names[kind] : "unknown";
}

int upcc_scope_kind_parse(const char *name, enum upcc_scope_kind *kind)
{
	for (size_t i = 0; i < NR_KINDS; i++) {
		if (strcmp(name, kind_names[i]) == 0) {
			*kind = (enum upcc_scope_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * @path (absolute) as written, less what cannot change the directory it
 * names: runs of '/' are one, "." components and a trailing '/' go.
 * The result is never longer than @path.
 */
static void lexical_path(const char *path, char *out, size_t size)
{
	const char *c = path;
	size_t len = 0;

	while (*c) {
		const char *start;
		size_t n;

		while (*c == '/')
			c++;
		start = c;
		while (*c && *c != '/')
			c++;
		n = (size_t)(c - start);
		if (!n || (n == 1 && *start == '.'))
			continue;
		if (len + 1 + n >= size)
			break;
		out[len++] = '/';
		memcpy(out + len, start, n);
		len += n;
	}
	if (!len)
		out[len++] = '/';
	out[len] = '\0';
}

bool upcc_scope_same_root(const struct upcc_scope *a, const struct upcc_scope *b)
{
	char root_a[PATH_MAX], root_b[PATH_MAX];

	if (a->kind != b->kind || (a->kind != UPCC_SCOPE_PATH && a->kind != UPCC_SCOPE_CGROUP))
		return false;
	lexical_path(a->path, root_a, sizeof(root_a));
	lexical_path(b->path, root_b, sizeof(root_b));
	return strcmp(root_a, root_b) == 0;
}

bool upcc_scope_excluded(const char *exclude, const char *rel)
{
	for (const char *ex = exclude; *ex; ex += strlen(ex) + 1) {
		size_t len = strlen(ex);

		if (strncmp(rel, ex, len) == 0 && (rel[len] == '\0' || rel[len] == '/'))
			return true;
	}
	return false;
}

/* The next component of *@cursor ("" at the end), skipping "/" and "/./". */
static size_t next_component(const char **cursor)
{
	size_t len;

	for (;;) {
		while (**cursor == '/')
			(*cursor)++;
		len = strcspn(*cursor, "/");
		if (len != 1 || (*cursor)[0] != '.')
			return len;
		(*cursor)++;
	}
}

int upcc_scope_relative(const char *root, const char *path, char *rel, size_t size)
{
	const char *r = root, *p = path;
	size_t rlen, plen, used = 0;

	if (root[0] != '/' || path[0] != '/' || !size)
		return -EINVAL;
	/* Every component of the root, one by one, is the path's. */
	while ((rlen = next_component(&r))) {
		plen = next_component(&p);
		if ((rlen == 2 && r[0] == '.' && r[1] == '.') || rlen != plen ||
		    strncmp(r, p, rlen) != 0)
			return -EINVAL;
		r += rlen;
		p += plen;
	}
	rel[0] = '\0';
	while ((plen = next_component(&p))) {
		if (plen == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if (used + !!used + plen >= size)
			return -ENAMETOOLONG;
		if (used)
			rel[used++] = '/';
		memcpy(rel + used, p, plen);
		used += plen;
		rel[used] = '\0';
		p += plen;
	}
	return used ? 0 : -EINVAL;
}
