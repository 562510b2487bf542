#!/usr/bin/env bash
# The working-set benchmark (issue 10, items 1-3), on this machine's kernel,
# no guest: upcd on a path scope of a loop-mounted ext4 image made here, a
# 24 MiB hot set re-read every 0.2 s while a 1 GiB set of files streams
# past at 64 MiB/s, `--backend=fadvise --target=32M --trigger=64M`.
#
#   bench/wset/run.sh [UPCD...]     default: build/upcd, and build/before/upcd
#                                   if there (make bench-wset builds it from
#                                   main at bd14bb0)
# Env: SECONDS_RUN (64: the stream's length, CPU measured over it),
#      SECONDS_IDLE (30: idle CPU after it), HOT_MIB (24), TARGET (32M),
#      TRIGGER (64M), EXTRA (more upcd options).
# Prints per upcd: the hot set's hit ratio (cachestat before each read),
# upcd's CPU (utime+stime from /proc/PID/stat, and sum_exec_runtime from
# /proc/PID/schedstat in ns: idle is a tick or two) under the stream and idle,
# CPU seconds per GiB reclaimed, reclaimed/streamed, the peak of the
# scope's cache over the target, the cache 2 s after the stream.
# Needs root (loop device, mount).  Touches only what it makes.
set -eu
cd "$(dirname "$0")/../.."
LOAD=${LOAD:-build/bench/wsetload}
RUN=${SECONDS_RUN:-64}
IDLE=${SECONDS_IDLE:-30}
HOT_MIB=${HOT_MIB:-24}
TARGET=${TARGET:-32M}
TRIGGER=${TRIGGER:-64M}
TARGET_MIB=${TARGET%M}
HZ=$(getconf CLK_TCK)
if [ $# -eq 0 ]; then
	set -- build/upcd
	[ -x build/before/upcd ] && set -- build/before/upcd build/upcd
fi
[ -x "$LOAD" ] || { echo "run.sh: $LOAD not built (make bench-wset)"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "run.sh: needs root (loop device, mount)"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/upcc-wset.XXXXXX")
mnt=$work/mnt
loop=
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt" || umount -l "$mnt"; fi
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mkdir -p "$mnt"
truncate -s 1400M "$work/img"
mkfs.ext4 -q -F "$work/img"
loop=$(losetup --find --show "$work/img")
mount "$loop" "$mnt"
mkdir -p "$mnt/hot" "$mnt/stream"
for i in $(seq -w 1 "$HOT_MIB"); do head -c 1M /dev/urandom > "$mnt/hot/h$i"; done
for i in $(seq -w 1 16); do head -c 64M /dev/zero > "$mnt/stream/s$i"; done
sync

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# The same time in ns (sum_exec_runtime): idle is a tick or two of 10 ms.
cpu_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }
metric() { awk -v m="$1" '$1 ~ "^"m"{" { print $2 }' "$work/m.prom" 2>/dev/null | head -n 1; }

for upcd in "$@"; do
	"$LOAD" evict "$mnt"
	rm -f "$work/m.prom" "$work/state.json"
	# shellcheck disable=SC2086
	"$upcd" --scope "path:$mnt" --backend=fadvise --target="$TARGET" --trigger="$TRIGGER" \
		--state "$work/state.json" --metrics "$work/m.prom" ${EXTRA:-} 2>"$work/upcd.log" &
	upid=$!
	pids+=("$upid")
	sleep 2
	c0=$(cpu_ticks "$upid")
	n0=$(cpu_ns "$upid")
	r0=$(metric upcc_reclaimed_bytes_total); r0=${r0:-0}
	"$LOAD" monitor "$mnt" "$((RUN + 2))" "$TARGET_MIB" > "$work/monitor.out" &
	mon=$!
	"$LOAD" hot "$mnt/hot" "$RUN" 200 > "$work/hot.out" &
	hotp=$!
	"$LOAD" stream "$mnt/stream" "$RUN" 64 > "$work/stream.out"
	wait "$hotp"
	c1=$(cpu_ticks "$upid")
	n1=$(cpu_ns "$upid")
	wait "$mon"
	r1=$(metric upcc_reclaimed_bytes_total); r1=${r1:-0}
	sleep 1
	c2=$(cpu_ticks "$upid")
	n2=$(cpu_ns "$upid")
	sleep "$IDLE"
	c3=$(cpu_ticks "$upid")
	n3=$(cpu_ns "$upid")
	kill "$upid"; wait "$upid" || true
	streamed=$(awk '/streamed_bytes/ { print $2 }' "$work/stream.out")
	hit=$(awk '/hit_ratio/ { print $2 }' "$work/hot.out")
	peak=$(awk '/peak_over_target_mib/ { print $2 }' "$work/monitor.out")
	after=$(awk '/cached_end_mib/ { print $2 }' "$work/monitor.out")
	eff=$(grep -o '"effective_target_bytes":[0-9]*,"effective_target_reason":"[^"]*"' \
		"$work/state.json" 2>/dev/null | head -n 1 || true)
	awk -v name="$upcd" -v hit="$hit" -v c0="$c0" -v c1="$c1" -v c2="$c2" -v c3="$c3" -v n0="$n0" -v n1="$n1" -v n2="$n2" -v n3="$n3" \
	    -v hz="$HZ" -v run="$RUN" -v idle="$IDLE" -v r="$((r1 - r0))" -v s="$streamed" \
	    -v peak="$peak" -v after="$after" -v eff="${eff:-none}" 'BEGIN {
		cpu = (c1 - c0) / hz; gib = r / 2^30
		printf "%s:\n", name
		printf "  hot set hit ratio         %.4f\n", hit
		printf "  upcd CPU under the stream %.2f%% of a core (%.2f s over %d s; %.3f%% by schedstat)\n", 100 * cpu / run, cpu, run, 100 * (n1 - n0) / 1e9 / run
		printf "  upcd CPU idle             %.3f%% of a core (over %d s; %.4f%% by schedstat)\n", 100 * (c3 - c2) / hz / idle, idle, 100 * (n3 - n2) / 1e9 / idle
		printf "  CPU per GiB reclaimed     %.3f s\n", (gib > 0 ? cpu / gib : 0)
		printf "  reclaimed / streamed      %.3f (%.2f GiB / %.2f GiB)\n", (s > 0 ? r / s : 0), gib, s / 2^30
		printf "  peak over target          %.1f MiB\n", peak
		printf "  cached after the stream   %.1f MiB\n", after
		printf "  last state                %s\n", eff
	}'
done
