#!/bin/busybox sh
# Scenario (c): gradual memory.reclaim on the guest's root cgroup, in the
# style of WSL2's autoMemoryReclaim=gradual: when the guest is idle, give back
# a slice of the page cache at a time instead of dropping all of it at once.
#
# Time-scaled for a 30 s idle phase: every 5 s, when the last 5 s were mostly
# idle (CPU busy < 20%), ask the root cgroup to reclaim 1/8 of its file
# pages.  memory.reclaim has no notion of "unmapped": it may take mapped file
# pages too, which is what the benchmark's mapped-file check shows.
PERIOD=5
SLICE_DIV=8
# The root cgroup when it offers memory.reclaim (as on WSL2), else the child
# cgroup guest-init.sh runs everything in.
CG=/sys/fs/cgroup
[ -e $CG/memory.reclaim ] || CG=/sys/fs/cgroup/work

busy_jiffies() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
total_jiffies() { awk '/^cpu /{print $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat; }

busy0=$(busy_jiffies)
total0=$(total_jiffies)
while :; do
	sleep $PERIOD
	busy1=$(busy_jiffies)
	total1=$(total_jiffies)
	busy_pct=$(( (busy1 - busy0) * 100 / (total1 - total0 + 1) ))
	busy0=$busy1
	total0=$total1
	[ "$busy_pct" -lt 20 ] || continue
	file_bytes=$(awk '$1 == "file" {print $2}' $CG/memory.stat)
	slice=$(( file_bytes / SLICE_DIV ))
	[ "$slice" -ge 1048576 ] || continue
	# One "C" line per step on the host's port, so the run shows what it did.
	err=$(echo "$slice" 2>&1 >$CG/memory.reclaim)
	echo "C reclaim bytes=$slice busy_pct=$busy_pct rc=$? $err" >/dev/ttyS1
done
