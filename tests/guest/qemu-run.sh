#!/usr/bin/env bash
# qemu-run.sh - boot the x86_64 guest kernel under QEMU (TCG, 2 vCPUs), run
# one script in it from a busybox initramfs, power off.  The QEMU twin of
# uml-run.sh: same options where they mean the same, same exit codes.
#
# Usage: qemu-run.sh --kernel BZIMAGE [options] -- SCRIPT [ARGS...]
#
#   --kernel PATH     bzImage (e.g. build/kernel/x86_64/bzImage)        [required]
#   --mem MIB         guest RAM in MiB                                  [256]
#   --disk-cow IMG    attach IMG as virtio-blk (/dev/vda, /dev/vdb, ...)
#                     with snapshot=on: the guest may write, IMG never
#                     changes, parallel runs may share it; repeatable
#   --file PATH       also copy PATH (a static binary or script) into the
#                     initramfs's /bin; repeatable
#   --env NAME=VALUE  export this to SCRIPT; repeatable
#   --append "ARGS"   extra kernel command line (e.g. unmapped_page_control)
#   --timeout S       kill the guest after S seconds and fail (exit 124) [900]
#   --log FILE        the kernel console (ttyS0) [RUNDIR/console.log]
#   --dmesg FILE      copy the guest's dmesg (taken at the end) to FILE
#   --keep            keep the run directory even when the run succeeds
#   -h, --help        this text
#
# The guest has two vCPUs under multi-threaded TCG (-accel tcg,thread=multi:
# one host thread per vCPU, so they really run at the same time).  /dev/kvm
# is not used: nested KVM aborts QEMU on the CI machines.  As in
# bench/host/run-scenario.sh the tinyconfig guest has no ACPI, so QEMU is
# told two sockets of one core (SeaBIOS's MP table lists one CPU per
# socket) and the TSC rate comes from the host (hostsample --tsc-khz).
#
# QEMU_TCG_THREAD=single runs both vCPUs in one host thread (round-robin)
# instead: for telling a TCG cross-modifying-code problem from a kernel one.
#
# Inside the guest SCRIPT runs as root under busybox sh with ARGS, after
# proc, sysfs, devtmpfs, and tmpfs on /tmp and /run are mounted; the working
# directory is /tmp.  Its stdout and stderr go out on ttyS1 and are copied
# to this command's stdout as they come; ttyS2 carries dmesg and the exit
# code at the end.
#
# Exit status: SCRIPT's exit status; 124 if the timeout fired; 125 if the
# guest stopped without reporting one (kernel panic, init failure: see the
# log); 2 for bad usage.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}
die() {
	echo "qemu-run: $*" >&2
	exit 2
}

kernel=
mem=256
append=
timeout_s=900
log=
dmesg_out=
keep=0
disks=()
files=()
envs=()
need_arg() { [ $# -ge 2 ] || die "$1 needs an argument"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) need_arg "$@"; kernel=$2; shift 2 ;;
	--mem) need_arg "$@"; mem=$2; shift 2 ;;
	--disk-cow) need_arg "$@"; disks+=("$2"); shift 2 ;;
	--file) need_arg "$@"; files+=("$2"); shift 2 ;;
	--env) need_arg "$@"; envs+=("$2"); shift 2 ;;
	--append) need_arg "$@"; append=$2; shift 2 ;;
	--timeout) need_arg "$@"; timeout_s=$2; shift 2 ;;
	--log) need_arg "$@"; log=$2; shift 2 ;;
	--dmesg) need_arg "$@"; dmesg_out=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) die "unknown argument '$1' (--help)" ;;
	esac
done
[ $# -ge 1 ] || die "no SCRIPT given (--help)"
[ -n "$kernel" ] && [ -f "$kernel" ] || die "--kernel: '$kernel' is not a file"
script=$1
shift
[ -f "$script" ] || die "no script $script"
busybox=/bin/busybox
# No program interpreter = static (as bench/host/mkinitramfs.sh checks).
is_static() { readelf -h "$1" >/dev/null 2>&1 &&
	! readelf -l "$1" 2>/dev/null | grep -q 'Requesting program interpreter'; }
is_static "$busybox" || die "$busybox is not busybox-static (scripts/install-deps.sh)"
hostsample=$repo/build/bench-host/hostsample
[ -x "$hostsample" ] || die "$hostsample missing (make $hostsample)"

mkdir -p "$repo/build/guest/runs"
rundir=$(mktemp -d "$repo/build/guest/runs/qemu.XXXXXX")
log=${log:-$rundir/console.log}
mkdir -p "$(dirname "$log")"

# The initramfs: busybox, the files, the script, and an init that runs it.
root=$rundir/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp,run}
cp "$busybox" "$root/bin/busybox"
for f in "${files[@]}"; do
	[ -f "$f" ] || die "--file: no $f"
	cp "$f" "$root/bin/"
done
cp "$script" "$root/bin/guest-script"
{
	echo '#!/bin/busybox sh'
	echo '/bin/busybox --install -s /bin'
	echo 'export PATH=/bin'
	echo 'mount -t proc proc /proc; mount -t sysfs sys /sys'
	echo 'mount -t devtmpfs dev /dev 2>/dev/null'
	echo 'mount -t tmpfs tmp /tmp; mount -t tmpfs run /run'
	echo 'stty -F /dev/ttyS1 raw -echo; stty -F /dev/ttyS2 raw -echo'
	for e in "${envs[@]}"; do printf 'export %q\n' "$e"; done
	printf 'cd /tmp\nsh /bin/guest-script'
	printf ' %q' "$@"
	echo ' >/dev/ttyS1 2>&1'
	echo 'rc=$?'
	echo 'dmesg >/dev/ttyS2'
	echo 'echo "upcc-guest: exit $rc" >/dev/ttyS2'
	echo 'sync; reboot -f'  # no ACPI to power off: -no-reboot makes QEMU exit
} >"$root/init"
chmod 0755 "$root/init"
initrd=$rundir/initrd.cpio.gz
(cd "$root" && find . | cpio -o -H newc --quiet --owner=0:0 | gzip -1) >"$initrd"

# shellcheck disable=SC2054 # commas inside QEMU option values
args=(
	-accel "tcg,thread=${QEMU_TCG_THREAD:-multi},tb-size=64" -machine pc -cpu max
	-smp 2,sockets=2,cores=1,threads=1 -m "${mem}M"
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 tsc_early_khz=$("$hostsample" --tsc-khz) tsc=reliable $append"
	-display none -monitor none -no-reboot
	-serial "file:$log" -serial "file:$rundir/out" -serial "file:$rundir/end"
)
i=0
for d in "${disks[@]}"; do
	[ -f "$d" ] || die "--disk-cow: no $d"
	args+=(-drive "file=$d,format=raw,if=none,id=d$i,snapshot=on" -device "virtio-blk-pci,drive=d$i")
	i=$((i + 1))
done
printf '%q ' qemu-system-x86_64 "${args[@]}" >"$rundir/qemu.cmd"
: >"$rundir/out"
start=$(date +%s)
qemu-system-x86_64 "${args[@]}" </dev/null >"$rundir/qemu.out" 2>&1 &
qemu=$!
# Copy the script's output as it comes, until QEMU is gone.
tail -n +1 -f --pid="$qemu" "$rundir/out" &
tailer=$!
(
	trap 'kill $nap 2>/dev/null; exit 0' TERM
	sleep "$timeout_s" &
	nap=$!
	wait $nap && kill "$qemu" 2>/dev/null && touch "$rundir/timeout"
) >/dev/null 2>&1 &
watchdog=$!
qemu_rc=0
wait "$qemu" || qemu_rc=$?
kill "$watchdog" 2>/dev/null || true
wait "$tailer" 2>/dev/null || true
elapsed=$(($(date +%s) - start))

if [ -n "$dmesg_out" ]; then
	mkdir -p "$(dirname "$dmesg_out")"
	grep -v '^upcc-guest: exit ' "$rundir/end" >"$dmesg_out" || true
fi
if [ -e "$rundir/timeout" ]; then
	echo "qemu-run: timeout after ${timeout_s}s; console log $log, run dir $rundir" >&2
	exit 124
fi
rc=$(sed -n 's/^upcc-guest: exit \([0-9][0-9]*\)\r\{0,1\}$/\1/p' "$rundir/end" | tail -n 1)
if [ -z "$rc" ]; then
	echo "qemu-run: guest stopped (QEMU exit $qemu_rc, ${elapsed}s) without reporting the script's exit code; console log $log, run dir $rundir" >&2
	exit 125
fi
if [ "$rc" -ne 0 ] || [ "$keep" = 1 ]; then
	echo "qemu-run: script exit $rc after ${elapsed}s; console log $log, run dir $rundir" >&2
else
	rm -rf "$rundir"
fi
exit "$rc"
