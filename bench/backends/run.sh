#!/usr/bin/env bash
# run.sh - the userspace backend benchmark: one UML guest boot, every control
# on the same workload, one table.  `make bench` runs it.
#
# usage: bench/backends/run.sh [--modes "none drop_caches fadvise memcg damon dropcache auto"]
#                     [--target KB] [--trigger KB] [--interval MS]
#                     [--rate MIB_PER_S] [--hot-pause MS] [--mem SIZE]
#
# The workload (per mode, in a 256M guest): a hot set of 3 x 8M files (~10%
# of RAM) re-read in a loop, HOT_PAUSE ms (200) between passes, while a stream of 32 x 16M files (512M, 2x RAM)
# is read once beside it at STREAM MiB/s (64: 8 s per mode); a 16M file kept mapped and touched by maphold;
# the control (upcd as a daemon with --interval, or a drop_caches writer
# every INTERVAL) running throughout.  The target is above the hot set so
# that a control which drops cold pages first can keep the hot set whole:
# what the table tells apart is how well each backend chooses.
#
# Raw traces stay in build/bench/out/ (MODE.tsv, MODE.info, ...); the table
# goes to stdout and to build/bench/out/table.md.
set -eu
cd "$(dirname "$0")/../.."
repo=$PWD
work=$repo/build/bench
kernel=${KERNEL:-$repo/build/kernel/uml/linux}
uml_run=$repo/tests/guest/uml-run.sh
# Where the static upcd and upcc are (mk/10-userspace.mk builds them here).
static=${UPCC_STATIC:-$repo/build/static}
modes="none drop_caches fadvise memcg damon dropcache auto"
target_kb=$((32 * 1024))
trigger_kb=$((64 * 1024))
interval_ms=1000
stream_mibps=64
hot_pause_ms=200
mem=256M

while [ $# -gt 0 ]; do
	case $1 in
	--modes) modes=$2; shift 2 ;;
	--target) target_kb=$2; shift 2 ;;
	--trigger) trigger_kb=$2; shift 2 ;;
	--interval) interval_ms=$2; shift 2 ;;
	--rate) stream_mibps=$2; shift 2 ;;
	--hot-pause) hot_pause_ms=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	-h|--help) sed -n '2,21s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "bench: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
for n in "$target_kb" "$trigger_kb" "$interval_ms" "$stream_mibps" "$hot_pause_ms"; do
	case $n in ''|*[!0-9]*) echo "bench: '$n' is not a number" >&2; exit 2 ;; esac
done
[ "$trigger_kb" -gt "$target_kb" ] || { echo "bench: trigger must exceed target" >&2; exit 2; }

for f in "$kernel" "$static/upcd" "$static/upcc" \
	"$work/workload" "$uml_run"; do
	[ -x "$f" ] || { echo "bench: missing $f (make kernel; make)" >&2; exit 1; }
done

image=$work/data.img
stamp=$work/data.stamp
layout="stream=16Mx32 hot=8Mx3 hot.map=16M v1"
if [ ! -f "$image" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$layout" ]; then
	echo "bench: making the data disk ($layout)"
	rm -rf "$work/stage" "$image"
	mkdir -p "$work/stage"
	"$work/workload" mkfiles "$work/stage/stream" 16M 32 > /dev/null
	"$work/workload" mkfiles "$work/stage/hot" 8M 3 > /dev/null
	"$work/workload" mkfiles "$work/stage/map" 16M 1 > /dev/null
	mv "$work/stage/map/f000000" "$work/stage/hot.map"
	rmdir "$work/stage/map"
	truncate -s 640M "$image"
	mkfs.ext4 -q -F -d "$work/stage" "$image"
	rm -rf "$work/stage"
	echo "$layout" > "$stamp"
fi

bindir=$work/bin
out=$work/out
rm -rf "$out"
mkdir -p "$bindir" "$out"
cp "$static/upcd" "$static/upcc" "$work/workload" "$bindir/"

echo "bench: booting the guest ($mem) for: $modes"
# shellcheck disable=SC2086
"$uml_run" --kernel "$kernel" --mem "$mem" --disk-cow "$image" \
	--share "$bindir:/opt/upcc" --share "$out:/mnt/out" --timeout 1200 -- \
	"$repo/bench/backends/guest-bench.sh" /opt/upcc /dev/ubda /mnt/out \
	"$target_kb" "$trigger_kb" "$interval_ms" "$stream_mibps" "$hot_pause_ms" $modes

# shellcheck disable=SC2086
{
	echo "command: bench/backends/run.sh --modes \"$modes\" --target $target_kb --trigger $trigger_kb" \
		"--interval $interval_ms --rate $stream_mibps --hot-pause $hot_pause_ms --mem $mem"
	echo "kernel: $(strings "$kernel" | grep -m1 -o 'Linux version [^ ]*' || echo '?')"
	echo
	bench/backends/report.sh "$out" "$target_kb" "$trigger_kb" $modes
} | tee "$out/table.md"
