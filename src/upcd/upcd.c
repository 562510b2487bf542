// SPDX-License-Identifier: GPL-2.0
/*
 * upcd - the unmapped page cache control daemon.
 *
 * The command line laid over the config (cmdline.c), the state file's
 * lock (lock.c), a backend run for each scope (scoperun.c), then one mode:
 * --check, --once or the daemon (daemon.c), whose rounds (control.c) are
 * logged by steplog.c.  Exit codes: docs/upcd.md.
 */
#include <stdlib.h>

#include "lib/clock.h"
#include "cmdline.h"
#include "core/common.h"
#include "core/config.h"
#include "check.h"
#include "daemon.h"
#include "lib/log.h"
#include "lock.h"
#include "control/scoperun.h"

int main(int argc, char **argv)
{
	struct upcd upcd = { .page_size = upcc_page_size(), .lock_fd = -1 };
	int rc;

	rc = upcd_parse_options(argc, argv, &upcd.options);
	if (rc)
		return rc;
	upcc_log_init("upcd", upcd.options.verbose);
	if (upcd_build_config(&upcd.options, &upcd.config))
		return UPCC_EXIT_USAGE;
	/* Before any backend starts: a second controller must touch nothing.
	 * --check keeps the config's state path only to check it: it takes
	 * the lock only of one --state names, as before.
	 */
	rc = upcd_lock_state(-1, upcd.options.check && !upcd.options.state ? "" :
			     upcd.config.state_path, &upcd.lock_fd);
	if (rc) {
		upcc_config_free(&upcd.config);
		return upcd_lock_exit_code(rc);
	}
	rc = upcc_runs_build(&upcd.config, upcd_run_mode(&upcd.options, &upcd.config), NULL, 0, &upcd.runs);
	upcd.nr_runs = upcd.config.nr_scopes;
	if (rc) {
		upcc_log(LOG_ERR, "a scope has no usable backend: not starting");
		rc = UPCC_EXIT_FAILURE;
	} else if (upcd.options.check) {
		rc = upcd_check(&upcd);
	} else {
		rc = upcd_serve(&upcd);
	}
	upcc_runs_free(upcd.runs, upcd.nr_runs);
	upcc_config_free(&upcd.config);
	upcd_lock_release(upcd.lock_fd);
	return rc;
}
