#!/bin/sh
# guest-bench.sh - runs INSIDE the benchmark's UML guest (busybox sh, root).
# For each control MODE, on the same workload, it records a sampler trace
# and the control's own figures into OUTDIR/MODE.*; bench/backends/report.sh turns
# them into the table.  Never run on the host: it drops caches.
#
# usage: guest-bench.sh BINDIR DATADEV OUTDIR TARGET_KB TRIGGER_KB INTERVAL_MS
#                       STREAM_MIBPS HOT_PAUSE_MS MODE...
#   MODE: none | drop_caches | fadvise | memcg | damon | dropcache | auto
#
# The workload, per mode: the hot set (hot/, ~10% of RAM) read once to warm
# it, then re-read in a loop for as long as a stream of ~2x RAM (stream/)
# is read beside it, while maphold keeps hot.map mapped and touched, and
# the control (upcd as a daemon, or the drop_caches writer) runs.
set -u

BIN=$1
DATADEV=$2
OUT=$3
TARGET_KB=$4
TRIGGER_KB=$5
INTERVAL_MS=$6
STREAM_MIBPS=$7
HOT_PAUSE_MS=$8
shift 8
WL=$BIN/workload
# Traces are written to tmpfs (anon LRU, so not part of what is measured)
# and copied to OUTDIR (a hostfs share) once a mode is over.
RAW=/tmp/bench
MNT=/mnt/data
CLK_TCK=100

# uml-run.sh's init has mounted proc, sysfs, devtmpfs and tmpfs on /tmp;
# /tmp is tmpfs, whose pages sit on the anon LRU, so the guest's scratch
# files do not count as the file cache being measured.
setup_guest() {
	mkdir -p /sys/fs/cgroup "$MNT" "$OUT" "$RAW"
	grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
	mount -t ext4 -o ro "$DATADEV" "$MNT" || { echo "bench: cannot mount $DATADEV"; exit 1; }
}

uptime_ms() { awk '{ printf "%.0f\n", $1 * 1000 }' /proc/uptime; }

# utime + stime of PID, in clock ticks (fields 14 and 15 of /proc/PID/stat;
# comm is in parentheses and may hold spaces, so cut after the last ')').
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'
}

# CPU ticks of every kdamond thread: DAMON's work is done there, not in upcd.
kdamond_ticks() {
	total=0
	for d in /proc/[0-9]*; do
		case "$(cat "$d/comm" 2>/dev/null)" in
		kdamond*) total=$((total + $(cpu_ticks "${d#/proc/}"))) ;;
		esac
	done
	echo $total
}

kswapd_ticks() {
	total=0
	for d in /proc/[0-9]*; do
		case "$(cat "$d/comm" 2>/dev/null)" in
		kswapd*) total=$((total + $(cpu_ticks "${d#/proc/}"))) ;;
		esac
	done
	echo $total
}

# Reclaimed pages upcd reports in its state file, summed over scopes;
# empty when the file is missing.
state_reclaimed_pages() {
	tr ',' '\n' < "$1" 2>/dev/null |
		sed -n 's/^"reclaimed_pages_total":\([0-9]*\).*/\1/p' |
		awk '{ s += $1; n++ } END { if (n) print s }'
}

start_control() {
	mode=$1
	control_pid=
	ctl_args="--interval=${INTERVAL_MS}ms --target=${TARGET_KB}K --trigger=${TRIGGER_KB}K"
	case $mode in
	none) ;;
	drop_caches)
		"$WL" dropper "$INTERVAL_MS" > "$RAW/$mode.control" 2>&1 &
		control_pid=$! ;;
	fadvise)
		"$BIN/upcd" --backend=fadvise --scope=path:$MNT $ctl_args \
			--state=/tmp/state.json --metrics=/tmp/metrics.prom > "$RAW/$mode.control" 2>&1 &
		control_pid=$! ;;
	dropcache)
		"$BIN/upcd" --backend=dropcache --scope=system $ctl_args \
			--state=/tmp/state.json --metrics=/tmp/metrics.prom > "$RAW/$mode.control" 2>&1 &
		control_pid=$! ;;
	auto)
		"$BIN/upcd" --scope=system $ctl_args \
			--state=/tmp/state.json --metrics=/tmp/metrics.prom > "$RAW/$mode.control" 2>&1 &
		control_pid=$! ;;
	*)
		"$BIN/upcd" --backend=$mode --scope=system $ctl_args \
			--state=/tmp/state.json --metrics=/tmp/metrics.prom > "$RAW/$mode.control" 2>&1 &
		control_pid=$! ;;
	esac
}

run_mode() {
	mode=$1
	echo "bench: mode $mode"
	rm -f /tmp/metrics.prom /tmp/state.json
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1

	"$WL" maphold "$MNT/hot.map" > "$RAW/$mode.maphold" &
	maphold_pid=$!
	"$WL" hotset "$MNT/hot" --passes 1 > /dev/null	# warm the hot set
	kdamond_before=$(kdamond_ticks)
	kswapd_before=$(kswapd_ticks)
	sampler_start_ms=$(uptime_ms)
	"$WL" sampler 100 "$RAW/$mode.tsv" &
	sampler_pid=$!
	start_control "$mode"
	sleep 1
	# A backend that cannot keep the rules on this kernel makes upcd exit
	# at once: the mode is reported as refused, with upcd's reason.
	if [ -n "$control_pid" ] && ! kill -0 "$control_pid" 2>/dev/null; then
		wait "$control_pid"
		echo "refused rc=$?" > "$RAW/$mode.refused"
		kill -TERM $maphold_pid $sampler_pid
		wait $maphold_pid $sampler_pid
		cp "$RAW/$mode".* "$OUT/"
		return
	fi

	# The measured window: from the stream's start to its end.
	echo "start_ms $(uptime_ms)" > "$RAW/$mode.info"
	"$WL" hotset "$MNT/hot" --passes 1000000 --pause-ms "$HOT_PAUSE_MS" \
		> "$RAW/$mode.hotset" &
	hotset_pid=$!
	"$WL" stream "$MNT/stream" --rate "$STREAM_MIBPS" > "$RAW/$mode.stream"
	end_ms=$(uptime_ms)
	kill -TERM $hotset_pid
	wait $hotset_pid

	if [ -n "$control_pid" ]; then
		control_ticks=$(cpu_ticks $control_pid)
		kill -TERM $control_pid
		wait $control_pid
	else
		control_ticks=0
	fi
	kdamond_used=$(( $(kdamond_ticks) - kdamond_before ))
	kswapd_used=$(( $(kswapd_ticks) - kswapd_before ))
	kill -TERM $maphold_pid $sampler_pid
	wait $maphold_pid $sampler_pid
	{
		echo "mode $mode"
		echo "clk_tck $CLK_TCK"
		echo "control_ticks $control_ticks"
		echo "kdamond_ticks $kdamond_used"
		echo "kswapd_ticks $kswapd_used"
		[ -f /tmp/state.json ] &&
			echo "reclaimed_pages $(state_reclaimed_pages /tmp/state.json)"
		[ "$mode" = drop_caches ] &&
			echo "dropped_kb $(awk '$1 == "dropped_kb" { print $2 }' "$RAW/$mode.control")"
		echo "page_kb 4"
		echo "sampler_start_ms $sampler_start_ms"
		echo "end_ms $end_ms"
	} >> "$RAW/$mode.info"
	cp /tmp/metrics.prom "$RAW/$mode.prom" 2>/dev/null
	cp /tmp/state.json "$RAW/$mode.state" 2>/dev/null
	cp "$RAW/$mode".* "$OUT/"
}

setup_guest
for m in "$@"; do
	run_mode "$m"
done
umount "$MNT"
echo "bench: done"
