// SPDX-License-Identifier: GPL-2.0
/*
 * hooked_main.c - the integration suite's upcd: the real program, with
 * test hooks taken from its environment.
 *
 * The system scope walks every mounted filesystem, and a test on the
 * build machine may touch only what it made.  This build of upcd (never
 * installed; see mk/40-integration.mk) reads UPCC_MOUNTINFO, a mount table
 * naming only the suite's loop filesystem, and UPCC_NO_FANOTIFY before it
 * hands over to upcd's own main; it never compacts memory (compact.h), as
 * the build machine may sit on a balloon that reports free pages.  The
 * installed upcd reads no hook.
 */
#include <stdlib.h>

#include "lib/hooks.h"

int upcd_main(int argc, char **argv);

int main(int argc, char **argv)
{
	const char *mountinfo = getenv("UPCC_MOUNTINFO");
	const char *journal = getenv("UPCC_JOURNAL_SOCKET");
	const char *summary_ms = getenv("UPCC_LOG_SUMMARY_MS");

	if (mountinfo && *mountinfo)
		upcc_hooks.mountinfo = mountinfo;
	/* A journal socket of the test's, never the host's journald. */
	if (journal && *journal)
		upcc_hooks.journal_socket = journal;
	/* The info summary's period, seconds instead of minutes (steplog.h). */
	if (summary_ms && *summary_ms)
		upcc_hooks.log_summary_usec = strtoull(summary_ms, NULL, 10) * 1000;
	upcc_hooks.no_fanotify = getenv("UPCC_NO_FANOTIFY") != NULL;
	upcc_hooks.no_compact = 1;
	return upcd_main(argc, argv);
}
