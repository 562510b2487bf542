#!/usr/bin/env bash
# Boot one QEMU guest (TCG) for one scenario and one workload, and sample
# what it costs the host every 500 ms until it powers off.
#
#   run-scenario.sh KERNEL INITRD IMAGE RAM_MIB SCENARIO WORKLOAD IDLE_S OUTDIR
#
# OUTDIR gets host.tsv (hostsample columns), guest.tsv (every line of the
# guest's ttyS1 prefixed with host t_ms), console.log (ttyS0) and qemu.cmd.
# The host page cache of IMAGE is emptied first (fadvise DONTNEED on our own
# file, nothing global) so every scenario starts from a cold host cache.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
[ $# -eq 8 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
kernel=$1 initrd=$2 image=$3 ram_mib=$4 scenario=$5 workload=$6 idle=$7 outdir=$8
hostsample=$top/build/bench-host/hostsample
timeout_s=${RUN_TIMEOUT:-900}

die() { echo "run-scenario: $*" >&2; exit 1; }
for f in "$kernel" "$initrd" "$image" "$hostsample"; do [ -e "$f" ] || die "$f missing"; done
case $scenario in a | b | c | d | e | f) ;; *) die "scenario must be a..f" ;; esac
case $workload in w1 | w2) ;; *) die "workload must be w1 or w2" ;; esac

mkdir -p "$outdir"
rm -f "$outdir"/{host.tsv,guest.tsv,console.log,ttyS1.raw}
: >"$outdir/ttyS1.raw"
echo "$ram_mib" >"$outdir/ram_mib"
dd if="$image" iflag=nocache count=0 status=none

image_mib=$(( $(stat -c %s "$image") / 1048576 ))
append="console=ttyS0 loglevel=4 upcc.scenario=$scenario upcc.workload=$workload upcc.idle=$idle"
[ "$scenario" = e ] && append="$append unmapped_page_control"
[ -n "${UPCD_ARGS:-}" ] && append="$append upcc.upcd_args=$UPCD_ARGS"
args=(
	-accel tcg,tb-size=64 -machine pc -cpu max -smp 1
	-m "${ram_mib}M,slots=2,maxmem=$((ram_mib + image_mib + 256))M"
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-display none -monitor none -no-reboot
	-serial "file:$outdir/console.log" -serial "file:$outdir/ttyS1.raw"
	-device virtio-balloon-pci,free-page-reporting=on
)
if [ "$scenario" = f ]; then
	args+=(-object "memory-backend-file,id=pmem0,share=on,mem-path=$image,size=${image_mib}M"
		-device virtio-pmem-pci,memdev=pmem0,id=vpmem0)
else
	args+=(-drive "file=$image,format=raw,if=none,id=data0,cache=writethrough,readonly=on"
		-device virtio-blk-pci,drive=data0)
fi
printf '%q ' qemu-system-x86_64 "${args[@]}" >"$outdir/qemu.cmd"
echo >>"$outdir/qemu.cmd"

start=$(date +%s)
qemu-system-x86_64 "${args[@]}" &
qemu=$!
"$hostsample" "$qemu" "$ram_mib" "$image" 500 "$outdir/host.tsv" \
	"$outdir/ttyS1.raw" "$outdir/guest.tsv" &
sampler=$!
# The watchdog's own sleep must die with it: a leftover sleep would hold
# the caller's stdout open (a make or CI pipe) for RUN_TIMEOUT seconds.
(
	trap 'kill $nap 2>/dev/null; exit 0' TERM
	sleep "$timeout_s" &
	nap=$!
	wait $nap && kill "$qemu" 2>/dev/null
) >/dev/null 2>&1 &
watchdog=$!
rc=0
wait "$qemu" || rc=$?
kill "$watchdog" 2>/dev/null || true
wait "$sampler" || true
secs=$(( $(date +%s) - start ))
echo "run-scenario: $scenario/$workload ${ram_mib} MiB: qemu rc=$rc after ${secs}s"
grep -q $'\tM end$' "$outdir/guest.tsv" || die "guest did not reach its end marker (see $outdir/console.log)"
! grep -q $'\tR error' "$outdir/guest.tsv" || die "guest reported: $(grep $'\tR error' "$outdir/guest.tsv")"
