#!/usr/bin/env bash
# Integration suite for the acting half, on the host, touching only what it
# creates: an ext4 image on a loop device mounted on a temp dir (always
# undone by the trap), files read into its cache, and the real build/upcd
# and build/upcc acting on them.  Outcomes are measured with an independent
# cachestat probe (tests/integration/probe.c), never taken from upcd's own
# report.  Needs root and a free loop device: without them every check
# fails (CI runs as root; a skip would hide a broken setup).
#
#   tests/integration/run.sh [BUILD_DIR...]
# With several build dirs (build, build/asan: upcd/upcc under ASan/UBSan,
# where any report aborts the program) the suite runs once per dir and
# ends on the sum.
set -u
cd "$(dirname "$0")/../.."
if [ $# -gt 1 ]; then
	total_passed=0
	total_failed=0
	for dir in "$@"; do
		echo "=== integration with $dir/upcd, $dir/upcc"
		out=$("$0" "$dir" 2>&1)
		rc=$?
		echo "$out"
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" | tail -n 1)
		p=$(sed -nE 's/^([0-9]+) passed.*/\1/p' <<<"$line")
		f=$(sed -nE 's/.* ([0-9]+) failed$/\1/p' <<<"$line")
		[ -n "$line" ] || f=1
		[ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && f=1
		total_passed=$((total_passed + ${p:-0}))
		total_failed=$((total_failed + ${f:-0}))
	done
	echo "$total_passed passed, $total_failed failed"
	[ "$total_failed" -eq 0 ]
	exit $?
fi
BUILD=${1:-build}
UPCD=$BUILD/upcd
# upcd with the mount-table hooks (hooked_main.c), for the system scope only.
UPCD_HOOKED=$BUILD/integration/upcd-hooked
UPCC=$BUILD/upcc
PROBE=${PROBE:-build/integration/probe}
INVENTORY_PROBE=${INVENTORY_PROBE:-build/integration/inventory-probe}
. tests/integration/lib.sh

. tests/integration/loopfs.sh
loopfs_init run
outside=$work/outside

# ---- setup ------------------------------------------------------------------
for prog in "$UPCD" "$UPCC" "$PROBE" "$INVENTORY_PROBE"; do
	[ -x "$prog" ] || { fail "setup: $prog not built"; finish; }
done
if [ "$(id -u)" -ne 0 ]; then
	fail "setup: needs root (loop device, mount)"
	finish
fi
if ! "$PROBE" sum "$PROBE" >/dev/null 2>&1; then
	fail "setup: cachestat(2) unavailable: this suite measures with it"
	finish
fi
mkdir -p "$outside"
# A long journal commit interval: nothing on this fs forces data out early.
loopfs_mount 384M commit=600
pass "setup: ext4 on $loop mounted on $mnt"

mib_pages() { echo $(( $1 * 1024 * 1024 / PAGE )); }
make_file() {	# make_file PATH MIB: written, synced (clean), read back into cache
	dd if=/dev/urandom of="$1" bs=1M count="$2" status=none conv=fsync
	cat "$1" >/dev/null
}
cached_of() { "$PROBE" stat "$1" | awk '{print $1}'; }
# Pages still cached plus pages the kernel's own reclaim evicted (shadow
# entries, which fadvise/invalidation never leaves): the host is shared and
# under memory pressure its reclaim may take our unmapped pages at any time;
# "kept" means nobody *invalidated* them.  Files here are fresh, so their
# eviction count starts at 0.
kept_of() { "$PROBE" stat "$1" | awk '{print $1 + $4}'; }

mkdir -p "$mnt/data/sub"
for i in 1 2 3 4; do make_file "$mnt/data/f$i" 8; done
for i in 5 6 7 8; do make_file "$mnt/data/sub/f$i" 8; done
make_file "$mnt/data/mapped" 8
make_file "$outside/secret" 8
ln -s "$outside/secret" "$mnt/data/link-out"
ln -s "$outside" "$mnt/data/dirlink-out"
mkfifo "$mnt/data/fifo"
clean_files=("$mnt"/data/f[1-4] "$mnt"/data/sub/f[5-8])

"$PROBE" map "$mnt/data/mapped" >"$work/map.out" &
map_pid=$!
pids+=($map_pid)
for _ in $(seq 100); do grep -q ready "$work/map.out" 2>/dev/null && break; sleep 0.05; done
check "setup: helper maps $mnt/data/mapped" grep -q ready "$work/map.out"

read -r clean_before _ _ clean_evicted <<<"$("$PROBE" sum "${clean_files[@]}")"
check "setup: 64 MiB of clean files cached ($clean_before pages, $clean_evicted reclaimed by the host)" \
	test $((clean_before + clean_evicted)) -eq $(mib_pages 64)

# ---- upcd --once brings the tree down to the target ------------------------
# The dirty file is written last, just before upcd runs: the flusher only
# writes back data dirty for dirty_expire_centisecs (30 s by default).  But
# anyone's sync(1), or background writeback when the host's dirty memory
# passes its threshold, cleans it too.  So a control file outside upcd's
# scope is dirtied first: the flusher writes inodes oldest-dirtied first,
# so if the scoped file lost its dirty pages while the control kept its
# own, writeback came from upcd; if both lost theirs the round proves
# nothing and is run again (at most 3 times).
run_upcd_round() {
	for f in "${clean_files[@]}"; do cat "$f" >/dev/null; done
	rm -f "$mnt/data/dirty" "$mnt/control-dirty"
	dd if=/dev/urandom of="$mnt/control-dirty" bs=1M count=4 status=none
	dd if=/dev/urandom of="$mnt/data/dirty" bs=1M count=4 status=none
	read -r _ dirty_before wb_before _ <<<"$("$PROBE" stat "$mnt/data/dirty")"
	dirty_written=$(date +%s)
	"$PROBE" fifo-watch "$mnt/data/fifo" 8 >"$work/fifo.out" &
	fifo_watcher=$!
	pids+=($fifo_watcher)
	start=$(date +%s%N)
	timeout 60 "$UPCD" --once --backend=fadvise --scope="path:$mnt/data" \
		--target=${target_mib}M --trigger=32M --state "$work/state.json" \
		>"$work/upcd.log" 2>&1
	rc=$?
	elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
	read -r clean_after _ <<<"$("$PROBE" sum "${clean_files[@]}")"
	read -r dirty_cached dirty_after wb_after _ <<<"$("$PROBE" stat "$mnt/data/dirty")"
	read -r _ control_after control_wb _ <<<"$("$PROBE" stat "$mnt/control-dirty")"
	checked_at=$(date +%s)
}
target_mib=16
target_pages=$(mib_pages $target_mib)
for round in 1 2 3; do
	run_upcd_round
	if [ "$dirty_after" -eq "$dirty_before" ] || [ "$control_after" -eq "$dirty_before" ]; then
		break
	fi
	echo "     round $round: something outside upcd wrote back the control file too; again"
	wait "$fifo_watcher"
done
check "setup: dirty file had dirty pages ($dirty_before, round $round)" test "$dirty_before" -gt 0
check "upcd --once exits 0 (rc=$rc, ${elapsed_ms} ms)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/    upcd: /' "$work/upcd.log" | tail -20
mapped_after=$(kept_of "$mnt/data/mapped")
unmapped_after=$((clean_after + dirty_cached))
check "tree's unmapped cache at or below target: $unmapped_after <= $target_pages pages" \
	test "$unmapped_after" -le "$target_pages"
check "cold-first, not drop-all: $clean_after clean pages left (> 0)" test "$clean_after" -gt 0
check "mapped file fully resident ($mapped_after of $(mib_pages 8) pages)" \
	test "$mapped_after" -eq "$(mib_pages 8)"
check "dirty file keeps its dirty pages ($dirty_before -> $dirty_after, writeback $wb_after, \
control $control_after, checked $((checked_at - dirty_written)) s after writing)" \
	test "$dirty_after" -eq "$dirty_before" -a "$wb_after" -eq 0
check "symlink target outside the tree untouched ($(kept_of "$outside/secret") pages kept)" \
	test "$(kept_of "$outside/secret")" -eq "$(mib_pages 8)"
wait "$fifo_watcher"
check "FIFO in the tree never opened (watcher saw $(cat "$work/fifo.out") opens)" \
	test "$(cat "$work/fifo.out")" = 0

# ---- fanotify learning on a whole filesystem --------------------------------
# The mount point is a whole filesystem, so the inventory learns files from
# fanotify close events after its first walk, instead of walking again.
coproc INV { "$INVENTORY_PROBE" "$mnt" "$mnt/learned"; }
# bash unsets INV_PID and INV, and closes INV's pipes, once the coprocess
# exits, which it may do before we read its answer or wait for it: keep
# the pid and our own copies of the pipes while the probe waits for "go".
inv_pid=$INV_PID
exec {inv_out}<&"${INV[0]}" {inv_in}>&"${INV[1]}"
read -r -t 30 ready <&"$inv_out"
check "inventory probe walked once and is ready" test "${ready:-}" = ready
dd if=/dev/urandom of="$mnt/learned" bs=1M count=1 status=none conv=fsync
cat "$mnt/learned" >/dev/null
echo go >&"$inv_in"
read -r -t 30 result <&"$inv_out"
wait "$inv_pid" 2>/dev/null
exec {inv_out}<&- {inv_in}>&-
echo "     inventory probe: ${result:-none}"
check "file opened after the walk learnt by fanotify, not by a walk" \
	grep -qE "fanotify=1 walks=1 learned=[1-9][0-9]* has_file=1 file_cached=$(mib_pages 1) " \
	<<<"${result:-}"
rm -f "$mnt/learned"

# A filesystem of more files than the fanotify queue holds: a walk's own opens
# are events in our queue too.  Read only between refreshes they overflow
# it, the overflow makes the next refresh walk again, and that walk
# overflows it again (the negative control shows it does here); read as
# the walk goes, three refreshes are one walk.
queue=$(cat /proc/sys/fs/fanotify/max_queued_events)
many=$((queue + 2048))
free_inodes=$(df --output=iavail "$mnt" | tail -n 1)
if [ "$many" -ge "$free_inodes" ]; then
	fail "setup: fs.fanotify.max_queued_events=$queue needs $many files, the loop fs has $free_inodes inodes"
fi
mkdir "$mnt/many"
( cd "$mnt/many" && for ((i = 0; i < many; i++)); do echo "$i" >"f$i"; done )
no_drain=$(UPCC_TEST_NO_OWN_DRAIN=1 "$INVENTORY_PROBE" --refreshes 3 "$mnt")
drained=$("$INVENTORY_PROBE" --refreshes 3 "$mnt")
echo "     $many files, queue $queue: own events read between refreshes only: $no_drain"
echo "     ... read as the walk goes: $drained"
check "negative control: a walk of $many files overflows the queue, every refresh walks" \
	grep -qE "fanotify=1 walks=3 overflows=[1-9][0-9]* .*last=the fanotify queue overflowed" \
	<<<"$no_drain"
check "walk of $many files drains its own events: one walk in three refreshes, no overflow" \
	grep -qE "fanotify=1 walks=1 overflows=0 .*last=no walk" <<<"$drained"
rm -rf "$mnt/many"
for f in "${clean_files[@]}"; do cat "$f" >/dev/null; done
timeout 60 "$UPCD" --once --backend=fadvise --scope="path:$mnt" --target=${target_mib}M \
	--trigger=32M --state "$work/state2.json" >"$work/upcd2.log" 2>&1
rc=$?
read -r clean_after _ <<<"$("$PROBE" sum "${clean_files[@]}")"
read -r dirty_cached _ <<<"$("$PROBE" stat "$mnt/data/dirty")"
read -r control_cached _ <<<"$("$PROBE" stat "$mnt/control-dirty")"
check "upcd on the mount point uses fanotify learning (rc=$rc)" \
	grep -q "inventory: fanotify" "$work/upcd2.log"
check "... and reaches the target ($((clean_after + dirty_cached + control_cached)) <= $target_pages)" \
	test "$rc" -eq 0 -a $((clean_after + dirty_cached + control_cached)) -le "$target_pages"
check "... mapped file still fully resident" \
	test "$(kept_of "$mnt/data/mapped")" -eq "$(mib_pages 8)"

# ---- upcc files -------------------------------------------------------------
for f in "${clean_files[@]}"; do cat "$f" >/dev/null; done
read -r clean_now _ <<<"$("$PROBE" sum "${clean_files[@]}")"
json=$(timeout 30 "$UPCC" files "$mnt/data" --json --top 100)
rc=$?
check "upcc files --json exits 0" test "$rc" -eq 0
files_total=$(sed -nE 's/.*"total":\{"files":[0-9]+,"cached_pages":([0-9]+).*/\1/p' <<<"$json")
probe_total=$(( clean_now + $(cached_of "$mnt/data/dirty") + $(cached_of "$mnt/data/mapped") ))
# Two measurements a moment apart on a shared host: within 1 %.
check "upcc files total matches the probe ($files_total ~ $probe_total pages)" \
	test "${files_total:-0}" -gt 0 -a $(( ${files_total:-0} - probe_total )) -le $((probe_total / 100)) \
	-a $(( probe_total - ${files_total:-0} )) -le $((probe_total / 100))
check "upcc files marks the mapped file mapped" \
	grep -qE "\"path\":\"[^\"]*/data/mapped\",[^}]*\"mapped\":true" <<<"$json"
check "upcc files does not list the symlink's target" \
	bash -c '! grep -q secret <<<"$1"' _ "$json"
table=$(timeout 30 "$UPCC" files "$mnt/data" --top 3)
check "upcc files --top 3 lists 3 files" \
	test "$(grep -c "$mnt/data" <<<"$table")" -eq 3

# ---- upcc evict -------------------------------------------------------------
out=$(timeout 30 "$UPCC" evict "$mnt/data/f1")
rc=$?
check "upcc evict FILE drops it (rc=$rc, $(cached_of "$mnt/data/f1") pages left)" \
	test "$rc" -eq 0 -a "$(cached_of "$mnt/data/f1")" -eq 0
check "upcc evict reports what it dropped, as sizes" \
	grep -qE "^dropped +[1-9][0-9.]*[KMGT]i +[1-9][0-9.]*[KMGT]i  $mnt/data/f1\$" <<<"$out"
cat "$mnt/data/f3" >/dev/null
out=$(timeout 30 "$UPCC" evict --dry-run "$mnt/data/f3")
rc=$?
f3_kept_before=$(kept_of "$mnt/data/f3")
check "upcc evict --dry-run drops nothing (rc=$rc, $(kept_of "$mnt/data/f3") pages kept)" \
	test "$rc" -eq 0 -a "$(kept_of "$mnt/data/f3")" -eq "$f3_kept_before"
check "upcc evict --dry-run says what it would drop" grep -q "would drop" <<<"$out"
dd if=/dev/urandom of="$mnt/data/dirty2" bs=1M count=2 status=none
read -r d2_cached d2_dirty _ <<<"$("$PROBE" stat "$mnt/data/dirty2")"
out=$(timeout 30 "$UPCC" evict "$mnt/data/dirty2" "$mnt/data/mapped")
rc=$?
read -r d2_cached_after d2_dirty_after d2_wb_after _ <<<"$("$PROBE" stat "$mnt/data/dirty2")"
check "upcc evict skips a dirty file (dirty $d2_dirty -> $d2_dirty_after, wb $d2_wb_after)" \
	test "$rc" -eq 0 -a "$d2_dirty_after" -eq "$d2_dirty" -a "$d2_wb_after" -eq 0 \
	-a "$d2_cached_after" -eq "$d2_cached"
check "upcc evict says it skipped dirty and mapped" \
	bash -c 'grep -q "skipped (dirty)" <<<"$1" && grep -q "skipped (mapped)" <<<"$1"' _ "$out"
check "upcc evict leaves the mapped file resident" \
	test "$(kept_of "$mnt/data/mapped")" -eq "$(mib_pages 8)"
err=$(timeout 30 "$UPCC" evict "$mnt/data/link-out" 2>&1 >/dev/null)
rc=$?
check "upcc evict SYMLINK: exit 1, not followed ($(kept_of "$outside/secret") pages kept)" \
	test "$rc" -eq 1 -a "$(kept_of "$outside/secret")" -eq "$(mib_pages 8)"
check "upcc evict SYMLINK: says why" grep -q "symlink" <<<"$err"
"$PROBE" fifo-watch "$mnt/data/fifo" 2 >"$work/fifo2.out" &
watcher=$!
pids+=($watcher)
err=$(timeout 10 "$UPCC" evict "$mnt/data/fifo" 2>&1 >/dev/null)
rc=$?
wait "$watcher"
check "upcc evict FIFO: exit 1 promptly, never opened (rc=$rc, opens $(cat "$work/fifo2.out"))" \
	test "$rc" -eq 1 -a "$(cat "$work/fifo2.out")" = 0

# ---- bad arguments: clear errors, documented exit codes, nothing done -------
expect_exit() {	# expect_exit CODE PATTERN CMD...
	local code=$1 pattern=$2 out rc
	shift 2
	out=$(timeout 30 "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$code" ] && grep -qiE -- "$pattern" <<<"$out"; then
		pass "'${*#"$BUILD"/}' exits $code with a message"
	else
		fail "'${*#"$BUILD"/}' exited $rc (want $code): $(head -c 200 <<<"$out")"
	fi
}
cat "$mnt/data/f2" >/dev/null
before_bad=$(kept_of "$mnt/data/f2")
expect_exit 2 "no PATH" "$UPCC" evict
expect_exit 2 "usage" "$UPCC" evict --bogus "$mnt/data/f2"
expect_exit 2 "--top" "$UPCC" files --top -1 "$mnt/data"
expect_exit 2 "--top" "$UPCC" files --top lots "$mnt/data"
expect_exit 2 "one PATH" "$UPCC" files "$mnt/data" "$mnt"
expect_exit 1 "No such file" "$UPCC" files "$mnt/nonexistent"
expect_exit 1 "No such file" "$UPCC" evict "$mnt/nonexistent"
expect_exit 1 "pseudo" "$UPCC" files /proc
expect_exit 0 "usage: upcc evict" "$UPCC" evict --help
expect_exit 0 "usage: upcc files" "$UPCC" files --help
expect_exit 2 "backend" "$UPCD" --once --backend=bogus --scope="path:$mnt/data"
expect_exit 2 "target" "$UPCD" --once --backend=fadvise --scope="path:$mnt/data" --target=lots
check "bad arguments changed nothing ($(kept_of "$mnt/data/f2") pages of f2 kept)" \
	test "$(kept_of "$mnt/data/f2")" -eq "$before_bad"

# ---- hostile trees ----------------------------------------------------------
# upcd-hooked here: it never compacts, whatever these rounds free.
probe_abs=$(realpath "$PROBE")
# A path past PATH_MAX (hostile review L2): 21 levels of 250-byte names put
# deepfile's path at 5.3 KB, more than open() takes.  The walk opens each
# entry from its directory's fd, so the file is counted like any other
# (upcc files, the path scope's sample) and upcd drops it; it was left out,
# as "deeper than 64 levels", its 8 MiB out of upcd's reach.
long_name=$(printf 'L%.0s' $(seq 250))
long_path=$mnt/names$(printf "/$long_name%.0s" $(seq 21))/deepfile
in_long_dir() {	# in_long_dir CMD...: run CMD in deepfile's directory
	(cd "$mnt/names" && for _ in $(seq 21); do cd "$long_name" || exit 1; done && "$@")
}
mkdir "$mnt/names"
(cd "$mnt/names" && for _ in $(seq 21); do mkdir "$long_name" && cd "$long_name" || exit 1; done)
in_long_dir dd if=/dev/urandom of=deepfile bs=1M count=8 status=none conv=fsync
in_long_dir cat deepfile >/dev/null
long_cached() { in_long_dir "$probe_abs" stat deepfile | awk '{print $1}'; }
long_before=$(long_cached)
check "setup: deepfile's path is ${#long_path} bytes (> 4096), $long_before pages cached" \
	test "${#long_path}" -gt 4096 -a "${long_before:-0}" -gt 0
# The host's own reclaim may take some of it meanwhile, never add to it:
# what upcc files counts lies between the probe before and the probe after.
long_before=$(long_cached)
json=$(timeout 30 "$UPCC" files --json "$mnt/names")
long_after=$(long_cached)
read -r long_whole long_counted long_depth <<<"$(python3 -c 'import json, sys
d = json.loads(sys.argv[1])
f = d["files"][0] if d["files"] else {}
print(f.get("path") == sys.argv[2], d["total"]["cached_pages"], d["skipped"]["depth"])' \
	"$json" "$long_path" 2>&1)"
check "upcc files lists deepfile by its whole path ($long_whole), nothing too deep ($long_depth)" \
	test "$long_whole" = True -a "$long_depth" = 0
check "... and counts its cache ($long_after <= $long_counted <= $long_before pages)" \
	test "${long_counted:-0}" -ge "$long_after" -a "${long_counted:-0}" -le "$long_before" \
	-a "${long_counted:-0}" -gt 0
timeout 60 "$UPCD_HOOKED" --once --dry-run --backend=fadvise --scope="path:$mnt/names" \
	--target=1 --trigger=1 --state "$work/state-long.json" >"$work/upcd-long.log" 2>&1
sed -n 's/.*dry run: /     upcd: dry run: /p' "$work/upcd-long.log"
check "the path scope's sample counts deepfile's cache (MiBs, not 0B)" \
	grep -qE "dry run: would have .*: unmapped [0-9.]+Mi" "$work/upcd-long.log"
check "... and leaves nothing out as too deep" \
	bash -c '! grep -q "deeper than" "$1"' _ "$work/upcd-long.log"
timeout 60 "$UPCD_HOOKED" --once --backend=fadvise --scope="path:$mnt/names" \
	--target=1 --trigger=1 --state "$work/state-long.json" >"$work/upcd-long.log" 2>&1
rc=$?
check "upcd --once drops deepfile ($long_before -> $(long_cached) pages, rc=$rc)" \
	test "$rc" -eq 0 -a "$(long_cached)" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/    upcd: /' "$work/upcd-long.log" | tail -5
rm -rf "$mnt/names"

# A bind mount inside the scope (hostile review L3): outside5, a directory
# of the same filesystem outside the scope s5, bound on s5/bindin.  Its
# st_dev is the scope's, so with cross_mounts = no the walk went through
# it and upcd dropped the outside file (2048 -> 0 pages).  It is another
# mount: skipped and counted as one, unless cross_mounts = yes (the
# negative control).  Bound in a private mount namespace (unshare -m) that
# upcd and upcc run in: the mount goes with it, nothing is left to undo.
mkdir -p "$mnt/s5/bindin" "$mnt/outside5"
make_file "$mnt/outside5/victim" 8
in_bind_ns() {	# in_bind_ns CMD...: CMD with outside5 bound on s5/bindin
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' \
		- "$mnt/outside5" "$mnt/s5/bindin" "$@"
}
make_file "$mnt/s5/own" 4
victim_before=$(kept_of "$mnt/outside5/victim")
json=$(in_bind_ns "$UPCC" files --json "$mnt/s5")
read -r bind_files bind_mounts <<<"$(python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(d["total"]["files"], d["skipped"]["mounts"])' "$json" 2>&1)"
check "upcc files: the bind mount inside the tree is a skipped mount ($bind_files file, $bind_mounts mount)" \
	test "$bind_files" = 1 -a "$bind_mounts" = 1
in_bind_ns "$UPCD_HOOKED" --once --backend=fadvise --scope="path:$mnt/s5" --target=1 --trigger=1 \
	--state "$work/state-bind.json" >"$work/upcd-bind.log" 2>&1
rc=$?
check "upcd --once drops the scope's own file ($(cached_of "$mnt/s5/own") pages left, rc=$rc)" \
	test "$rc" -eq 0 -a "$(cached_of "$mnt/s5/own")" -eq 0
check "... and the file outside it, seen through the bind mount, keeps its pages \
($victim_before -> $(kept_of "$mnt/outside5/victim"))" \
	test "$victim_before" -eq "$(mib_pages 8)" -a "$(kept_of "$mnt/outside5/victim")" -eq "$victim_before"
[ "$rc" -eq 0 ] || sed 's/^/    upcd: /' "$work/upcd-bind.log" | tail -5
cat >"$work/cross.conf" <<EOF
[scope s5]
type = path
path = $mnt/s5
cross_mounts = yes
backend = fadvise
target = 1
trigger = 1
EOF
cat "$mnt/s5/own" >/dev/null
in_bind_ns "$UPCD_HOOKED" --once --config "$work/cross.conf" --state "$work/state-bind.json" \
	>"$work/upcd-bind.log" 2>&1
rc=$?
check "negative control: with cross_mounts = yes the bind mount is walked, the file dropped \
($(cached_of "$mnt/outside5/victim") pages left, rc=$rc)" \
	test "$rc" -eq 0 -a "$(cached_of "$mnt/outside5/victim")" -eq 0
rm -rf "$mnt/s5" "$mnt/outside5"

# ---- the system scope walks the local disk mounts ---------------------------
# The system scope's inventory is every local disk-backed mount, read from
# mountinfo.  The installed upcd takes no test hook from its environment:
check "upcd reads no test hook from its environment" \
	bash -c "! grep -qa -e UPCC_MOUNTINFO -e UPCC_NO_FANOTIFY '$UPCD'"
# upcd-hooked, the suite's own build, does: UPCC_MOUNTINFO points it at a fixture naming only this suite's
# loop mount (twice, as a bind would show it, and its data/ subtree), beside
# an initramfs root and pseudo filesystems: nothing else can be touched.
# The host's whole page cache is over the 1 MiB target, so upcd drops every
# clean unmapped page it may and ends on 3 ("nothing more to reclaim").
loop_dev=$(stat -c '%Hd:%Ld' "$mnt")
{
	echo "1 1 0:2 / / rw - rootfs rootfs rw"
	echo "2 1 0:20 / /proc rw,nosuid shared:5 - proc proc rw"
	echo "3 1 0:21 / /run rw - tmpfs tmpfs rw"
	echo "4 1 $loop_dev / $mnt rw,relatime shared:7 - ext4 $loop rw"
	echo "5 1 $loop_dev / $mnt rw - ext4 $loop rw"
	echo "6 1 $loop_dev /data $mnt/data rw - ext4 $loop rw"
	echo "7 1 0:40 / $outside rw - overlay overlay rw,lowerdir=/a"
} >"$work/mountinfo"
for f in "${clean_files[@]}"; do cat "$f" >/dev/null; done
cat "$outside/secret" >/dev/null
read -r clean_before _ <<<"$("$PROBE" sum "${clean_files[@]}")"
UPCC_MOUNTINFO="$work/mountinfo" timeout 60 "$UPCD_HOOKED" --once --backend=fadvise --scope=system \
	--target=1M --trigger=2M --state "$work/state3.json" >"$work/upcd3.log" 2>&1
rc=$?
read -r clean_after _ <<<"$("$PROBE" sum "${clean_files[@]}")"
sed 's/^/     upcd: /' "$work/upcd3.log" | head -5
check "system scope with a disk mount starts and acts (rc=$rc: 0 or 3)" \
	test "$rc" -eq 0 -o "$rc" -eq 3
# The summary names the mounts; the roots are logged whole, a line each,
# however deep the checkout that runs this is.
check "... its inventory is the 2 local disk mounts (bind walked once, overlay left out)" \
	grep -q "; 2 local disk filesystems: $mnt (ext4) $mnt/data (ext4)" "$work/upcd3.log"
check "... and upcd logs each root whole, fanotify-marked ($(grep -c ': inventory root ' "$work/upcd3.log") lines)" \
	test "$(grep -c ': inventory root ' "$work/upcd3.log")" -eq 2 -a \
	"$(grep -cF -e ": inventory root $mnt (fanotify mark, walk)" \
		-e ": inventory root $mnt/data (fanotify mark, walk)" "$work/upcd3.log")" -eq 2
check "... and fanotify marks the loop filesystem" \
	grep -q "inventory: fanotify 2/2 mounts" "$work/upcd3.log"
check "... drops the mount's clean cache ($clean_before -> $clean_after pages)" \
	test "$clean_before" -gt 0 -a "$clean_after" -eq 0
check "... mapped file still fully resident" \
	test "$(kept_of "$mnt/data/mapped")" -eq "$(mib_pages 8)"
check "... a file on an unlisted filesystem untouched ($(kept_of "$outside/secret") pages kept)" \
	test "$(kept_of "$outside/secret")" -eq "$(mib_pages 8)"

# The daemon follows the mount table: a disk mounted after start joins the
# inventory (logged, fanotify-marked) and its clean cache goes; unmounted,
# it leaves.  The fixture starts with no disk and gains the loop mount.
wait_log() {	# wait_log FILE FIXED-STRING: up to 15 s
	for _ in $(seq 150); do grep -qF -- "$2" "$1" && return 0; sleep 0.1; done
	return 1
}
head -n 3 "$work/mountinfo" >"$work/mountinfo-live"
for f in "${clean_files[@]}"; do cat "$f" >/dev/null; done
read -r live_start _ <<<"$("$PROBE" sum "${clean_files[@]}")"
UPCC_MOUNTINFO="$work/mountinfo-live" "$UPCD_HOOKED" --backend=fadvise --scope=system \
	--target=1M --trigger=2M --interval=200ms --state "$work/state5.json" \
	>"$work/upcd5.log" 2>&1 &
daemon=$!
pids+=("$daemon")
wait_log "$work/upcd5.log" "no local disk-backed filesystem"
sleep 0.5
read -r live_before _ <<<"$("$PROBE" sum "${clean_files[@]}")"
# (Not invalidated: at most the host's own reclaim, a tenth, may take some.)
check "daemon without a disk leaves the loop mount's cache ($live_start -> $live_before pages)" \
	test "$live_start" -gt 0 -a "$((live_before * 10))" -ge "$((live_start * 9))"
cp "$work/mountinfo" "$work/mountinfo-live.new"
mv "$work/mountinfo-live.new" "$work/mountinfo-live"
check "... a disk mounted since start joins, logged with its root" \
	wait_log "$work/upcd5.log" "inventory: mounted $mnt (fanotify mark, walk)"
check "... both of its roots" grep -qF "mounted $mnt/data (" "$work/upcd5.log"
for _ in $(seq 100); do
	read -r live_after _ <<<"$("$PROBE" sum "${clean_files[@]}")"
	[ "$live_after" -eq 0 ] && break
	sleep 0.1
done
check "... and its clean cache goes ($live_before -> $live_after pages)" test "$live_after" -eq 0
check "... mapped file still fully resident" \
	test "$(kept_of "$mnt/data/mapped")" -eq "$(mib_pages 8)"
head -n 3 "$work/mountinfo" >"$work/mountinfo-live.new"
mv "$work/mountinfo-live.new" "$work/mountinfo-live"
check "... unmounted, it leaves the inventory, logged" \
	wait_log "$work/upcd5.log" "unmounted $mnt/data"
cat "$mnt/data/f1" >/dev/null
sleep 1.2	# six steps at 200 ms
check "... and what it caches again is no longer touched ($(kept_of "$mnt/data/f1") pages kept)" \
	test "$(kept_of "$mnt/data/f1")" -eq "$(mib_pages 8)"
kill -TERM "$daemon"
wait "$daemon"
rc=$?
check "... SIGTERM stops the daemon cleanly (rc=$rc)" test "$rc" -eq 0
sed -n '/inventory: /s/^/     upcd: /p' "$work/upcd5.log" | head -4

# With no local disk mount at all (an initramfs root alone) the scope still
# starts, says so, and touches nothing.
head -n 3 "$work/mountinfo" >"$work/mountinfo-none"
cat "$mnt/data/f1" >/dev/null
before_none=$(kept_of "$mnt/data/f1")
UPCC_MOUNTINFO="$work/mountinfo-none" timeout 60 "$UPCD_HOOKED" --once --backend=fadvise \
	--scope=system --target=1M --trigger=2M --state "$work/state4.json" >"$work/upcd4.log" 2>&1
rc=$?
check "system scope without a disk mount starts (rc=$rc: 0 or 3, not a refusal)" \
	test "$rc" -eq 0 -o "$rc" -eq 3
check "... and says there is nothing to reclaim" \
	grep -q "no local disk-backed filesystem: nothing to reclaim" "$work/upcd4.log"
check "... and drops nothing ($before_none -> $(kept_of "$mnt/data/f1") pages)" \
	test "$(kept_of "$mnt/data/f1")" -eq "$before_none"

# Issue 31 (L1): the state file's lock follows a reload.  A daemon whose
# config moves state = from A to B frees A's lock for another upcd and
# holds B's; a reload onto a state file another upcd holds keeps the old
# configuration.  (The daemon acts on an empty tree of its own; the
# others are dry runs.)
lock_state_pid() { grep -o '"pid":[0-9]*' "$1" 2>/dev/null | head -n 1 | cut -d: -f2; }
lock_owned_by() { [ "$(lock_state_pid "$1")" = "$2" ]; }
wait_until() {	# wait_until SECONDS COMMAND...
	local i
	for i in $(seq $(($1 * 10))); do "${@:2}" && return 0; sleep 0.1; done
	return 1
}
mkdir -p "$work/lockscope"
lock_conf() {	# lock_conf STATE: the daemon's config, state = STATE
	printf 'state = %s\ninterval = 200ms\n[scope l]\ntype = path\npath = %s\nbackend = fadvise\n' \
		"$1" "$work/lockscope" >"$work/lock.conf.new"
	mv "$work/lock.conf.new" "$work/lock.conf"
}
lock_conf "$work/lockA.json"
"$UPCD_HOOKED" --config "$work/lock.conf" >"$work/upcd6.log" 2>&1 &
daemon=$!
pids+=("$daemon")
check "one upcd a state file: the daemon writes its config's state A" \
	wait_until 10 lock_owned_by "$work/lockA.json" "$daemon"
"$UPCD" --once --dry-run --scope "path:$work/lockscope" --state "$work/lockA.json" \
	>"$work/lock1.log" 2>&1
rc=$?
check "... a second upcd on A is refused (rc=$rc), naming the daemon" \
	eval '[ $rc -eq 1 ] && grep -qF "pid $daemon " "$work/lock1.log"'
lock_conf "$work/lockB.json"
kill -HUP "$daemon"
check "... SIGHUP with state = B: the daemon writes B" \
	wait_until 10 lock_owned_by "$work/lockB.json" "$daemon"
"$UPCD" --once --dry-run --scope "path:$work/lockscope" --state "$work/lockA.json" \
	>"$work/lock2.log" 2>&1
rc=$?
check "... A is free again (rc=$rc)" test "$rc" -eq 0
"$UPCD" --once --dry-run --scope "path:$work/lockscope" --state "$work/lockB.json" \
	>"$work/lock3.log" 2>&1
rc=$?
check "... B is the daemon's (rc=$rc)" eval '[ $rc -eq 1 ] && grep -qF "pid $daemon " "$work/lock3.log"'
"$UPCD" --dry-run --scope "path:$work/lockscope" --interval 200ms --state "$work/lockC.json" \
	>"$work/lock4.log" 2>&1 &
other=$!
pids+=("$other")
wait_until 10 lock_owned_by "$work/lockC.json" "$other"
lock_conf "$work/lockC.json"
kill -HUP "$daemon"
check "... a reload onto C, another upcd's, is refused" \
	wait_log "$work/upcd6.log" "reload: keeping the old configuration"
check "... naming that upcd" grep -qF "pid $other " "$work/upcd6.log"
b_updated() { grep -o '"updated":[0-9]*' "$work/lockB.json" | cut -d: -f2; }
b_before=$(b_updated)
b_newer() { [ "$(b_updated)" -gt "$b_before" ] && lock_owned_by "$work/lockB.json" "$daemon"; }
check "... and the daemon keeps writing B" wait_until 10 b_newer
kill -TERM "$daemon" "$other"
wait "$daemon"
rc=$?
wait "$other"
check "... SIGTERM stops it cleanly (rc=$rc)" test "$rc" -eq 0

# ---- upcd never keeps a filesystem from being unmounted (issue 32) --------
# A real umount of the loop filesystem while upcd watches it, never a lazy
# one: upcd kept a directory fd open on every fanotify root for its whole
# life, so `umount` failed with "target is busy", and after `umount -l` it
# went on watching a detached filesystem without a word.  The suite's own
# mapping helper goes first: a mapped file keeps a filesystem busy too.
kill "$map_pid" 2>/dev/null
wait "$map_pid" 2>/dev/null
umount_checked() {	# umount_checked NAME: a plain umount must succeed
	local err

	if err=$(umount "$mnt" 2>&1); then
		pass "$1"
		return 0
	fi
	fail "$1: $err"
	fuser -vm "$mnt" 2>&1 | grep -v '^Cannot stat' | sed 's/^/     holder: /'
	return 1
}
remount() {	# the same device, where it was (once: never a second mount on it)
	mountpoint -q "$mnt" || mount -o commit=600 "$loop" "$mnt"
}
wait_file() {	# wait_file FILE: up to 15 s for upcd to write it
	for _ in $(seq 150); do [ -s "$1" ] && return 0; sleep 0.1; done
	return 1
}
# Its cache goes within 15 s.  Looked at once a second: the probe's open is
# an event, and a file opened since the last refresh counts as being read
# (only what is behind its reader goes), so a look every 100 ms kept half
# of it cached for good.
check_dropped() {	# check_dropped NAME FILE
	for _ in $(seq 15); do sleep 1; [ "$(cached_of "$2")" -eq 0 ] && break; done
	check "$1 ($(cached_of "$2") pages left)" test "$(cached_of "$2")" -eq 0
}
# A cold file: written and synced, never read back (a read after upcd
# dropped part of it would be a refault, and a refaulted file is kept).
write_cold() { dd if=/dev/urandom of="$1" bs=1M count="$2" status=none conv=fsync; }
stop_daemon() {	# stop_daemon NAME
	kill -TERM "$daemon"
	wait "$daemon"
	rc=$?
	check "$1 (rc=$rc)" test "$rc" -eq 0
}

# The path scope on the mount point, marked by fanotify.  Unmounted, it
# cannot be measured (its mount point's empty directory is not its tree),
# said once, not every round; mounted again, it is measured and acted on.
"$UPCD_HOOKED" --backend=fadvise --scope="path:$mnt" --target=1M --trigger=2M \
	--interval=200ms --state "$work/state6.json" >"$work/upcd6.log" 2>&1 &
daemon=$!
pids+=("$daemon")
check "path scope on the mount point $mnt, fanotify-marked" \
	wait_log "$work/upcd6.log" "inventory root $mnt (fanotify mark, walk)"
check "... its first round done" wait_file "$work/state6.json"
umount_checked "... umount $mnt succeeds while upcd watches it (no lazy umount)"
check "... it is unmounted, not left detached" \
	bash -c "! grep -qF ' $mnt ' /proc/self/mountinfo"
check "... upcd says the scope cannot be measured: unmounted" \
	wait_log "$work/upcd6.log" "scope path:$mnt: cannot measure: $mnt is not mounted (unmounted while upcd ran)"
sleep 1	# five rounds at 200 ms
check "... once, not every round ($(grep -c 'cannot measure' "$work/upcd6.log") lines)" \
	test "$(grep -c 'cannot measure' "$work/upcd6.log")" -eq 1
check "... and keeps running" kill -0 "$daemon"
remount
check "... mounted again, upcd measures it again" \
	wait_log "$work/upcd6.log" "scope path:$mnt: measured again"
write_cold "$mnt/after-remount" 8
check_dropped "... and drops a file written on it since" "$mnt/after-remount"
stop_daemon "... SIGTERM stops it cleanly"
sed -n '/cannot measure\|measured again\|inventory: /s/^/     upcd: /p' "$work/upcd6.log" | head -4

# Unmounted and mounted again between two looks: the same device at the
# same place, but the fanotify mark went with the old superblock, and no
# event would ever end the quiet.  With an interval of an hour only the
# tick can notice: it marks the filesystem again, and the file written
# then is seen, its round started by the tick above the trigger.
"$UPCD_HOOKED" --backend=fadvise --scope="path:$mnt" --target=1M --trigger=2M \
	--interval=1h --state "$work/state7.json" >"$work/upcd7.log" 2>&1 &
daemon=$!
pids+=("$daemon")
check "path scope, interval 1 h: its first round done" wait_file "$work/state7.json"
umount_checked "... umount at once followed by a mount" && remount
write_cold "$mnt/after-quick-remount" 8
check_dropped "... a file written on it then is dropped" "$mnt/after-quick-remount"
check "... and upcd says it is mounted again" \
	wait_log "$work/upcd7.log" "scope path:$mnt: inventory: mounted again $mnt (fanotify mark, walk)"
stop_daemon "... SIGTERM stops it cleanly"

# The system scope (its mount table the suite's fixture, which names this
# filesystem alone; upcc_mounts_load() leaves out a listed mount point
# that is not on its device any more, as after a real umount).
head -n 4 "$work/mountinfo" >"$work/mountinfo-real"
UPCC_MOUNTINFO="$work/mountinfo-real" "$UPCD_HOOKED" --backend=fadvise --scope=system \
	--target=1M --trigger=2M --interval=200ms --state "$work/state8.json" \
	>"$work/upcd8.log" 2>&1 &
daemon=$!
pids+=("$daemon")
check "system scope, its root $mnt fanotify-marked" \
	wait_log "$work/upcd8.log" "inventory root $mnt (fanotify mark, walk)"
check "... its first round done" wait_file "$work/state8.json"
umount_checked "... umount $mnt succeeds while upcd watches it (no lazy umount)"
check "... upcd says it is unmounted" \
	wait_log "$work/upcd8.log" "scope system: inventory: unmounted $mnt"
remount
check "... mounted again, it joins the inventory, fanotify-marked" \
	wait_log "$work/upcd8.log" "scope system: inventory: mounted $mnt (fanotify mark, walk)"
write_cold "$mnt/system-after-remount" 8
check_dropped "... and a file written on it since is dropped" "$mnt/system-after-remount"
umount_checked "... umount at once followed by a mount" && remount
write_cold "$mnt/system-after-quick-remount" 8
check_dropped "... a file written on it then is dropped" "$mnt/system-after-quick-remount"
stop_daemon "... SIGTERM stops it cleanly"
sed -n '/inventory: /s/^/     upcd: /p' "$work/upcd8.log" | head -4

finish
