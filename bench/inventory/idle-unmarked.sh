#!/usr/bin/env bash
# bench/inventory/idle-unmarked.sh BEFORE NOW [--files N] [--seconds S] -
# the idle CPU of upcd on a large path scope whose root is not a mount
# point (no fanotify mark: every refresh used to walk it; hostile test
# M2).  N (200000) one-page files in 200 directories under
# build/bench-inventory/ (make-tree.sh: made once, read into the page
# cache), a path scope on that tree with its cache below the trigger, so
# nothing is ever dropped; each upcd binary runs alone, and its CPU time
# (utime + stime, /proc/PID/stat) from its start over S (400) s is taken,
# first walk included (a paced daemon walks again some 200 x its CPU
# later: S must span that to count it): CPU, not wall time, so other load
# on the machine does not count.  Reads only; each daemon has its own
# state file, and compaction off.
set -eu
cd "$(dirname "$0")/../.."
before=${1:?BEFORE upcd}
now=${2:?NOW upcd}
shift 2
files=200000
secs=400
while [ $# -gt 0 ]; do
	case "$1" in
	--files) files=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	*) echo "idle-unmarked: unknown argument $1" >&2; exit 2 ;;
	esac
done
work=$PWD/build/bench-inventory
tree=$work/tree
bench/inventory/make-tree.sh "$work" "$files" 4 200
find "$tree" -type f -exec cat {} + >/dev/null	# cached, as M2's tree was
run=$(mktemp -d /tmp/upcc-idle-XXXXXX)
trap 'rm -rf "$run"' EXIT
echo "compact = no" > "$run/upcd.conf"
hz=$(getconf CLK_TCK)
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
printf "%-8s %-12s %s\n" upcd "CPU % core" "CPU s in ${secs} s"
for which in before now; do
	bin=$before
	[ "$which" = now ] && bin=$now
	"$bin" --config "$run/upcd.conf" --scope "path:$tree" --backend=fadvise \
		--target=2G --trigger=4G --state "$run/$which.json" 2>"$run/$which.log" &
	pid=$!
	t0=0
	sleep "$secs"
	t1=$(ticks "$pid")
	kill "$pid"; wait "$pid" || true
	awk -v w="$which" -v d="$((t1 - t0))" -v hz="$hz" -v s="$secs" 'BEGIN {
		printf "%-8s %-12.2f %-14.2f\n", w, 100 * d / hz / s, d / hz }'
done
