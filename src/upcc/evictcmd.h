/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evictcmd.h - `upcc evict`: drop files' clean unmapped pages, like
 * `vmtouch -e`, with upcd's rules: never a dirty or writeback file, never
 * a mapped one, never through a symlink.
 *
 * Exit codes: 0 done; 1 a path could not be read or evicted (the others
 * still were); 2 bad usage (nothing done).
 */
#ifndef UPCC_EVICTCMD_H
#define UPCC_EVICTCMD_H

/* argv[0] is the command name ("evict"). */
int upcc_evict_main(int argc, char **argv);

#endif /* UPCC_EVICTCMD_H */
