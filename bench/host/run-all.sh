#!/usr/bin/env bash
# Run a set of QEMU scenarios and analyse them.
#
#   run-all.sh small   host-e2e: 256 MiB guest, 512 MiB of files, (a) (d) (e),
#                      W1; then the suite's assertions (analyze.py check)
#   run-all.sh full    bench-host: every scenario (a)..(f), W1 and W2; then
#                      docs/host-bench-table.md and docs/host-bench-w{1,2}.png
#
# Environment: HOST_KERNEL (bzImage, default build/kernel/x86_64/bzImage),
# FULL_RAM_MIB (default 512), SCENARIOS, WORKLOADS, IDLE_S (default 30).
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
mode=${1:?usage: run-all.sh small|full}
kernel=${HOST_KERNEL:-$top/build/kernel/x86_64/bzImage}
idle=${IDLE_S:-30}
out=$top/build/bench-host
initrd=$out/initramfs.cpio.gz

case $mode in
small)
	ram=256 scenarios=${SCENARIOS:-"a d e"} workloads=${WORKLOADS:-w1} ;;
full)
	ram=${FULL_RAM_MIB:-512} scenarios=${SCENARIOS:-"a b c d e f"} workloads=${WORKLOADS:-"w1 w2"} ;;
*) echo "run-all: mode must be small or full" >&2; exit 2 ;;
esac
scan=$((ram * 2))
hot=$(( (ram / 10 + 3) / 4 * 4 ))
image=$out/data-$scan-$hot.img
results=$out/results-$mode
[ -f "$kernel" ] || { echo "run-all: $kernel missing (make bench-host-kernel)" >&2; exit 1; }

bench/host/mkinitramfs.sh "$initrd"
[ -f "$image" ] || bench/host/mkimage.sh "$image" "$scan" "$hot"
mkdir -p "$results"
start=$(date +%s)
for w in $workloads; do
	for sc in $scenarios; do
		bench/host/run-scenario.sh "$kernel" "$initrd" "$image" "$ram" "$sc" "$w" "$idle" \
			"$results/$sc-$w" || echo "run-all: $sc-$w failed"
	done
done
echo "run-all: $mode runs took $(( $(date +%s) - start ))s"
case $mode in
small) bench/host/analyze.py check "$results" ;;
full)
	{
		echo "Guest RAM ${ram} MiB, files $scan MiB (hot set $hot MiB), idle ${idle} s, kernel $(basename "$kernel")."
		echo "Made by \`make bench-host\` (bench/host/run-all.sh full) on $(date -u +%Y-%m-%d)."
		for w in $workloads; do
			echo
			echo "### ${w^^}"
			echo
			bench/host/analyze.py table "$results" "$w"
		done
	} >docs/host-bench-table.md
	for w in $workloads; do
		bench/host/analyze.py plot "$results" "$w" "docs/host-bench-$w.png"
	done
	cat docs/host-bench-table.md
	;;
esac
