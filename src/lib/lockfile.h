/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockfile.h - an exclusive lock on a file of our own: one process at a
 * time (upcd's one daemon a state file).
 *
 * An open file description lock (fcntl F_OFD_SETLK) on the whole file:
 * the kernel drops it when its descriptor is closed, and so when the
 * process exits, however it exits.  Not a classic POSIX lock: that one
 * goes when the process closes *any* descriptor of the file, and upcd's
 * walks open every file of a path scope, the lock file too when the
 * scope holds the state's directory.  An OFD lock names no holder, so
 * the holder writes its pid into the file, for the message of the next
 * one that is refused.
 *
 * The name is never followed through a symbolic link, the file must be a
 * regular file of ours with no other link, and its directory must not be
 * writable by other users (unless sticky) nor belong to one: where another
 * user can plant or swap the name, they could hold the lock to keep the
 * daemon from starting, or point it at a file of theirs.  The file is left
 * in place on release: removing it would let one process lock the
 * unlinked inode while another creates and locks a new one.
 */
#ifndef UPCC_LOCKFILE_H
#define UPCC_LOCKFILE_H

#include <stddef.h>

/*
 * Lock @path, creating it (0644) and its directory (0755) if missing, and
 * write our pid in it.  The descriptor (>= 0), held until
 * upcc_lockfile_release() or exit; or -EAGAIN when another process holds
 * it, the pid it wrote in *@holder (0 if none yet); another -errno (-EPERM:
 * a name or directory another user could control; -ELOOP: a symbolic
 * link), with why in @why (@why_len bytes).
 */
int upcc_lockfile_take(const char *path, long *holder, char *why, size_t why_len);

/* Let go of the lock (the file stays); -1 is no lock. */
void upcc_lockfile_release(int fd);

#endif /* UPCC_LOCKFILE_H */
