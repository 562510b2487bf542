// SPDX-License-Identifier: GPL-2.0
/*
 * procstat.c - utime, stime and start time out of /proc/PID/stat; see
 * procstat.h.
 */
#include "procstat.h"

#include "lib/readtext.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int upcc_procstat_read(const char *path, struct upcc_procstat *st)
{
	char *text, *paren;
	int err = upcc_read_text(path, &text);

	if (err)
		return err;
	/* The command (field 2) may hold spaces and ')': the fields start
	 * after its last ')'.  Then state (3), fields 4-8 (%d), 9-13 (%u),
	 * utime and stime (14, 15), fields 16-21 (%d), start time (22).
	 */
	paren = strrchr(text, ')');
	if (!paren || sscanf(paren + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu"
			     " %*d %*d %*d %*d %*d %*d %llu",
			     &st->utime, &st->stime, &st->start_time) != 3)
		err = -EINVAL;
	free(text);
	return err;
}
