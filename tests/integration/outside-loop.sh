#!/usr/bin/env bash
# outside-loop.sh - does upcd take pages of a file outside its path scope?
#
# Issue 32: in the adversarial test a 16 MiB file outside a loop-mounted
# scope, named by a symlink inside it, kept 4091 of 4096 pages after one
# `upcd --once` in 1 of 4 runs (an earlier check: 128-303 pages lost in 2
# of 12 runs, 0 of 11 without upcd).  A handful of runs cannot tell upcd
# from the host.  This repeats the scene RUNS times per arm, the arms
# interleaved (their order swapped every round):
#
#   upcd    upcd-hooked --once --backend=fadvise --scope=path:MNT --target=64M
#   none    the negative control: the same drops and reads, a sleep as long
#           as the last upcd run instead of upcd
#   dryrun  (optional) upcd --dry-run: its walk and measuring, no eviction
#
# Each run: the tests' own DONTNEED (probe drop, not upcd's code) of the
# four 256 MiB files and of both outside files, the two outside files read
# at the same time, the four big files read (1 GiB), the dirty file
# rewritten; then the arm, then HOLD seconds; the mapped file stays mapped
# and touched by a probe, the FIFO and the symlink stay in the tree.  What
# each outside file lost is counted twice: in the read phase (before the
# arm: nothing of upcd runs) and in the window (from just before the arm to
# HOLD after it), and split by the kernel's own record:
#
#   reclaimed  pages gone with a shadow entry (cachestat's nr_evicted): the
#              kernel's reclaim took them (kswapd, direct reclaim, DAMON's
#              pageout, MADV_PAGEOUT: all go through shrink_folio_list)
#   dropped    pages gone without one: invalidated (POSIX_FADV_DONTNEED,
#              drop_caches, truncation) - what upcd would leave
#
# The checks: each arm ran every run, and no outside page was ever
# *dropped*.  Reclaimed pages are counted and printed per arm, not checked:
# the host's reclaim is not ours.  With PERF=1 (needs perf) the kernel's
# reclaim_pages() calls (vmscan:mm_vmscan_reclaim_pages: the path of DAMON
# pageout and MADV_PAGEOUT, which /proc/vmstat's pgsteal_* does not count)
# are recorded system-wide, read only, and each loss is matched with the
# calls of the same moment and who made them.  The DAMON contexts running
# on the machine are printed (read from sysfs, never written).
#
#   tests/integration/outside-loop.sh [BUILD_DIR]     (make check-outside-loop)
#   RUNS=N      runs per arm (default 200: ~7 min for two arms on 2 vCPUs)
#   ARMS="..."  default "upcd none"; "upcd none dryrun" adds the third arm
#   HOLD=S      seconds between the arm and the count (default 0.5)
#   PERF=1      match the losses with the kernel's reclaim_pages() calls
#   LOG=FILE    one line per run (default build/integration/outside-loop.log)
#
# Needs root; touches only the loop filesystem and the files it makes under
# build/integration/, and removes them on exit.  Not in make check.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${1:-build}
RUNS=${RUNS:-200}
ARMS=${ARMS:-"upcd none"}
HOLD=${HOLD:-0.5}
TARGET=${TARGET:-64M}
PERF=${PERF:-0}
UPCD_HOOKED=$BUILD/integration/upcd-hooked
PROBE=${PROBE:-$BUILD/integration/probe}
LOG=${LOG:-build/integration/outside-loop.log}
# shellcheck source=tests/integration/lib.sh
. tests/integration/lib.sh
# shellcheck source=tests/integration/loopfs.sh
. tests/integration/loopfs.sh
loopfs_init outside-loop
outside=$work/outside

for prog in "$UPCD_HOOKED" "$PROBE"; do
	[ -x "$prog" ] || { fail "setup: $prog not built"; finish; }
done
[ "$(id -u)" -eq 0 ] || { fail "setup: needs root (loop device, mount)"; finish; }
"$PROBE" sum "$PROBE" >/dev/null 2>&1 || { fail "setup: cachestat(2) unavailable"; finish; }
case $RUNS in '' | *[!0-9]*) fail "setup: RUNS=$RUNS is not a number"; finish ;; esac
for arm in $ARMS; do
	case $arm in upcd | none | dryrun) ;; *) fail "setup: unknown arm $arm"; finish ;; esac
done
if [ "$PERF" = 1 ]; then
	if ! command -v perf >/dev/null || ! command -v python3 >/dev/null; then
		fail "setup: PERF=1 needs perf and python3"
		finish
	fi
fi

# The DAMON contexts running here, if any (read only).
damon_report() {
	local k c s
	for k in /sys/kernel/mm/damon/admin/kdamonds/[0-9]*; do
		[ "$(cat "$k/state" 2>/dev/null)" = on ] || continue
		for c in "$k"/contexts/[0-9]*; do
			for s in "$c"/schemes/[0-9]*; do
				[ -d "$s" ] || continue
				echo "     DAMON: kdamond pid $(cat "$k/pid"), $(cat "$c/operations")," \
					"action $(cat "$s/action"), age >= $(cat "$s/access_pattern/age/min")" \
					"x $(( $(cat "$c/monitoring_attrs/intervals/aggr_us") / 1000 )) ms," \
					"accesses <= $(cat "$s/access_pattern/nr_accesses/max")," \
					"quota $(cat "$s/quotas/bytes") B / $(cat "$s/quotas/reset_interval_ms") ms," \
					"watermarks $(cat "$s/watermarks/metric")"
			done
		done
	done
}

# ---- the adversarial test's tree --------------------------------------------
mib_pages() { echo $(( $1 * 1024 * 1024 / PAGE )); }
loopfs_mount 1600M commit=600
mkdir -p "$mnt/data" "$outside"
for i in 1 2 3 4; do
	dd if=/dev/zero of="$mnt/data/big$i" bs=1M count=256 status=none conv=fsync
done
dd if=/dev/urandom of="$mnt/data/mapped" bs=1M count=32 status=none conv=fsync
dd if=/dev/urandom of="$mnt/data/dirty" bs=1M count=16 status=none conv=fsync
mkfifo "$mnt/data/fifo"
# Outside the mount, on build/'s filesystem: one named by a symlink in the
# scope, one read at the same time and named by nothing.
dd if=/dev/urandom of="$outside/linked" bs=1M count=16 status=none conv=fsync
dd if=/dev/urandom of="$outside/plain" bs=1M count=16 status=none conv=fsync
ln -s "$outside/linked" "$mnt/data/link-out"
"$PROBE" map "$mnt/data/mapped" >"$work/map.out" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/map.out" ] && break; sleep 0.1; done
[ "$(cat "$work/map.out")" = ready ] || { fail "setup: mapper not ready"; finish; }
pass "setup: ext4 on $loop at $mnt, outside files on $(df --output=source "$outside" | tail -n 1)"
damon_report

full=$(mib_pages 16)
bigs=("$mnt/data/big1" "$mnt/data/big2" "$mnt/data/big3" "$mnt/data/big4")
vmkeys="pgsteal_kswapd pgsteal_direct drop_pagecache"
vmsnap() {
	awk -v keys="$vmkeys" 'BEGIN { n = split(keys, k, " "); for (i = 1; i <= n; i++) want[k[i]] = i }
		$1 in want { v[want[$1]] = $2 } END { for (i = 1; i <= n; i++) printf "%s ", v[i] + 0 }' /proc/vmstat
}
outside_stat() { "$PROBE" stat "$outside/linked" "$outside/plain" | awk '{ printf "%s %s ", $1, $4 }'; }
usec() { echo "${EPOCHREALTIME/./}"; }

# One run of ARM: the scene set again, then upcd (or not), then the count.
upcd_ms=50
run_arm() {
	local arm=$1 round=$2 before after vm0 vm1 t_read t0 t1 t_after scope rc=0 reader

	t_read=$(usec)
	"$PROBE" drop "${bigs[@]}" "$outside/linked" "$outside/plain"
	cat "$outside/linked" >/dev/null &
	reader=$!
	cat "$outside/plain" >/dev/null
	wait "$reader"
	cat "${bigs[@]}" >/dev/null
	dd if=/dev/urandom of="$mnt/data/dirty" bs=1M count=16 status=none conv=notrunc
	before=$(outside_stat)
	vm0=$(vmsnap)
	t0=$(usec)
	case $arm in
	upcd | dryrun)
		local dry=()
		[ "$arm" = dryrun ] && dry=(--dry-run)
		"$UPCD_HOOKED" --once "${dry[@]}" --backend=fadvise --scope="path:$mnt" \
			--target="$TARGET" --state "$work/state.json" >/dev/null 2>"$work/upcd.err" || rc=$?
		;;
	none) sleep "$(printf '%d.%03d' $((upcd_ms / 1000)) $((upcd_ms % 1000)))" ;;
	esac
	t1=$(usec)
	[ "$arm" = upcd ] && upcd_ms=$(( (t1 - t0) / 1000 ))
	sleep "$HOLD"
	after=$(outside_stat)
	t_after=$(usec)
	vm1=$(vmsnap)
	scope=$("$PROBE" sum "${bigs[@]}" | awk '{ print $1 }')
	# shellcheck disable=SC2086 # split on purpose
	set -- $vm0 $vm1
	local n=$(( $# / 2 )) deltas="" i j
	for ((i = 1; i <= n; i++)); do
		j=$((i + n))
		deltas+="$(( ${!j} - ${!i} )) "
	done
	echo "$arm $round $(( (t1 - t0) / 1000 )) $rc $before$after$deltas$scope $t_read $t0 $t_after" >>"$LOG"
}

{
	echo "# arm round ms rc, linked: cached evicted, plain: cached evicted (before the arm),"
	echo "# the same after HOLD, deltas over the window of $vmkeys,"
	echo "# the four big files' cached pages after, usec: read start, arm start, count"
} >"$LOG"
if [ "$PERF" = 1 ]; then
	perf record -q -a -k CLOCK_MONOTONIC -e vmscan:mm_vmscan_reclaim_pages \
		-o "$work/perf.data" >/dev/null 2>"$work/perf.err" &
	perf_pid=$!
	pids+=("$perf_pid")
	offsets=$(python3 -c 'import time; print(time.time_ns() // 1000 - time.monotonic_ns() // 1000)')
fi
start=$(date +%s)
for ((r = 1; r <= RUNS; r++)); do
	read -ra order <<<"$ARMS"
	# Alternate which arm goes first: a drift in the host's state over
	# the loop falls on both.
	((r % 2 == 0)) && mapfile -t order < <(printf '%s\n' "${order[@]}" | tac)
	for arm in "${order[@]}"; do run_arm "$arm" "$r"; done
	((r % 20 == 0)) && echo "     $r of $RUNS rounds, $(( $(date +%s) - start )) s"
done
echo "     $RUNS rounds of ($ARMS) in $(( $(date +%s) - start )) s; per run: $LOG"

# ---- the reclaim_pages() calls, matched with the runs ---------------------------
events=/dev/null
if [ "$PERF" = 1 ]; then
	offsets+=" $(python3 -c 'import time; print(time.time_ns() // 1000 - time.monotonic_ns() // 1000)')"
	kill -INT "$perf_pid"
	wait "$perf_pid"
	events=$work/events
	# "COMM USEC_REALTIME NR_RECLAIMED", the offset taken as the mean of
	# the one before and the one after the loop (their drift is printed).
	read -r off0 off1 <<<"$offsets"
	perf script -i "$work/perf.data" -F comm,time,trace 2>/dev/null |
		awk -v off=$(( (off0 + off1) / 2 )) '{
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; c = i }
			comm = $1; for (i = 2; i < c; i++) comm = comm "_" $i
			sub(/:$/, "", t); split(t, s, ".")
			for (i = c + 1; i <= NF; i++) if ($i ~ /^nr_reclaimed=/) { sub(/nr_reclaimed=/, "", $i); n = $i }
			printf "%s %.0f %d\n", comm, s[1] * 1000000 + s[2] + off, n
		}' >"$events"
	echo "     perf: $(wc -l <"$events") reclaim_pages() calls, $(awk '{ p[$1] += $3 } END { for (c in p) printf "%s %d pages; ", c, p[c] }' "$events")clock offset drift $(( off1 - off0 )) us"
fi

# ---- the count ------------------------------------------------------------------
# Per arm and outside file: read-phase and window losses, split into
# reclaimed (new shadow entries) and dropped (none); per arm the window's
# kernel counters; with PERF=1, how many losses had a reclaim_pages() call
# in the same phase and whose.
summary() {
	awk -v full="$full" -v arm="$1" -v events="$events" '
	BEGIN {
		while ((getline line < events) > 0) { split(line, e, " "); ne++; ec[ne] = e[1]; et[ne] = e[2]; en[ne] = e[3] }
	}
	# The processes whose reclaim_pages() took pages between @from and @to.
	function calls(from, to,    i, seen, who) {
		who = ""
		for (i = 1; i <= ne; i++)
			if (et[i] >= from && et[i] <= to && en[i] > 0 && !(ec[i] in seen)) {
				seen[ec[i]] = 1; who = who (who == "" ? "" : " ") ec[i]
			}
		return who
	}
	$1 != arm { next }
	{
		runs++; ms += $3; if ($4 != 0 && $4 != 3) bad_rc++
		if ($13 + $14 > 0) lru_runs++; if ($15 > 0) dc_runs++
		tr = $17; t0 = $18; ta = $19
		wcalls = ne ? calls(t0, ta) : ""; rcalls = ne ? calls(tr, t0) : ""
		if (wcalls != "") win_calls++
		for (f = 0; f < 2; f++) {
			b = $(5 + 2 * f); be = $(6 + 2 * f); a = $(9 + 2 * f); ae = $(10 + 2 * f)
			# The read phase: from whole (the drop and the read) to before.
			if (b < full) {
				rl[f]++; rlp[f] += full - b; rrec[f] += (be < full - b ? be : full - b)
				if (ne && rcalls != "") rmatch[f]++
			}
			if (b != full || be != 0) continue
			lost = full - a; ev = ae - be
			if (lost <= 0) continue
			wl[f]++; wlp[f] += lost; if (lost > maxl[f]) maxl[f] = lost
			rec = ev < lost ? ev : lost; wrec[f] += rec; dropped[f] += lost - rec
			if (lost - rec > 0) dropruns[f]++
			if (ne && wcalls != "") { wmatch[f]++; who[wcalls]++ }
		}
	}
	END {
		printf "%-6s %d runs (arm %d ms mean, %d bad exits); LRU reclaim (pgsteal) in %d windows, drop_caches in %d",
			arm, runs, runs ? ms / runs : 0, bad_rc, lru_runs, dc_runs
		if (ne) printf "; reclaim_pages() in %d windows", win_calls
		printf "\n"
		split("linked plain", name, " ")
		for (f = 0; f < 2; f++) {
			printf "       %-6s read phase: %d runs lost %d pages (%d reclaimed)", name[f + 1], rl[f], rlp[f], rrec[f]
			if (ne) printf ", %d of them beside a reclaim_pages()", rmatch[f]
			printf "; window: %d runs lost %d pages (at most %d): %d reclaimed, %d dropped (%d runs)",
				wl[f], wlp[f], maxl[f], wrec[f], dropped[f], dropruns[f]
			if (ne) printf ", %d beside a reclaim_pages()", wmatch[f]
			printf "\n"
		}
		for (w in who) printf "       window losses beside reclaim_pages() by %s: %d\n", w, who[w]
		print (dropped[0] + dropped[1] > 0 ? "DROPPED" : "clean"), runs + 0 > "/dev/stderr"
	}' "$LOG"
}
# The instrument's positive control: DONTNEED, upcd's only drop, done by
# the test to the linked file must count as dropped (no shadow entry).
"$PROBE" drop "$outside/linked"
cat "$outside/linked" >/dev/null
read -r c0 e0 _ _ <<<"$(outside_stat)"
"$PROBE" drop "$outside/linked"
read -r c1 e1 _ _ <<<"$(outside_stat)"
check "positive control: a DONTNEED of the linked file counts as dropped ($c0 -> $c1 pages, $((e1 - e0)) shadow entries)" \
	test "$c0" -eq "$full" -a "$c1" -eq 0 -a "$e1" -eq "$e0"
for arm in $ARMS; do
	summary "$arm" 2>"$work/verdict"
	read -r verdict nruns <"$work/verdict"
	check "$arm: ran all $RUNS runs (${nruns:-0})" test "${nruns:-0}" -eq "$RUNS"
	check "$arm: no page of an outside file dropped (lost without the kernel's shadow entry)" \
		test "$verdict" = clean
done
finish
