#!/bin/busybox sh
# Scenario (c): WSL2's autoMemoryReclaim=gradual, in its current form, on the
# guest's cgroup (issue 8): while the guest is idle, reclaim the page cache
# in steps of RAM/32 with "swappiness=0" (file pages only) down to a floor,
# and compact memory after reclaiming so that free page reporting finds
# whole 2 MiB blocks to hand back.
#
#   gradual-reclaim.sh ACTIONS_LOG
#
# Parameters (time-scaled: WSL2 watches for minutes, the bench's idle phase
# lasts 30 s):
#   PERIOD    1 s        one decision per second
#   IDLE_PCT  20         idle = less than 20% of the CPU time busy in the period
#   STEP      RAM/32     reclaimed per idle period
#   FLOOR     RAM/16     the file cache it never goes below
#   HYST      RAM/32     and it only starts above FLOOR + HYST
# After the last step of an idle stretch (the cache is at the floor, or the
# guest becomes busy again) it writes 1 to /proc/sys/vm/compact_memory once.
# memory.reclaim has no notion of "unmapped": it may take mapped file pages
# too, which the benchmark's mapped-file column shows.
LOG=${1:-/tmp/actions.log}
PERIOD=1
IDLE_PCT=20
CG=/sys/fs/cgroup
[ -e $CG/memory.reclaim ] || CG=/sys/fs/cgroup/work

ram_bytes=$(awk '/^MemTotal:/{print $2 * 1024}' /proc/meminfo)
STEP=$((ram_bytes / 32))
FLOOR=$((ram_bytes / 16))
HYST=$((ram_bytes / 32))

busy_jiffies() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
total_jiffies() { awk '/^cpu /{print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat; }

busy0=$(busy_jiffies)
total0=$(total_jiffies)
reclaimed=0	# reclaimed since the last compaction
while :; do
	sleep $PERIOD
	busy1=$(busy_jiffies)
	total1=$(total_jiffies)
	busy_pct=$(( (busy1 - busy0) * 100 / (total1 - total0 + 1) ))
	busy0=$busy1
	total0=$total1
	file=$(awk '$1 == "file" {print $2}' $CG/memory.stat)
	if [ "$busy_pct" -lt $IDLE_PCT ] && [ "$file" -gt $((FLOOR + HYST)) ]; then
		ask=$STEP
		[ $((file - ask)) -ge $FLOOR ] || ask=$((file - FLOOR))
		echo "$ask swappiness=0" >$CG/memory.reclaim 2>/dev/null
		echo "reclaim $((ask / 1024)) $? busy=$busy_pct" >>"$LOG"
		reclaimed=1
		continue
	fi
	# Idle and done (or busy again): compact what the steps freed, once.
	if [ $reclaimed = 1 ]; then
		echo 1 >/proc/sys/vm/compact_memory
		echo "compact busy=$busy_pct" >>"$LOG"
		reclaimed=0
	fi
done
