// SPDX-License-Identifier: GPL-2.0
/*
 * lock.c - one upcd a state file; see lock.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/common.h"
#include "lib/lockfile.h"
#include "lib/log.h"
#include "lib/readtext.h"
#include "lock.h"

/* Is @fd the file at @path?  Two spellings of one file share one lock. */
static bool same_file(int fd, const char *path)
{
	struct stat a, b;

	return fd >= 0 && !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* "upcd", the holder's command name, so the message says who it is
 * (upcc_log makes it printable).
 */
static void holder_name(long pid, char *name, size_t size)
{
	char path[64], *text;

	snprintf(name, size, "?");
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (pid <= 0 || upcc_read_text(path, &text))
		return;
	text[strcspn(text, "\n")] = '\0';
	snprintf(name, size, "%s", text);
	free(text);
}

static void log_refusal(const char *state_path, const char *lock_path, int err, long holder,
			const char *why)
{
	char name[64];

	if (err == -EAGAIN && holder) {
		holder_name(holder, name, sizeof(name));
		upcc_log(LOG_ERR, "state file %s is in use: pid %ld (%s) holds its lock %s; one upcd "
			 "a state file, not starting a second one (stop that one, or give this one "
			 "its own --state)", state_path, holder, name, lock_path);
	} else if (err == -EAGAIN) {
		upcc_log(LOG_ERR, "state file %s is in use: another process holds its lock %s "
			 "(and has not written its pid yet); not starting a second upcd on it",
			 state_path, lock_path);
	} else {
		/* @why names the rule (atomicfile.h): a symbolic link on the way,
		 * a directory another user could change, where they could hold
		 * the lock or swap the file.
		 */
		upcc_log(LOG_ERR, "cannot lock %s for the state file %s: %s: not starting",
			 lock_path, state_path, why && why[0] ? why : strerror(-err));
	}
}

int upcd_lock_state(int held, const char *state_path, int *lock_fd)
{
	char lock_path[PATH_MAX], why[PATH_MAX + 128];
	long holder;
	int fd;

	if (!state_path[0]) {
		*lock_fd = -1;
		return 0;
	}
	if (snprintf(lock_path, sizeof(lock_path), "%s.lock", state_path) >=
	    (int)sizeof(lock_path)) {
		log_refusal(state_path, state_path, -ENAMETOOLONG, 0, NULL);
		return -ENAMETOOLONG;
	}
	/* Taking it again would be granted (the lock is ours), and closing
	 * either descriptor later would drop it: keep the one held.
	 */
	if (same_file(held, lock_path)) {
		*lock_fd = held;
		return 0;
	}
	fd = upcc_lockfile_take(lock_path, &holder, why, sizeof(why));
	if (fd < 0) {
		log_refusal(state_path, lock_path, fd, holder, why);
		return fd;
	}
	*lock_fd = fd;
	return 0;
}

void upcd_lock_release(int lock_fd)
{
	upcc_lockfile_release(lock_fd);
}

int upcd_lock_exit_code(int err)
{
	return err == -EAGAIN ? UPCC_EXIT_FAILURE : UPCC_EXIT_USAGE;
}
