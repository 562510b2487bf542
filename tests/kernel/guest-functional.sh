#!/bin/sh
# guest-functional.sh MODE SLACK [RESULTS [KSWAPD_MAX_DIFF_MS [TIMING]]]
#
# Runs inside the UML guest (busybox sh, started by tests/guest/uml-run.sh
# from tests/kernel/run-functional.sh).  MODE is "on" (the kernel was booted
# with unmapped_page_control) or "off" (it was not).  SLACK is the number of
# pages by which a sample may exceed the bound (see run-functional.sh for
# why).  RESULTS, if given, is a directory for the per-sample traces.
#
# /dev/ubda is the ext4 data disk made by run-functional.sh: stream/0..3,
# 256 MiB each, 1 GiB in all: four times the guest's 256 MiB of RAM.
# Every check prints "PASS name: ..." or "FAIL name: ..."; the last line is
# "CHECKS-DONE" so the host knows the script was not cut short.
#
# The SMP suite (run-functional.sh --smp) runs this in the x86_64 QEMU guest
# and says so through the environment:
#   KTEST_DISK=/dev/vda   the data disk [/dev/ubda]
#   KTEST_STREAMS=N       stream only the first N files (N x 256 MiB) [all]
#   KTEST_SMP=1           the guest must have 2 CPUs (nproc), the kernel is
#                         NUMA (x86_64.config), and the concurrency cases run
#   KTEST_SET=reduced     the debug set: MGLRU only, the bound, counters,
#                         toggle and concurrency cases [full]
mode=$1
slack=$2
results=${3:-/tmp}
# kswapd's CPU allowance, control on vs off, with dirty cache over the
# limit: 100 ms over 10 s; the debug (KASAN, lockdep) suite passes more.
kswapd_max_diff_ms=${4:-100}
# TIMING "info" (the debug kernels): ktest reports the checks that measure
# how fast kswapd keeps up instead of checking them (KTEST_TIMING, ktest.c).
# An argument, not the environment: UML's init passes none through.
export KTEST_TIMING=${5:-${KTEST_TIMING:-check}}
vm=/proc/sys/vm
failed=0
disk=${KTEST_DISK:-/dev/ubda}
smp=${KTEST_SMP:-0}
set=${KTEST_SET:-full}

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failed=1; }
check() {
	# check NAME DETAILS COMMAND...: PASS if COMMAND succeeds.
	name=$1
	details=$2
	shift 2
	if "$@"; then pass "$name: $details"; else fail "$name: $details"; fi
}

vmstat_get() {
	v=$(grep "^$1 " /proc/vmstat | cut -d' ' -f2)
	echo "${v:-0}"
}

run_ktest() {
	ktest "$@" || failed=1
}

# The LRU that reclaim goes through: y = multi-gen LRU, n = classic.
set_lru_gen() {
	if ! echo "$1" >/sys/kernel/mm/lru_gen/enabled 2>/dev/null; then
		fail "lru_gen_$1: cannot write $1 to /sys/kernel/mm/lru_gen/enabled"
		return 1
	fi
	echo "INFO lru_gen enabled = $(cat /sys/kernel/mm/lru_gen/enabled)"
}

# Each stream starts from the same state: nothing of the data disk cached.
fresh_cache() {
	echo 3 >$vm/drop_caches
}

# stream NAME [--all] KTEST-OPTIONS...: --all streams all_files.
# What the control must not move (issue 9, item 2): reclaim's side effects.
# dentries: the first field of dentry-state, of which a stream must not
# make the kernel drop more with the control than without.
side_counters="slabs_scanned nr_vmscan_write pgrotated pgdemote_kswapd pgdemote_direct"
side_snapshot() {
	for c in $side_counters; do
		printf '%s ' "$(vmstat_get $c)"
	done
	cut -f1 /proc/sys/fs/dentry-state
}

# side_report NAME BEFORE AFTER: "SIDE NAME COUNTER DELTA" lines, which
# run-functional.sh compares between the on and the off boot.
side_report() {
	set -- "$1" $2 $3
	name=$1
	shift
	n=$(echo $side_counters | wc -w)
	i=1
	for c in $side_counters dentries_dropped; do
		eval "b=\${$i}"
		eval "a=\${$((i + n + 1))}"
		if [ $c = dentries_dropped ]; then
			d=$((b > a ? b - a : 0))
		else
			d=$((a - b))
		fi
		echo "SIDE $name $c $d"
		i=$((i + 1))
	done
}

stream() {
	name=$1
	shift
	these=$files
	[ "${1:-}" = --all ] && { these=$all_files; shift; }
	fresh_cache
	side_before=$(side_snapshot)
	run_ktest stream --name "$name" --slack "$slack" \
		--trace "$results/$mode-$name.csv" "$@" $these
	side_report "$name" "$side_before" "$(side_snapshot)"
}

# Run a command inside cgroup $1 (page cache it brings in is charged there).
in_cgroup() {
	cg=$1
	shift
	sh -c "echo \$\$ >/sys/fs/cgroup/$cg/cgroup.procs && $*"
}

memcg_case() {
	mkdir -p /sys/fs/cgroup
	grep -q " /sys/fs/cgroup cgroup2 " /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/prot /sys/fs/cgroup/open
	echo 32M >/sys/fs/cgroup/prot/memory.min
	for cg in prot open; do
		in_cgroup $cg dd if=/dev/zero of=/data/$cg.bin bs=1M count=16 conv=fsync 2>/dev/null
	done
	fresh_cache
	for cg in prot open; do
		in_cgroup $cg cat /data/$cg.bin ">/dev/null"
	done
	before_p=$(ktest cached /data/prot.bin)
	before_o=$(ktest cached /data/open.bin)
	for f in $files; do cat $f >/dev/null; done
	after_p=$(ktest cached /data/prot.bin)
	after_o=$(ktest cached /data/open.bin)
	# The sibling is reported, not checked: the pass walks the memcgs
	# from the root and stops when its ask is met, so a small sibling is
	# taken only when the root runs short (not proportional yet).
	echo "INFO on_memcg_lru_gen_$1: unprotected sibling $before_o -> $after_o of 4096 pages cached"
	check on_memcg_min_protected_cache_kept_lru_gen_$1 \
		"memory.min 32M: $before_p -> $after_p of 4096 pages cached" \
		test "$before_p" = 4096 -a "$after_p" = 4096
	rm -f /data/prot.bin /data/open.bin
}

# SMP: two readers pinned to CPU 0 and 1 stream while a third process
# writes the sysctls every 20 ms for 6 s; then 3 s with the control on and
# the ratio back, in which the bound must hold again (ktest concurrent).
concurrency_cases() {
	[ "$smp" = 1 ] || return 0
	set_lru_gen "$1" || return 0
	fresh_cache
	run_ktest concurrent --name ${mode}_smp_flip_ratio_lru_gen_$1 --flip ratio \
		--seconds 6 --flip-ms 20 --slack "$slack" $all_files
	fresh_cache
	run_ktest concurrent --name ${mode}_smp_flip_control_lru_gen_$1 --flip control \
		--seconds 6 --flip-ms 20 --slack "$slack" $all_files
}

case "$mode" in
on|off) ;;
*) fail "usage: guest-functional.sh on|off SLACK [RESULTS]"; echo CHECKS-DONE; exit 2 ;;
esac

mkdir -p /data
if ! mount -t ext4 -o noatime $disk /data; then
	fail "${mode}_data_disk: cannot mount $disk"
	echo CHECKS-DONE
	exit 1
fi
# files: what one-pass streams read (KTEST_STREAMS of them); all_files:
# what the timed streams (toggle, concurrency) loop over.  A timed stream
# over one 256 MiB file re-reads each page after ~1 x RAM, which the
# series counts as refaults (boosting its low limit) and its stall backoff
# may follow: over all four (1 GiB) a re-read comes 4 x RAM later, as in
# UML.
files=
all_files=
n=0
for f in /data/stream/*; do
	n=$((n + 1))
	all_files="$all_files $f"
	[ -n "${KTEST_STREAMS:-}" ] && [ $n -gt "$KTEST_STREAMS" ] && continue
	files="$files $f"
done

# The dirty-file check needs the flusher asleep: no periodic writeback, no
# expiry, and background writeback far above the few MiB dirtied here.
echo 0 >$vm/dirty_writeback_centisecs
echo 360000 >$vm/dirty_expire_centisecs
echo 80 >$vm/dirty_ratio
echo 50 >$vm/dirty_background_ratio

# On this non-NUMA kernel the ratio sysctl must exist (the seed tested a
# misspelt config symbol and lost it).  Rewriting it makes the kernel
# recompute min_unmapped_pages from today's managed pages, which is what
# ktest computes the bound from.
if [ "$smp" = 1 ]; then
	# Two CPUs, or the concurrency cases prove nothing (a tinyconfig guest
	# given -smp 2 without sockets=2 boots with one).
	check "${mode}_two_cpus" "nproc = $(nproc) (want 2)" test "$(nproc)" = 2
	# x86_64.config is NUMA: the per-node path runs, and the stock
	# sysctl beside it is there.
	check "${mode}_numa_kernel" "$vm/zone_reclaim_mode present (CONFIG_NUMA on)" \
		test -e $vm/zone_reclaim_mode
else
	check "${mode}_non_numa_kernel" "no $vm/zone_reclaim_mode (CONFIG_NUMA off)" \
		test ! -e $vm/zone_reclaim_mode
fi
check "${mode}_min_unmapped_ratio_present" "$vm/min_unmapped_ratio = $(cat $vm/min_unmapped_ratio 2>&1)" \
	test -f $vm/min_unmapped_ratio
echo 1 >$vm/min_unmapped_ratio
bound=$(ktest bound) && echo "INFO $bound" || fail "${mode}_bound: $bound"
check "${mode}_control_sysctl_present" "$vm/unmapped_page_control = $(cat $vm/unmapped_page_control 2>&1)" \
	test -f $vm/unmapped_page_control

if [ "$mode" = on ]; then
	check on_boot_param_sets_control "unmapped_page_control on the command line -> sysctl 1" \
		test "$(cat $vm/unmapped_page_control)" = 1

	# The valid write of the input checks sets the switch: put the boot
	# value back, so that what follows tests what the boot parameter did.
	boot_control=$(cat $vm/unmapped_page_control)
	run_ktest sysctl-reject unmapped_page_control 1
	echo "$boot_control" >$vm/unmapped_page_control
	run_ktest sysctl-reject min_unmapped_ratio 3
	echo 1 >$vm/min_unmapped_ratio

	set_lru_gen y
	stream on_lru_gen --expect bounded --counters rise \
		--mmap /data/mapped:16 --dirty /data/dirty:8
	if [ "$set" = full ]; then
		set_lru_gen n
		stream on_classic_lru --expect bounded --counters rise \
			--mmap /data/mapped2:16 --dirty /data/dirty2:8
		set_lru_gen y
	fi

	# on -> off -> on while the stream runs.
	stream on_toggle --all --toggle

	concurrency_cases y
	[ "$set" = full ] && concurrency_cases n
	set_lru_gen y
fi
if [ "$mode" = on ] && [ "$set" = full ]; then
	cb0=$(vmstat_get kswapd_unmapped_compact)
	mb0=$(vmstat_get compact_migrate_scanned)
	# At ratio 2 the bound doubles: the peak must pass the ratio-1 bound
	# and still stay under its own.  Sampled every 10 ms: the cache
	# saw-tooths between kswapd's target and the wake trigger, a tooth
	# every ~400 ms, and a fast host reads the 1 GiB in 0.8 s, so the
	# usual 100 ms samples (8 of them) can all miss the tops.
	echo 2 >$vm/min_unmapped_ratio
	bound=$(ktest bound) && echo "INFO $bound" || fail "on_ratio_2_bound: $bound"
	stream on_ratio_2 --expect bounded --peak-above-ratio 1 --interval-ms 10
	echo 1 >$vm/min_unmapped_ratio

	# v3 (issue 9): a 16 MiB hot set re-read about once a second keeps a
	# hit ratio >= 0.99 on both LRUs while the data disk streams past at
	# full speed for 10 s (several GiB, far more than 2 x RAM), and 95% of
	# the 100 ms samples stay within 1.25 x the wake limit (the largest is
	# reported: under a busy host kswapd can be late for a moment at full
	# speed, docs/development.md "Timing-dependent checks").
	for lru in y n; do
		set_lru_gen $lru
		fresh_cache
		run_ktest hotset --name on_hotset_lru_gen_$lru --hot /data/hot:16 \
			--seconds 10 --expect-hit 0.99 --peak-factor 1.25 $files
	done
	set_lru_gen y

	# Backoff (issue 9, item 1): a 64 MiB hot set, 1.7 x the 38 MiB wake
	# limit, read once and then re-read each second while the disk
	# streams at 16 MiB/s (the host benchmark's W3 in small).  Refaults of
	# what the control evicted raise its limits (the wake limit up to half
	# of RAM, 3.1 x; 3.5 x allows the bound's overshoot), so the hot set
	# stays; once the re-reads stop the raise falls back to the configured
	# limit (the idle trim drops it).  The classic LRU counts them by
	# refault distance in its shadow entries and activates them; once
	# the raise is gone the control ages the active list (at most every
	# 5 s, what was not used since goes), so the cache too comes back
	# under the wake limit.  MGLRU counts them in the control's own record
	# of one eviction in 32, and a hot page read once since its refault
	# is as evictable as the stream, so it keeps less: 0.93-0.95 in UML
	# (0.113 without the record), 0.85, 0.93 and 0.85 in the SMP guest;
	# checked at 0.7, far above thrashing.  The series does not age
	# MGLRU, so its cache after the re-reads stop is reported only.
	set_lru_gen n
	fresh_cache
	run_ktest hotset --name on_backoff_lru_gen_n --hot /data/hot:64 \
		--warm 1 --rate 16 --seconds 20 --expect-hit 0.9 \
		--peak-factor 3.5 --decay-ms 15000 --cache-back-ms 25000 $files
	set_lru_gen y
	fresh_cache
	run_ktest hotset --name on_backoff_lru_gen_y --hot /data/hot:64 \
		--warm 1 --rate 16 --seconds 20 --expect-hit 0.7 \
		--peak-factor 3.5 --decay-ms 15000 --cache-back-ms 25000 \
		--cache-back-info $files

	# Dirty cache over the limit, writeback held off (above): kswapd's
	# CPU with the control on is at most 0.1 s more than off over 10 s.
	fresh_cache
	run_ktest kswapd-cpu --name on_dirty_over_limit --dirty /data/dirty3:80 \
		--seconds 10 --max-diff-ms "$kswapd_max_diff_ms" /data/stream/2

	# Once the I/O stops the cache comes down to the low limit within
	# 10 s, with nothing allocating (the control's delayed trim).  The
	# last 24 MiB read leave the count between the limits (2.4 and 39 MiB
	# at ratio 1), where no allocation wakes kswapd.
	for lru in y n; do
		set_lru_gen $lru
		fresh_cache
		run_ktest trim --name on_trim_lru_gen_$lru --within-ms 10000 \
			--then /data/stream/0:24 /data/stream/3
	done
	set_lru_gen y

	# memcg protection: 16 MiB read once by a cgroup with memory.min stays
	# cached through a stream (a sibling without protection is reported).
	for lru in y n; do
		set_lru_gen $lru
		memcg_case $lru
	done
	set_lru_gen y

	# A mapped file left untouched during the stream stays resident
	# (the off boot shows that stock reclaim would take it).
	# kswapd asks for compaction at most every 5 s: wait that out, so
	# that a request by the cases before cannot hide these streams' own.
	sleep 6
	c0=$(vmstat_get kswapd_unmapped_compact)
	m0=$(vmstat_get compact_migrate_scanned)
	for lru in y n; do
		set_lru_gen $lru
		fresh_cache
		run_ktest mapped --name on_untouched_lru_gen_$lru --mmap /data/mapped3:16 \
			--expect resident /data/stream/0 /data/stream/1
	done
	set_lru_gen y

	# Item 4: what the control frees is compacted (kcompactd, at most
	# every 5 s after 4 pageblocks freed), so that free page reporting can
	# hand back whole blocks; the untouched mappings above stayed resident
	# through it (compaction migrates, it does not evict).
	c1=$(vmstat_get kswapd_unmapped_compact)
	m1=$(vmstat_get compact_migrate_scanned)
	echo "INFO on_compact: compact_free_scanned $(vmstat_get compact_free_scanned)," \
		"compact_isolated $(vmstat_get compact_isolated) since boot"
	# Over the full set's streams (several GiB) the control asks for
	# compaction many times; over the two untouched-mapping streams alone
	# it asked once in most runs and not at all in one of five (20 -> 20,
	# a cold make check; why is not known), so the request is checked over
	# the set and the mapping window is reported.
	check on_compact_requested "kswapd_unmapped_compact $cb0 -> $c1 over the full set's streams" \
		test "$c1" -gt "$cb0"
	echo "INFO on_compact_mapped_window: kswapd_unmapped_compact $c0 -> $c1 over the untouched-mapping streams"
	# Whether kcompactd then migrates depends on fragmentation (it may
	# find the node compact enough, or be deferred): reported, not checked
	# (it did not move in 2 of 4 runs).
	echo "INFO on_compact_ran: compact_migrate_scanned $m0 -> $m1 over the mapping window," \
		"$mb0 -> $m1 over the set"
fi
if [ "$mode" = off ]; then
	check off_no_boot_param "no unmapped_page_control on the command line -> sysctl 0" \
		test "$(cat $vm/unmapped_page_control)" = 0
	echo 0 >$vm/unmapped_page_control

	set_lru_gen y
	stream off_lru_gen --expect unbounded --counters flat
	if [ "$set" = full ]; then
		set_lru_gen n
		stream off_classic_lru --expect unbounded --counters flat
		set_lru_gen y
	fi

	# Runtime enable without the boot parameter: off -> on -> off.
	stream off_toggle --all --toggle

	# The concurrency cases switch the control on themselves (and back
	# off): on this boot the static key is flipped with both CPUs busy.
	concurrency_cases y
	[ "$set" = full ] && concurrency_cases n
	set_lru_gen y
fi
if [ "$mode" = off ] && [ "$set" = full ]; then
	# The comparison for the hot set cases: the same run without the
	# control (reported, not checked).
	for lru in y n; do
		set_lru_gen $lru
		fresh_cache
		run_ktest hotset --name off_hotset_lru_gen_$lru --hot /data/hot:16 \
			--seconds 10 $files
	done

	# The negative control for "mapped pages are never evicted": without
	# the control, stock reclaim under the stream's pressure takes part
	# of a mapping nobody touches (classic LRU).
	set_lru_gen n
	fresh_cache
	run_ktest mapped --name off_untouched_lru_gen_n --mmap /data/mapped3:16 \
		--expect evicted /data/stream/0 /data/stream/1 /data/stream/2
	set_lru_gen y
fi

umount /data
echo CHECKS-DONE
exit $failed
