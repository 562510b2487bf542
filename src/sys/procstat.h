/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procstat.h - the few fields of /proc/PID/stat upcc needs: a thread's CPU
 * time (the damon backend charges kdamond's to its steps) and a process's
 * start time (with its pid, what tells a process from a later one that
 * reused the pid: the state file's daemon, the damon marker's upcd).
 */
#ifndef UPCC_PROCSTAT_H
#define UPCC_PROCSTAT_H

/* In clock ticks (sysconf(_SC_CLK_TCK)), as the file gives them. */
struct upcc_procstat {
	unsigned long long utime, stime;	/* fields 14 and 15 */
	unsigned long long start_time;		/* field 22: since boot */
};

/*
 * Parse the stat file at @path (taken as is: the caller puts it under
 * upcc_hooks.root or not) into @st.  Only a regular file is read
 * (lib/readtext.h).  0, or -errno; -EINVAL if the fields are not there.
 */
int upcc_procstat_read(const char *path, struct upcc_procstat *st);

#endif /* UPCC_PROCSTAT_H */
