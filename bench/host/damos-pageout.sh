#!/bin/busybox sh
# Scenario (i): DAMOS "pageout" on the guest's physical address space, as far
# as Linux 6.12 allows for a page cache bound: 6.12's DAMOS filters are anon,
# memcg, young, addr and target (no "unmapped" or "mapped" type), so the
# scheme excludes anonymous pages (an "anon" filter with matching=Y filters
# them out) and pages out every cold file page, mapped or not.
#
#   damos-pageout.sh start | stats | stop
#
# What it does to mapped file pages: pageout on paddr isolates the cold
# region's folios and hands them to reclaim_pages(), which unmaps a mapped
# folio and frees it (ignore_references).  6.12 adds a page-level "young"
# filter by default, so a mapped page whose PTE was referenced since DAMON
# last sampled it is skipped; one touched less often than that is evicted.
# The benchmark's mapped-file column shows which happened.
#
# Parameters (DAMON_RECLAIM's, time-scaled to the bench's 30-60 s phases):
#   intervals   sample 5 ms, aggregate 100 ms, regions update 1 s (defaults)
#   regions     10..1000 (defaults), over the biggest "System RAM" range
#   pattern     any size, 0 accesses per aggregation, age >= 5 s (50 aggr.)
#               (DAMON_RECLAIM: 120 s)
#   quota       128 MiB per 1 s (DAMON_RECLAIM: 128 MiB/s, and 10 ms CPU)
#   watermarks  none: always on (DAMON_RECLAIM starts below 40% free memory;
#               in W1 the guest gets there within seconds anyway)
# "stats" prints "nr_applied N sz_applied BYTES" of the scheme.
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
	echo on >$K/state
	echo "damos-pageout: on, paddr $2-$3, kdamond pid $(cat $K/pid)"
	;;
stats)
	echo update_schemes_stats >$K/state
	echo "nr_applied $(cat $S/stats/nr_applied) sz_applied $(cat $S/stats/sz_applied)" \
		"nr_tried $(cat $S/stats/nr_tried) sz_tried $(cat $S/stats/sz_tried)"
	;;
stop)
	echo off >$K/state
	;;
*)
	echo "usage: damos-pageout.sh start|stats|stop" >&2
	exit 2
	;;
esac
