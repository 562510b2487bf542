/* SPDX-License-Identifier: GPL-2.0 */
/*
 * status.h - `upcc status [--json] [--bytes] [--state FILE | --config FILE]`:
 * per scope, memory, file LRU, mapped, unmapped, dirty, target, trigger,
 * backend and what upcd reclaimed, from a live sample beside the daemon's
 * state file (--state, else the config file's "state =").
 *
 * Exit codes: 0 upcd runs and every scope was measured; 1 a scope could
 * not be measured or a state file named with --state could not be read;
 * 2 bad usage, or a --config FILE that cannot be used; 3 upcd is not
 * running or its state is stale (3 wins over 1: a health check's answer).
 */
#ifndef UPCC_STATUS_H
#define UPCC_STATUS_H

/* argv[0] is the command name ("upcc status", for getopt's messages). */
int upcc_status_main(int argc, char **argv);

/*
 * Without --state, where upcd writes its state: the "state =" of the
 * config file (@config_path, else the default one if it exists), else
 * the default path; into @state_path.  0, or 2 (UPCC_EXIT_USAGE) when a
 * named config cannot be used (said on stderr).  upcc top finds it so too.
 */
int upcc_status_find_state(const char *config_path, char *state_path, size_t size);

#endif /* UPCC_STATUS_H */
