/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock.h - one upcd a state file.
 *
 * A second upcd on the same state file is a second controller of the same
 * scopes (a hand-run `upcd -v` beside the service reads the same
 * upcd.conf), and the two overwrite each other's state and metrics.  So
 * whoever writes a state file holds the lock STATE.lock beside it
 * (lockfile.h) from before its backends start until it exits; a second
 * one refuses to start, naming the pid that holds it.
 *
 * What writes no state file takes no lock and is never refused: --check,
 * and a dry run without --state (they change nothing); an acting --once
 * without --state (a one-off, like `upcc evict`).  Two daemons given two
 * state files are not told apart: upcd cannot know whether their scopes
 * overlap.
 */
#ifndef UPCC_LOCK_H
#define UPCC_LOCK_H

/*
 * The lock of @state_path into *@lock_fd: @held itself when that is
 * already its file (a reload that names it otherwise), -1 for no state
 * file.  0, or -errno with the reason logged (-EAGAIN: another process
 * holds it) and *@lock_fd untouched.
 */
int upcd_lock_state(int held, const char *state_path, int *lock_fd);

void upcd_lock_release(int lock_fd);

/*
 * The exit code for upcd_lock_state()'s error: held by another upcd is a
 * failure (1), which systemd restarts until that one stops; a lock that
 * can never be taken (its directory missing, read-only or another
 * user's, a symlink at its name) is the state path's fault, a bad
 * config (2), which it does not restart in a loop.
 */
int upcd_lock_exit_code(int err);

#endif /* UPCC_LOCK_H */
