#!/bin/sh
# By-hand smoke check of the series, run INSIDE a UML guest (never on the
# host: it writes /proc/sys/vm and drops caches).  Not a suite; the
# functional suite is tests/kernel/.  From the host:
#   tests/guest/uml-run.sh --kernel build/kernel/uml/linux --mem 256M \
#     --share DIR:/mnt/check -- kernel/scripts/guest-smoke.sh /mnt/check/FILE 0|1
# FILE should be a few times the guest's RAM; the second argument switches
# MGLRU (/sys/kernel/mm/lru_gen/enabled) off (0) or on (1).
# Prints the peak unmapped page cache (file LRU - mapped, sampled every
# 100 ms) during a dd of FILE with the control off, on, and off again.
data=$1
echo "lru_gen: $2" ; [ -e /sys/kernel/mm/lru_gen/enabled ] && { [ "$2" = 1 ] && echo y > /sys/kernel/mm/lru_gen/enabled || echo n > /sys/kernel/mm/lru_gen/enabled; cat /sys/kernel/mm/lru_gen/enabled; }
echo "unmapped_page_control=$(cat /proc/sys/vm/unmapped_page_control) min_unmapped_ratio=$(cat /proc/sys/vm/min_unmapped_ratio)"
grep -E "^(kswapd_unmapped_wake|pgscan_unmapped|pgsteal_unmapped) " /proc/vmstat
managed=$(awk '/managed/ {s += $2} END {print s}' /proc/zoneinfo)
ratio=$(cat /proc/sys/vm/min_unmapped_ratio)
min=$((managed * ratio / 100)); bound=$((16 * min))
echo "managed=$managed min_unmapped_pages~$min bound=$bound"
for bad in -1 2 101 abc ""; do
	if echo "$bad" > /proc/sys/vm/unmapped_page_control 2>/dev/null; then echo "BAD: accepted '$bad'"; else echo "rejected '$bad'"; fi
done
echo "after bad writes: $(cat /proc/sys/vm/unmapped_page_control)"
unmapped() { awk '/^nr_active_file /{a=$2} /^nr_inactive_file /{i=$2} /^nr_mapped /{m=$2} END {u=a+i-m; if (u<0) u=0; print u}' /proc/vmstat; }
run() {
	echo "$1" > /proc/sys/vm/unmapped_page_control
	echo 3 > /proc/sys/vm/drop_caches
	dd if="$data" of=/dev/null bs=1M 2>/dev/null &
	pid=$!; peak=0
	while kill -0 $pid 2>/dev/null; do u=$(unmapped); [ "$u" -gt "$peak" ] && peak=$u; sleep 0.1; done
	echo "control=$1 peak_unmapped=$peak bound=$bound end_unmapped=$(unmapped)"
	grep -E "^(kswapd_unmapped_wake|pgscan_unmapped|pgsteal_unmapped|nr_written|pgpgout) " /proc/vmstat | tr '\n' ' '; echo
}
run 0
run 1
run 0
