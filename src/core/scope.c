// SPDX-License-Identifier: GPL-2.0
/*
 * scope.c - the scope kinds' names, for the config, the state file and
 * upcc status alike; see scope.h.
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
