#!/usr/bin/env bash
# exclude.sh [UPCD UPCC] - issue 31 item 2: a path scope's "exclude =".
# On a tree this script creates (target 0: every clean page is above it),
# upcd --once drops a sibling's pages and keeps every page of a file under
# an excluded directory and of an excluded file; without the exclude (the
# negative control) the same file is dropped.  Then a daemon: files read
# while it runs (fanotify may name them, not only the walk) are treated
# the same.  Residency is measured by fincore(1) (mincore), not by upcc.
# compact = no.  Ends on "N passed, N failed".
set -u
upcd=${1:-${UPCD:?}}
upcc=${2:-${UPCC:?}}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
scratch_init exclude
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99

write_config() {	# write_config EXCLUDE-LINE
	cat >"$tmp/upcd.conf" <<CONF
interval = 200ms
tick = 100ms
backend = fadvise
compact = no
state = $tmp/state.json

[scope tree]
type = path
path = $tmp/tree
target = 0
$1
CONF
}
read_all() { for f in "${files[@]}"; do cat "$f" >/dev/null; done; }

mkdir -p "$tmp/tree/wal/deeper" "$tmp/tree/data"
kept_file=$tmp/tree/wal/deeper/segment
image=$tmp/tree/data/vm.img
sibling=$tmp/tree/data/table
files=("$kept_file" "$image" "$sibling")
for f in "${files[@]}"; do
	dd if=/dev/urandom of="$f" bs=1M count=4 status=none conv=fsync
done
pages=$((4 * 1024 * 1024 / $(getconf PAGESIZE)))
# Kept means cached, or taken by the kernel's reclaim (cachestat's evicted:
# shadow entries, which DONTNEED never leaves): this machine's own DAMON
# pageout takes pages of any file, hundreds at a time (docs/backends.md).
near_all() { [ "$(not_dropped "$1")" -ge "$pages" ]; }
dropped() { [ "$(cached_pages "$1")" -le $((pages / 8)) ]; }

# Negative control first: no exclude, every file goes.
write_config ""
read_all
check "setup: the files are cached" near_all "$kept_file"
check "no exclude: upcd --once exits 0" exit_code_is 0 "$upcd" --once --config "$tmp/upcd.conf"
check "no exclude: the file under wal/ is dropped (negative control)" dropped "$kept_file"
check "no exclude: the image is dropped (negative control)" dropped "$image"
check "no exclude: the sibling is dropped" dropped "$sibling"

write_config "exclude = $tmp/tree/wal, $tmp/tree/data/vm.img"
read_all
check "exclude: upcd --check accepts it" exit_code_is 0 "$upcd" --check --config "$tmp/upcd.conf"
check "exclude: upcd --once exits 0" exit_code_is 0 "$upcd" --once --config "$tmp/upcd.conf"
check "exclude: the file under the excluded directory keeps its pages" near_all "$kept_file"
check "exclude: the excluded file keeps its pages" near_all "$image"
check "exclude: the sibling is dropped" dropped "$sibling"
check "exclude: the log counts what the walk left out" \
	grep -q 'scope tree: excluded: the walk did not enter 2 entries' "$tmp/err"

# A path outside the scope is refused, with its line.
write_config "exclude = $tmp/elsewhere"
check "exclude outside the scope: exit 2" exit_code_is 2 "$upcd" --once --config "$tmp/upcd.conf"
check "exclude outside the scope: FILE:LINE" grep -qF "$tmp/upcd.conf:11: exclude \"$tmp/elsewhere\": not inside" "$tmp/err"

# A daemon: what is read while it runs is seen by fanotify, not only a walk.
write_config "exclude = $tmp/tree/wal, $tmp/tree/data/vm.img"
"$upcd" --config "$tmp/upcd.conf" 2>"$tmp/daemon.log" &
daemon=$!
pids+=("$daemon")
check "daemon: started (state written)" wait_for 20 test -s "$tmp/state.json"
sleep 0.5
read_all
check "daemon: the sibling read again is dropped again" wait_for 20 dropped "$sibling"
sleep 1
check "daemon: the file under the excluded directory keeps its pages" near_all "$kept_file"
check "daemon: the excluded file keeps its pages" near_all "$image"
kill -TERM "$daemon"
wait "$daemon"
rc=$?
check "daemon: stops on SIGTERM, exit 0 (was $rc)" test "$rc" -eq 0
summary
