#!/bin/busybox sh
# Scenario (i): DAMOS "pageout" on the guest's physical address space, in
# the strongest form the guest's kernel allows for a page cache bound.
#
# Linux 6.12 ("6.12 form"): its DAMOS filters are anon, memcg, young, addr
# and target (no "unmapped" or "mapped" type), so the scheme excludes
# anonymous pages (an "anon" filter with matching=Y filters them out) and
# pages out every cold file page, mapped or not, at a fixed quota.
#
# Linux 6.15+ (the stock 7.3 guest, "7.3 form", chosen when the kernel
# accepts the "unmapped" filter type): what a DAMON maintainer would set up
# today (issue 35 item 5).  Filters reject anon, reject mapped ("unmapped"
# with matching=N) and reject pages accessed since DAMON last looked
# ("young"), the same three upcd's damon backend installs; the quota is
# charged only for what was paged out (fail_charge 0/1) and tuned by a
# quota goal, node_mem_free_bp 5000: the quota grows (up to 2x a window)
# while less than half of the node is free and shrinks once more is.  In
# W5 half the guest free leaves about the file cache upcd and the series
# keep (150-220 MiB of 512); a global free target knows nothing of the
# working set, so it is a per-workload setting that a bound of unmapped
# cache is not.  No some_mem_psi_us goal (DAMON_RECLAIM's
# quota_mem_pressure_us): tried with 1000 us per 1 s (TMO's 0.1%), the
# stalls of W1's scan under TCG drove the quota to 15 KiB, and the PSI
# agent (h), on the same signal, gave nothing back in W5.
#
# What it does to mapped file pages (6.12 form): pageout on paddr isolates
# the cold region's folios and hands them to reclaim_pages(), which unmaps a
# mapped folio and frees it (ignore_references).  6.12 adds a page-level
# "young" filter by default, so a mapped page whose PTE was referenced since
# DAMON last sampled it is skipped; one touched less often than that is
# evicted.  The benchmark's mapped-file column shows which happened.
#
#   damos-pageout.sh start | stats | stop
#
# Parameters (DAMON_RECLAIM's, time-scaled to the bench's 30-60 s phases):
#   intervals   sample 5 ms, aggregate 100 ms, regions update 1 s (defaults)
#   regions     10..1000 (defaults), over the biggest "System RAM" range
#   pattern     any size, 0 accesses per aggregation, age >= 5 s (50 aggr.)
#               (DAMON_RECLAIM: 120 s)
#   quota       128 MiB per 1 s (DAMON_RECLAIM: 128 MiB/s, and 10 ms CPU);
#               in the 7.3 form the most the goals may tune it up to
#   watermarks  none: always on (DAMON_RECLAIM starts below 40% free memory;
#               in W1 the guest gets there within seconds anyway)
# "stats" prints "nr_applied N sz_applied BYTES" of the scheme (and, 7.3
# form, the quota the goals tuned it to: "esz BYTES").
set -e
A=/sys/kernel/mm/damon/admin
K=$A/kdamonds/0
C=$K/contexts/0
S=$C/schemes/0

case ${1:-} in
start)
	[ -d $A ] || { echo "damos-pageout: no $A (CONFIG_DAMON_SYSFS)" >&2; exit 1; }
	# the biggest top-level System RAM range of /proc/iomem
	range=$(awk '/^[0-9a-f]+-[0-9a-f]+ : System RAM$/ { split($1, r, "-"); print r[1], r[2] }' /proc/iomem |
		while read -r s e; do echo "$(( 0x$e - 0x$s + 1 )) $((0x$s)) $((0x$e + 1))"; done |
		sort -n | tail -n 1)
	set -- $range
	[ -n "${3:-}" ] || { echo "damos-pageout: no System RAM in /proc/iomem" >&2; exit 1; }
	echo 1 >$A/kdamonds/nr_kdamonds
	echo 1 >$K/contexts/nr_contexts
	echo paddr >$C/operations
	echo 5000 >$C/monitoring_attrs/intervals/sample_us
	echo 100000 >$C/monitoring_attrs/intervals/aggr_us
	echo 1000000 >$C/monitoring_attrs/intervals/update_us
	echo 1 >$C/targets/nr_targets
	echo 1 >$C/targets/0/regions/nr_regions
	echo "$2" >$C/targets/0/regions/0/start
	echo "$3" >$C/targets/0/regions/0/end
	echo 1 >$C/schemes/nr_schemes
	echo pageout >$S/action
	# every range defaults to 0-0 in sysfs: set both ends
	echo 4096 >$S/access_pattern/sz/min
	echo 18446744073709551615 >$S/access_pattern/sz/max
	echo 0 >$S/access_pattern/nr_accesses/min
	echo 0 >$S/access_pattern/nr_accesses/max
	echo 50 >$S/access_pattern/age/min
	echo 4294967295 >$S/access_pattern/age/max
	echo $((128 << 20)) >$S/quotas/bytes
	echo 1000 >$S/quotas/reset_interval_ms
	echo none >$S/watermarks/metric
	echo 1 >$S/filters/nr_filters
	echo anon >$S/filters/0/type
	echo Y >$S/filters/0/matching
	form=6.12
	if [ -e $S/filters/0/allow ] && echo 3 >$S/filters/nr_filters &&
		echo unmapped >$S/filters/1/type 2>/dev/null; then
		form=7.3
		i=0
		for f in "anon Y" "unmapped N" "young Y"; do
			set -- $f
			echo "$1" >$S/filters/$i/type
			echo "$2" >$S/filters/$i/matching
			echo N >$S/filters/$i/allow
			i=$((i + 1))
		done
		echo 0 >$S/quotas/fail_charge_num
		echo 1 >$S/quotas/fail_charge_denom
		echo 1 >$S/quotas/goals/nr_goals
		echo node_mem_free_bp >$S/quotas/goals/0/target_metric
		echo 5000 >$S/quotas/goals/0/target_value
		echo 0 >$S/quotas/goals/0/nid
	elif [ -e $S/filters/0/allow ]; then
		echo 1 >$S/filters/nr_filters
	fi
	echo "$form" >/tmp/damos-form
	echo on >$K/state
	echo "damos-pageout: on ($form form), paddr $2-$3, kdamond pid $(cat $K/pid)"
	;;
stats)
	echo update_schemes_stats >$K/state
	esz=
	[ -e $S/quotas/effective_bytes ] && [ "$(cat /tmp/damos-form 2>/dev/null)" = 7.3 ] &&
		echo update_schemes_effective_quotas >$K/state 2>/dev/null &&
		esz=" esz $(cat $S/quotas/effective_bytes)"
	echo "nr_applied $(cat $S/stats/nr_applied) sz_applied $(cat $S/stats/sz_applied)" \
		"nr_tried $(cat $S/stats/nr_tried) sz_tried $(cat $S/stats/sz_tried)$esz"
	;;
stop)
	echo off >$K/state
	;;
*)
	echo "usage: damos-pageout.sh start|stats|stop" >&2
	exit 2
	;;
esac
