#!/bin/sh
# guest.sh - runs INSIDE the UML guest (busybox sh, root): the global
# backends of upcd against a real kernel's page cache.  Never run this on
# the host: it drops caches, writes vm sysctls, creates cgroups and starts
# a kdamond.
#
# usage: guest.sh BINDIR DATADEV [BACKEND...]
#   BINDIR   holds upcd, upcc and workload (static builds)
#   DATADEV  the ext4 data disk (made by run.sh: fill/, hot.map)
#   BACKEND  the cases to run (default: all); "none" runs the checks with
#            no control at all, to show that they fail when nothing acts.
#
# Tolerance: after `upcd --once`, the reclaimable unmapped cache (unmapped
# minus dirty and writeback pages, which no backend may touch) must be at
# most target + TOLERANCE_KB.  The slack covers what is cached but belongs
# to no test file: filesystem metadata and the guest's own binaries.
set -u

BIN=$1
DATADEV=$2
shift 2
CASES=${*:-memcg-root memcg-child dropcache damon damon-busy auto}

WL=$BIN/workload
UPCD=$BIN/upcd
UPCC=$BIN/upcc
MNT=/mnt/data
TARGET=4M
TARGET_KB=4096
TRIGGER=24M
TOLERANCE_KB=2048
DIRTY_SIZE=2M
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { # check "what" cond...
	what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# /proc/meminfo field in kB.
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# The kernel's node_unmapped_file_pages() on meminfo: file LRU - Mapped.
unmapped_kb() {
	awk '/^Active\(file\):/ { f += $2 } /^Inactive\(file\):/ { f += $2 }
	     /^Mapped:/ { m = $2 } END { u = f - m; print (u > 0 ? u : 0) }' /proc/meminfo
}

# Same for a cgroup, from memory.stat (bytes) -> kB.
cg_unmapped_kb() {
	awk '$1 == "active_file" || $1 == "inactive_file" { f += $2 }
	     $1 == "file_mapped" { m = $2 }
	     END { u = f - m; print int((u > 0 ? u : 0) / 1024) }' "$1/memory.stat"
}
cg_stat_kb() { awk -v k="$2" '$1 == k { print int($2 / 1024) }' "$1/memory.stat"; }

setup_guest() {
	mountpoint -q /proc || mount -t proc proc /proc
	mountpoint -q /sys || mount -t sysfs sysfs /sys
	mkdir -p /sys/fs/cgroup "$MNT" /tmp
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	mountpoint -q /sys/kernel/mm/damon 2>/dev/null || true
	mountpoint -q /tmp || mount -t tmpfs tmpfs /tmp
	[ -e "$DATADEV" ] || mount -t devtmpfs devtmpfs /dev 2>/dev/null
	mount -t ext4 "$DATADEV" "$MNT" || { echo "FAIL: mount $DATADEV"; exit 1; }
	# Dirty pages must stay dirty for the whole suite unless someone
	# (wrongly) writes them back: no periodic flusher, no expiry.
	echo 0 > /proc/sys/vm/dirty_writeback_centisecs
	echo 360000 > /proc/sys/vm/dirty_expire_centisecs
	echo 50 > /proc/sys/vm/dirty_background_ratio
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control
}

# A known start: no cache but what the guest needs to run.
reset_cache() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# Read the fill files (several times the trigger) as the current process.
fill_cache() { "$WL" stream "$MNT/fill" > /dev/null; }

start_maphold() {
	"$WL" maphold "$MNT/hot.map" > /tmp/maphold.out &
	maphold_pid=$!
	# Wait for "ready": the whole file mapped and touched.
	i=0
	while ! grep -q '^ready' /tmp/maphold.out 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

stop_maphold() { # prints "resident pages"
	kill -TERM "$maphold_pid" 2>/dev/null
	wait "$maphold_pid" 2>/dev/null
	awk '$1 == "resident" { r = $2 } $1 == "pages" { p = $2 } END { print r, p }' \
		/tmp/maphold.out
}

dirty_pages() { "$WL" resident "$1" | awk 'NR == 2 { print $4 }'; }

# Run upcd once; the exit code and output are kept for the checks.
run_upcd() {
	"$UPCD" --once "$@" > /tmp/upcd.out 2>&1
	upcd_rc=$?
	sed 's/^/    upcd: /' /tmp/upcd.out | tail -n 8
}

# The backend upcc status --json reports for the scope (first one listed).
status_backend() {
	"$UPCC" status --json "$@" 2>/dev/null |
		tr ',{}' '\n\n\n' | sed -n 's/^ *"backend" *: *"\([a-z]*\)".*/\1/p' | head -n 1
}

damon_admin=/sys/kernel/mm/damon/admin/kdamonds

# Start a kdamond by hand, as "someone else" would: upcd must not take it.
start_foreign_kdamond() {
	echo 1 > $damon_admin/nr_kdamonds || return 1
	echo 1 > $damon_admin/0/contexts/nr_contexts || return 1
	echo paddr > $damon_admin/0/contexts/0/operations || return 1
	echo 1 > $damon_admin/0/contexts/0/targets/nr_targets || return 1
	echo on > $damon_admin/0/state
}

stop_foreign_kdamond() {
	echo off > $damon_admin/0/state 2>/dev/null
	echo 0 > $damon_admin/nr_kdamonds 2>/dev/null
}

kdamond_state() { cat $damon_admin/0/state 2>/dev/null; }
foreign_kdamond_intact() {
	[ "$(kdamond_state)" = on ] && [ "$(cat $damon_admin/nr_kdamonds)" = 1 ]
}
not_empty_nor_damon() { [ -n "$1" ] && [ "$1" != damon ]; }

# The common shape of a global-backend case: cache well above the trigger,
# a mapped hot file and a dirty file beside it, then one upcd --once.
# $1 = case name, rest = upcd arguments.
global_case() {
	name=$1
	shift
	reset_cache
	start_maphold
	rm -f "$MNT/dirty"
	"$WL" writedirty "$MNT/dirty" $DIRTY_SIZE > /dev/null
	dirty_before=$(dirty_pages "$MNT/dirty")
	fill_cache
	before=$(unmapped_kb)
	trigger_kb=$((24 * 1024))
	check "$name: cache filled above the trigger ($before kB > $trigger_kb kB)" \
		[ "$before" -gt "$trigger_kb" ]

	run_upcd "$@"
	check "$name: upcd --once exits 0 (rc=$upcd_rc)" [ "$upcd_rc" -eq 0 ]

	after=$(unmapped_kb)
	held=$(( $(meminfo Dirty) + $(meminfo Writeback) ))
	reclaimable=$((after - held))
	limit=$((TARGET_KB + TOLERANCE_KB))
	check "$name: unmapped down to target ($after kB, $held kB dirty/wb; reclaimable $reclaimable <= $limit kB)" \
		[ "$reclaimable" -le "$limit" ]

	set -- $(stop_maphold)
	check "$name: mmapped hot file fully resident ($1/$2 pages)" [ "$1" = "$2" ]

	dirty_after=$(dirty_pages "$MNT/dirty")
	check "$name: dirty file kept its dirty pages ($dirty_after/$dirty_before)" \
		[ "$dirty_after" -eq "$dirty_before" ]
}

case_memcg_root() {
	global_case memcg-root --backend=memcg --scope=system \
		--target=$TARGET --trigger=$TRIGGER
}

case_dropcache() {
	global_case dropcache --backend=dropcache --allow-dropcache --scope=system \
		--target=$TARGET --trigger=$TRIGGER
}

case_damon() {
	global_case damon --backend=damon --scope=system \
		--target=$TARGET --trigger=$TRIGGER
	check "damon: upcd left no kdamond running" [ "$(kdamond_state)" != "on" ]
}

case_auto() {
	global_case auto --scope=system --target=$TARGET --trigger=$TRIGGER
	chosen=$(status_backend --scope=system)
	check "auto: upcc status --json names a backend ('$chosen')" [ -n "$chosen" ]
}

# memcg on a child cgroup: the fill is charged to it, upcd reclaims there
# and the check reads the child's own memory.stat.
case_memcg_child() {
	cg=/sys/fs/cgroup/upcc-test
	mkdir -p $cg
	reset_cache
	start_maphold
	sh -c "echo \$\$ > $cg/cgroup.procs && exec $WL stream $MNT/fill" > /dev/null
	before=$(cg_unmapped_kb $cg)
	root_before=$(unmapped_kb)
	check "memcg-child: child charged above the trigger ($before kB)" \
		[ "$before" -gt $((24 * 1024)) ]
	run_upcd --backend=memcg --scope=cgroup:$cg --target=$TARGET --trigger=$TRIGGER
	check "memcg-child: upcd --once exits 0 (rc=$upcd_rc)" [ "$upcd_rc" -eq 0 ]
	after=$(cg_unmapped_kb $cg)
	held=$(( $(cg_stat_kb $cg file_dirty) + $(cg_stat_kb $cg file_writeback) ))
	check "memcg-child: child's unmapped down to target ($after kB, $held dirty/wb; <= $((TARGET_KB + TOLERANCE_KB)) kB)" \
		[ $((after - held)) -le $((TARGET_KB + TOLERANCE_KB)) ]
	set -- $(stop_maphold)
	check "memcg-child: mmapped hot file fully resident ($1/$2 pages)" [ "$1" = "$2" ]
	chosen=$(status_backend --scope=cgroup:$cg)
	check "memcg-child: upcc status --json reports memcg ('$chosen')" [ "$chosen" = memcg ]
	rmdir $cg 2>/dev/null
}

# Someone else's kdamond is running: --backend=damon must refuse without
# touching it, and auto must fall back to another backend that works.
case_damon_busy() {
	if ! start_foreign_kdamond; then
		fail "damon-busy: could not start a kdamond by hand"
		stop_foreign_kdamond
		return
	fi
	check "damon-busy: foreign kdamond running" [ "$(kdamond_state)" = on ]
	reset_cache
	fill_cache
	run_upcd --backend=damon --scope=system --target=$TARGET --trigger=$TRIGGER
	check "damon-busy: --backend=damon refuses (rc=$upcd_rc)" [ "$upcd_rc" -ne 0 ]
	check "damon-busy: the foreign kdamond is still on, and the only one" \
		foreign_kdamond_intact
	run_upcd --scope=system --target=$TARGET --trigger=$TRIGGER
	check "damon-busy: auto falls back and succeeds (rc=$upcd_rc)" [ "$upcd_rc" -eq 0 ]
	after=$(unmapped_kb)
	held=$(( $(meminfo Dirty) + $(meminfo Writeback) ))
	check "damon-busy: auto fallback reached target ($after kB)" \
		[ $((after - held)) -le $((TARGET_KB + TOLERANCE_KB)) ]
	chosen=$(status_backend --scope=system)
	check "damon-busy: upcc status --json reports a non-damon backend ('$chosen')" \
		not_empty_nor_damon "$chosen"
	check "damon-busy: foreign kdamond survived upcd" [ "$(kdamond_state)" = on ]
	stop_foreign_kdamond
}

# No control at all: every "came down" and "refuses" check must fail here.
case_none() {
	global_case none --backend=none --scope=system --target=$TARGET --trigger=$TRIGGER
}

setup_guest
for c in $CASES; do
	echo "--- case $c"
	case $c in
	memcg-root) case_memcg_root ;;
	memcg-child) case_memcg_child ;;
	dropcache) case_dropcache ;;
	damon) case_damon ;;
	damon-busy) case_damon_busy ;;
	auto) case_auto ;;
	none) case_none ;;
	*) fail "unknown case $c" ;;
	esac
done
umount "$MNT" 2>/dev/null
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
