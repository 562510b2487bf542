#!/usr/bin/env bash
# uml-run.sh - boot a User-Mode Linux guest, run one script in it, power off.
#
# Usage: uml-run.sh --kernel PATH [options] -- SCRIPT [ARGS...]
#
#   --kernel PATH     UML kernel binary (e.g. build/kernel/uml/linux)   [required]
#   --mem SIZE        guest RAM, as UML's mem= takes it                 [256M]
#   --disk IMG        attach IMG read-write as the next ubd device
#                     (ubd0 = /dev/ubda, ubd1 = /dev/ubdb, ...); repeatable
#   --disk-cow IMG    attach IMG as the next ubd device through a per-run
#                     copy-on-write overlay: the guest may write, IMG never
#                     changes, and parallel runs may share IMG; repeatable
#   --share HOST[:GUEST]  mount host directory HOST (hostfs) in the guest at
#                     GUEST [/mnt/<basename of HOST>]; repeatable
#   --root DIR        root directory (made/refreshed with mkroot.sh)
#                     [build/guest/root]
#   --file PATH       also copy PATH (a static binary or script) into the
#                     root's /bin (through mkroot.sh); repeatable
#   --append "ARGS"   extra kernel command line (e.g. unmapped_page_control)
#   --timeout S       kill the guest after S seconds and fail (exit 124) [600]
#   --log FILE        write the whole console (kernel messages and the
#                     script's output) to FILE [RUNDIR/console.log]
#   --dmesg FILE      copy the guest's dmesg (saved at power-off) to FILE
#   --console         also stream the console live to stderr
#   --keep            keep the run directory even when the run succeeds
#   -h, --help        this text
#
# Inside the guest, SCRIPT runs as root under busybox sh with ARGS, after
# proc, sysfs, devtmpfs, and tmpfs on /tmp and /run are mounted; the working
# directory is /tmp and the run directory is mounted at /host.  Its stdout and
# stderr are copied to this command's stdout as they are produced.
#
# Exit status: SCRIPT's exit status; 124 if the timeout fired; 125 if the
# guest stopped without reporting one (kernel panic, init failure: see the
# log); 2 for bad usage.
#
# Every run gets its own run directory under build/guest/runs/ (kept when the
# run fails), its own UML umid and uml_dir, and its own TMPDIR for UML's
# memory file (/dev/shm when it is exec-able and big enough), so runs in
# parallel do not collide.  Paths must not contain whitespace or commas
# (they travel on the kernel command line).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

die() {
	echo "uml-run: $*" >&2
	exit 2
}

kernel=
mem=256M
root=$repo/build/guest/root
append=
timeout_s=600
log=
dmesg_out=
console=0
keep=0
disks=()
shares=()
files=()

need_arg() {
	[ $# -ge 2 ] || die "$1 needs an argument (see --help)"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) need_arg "$@"; kernel=$2; shift 2 ;;
	--mem) need_arg "$@"; mem=$2; shift 2 ;;
	--disk) need_arg "$@"; disks+=("rw:$2"); shift 2 ;;
	--disk-cow) need_arg "$@"; disks+=("cow:$2"); shift 2 ;;
	--share) need_arg "$@"; shares+=("$2"); shift 2 ;;
	--root) need_arg "$@"; root=$2; shift 2 ;;
	--file) need_arg "$@"; files+=("$2"); shift 2 ;;
	--append) need_arg "$@"; append=$2; shift 2 ;;
	--timeout) need_arg "$@"; timeout_s=$2; shift 2 ;;
	--log) need_arg "$@"; log=$2; shift 2 ;;
	--dmesg) need_arg "$@"; dmesg_out=$2; shift 2 ;;
	--console) console=1; shift ;;
	--keep) keep=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

[ $# -ge 1 ] || die "no SCRIPT given after -- (see --help)"
script=$1
shift
[ -n "$kernel" ] || die "--kernel PATH is required"
[ -x "$kernel" ] || die "kernel '$kernel' is not an executable file"
[ -f "$script" ] || die "script '$script' does not exist"
[[ "$mem" =~ ^[0-9]+[KMG]?$ ]] || die "--mem '$mem' is not a size like 256M"
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || die "--timeout '$timeout_s' is not a positive number of seconds"

# A path on the kernel command line must be one word, and hostfs and ubd
# options are comma-separated.
check_path() {
	case "$1" in
	*[[:space:],]*) die "path '$1' contains whitespace or a comma" ;;
	esac
}

abspath() {
	echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}

for d in "${disks[@]}"; do
	img=${d#*:}
	[ -f "$img" ] || die "disk image '$img' does not exist"
	check_path "$(abspath "$img")"
done
for s in "${shares[@]}"; do
	[ -d "${s%%:*}" ] || die "share '${s%%:*}' is not a directory"
	check_path "$s"
done

"$here/mkroot.sh" "$root" "${files[@]}"
root=$(cd "$root" && pwd)
check_path "$root"

mkdir -p "$repo/build/guest/runs"
rundir=$(mktemp -d "$repo/build/guest/runs/run.XXXXXX")
check_path "$rundir"
[ -n "$log" ] || log=$rundir/console.log
mkdir -p "$(dirname "$log")"
: >"$log"

cp "$script" "$rundir/script"
# ARGS reach the guest as a sourced "set --" line, each word single-quoted.
{
	printf 'set --'
	for a in "$@"; do
		printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"
	done
	printf '\n'
} >"$rundir/argv.sh"
: >"$rundir/shares"
for s in "${shares[@]}"; do
	hostdir=$(cd "${s%%:*}" && pwd)
	guestdir=${s#*:}
	[ "$guestdir" != "$s" ] || guestdir=/mnt/$(basename "$hostdir")
	echo "$hostdir $guestdir" >>"$rundir/shares"
done

cmdline=(
	"mem=$mem"
	root=/dev/root rootfstype=hostfs "rootflags=$root" rw
	init=/sbin/upcc-guest-init "upcc_run=$rundir"
	"umid=upcc-$(basename "$rundir")" "uml_dir=$rundir/uml"
	con=null ssl=null con0=null,fd:1
)
i=0
for d in "${disks[@]}"; do
	img=$(abspath "${d#*:}")
	case "$d" in
	rw:*) cmdline+=("ubd$i=$img") ;;
	cow:*) cmdline+=("ubd$i=$rundir/ubd$i.cow,$img") ;;
	esac
	i=$((i + 1))
done
# shellcheck disable=SC2206 # the extra arguments are meant to be split
cmdline+=($append)

# UML maps its memory file executable: it needs a TMPDIR on an exec-able
# filesystem with room for the guest's RAM.
mem_kib=$(numfmt --from=iec "$mem" 2>/dev/null || echo 0)
mem_kib=$((mem_kib / 1024))
pick_tmpdir() {
	local shm_free
	if [ -d /dev/shm ] && [ -w /dev/shm ] &&
	   ! findmnt -n -o OPTIONS --target /dev/shm | grep -qw noexec; then
		shm_free=$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')
		if [ "${shm_free:-0}" -gt $((mem_kib + 65536)) ]; then
			mktemp -d /dev/shm/upcc-uml.XXXXXX
			return
		fi
	fi
	mkdir -p "$rundir/tmp"
	echo "$rundir/tmp"
}
uml_tmp=$(pick_tmpdir)

cleanup() {
	case "$uml_tmp" in
	/dev/shm/upcc-uml.*) rm -rf "$uml_tmp" ;;
	esac
}
trap cleanup EXIT

{
	echo "uml-run: kernel $kernel"
	echo "uml-run: cmdline ${cmdline[*]}"
	echo "uml-run: run dir $rundir"
} >>"$log"

start=$(date +%s)
# timeout puts UML and all its helper processes in one process group and
# signals the whole group, so nothing is left running after a timeout.
set +e
if [ "$console" = 1 ]; then
	(ulimit -c 0; TMPDIR=$uml_tmp exec timeout -k 5 "$timeout_s" \
		"$kernel" "${cmdline[@]}" </dev/null 2>&1) | tee -a "$log" >&2 &
else
	(ulimit -c 0; TMPDIR=$uml_tmp exec timeout -k 5 "$timeout_s" \
		"$kernel" "${cmdline[@]}" </dev/null >>"$log" 2>&1) &
fi
guest_pid=$!
set -e
# Stream the script's output as the guest writes it (hostfs writes reach the
# host file at once).  tail --pid makes a last read once the guest is gone.
tail -n +1 -s 0.2 -F --pid="$guest_pid" "$rundir/output" 2>/dev/null &
tail_pid=$!
set +e
wait "$guest_pid"
uml_rc=$?
wait "$tail_pid"
set -e
elapsed=$(($(date +%s) - start))

if [ -n "$dmesg_out" ] && [ -f "$rundir/dmesg" ]; then
	mkdir -p "$(dirname "$dmesg_out")"
	cp "$rundir/dmesg" "$dmesg_out"
fi

if [ "$uml_rc" -eq 124 ] || { [ "$uml_rc" -eq 137 ] && [ "$elapsed" -ge "$timeout_s" ]; }; then
	echo "uml-run: TIMEOUT: guest killed after ${timeout_s}s; console log $log, run dir $rundir" | tee -a "$log" >&2
	exit 124
fi

rc=
if [ -f "$rundir/rc" ]; then
	rc=$(tr -dc '0-9' <"$rundir/rc")
fi
if [ -z "$rc" ]; then
	# The file can be missing if hostfs failed; the console marker is the
	# second channel.
	rc=$(sed -n 's/^upcc-guest: exit \([0-9][0-9]*\)\r\{0,1\}$/\1/p' "$log" | tail -n 1)
fi
if [ -z "$rc" ]; then
	echo "uml-run: guest stopped (UML exit $uml_rc, ${elapsed}s) without reporting the script's exit code; console log $log, run dir $rundir" | tee -a "$log" >&2
	exit 125
fi
echo "uml-run: script exit $rc after ${elapsed}s" >>"$log"
if [ "$rc" -ne 0 ]; then
	echo "uml-run: script exited $rc; console log $log, run dir $rundir" >&2
elif [ "$keep" = 0 ]; then
	rm -rf "$rundir"
fi
exit "$rc"
