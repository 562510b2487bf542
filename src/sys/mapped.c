// SPDX-License-Identifier: GPL-2.0
/*
 * mapped.c - the mapped-file set; see mapped.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* getline, makedev */
#endif
#include "mapped.h"
#include "lib/pace.h"
#include "sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

static int mapped_set_add(struct upcc_mapped_set *set, dev_t dev, ino_t ino)
{
	if (set->count == set->capacity) {
		size_t capacity = set->capacity ? set->capacity * 2 : 256;
		struct upcc_file_id *ids = realloc(set->ids, capacity * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		set->ids = ids;
		set->capacity = capacity;
	}
	set->ids[set->count].dev = dev;
	set->ids[set->count].ino = ino;
	set->count++;
	return 0;
}

/* "start-end perms offset MAJ:MIN inode [path]": take dev and inode. */
static int parse_maps_line(const char *line, dev_t *dev, ino_t *ino)
{
	unsigned int major, minor;
	unsigned long long inode;

	if (sscanf(line, "%*s %*s %*s %x:%x %llu", &major, &minor, &inode) != 3)
		return -EINVAL;
	*dev = makedev(major, minor);
	*ino = (ino_t)inode;
	return inode ? 0 : -ENOENT;	/* inode 0: anonymous, heap, stack */
}

int upcc_mapped_set_parse(struct upcc_mapped_set *set, const char *text)
{
	while (text && *text) {
		const char *eol = strchr(text, '\n');
		dev_t dev;
		ino_t ino;

		if (parse_maps_line(text, &dev, &ino) == 0 && mapped_set_add(set, dev, ino))
			return -ENOMEM;
		text = eol ? eol + 1 : NULL;
	}
	return 0;
}

static int compare_file_id(const void *a, const void *b)
{
	const struct upcc_file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

void upcc_mapped_set_finish(struct upcc_mapped_set *set)
{
	size_t kept = 0;

	if (!set->count)
		return;
	qsort(set->ids, set->count, sizeof(*set->ids), compare_file_id);
	for (size_t i = 1; i < set->count; i++)
		if (compare_file_id(&set->ids[kept], &set->ids[i]))
			set->ids[++kept] = set->ids[i];
	set->count = kept + 1;
}

bool upcc_mapped_set_has(const struct upcc_mapped_set *set, dev_t dev, ino_t ino)
{
	struct upcc_file_id key = { dev, ino };

	return set->count &&
	       bsearch(&key, set->ids, set->count, sizeof(key), compare_file_id) != NULL;
}

void upcc_mapped_set_free(struct upcc_mapped_set *set)
{
	free(set->ids);
	memset(set, 0, sizeof(*set));
}

/* Stream one maps file: a big process has more maps than any fixed buffer. */
static int load_maps_file(struct upcc_mapped_set *set, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t line_len = 0;
	int err = 0;

	if (!f) {
		/* Gone is fine; refused is counted: the set is then incomplete
		 * (DONTNEED still never drops a mapped page, but the skip of
		 * the whole file is lost for that process).
		 */
		if (errno == EACCES || errno == EPERM)
			set->unreadable++;
		return 0;
	}
	while (!err && getline(&line, &line_len, f) > 0) {
		dev_t dev;
		ino_t ino;

		if (parse_maps_line(line, &dev, &ino) == 0)
			err = mapped_set_add(set, dev, ino);
	}
	free(line);
	fclose(f);
	return err;
}

static bool is_pid_name(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

int upcc_mapped_set_load(struct upcc_mapped_set *set)
{
	char dir_path[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *entry;
	DIR *dir;
	int err = 0;

	set->count = 0;
	set->unreadable = 0;
	if (upcc_sysfs_path(dir_path, sizeof(dir_path), "/proc"))
		return -ENAMETOOLONG;
	dir = opendir(dir_path);
	if (!dir)
		return -errno;
	while (!err && (entry = readdir(dir)) != NULL) {
		if (!is_pid_name(entry->d_name))
			continue;
		if (upcc_pace_stop()) {
			err = -EINTR;	/* a signal waits */
			break;
		}
		snprintf(path, sizeof(path), "%s/%s/maps", dir_path, entry->d_name);
		err = load_maps_file(set, path);
	}
	closedir(dir);
	upcc_mapped_set_finish(set);
	return err;
}
