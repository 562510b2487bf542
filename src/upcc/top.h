/* SPDX-License-Identifier: GPL-2.0 */
/*
 * top.h - `upcc top [-d SECONDS] [-n N] [--bytes] [--state FILE | --config
 * FILE]`: a live view of what upcd does, redrawn every SECONDS like
 * top(1), `free -s` or `watch oomctl`, with per-interval rates (what was
 * reclaimed per second, what came into the cache, rounds per second).
 *
 * It reads the daemon's state file only, never the scopes themselves:
 * `upcc status` measures every scope now (a path scope's whole tree
 * walked, 36k syscalls for 5000 files), which every second on a big tree
 * is a load of its own; the state file is a few KiB the daemon rewrites
 * after its rounds anyway.  That is also why it is a command of its own
 * and not `status --watch`: status shows live measurements, top shows
 * the daemon's, and its columns (rates) are not status's.
 *
 * On a terminal it takes the screen (the alternate one, as top does),
 * redraws in place, fits the width and height (and a resize), and quits
 * on q or Ctrl-C.  Otherwise (a pipe, a file, a script) it writes one
 * frame after the other, a blank line between, until -n frames or a
 * signal.
 *
 * Exit codes: 0; 1 a --state FILE named cannot be read at the first
 * frame; 2 bad usage, or a --config FILE that cannot be used; 3 upcd was
 * not running (or stale) at the last frame.
 */
#ifndef UPCC_TOP_H
#define UPCC_TOP_H

/* argv[0] is the command name ("upcc top"). */
int upcc_top_main(int argc, char **argv);

#endif /* UPCC_TOP_H */
