#!/usr/bin/env bash
# Run a set of QEMU scenarios and analyse them.
#
#   run-all.sh small   host-e2e: 256 MiB guest, 512 MiB of files, (a) (d) (e),
#                      W1, 2 vCPUs; then the suite's assertions (analyze.py check)
#   run-all.sh full    bench-host: every scenario (a)..(i) x W1..W5, W1-W3
#                      REPEATS times (timing columns are medians), W4 once
#                      (memory columns only), W5 once (its TPS is the median
#                      of three pgbench runs in the guest) and without (f);
#                      then docs/host-bench-table.md,
#                      docs/host-bench-w{1,2,3,4,5}.png and the headline table
#
# Environment: HOST_KERNEL (bzImage, default build/kernel/x86_64/bzImage),
# FULL_RAM_MIB (default 512), SCENARIOS, WORKLOADS, REPEATS (default 3),
# IDLE_S (default 30), IO_S (W2/W3 I/O phase, default 60), STREAM_RATE
# (MiB/s, default 32), RESULTS (default build/bench-host/results-MODE),
# W5_SECONDS (each of W5's pgbench runs, default 60), UPCD_BACKEND (scenario
# (d)'s upcd --backend=, default upcd's own; run-scenario.sh).  W5 boots the Debian
# image of tests/systemd/mkimage.sh with postgresql-15 (cached under
# build/bench-host/pg-image/) and a database of >= 1.5 x guest RAM
# (bench/host/mkpgdata.sh, cached by its inputs).
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
mode=${1:?usage: run-all.sh small|full}
kernel=${HOST_KERNEL:-$top/build/kernel/x86_64/bzImage}
idle=${IDLE_S:-30}
out=$top/build/bench-host
initrd=$out/initramfs.cpio.gz
t0=$(date +%s)

case $mode in
small)
	ram=256 scenarios=${SCENARIOS:-"a d e"} workloads=${WORKLOADS:-w1} repeats=1 ;;
full)
	ram=${FULL_RAM_MIB:-512} scenarios=${SCENARIOS:-"a b c d e f g h i"}
	workloads=${WORKLOADS:-"w1 w2 w3 w4 w5"} repeats=${REPEATS:-3} ;;
*) echo "run-all: mode must be small or full" >&2; exit 2 ;;
esac
scan=$((ram * 2))
hot=$(( (ram / 10 + 3) / 4 * 4 ))
hot25=$(( (ram / 4 + 3) / 4 * 4 ))
image=$out/data-$scan-$hot-$hot25.img
results=${RESULTS:-$out/results-$mode}
[ -f "$kernel" ] || { echo "run-all: $kernel missing (make bench-host-kernel)" >&2; exit 1; }

bench/host/mkinitramfs.sh "$initrd"
[ -f "$image" ] || bench/host/mkimage.sh "$image" "$scan" "$hot" "$hot25"
pgdata=
if [[ " $workloads " == *" w5 "* ]]; then
	root_dir=$(tests/systemd/mkimage.sh "$out/pg-image" postgresql-15)
	# pgbench scale 1 is ~15 MiB of pgbench_accounts and its key
	w5_scale=$(( (ram * 3 / 2 + 14) / 15 ))
	key=$( { echo "$w5_scale $root_dir"; cat bench/pg/w5.sh bench/host/mkpgdata.sh; } |
		sha256sum | cut -c1-12)
	pgdata=$out/pgdata-$key.img
	if [ ! -f "$pgdata" ]; then
		rm -f "$out"/pgdata-*.img
		bench/host/mkpgdata.sh "$pgdata" "$w5_scale" "$root_dir/root.img"
	fi
	export W5_ROOT_IMAGE=$root_dir/root.img W5_PGDATA_IMAGE=$pgdata
fi
if [[ " $scenarios " == *" g "* ]]; then
	trap 'bench/host/loopimg.sh down "$out"' EXIT
	mapfile -t cn < <(bench/host/loopimg.sh up "$image" "$out" ${pgdata:+"$pgdata"})
	export CACHE_NONE_IMAGE=${cn[0]} CACHE_NONE_BACKING=${cn[1]} CACHE_NONE_PGDATA=${cn[2]:-}
fi
rm -rf "$results"
mkdir -p "$results"
{
	echo "ram_mib $ram"
	echo "scan_mib $scan"
	echo "hot_mib $hot"
	echo "hot25_mib $hot25"
	echo "idle_s $idle"
	echo "io_s ${IO_S:-60}"
	echo "stream_rate ${STREAM_RATE:-32}"
	[ -z "$pgdata" ] || echo "w5_scale $w5_scale"
	echo "repeats $repeats"
	echo "kernel $(basename "$kernel")"
	[ -z "${UPCD_BACKEND:-}" ] || echo "upcd_backend $UPCD_BACKEND"
	echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$results/setup"
failed=0
for r in $(seq 1 "$repeats"); do
	for w in $workloads; do
		# W4's columns are memory only: one run is enough; W5 takes the
		# median of its three pgbench runs inside one boot
		case $w in w4 | w5) [ "$r" -gt 1 ] && continue ;; esac
		for sc in $scenarios; do
			[ "$w" = w5 ] && [ "$sc" = f ] && continue
			bench/host/run-scenario.sh "$kernel" "$initrd" "$image" "$ram" "$sc" "$w" "$idle" \
				"$results/r$r/$sc-$w" || { echo "run-all: $sc-$w (repeat $r) failed"; failed=$((failed + 1)); }
		done
	done
done
runs_s=$(( $(date +%s) - t0 ))
echo "run-all: $mode runs took ${runs_s}s ($failed failed)"
case $mode in
small) bench/host/analyze.py check "$results" ;;
full)
	{
		echo "Guest RAM ${ram} MiB, 2 vCPUs (multi-threaded TCG); files $scan MiB; hot set W2 $hot MiB, W3 $hot25 MiB;"
		echo "W2/W3 stream ${STREAM_RATE:-32} MiB/s for ${IO_S:-60} s; idle ${idle} s; W1-W3 $repeats run(s) each, W4 one; kernel $(basename "$kernel")."
		echo "Made by \`make bench-host\` (bench/host/run-all.sh full) on $(date -u +%Y-%m-%d) at $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
		echo
		echo "### Headline"
		echo
		bench/host/analyze.py headline "$results"
		for w in $workloads; do
			echo
			echo "### ${w^^}"
			echo
			bench/host/analyze.py table "$results" "$w"
		done
	} >"$results/table.md"
	for w in $workloads; do
		bench/host/analyze.py plot "$results" "$w" "$results/host-bench-$w.png"
	done
	# the docs get the tables and plots only from a complete default run
	if [ "$failed" = 0 ] && [ -z "${SCENARIOS:-}${WORKLOADS:-}${RESULTS:-}" ]; then
		cp "$results/table.md" docs/host-bench-table.md
		cp "$results"/host-bench-w*.png docs/
	fi
	cat "$results/table.md"
	echo "run-all: wall time $(( $(date +%s) - t0 ))s"
	;;
esac
