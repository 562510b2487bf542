#!/usr/bin/env bash
# Boot the QEMU guest(s) (TCG, 2 vCPUs each) for one scenario and one
# workload, and sample what they cost the host every 500 ms until they
# power off.
#
#   run-scenario.sh KERNEL INITRD IMAGE RAM_MIB SCENARIO WORKLOAD IDLE_S OUTDIR
#
# SCENARIO a..i, WORKLOAD w1..w5; w4 boots three guests at once, each
# running W1 on the same read-only image, sampled at the same instants.
# w5 (PostgreSQL) needs W5_ROOT_IMAGE (the Debian root with postgresql-15,
# attached read-only as vdb) and W5_PGDATA_IMAGE (bench/host/mkpgdata.sh;
# the guest writes to a qcow2 overlay of it, vdc, made per run and removed),
# W5_SECONDS (each pgbench run, 60); under (g) CACHE_NONE_PGDATA is the
# database's copy on the loop mount.  The host cache of the database image
# counts with the data image's; the root image's (binaries) does not.
# Scenario g needs CACHE_NONE_IMAGE (the image's copy on the bench's loop
# mount, bench/host/loopimg.sh) and CACHE_NONE_BACKING (the loop's backing
# file); IO_S and STREAM_RATE set W2/W3's I/O phase (60 s, 32 MiB/s).
# UPCD_ARGS (commas for spaces) adds to (d)'s upcd command line, UPCD_LOG=N
# puts the last N lines of its log in guest.tsv (5); UPCD_BACKEND=NAME runs
# (d)'s upcd with --backend=NAME (fadvise, damon, ...; default: upcd's own,
# auto), so that one scenario measures each backend on the same guest.
# OUTDIR gets host.tsv (hostsample columns), guest.tsv (or guest1..3.tsv:
# every line of the guest's ttyS1 prefixed with host t_ms), console.log and
# qemu.cmd (per guest with a suffix for w4).  The host page cache of IMAGE
# is emptied first (fadvise DONTNEED on our own files, nothing global) so
# every run starts from a cold host cache.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
[ $# -eq 8 ] || { sed -n '2,28p' "$0" >&2; exit 2; }
kernel=$1 initrd=$2 image=$3 ram_mib=$4 scenario=$5 workload=$6 idle=$7 outdir=$8
hostsample=$top/build/bench-host/hostsample
timeout_s=${RUN_TIMEOUT:-900}
io_s=${IO_S:-60}
rate=${STREAM_RATE:-32}

die() { echo "run-scenario: $*" >&2; exit 1; }
for f in "$kernel" "$initrd" "$image" "$hostsample"; do [ -e "$f" ] || die "$f missing"; done
case $scenario in [a-i]) ;; *) die "scenario must be a..i" ;; esac
case $workload in w1 | w2 | w3 | w5) guests=1 guest_wl=$workload ;; w4) guests=3 guest_wl=w1 ;;
*) die "workload must be w1..w5" ;; esac
if [ "$workload" = w5 ]; then
	[ "$scenario" != f ] || die "W5 has no (f): its database is written, a DAX image of the host's is not"
	[ -s "${W5_ROOT_IMAGE:-}" ] && [ -s "${W5_PGDATA_IMAGE:-}" ] ||
		die "w5 needs W5_ROOT_IMAGE and W5_PGDATA_IMAGE (bench/host/run-all.sh makes them)"
fi
# what the host may cache of the guest's data
caches=$image
disk=$image
cache_mode=writethrough
if [ "$scenario" = g ]; then
	[ -f "${CACHE_NONE_IMAGE:-}" ] && [ -f "${CACHE_NONE_BACKING:-}" ] ||
		die "scenario g needs CACHE_NONE_IMAGE and CACHE_NONE_BACKING (bench/host/loopimg.sh up)"
	disk=$CACHE_NONE_IMAGE
	caches=$CACHE_NONE_IMAGE,$CACHE_NONE_BACKING
	cache_mode=none
fi
pgdisk=
if [ "$workload" = w5 ]; then
	pgdisk=$W5_PGDATA_IMAGE
	if [ "$scenario" = g ]; then
		[ -f "${CACHE_NONE_PGDATA:-}" ] || die "w5 under (g) needs CACHE_NONE_PGDATA (bench/host/loopimg.sh up)"
		pgdisk=$CACHE_NONE_PGDATA
	fi
	caches=$caches,$pgdisk
fi

mkdir -p "$outdir"
rm -f "$outdir"/{host,guest,guest[0-9]}.tsv "$outdir"/console*.log "$outdir"/ttyS1*.raw
echo "$ram_mib" >"$outdir/ram_mib"
echo "$guests" >"$outdir/guests"
for f in ${caches//,/ }; do dd if="$f" iflag=nocache count=0 status=none; done

image_mib=$(( $(stat -c %s "$image") / 1048576 ))
append="console=ttyS0 loglevel=4 upcc.scenario=$scenario upcc.workload=$guest_wl"
append="$append upcc.idle=$idle upcc.io=$io_s upcc.rate=$rate"
# A TSC clocksource: see hostsample --tsc-khz.
append="$append tsc_early_khz=$("$hostsample" --tsc-khz) tsc=reliable"
[ "$scenario" = e ] && append="$append unmapped_page_control"
[ -n "${UPCD_ARGS:-}" ] && append="$append upcc.upcd_args=$UPCD_ARGS"
[ -n "${UPCD_LOG:-}" ] && append="$append upcc.upcd_log=$UPCD_LOG"
[ -n "${UPCD_BACKEND:-}" ] && append="$append upcc.upcd_backend=$UPCD_BACKEND"
[ "$workload" = w5 ] && append="$append upcc.w5_s=${W5_SECONDS:-60}"
# W5 writes its database to an overlay beside the image it is made from
# (under (g), on the loop mount, where O_DIRECT works), one per run.
overlay=
if [ -n "$pgdisk" ]; then
	overlay=$(dirname "$pgdisk")/w5-overlay-$$.qcow2
	qemu-img create -q -f qcow2 -b "$(realpath "$pgdisk")" -F raw "$overlay"
	trap 'rm -f "$overlay"' EXIT
fi

pids=() logs=() outs=()
start=$(date +%s)
for g in $(seq 1 "$guests"); do
	sfx=
	[ "$guests" -gt 1 ] && sfx=$g
	: >"$outdir/ttyS1$sfx.raw"
	# Two sockets of one core: the tinyconfig guest has no ACPI and finds
	# its CPUs in SeaBIOS's MP table, which lists one CPU per socket
	# (-smp 2 alone boots a uniprocessor guest: nproc = 1).
	args=(
		-accel tcg,thread=multi,tb-size=64 -machine pc -cpu max
		-smp 2,sockets=2,cores=1,threads=1
		-m "${ram_mib}M,slots=2,maxmem=$((ram_mib + image_mib + 256))M"
		-kernel "$kernel" -initrd "$initrd" -append "$append"
		-display none -monitor none -no-reboot
		-serial "file:$outdir/console$sfx.log" -serial "file:$outdir/ttyS1$sfx.raw"
		-device virtio-balloon-pci,free-page-reporting=on
	)
	if [ "$scenario" = f ]; then
		args+=(-object "memory-backend-file,id=pmem0,share=on,mem-path=$image,size=${image_mib}M"
			-device virtio-pmem-pci,memdev=pmem0,id=vpmem0)
	else
		args+=(-drive "file=$disk,format=raw,if=none,id=data0,cache=$cache_mode,readonly=on"
			-device virtio-blk-pci,drive=data0)
	fi
	if [ -n "$overlay" ]; then
		args+=(-drive "file=$W5_ROOT_IMAGE,format=raw,if=none,id=root0,cache=writethrough,readonly=on"
			-device virtio-blk-pci,drive=root0
			-drive "file=$overlay,format=qcow2,if=none,id=pg0,cache=$cache_mode"
			-device virtio-blk-pci,drive=pg0)
	fi
	printf '%q ' qemu-system-x86_64 "${args[@]}" >"$outdir/qemu$sfx.cmd"
	echo >>"$outdir/qemu$sfx.cmd"
	qemu-system-x86_64 "${args[@]}" &
	pids+=($!)
	logs+=("$outdir/ttyS1$sfx.raw")
	outs+=("$outdir/guest$sfx.tsv")
done
join() { local IFS=,; echo "$*"; }
"$hostsample" "$(join "${pids[@]}")" "$ram_mib" "$caches" 500 "$outdir/host.tsv" \
	"$(join "${logs[@]}")" "$(join "${outs[@]}")" &
sampler=$!
# The watchdog's own sleep must die with it: a leftover sleep would hold
# the caller's stdout open (a make or CI pipe) for RUN_TIMEOUT seconds.
(
	trap 'kill $nap 2>/dev/null; exit 0' TERM
	sleep "$timeout_s" &
	nap=$!
	wait $nap && kill "${pids[@]}" 2>/dev/null
) >/dev/null 2>&1 &
watchdog=$!
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
kill "$watchdog" 2>/dev/null || true
wait "$sampler" || true
secs=$(( $(date +%s) - start ))
echo "run-scenario: $scenario/$workload ${ram_mib} MiB x$guests: qemu rc=$rc after ${secs}s"
for o in "${outs[@]}"; do
	grep -q $'\tM end$' "$o" || die "guest did not reach its end marker (see $outdir/console*.log)"
	! grep -q $'\tR error' "$o" || die "guest reported: $(grep $'\tR error' "$o")"
done
