#!/bin/sh
# guest-cost.sh RUNS
#
# Runs inside the x86_64 QEMU guest (tests/kernel/run-cost.sh boots it with
# unmapped_page_control, so the control's static key and its wake-up path
# are built in and switched by the sysctl).  Two benchmarks, each RUNS times
# with vm.unmapped_page_control 0 and RUNS times with 1, alternating
# 0, 1, 0, 1, ... so that drift in the host's load hits both alike:
#
#   faults  ktest faults: one process per vCPU (pinned), each mmap()s
#           32 MiB of anonymous memory, writes one byte per page, munmap()s,
#           8 times: 131072 page faults and order-0 allocations in all,
#           timed with clock_gettime in the guest
#   read    ktest readrate: /data/stream/0 (256 MiB, larger than the
#           guest's RAM) read once with 1 MiB read()s after drop_caches;
#           MiB/s, kswapd0's CPU (/proc/PID/stat) and pgsteal_unmapped
#
# Prints one "COST BENCH control=C run=N key=value..." line per run (the host
# computes medians and spreads) and ends on "COST-DONE".
runs=${1:-10}
vm=/proc/sys/vm
mkdir -p /data
mount -t ext4 -o ro,noatime /dev/vda /data || { echo "FAIL cannot mount /dev/vda"; exit 1; }
[ "$(nproc)" = 2 ] || { echo "FAIL nproc = $(nproc), want 2"; exit 1; }
grep -q unmapped_page_control /proc/cmdline || { echo "FAIL no boot parameter"; exit 1; }
echo 1 >$vm/min_unmapped_ratio
echo "INFO $(ktest bound)"
echo "INFO MemTotal $(awk '/^MemTotal/{print $2, $3}' /proc/meminfo)"

# One untimed round of each, so that page tables, slab and the readahead
# state are warm before the first counted run.
ktest faults --mib 32 --loops 8 >/dev/null
echo 3 >$vm/drop_caches
ktest readrate /data/stream/0 >/dev/null

for bench in faults read; do
	i=0
	while [ $i -lt $((2 * runs)) ]; do
		c=$((i % 2))
		echo $c >$vm/unmapped_page_control
		echo 3 >$vm/drop_caches
		sleep 1
		if [ $bench = faults ]; then
			line=$(ktest faults --mib 32 --loops 8)
		else
			line=$(ktest readrate /data/stream/0)
		fi
		echo "COST $line control=$c run=$((i / 2 + 1))"
		i=$((i + 1))
	done
done
echo 0 >$vm/unmapped_page_control
echo COST-DONE
