#!/usr/bin/env bash
# damon-pageout.sh - who takes pages of a file nobody evicts?  No upcd here.
#
# Issue 32's outside file lost pages with and without upcd
# (tests/integration/outside-loop.sh), each lost page leaving a shadow entry
# (the kernel's reclaim) while /proc/vmstat's pgsteal_* stayed at 0.  This
# names the reclaimer page by page: it reads four 16 MiB files, notes the
# physical page (PFN) each page of them lies in (probe pfns: mapped and
# unmapped again at once), waits WAIT seconds, lists the pages gone (probe
# missing), and matches each with the physical regions a DAMON scheme
# applied its action to meanwhile (the damon:damos_before_apply tracepoint,
# recorded system-wide by perf; DAMON's sysfs is only read, never written).
#
# DAMON's paddr pageout takes every unmapped file folio of a region it
# judges cold, however recently read, and a folio that reaches into the
# region goes whole: so a lost page is inside an applied region, or in the
# same folio as a page that is (file and physical pages both consecutive).
# The check: every lost page is one or the other, or no page is lost.
#
#   tests/integration/damon-pageout.sh [BUILD_DIR]    (make check-damon-pageout)
#   RUNS=N   reads (default 30, ~3.5 min)      WAIT=S   seconds after each (6)
#
# Needs root (PFNs, perf -a); touches only its files under build/integration/.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${1:-build}
RUNS=${RUNS:-30}
WAIT=${WAIT:-6}
PROBE=${PROBE:-$BUILD/integration/probe}
# shellcheck source=tests/integration/lib.sh
. tests/integration/lib.sh

mkdir -p build/integration
work=$(mktemp -d "$PWD/build/integration/damon-pageout.XXXXXX")
perf_pid=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -n "$perf_pid" ] && kill -INT "$perf_pid" 2>/dev/null && wait "$perf_pid"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ -x "$PROBE" ] || { fail "setup: $PROBE not built"; finish; }
[ "$(id -u)" -eq 0 ] || { fail "setup: needs root (PFNs, perf -a)"; finish; }
for tool in perf python3; do
	command -v "$tool" >/dev/null || { fail "setup: needs $tool"; finish; }
done
damon=0
for k in /sys/kernel/mm/damon/admin/kdamonds/[0-9]*; do
	[ "$(cat "$k/state" 2>/dev/null)" = on ] || continue
	damon=$((damon + 1))
	for s in "$k"/contexts/[0-9]*/schemes/[0-9]*; do
		[ -d "$s" ] && echo "     DAMON: kdamond pid $(cat "$k/pid"), action $(cat "$s/action")," \
			"age >= $(cat "$s/access_pattern/age/min") aggregations"
	done
done
[ "$damon" -gt 0 ] || echo "     no kdamond running: any page lost below is unexplained"

files=()
for i in 1 2 3 4; do
	dd if=/dev/urandom of="$work/f$i" bs=1M count=16 status=none conv=fsync
	files+=("$work/f$i")
done
off0=$(python3 -c 'import time; print(time.time_ns() // 1000 - time.monotonic_ns() // 1000)')
perf record -q -a -k CLOCK_MONOTONIC -e damon:damos_before_apply -o "$work/perf.data" \
	>/dev/null 2>"$work/perf.err" &
perf_pid=$!
sleep 1
: >"$work/runs"
start=$(date +%s)
for ((r = 1; r <= RUNS; r++)); do
	"$PROBE" drop "${files[@]}"
	t0=${EPOCHREALTIME/./}
	cat "${files[@]}" >/dev/null
	for i in 1 2 3 4; do "$PROBE" pfns "$work/f$i" | sed "s/^/$r $i /"; done >>"$work/pfns"
	sleep "$WAIT"
	for i in 1 2 3 4; do "$PROBE" missing "$work/f$i" | sed "s/^/$r $i /"; done >>"$work/missing"
	shadow=$("$PROBE" sum "${files[@]}" | awk '{ print $4 }')
	echo "$r $t0 ${EPOCHREALTIME/./} $shadow" >>"$work/runs"
done
off1=$(python3 -c 'import time; print(time.time_ns() // 1000 - time.monotonic_ns() // 1000)')
kill -INT "$perf_pid"
wait "$perf_pid"
perf_pid=
echo "     $RUNS reads in $(( $(date +%s) - start )) s"

# "COMM USEC START END" per region a scheme was applied to.
perf script -i "$work/perf.data" -F comm,time,trace 2>/dev/null |
	awk -v off=$(( (off0 + off1) / 2 )) '{
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) c = i
		t = $c; sub(/:$/, "", t); split(t, s, ".")
		for (i = c + 1; i <= NF; i++) if ($i ~ /^[0-9]+-[0-9]+:$/) {
			sub(/:$/, "", $i); split($i, a, "-")
			printf "%s %.0f %s %s\n", $1, s[1] * 1000000 + s[2] + off, a[1], a[2]
		}
	}' >"$work/regions"
touch "$work/missing"
# Each lost page: inside an applied region of its read, or in the same
# folio as one that is (a run of lost pages consecutive both in the file
# and in physical memory, as a large folio is, that reaches into one).
sort -k1,1n -k2,2n -k3,3n "$work/missing" >"$work/missing.sorted"
result=$(awk -v page="$PAGE" '
	FILENAME ~ /runs$/ { t0[$1] = $2; t1[$1] = $3; shadow += $4 }
	FILENAME ~ /regions$/ { n++; who[n] = $1; at[n] = $2; lo[n] = $3; hi[n] = $4 }
	FILENAME ~ /pfns$/ { pfn[$1 " " $2 " " $3] = $4 }
	function inside(r, addr,    i) {
		for (i = 1; i <= n; i++)
			if (at[i] >= t0[r] && at[i] <= t1[r] && addr >= lo[i] && addr < hi[i]) return who[i]
		return ""
	}
	function nearest(r, addr,    i, d, best, s) {
		best = -1
		for (i = 1; i <= n; i++) if (at[i] >= t0[r] && at[i] <= t1[r]) {
			d = addr < lo[i] ? lo[i] - addr : addr - hi[i] + page
			if (best < 0 || d < best) { best = d; s = sprintf("%.0f B %s %.0f-%.0f", d, addr < lo[i] ? "below" : "above", lo[i], hi[i]) }
		}
		return s
	}
	function close_group(    i) {
		if (!ng) return
		for (i = 1; i <= ng; i++) {
			if (gw[i] != "") { in_++; by[gw[i]]++ }
			else if (gany) folio++
			else { none++; if (none <= 5) printf "unexplained: read %s file %s page %s pfn %s, nearest region %s\n", gr, gf, gi[i], gp[i], nearest(gr, gp[i] * page) > "/dev/stderr" }
		}
		ng = 0; gany = 0
	}
	FILENAME ~ /sorted$/ {
		lost++; runs[$1] = 1; p = pfn[$1 " " $2 " " $3]
		if (!(ng && $1 == gr && $2 == gf && $3 == gi[ng] + 1 && p == gp[ng] + 1)) close_group()
		gr = $1; gf = $2; ng++; gi[ng] = $3; gp[ng] = p; gw[ng] = inside($1, p * page)
		if (gw[ng] != "") gany = 1
	}
	END {
		close_group()
		for (r in runs) nruns++
		printf "%d %d %d %d %d", lost, in_, folio, nruns, shadow
		for (w in by) printf " %s", w
		printf "\n"
	}' "$work/runs" "$work/regions" "$work/pfns" "$work/missing.sorted")
read -r lost inside folio nruns shadow whom <<<"$result"
echo "     $nruns of $RUNS reads lost pages: $lost pages ($shadow shadow entries left);" \
	"$inside inside a region DAMON applied its scheme to in that read (${whom:-nobody})," \
	"$folio in the same folio as such a page"
check "every lost page lay where DAMON paged out ($((inside + folio)) of $lost)" \
	test $((inside + folio)) -eq "$lost"
finish
