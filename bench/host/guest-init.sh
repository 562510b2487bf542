#!/bin/busybox sh
# /init of the QEMU benchmark guest (bench/host/).  Runs one scenario and one
# workload, chosen on the kernel command line, then powers the guest off:
#
#   upcc.scenario=a|b|c|d|e|f  upcc.workload=w1|w2  upcc.idle=SECONDS
#
# ttyS0 carries the kernel log; ttyS1 carries only machine-readable lines
# for the host: the guest sampler's TSV rows (every 500 ms), "M phase"
# markers and "R key value" results.  The host timestamps every line as it
# arrives, so host memory and guest phases share one clock.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /sys/fs/cgroup /data /tmp /run
mount -t cgroup2 none /sys/fs/cgroup || echo "guest-init: no cgroup2"
mount -t tmpfs tmp /tmp

param() { sed -n "s/.*upcc\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
scenario=$(param scenario)
workload=$(param workload)
idle=$(param idle)
out=/dev/ttyS1
stty -F $out raw -echo 2>/dev/null

mark() { echo "M $*" >$out; }
result() { echo "R $*" >$out; }
finish() {
	mark end
	sync
	reboot -f
}
fail() {
	result error "$*"
	echo "guest-init: $*"
	finish
}

case $scenario in
f) mount -t ext4 -o ro,noatime,dax /dev/pmem0 /data || fail "mount pmem dax" ;;
*) mount -t ext4 -o ro,noatime /dev/vda /data || fail "mount vda" ;;
esac
result kernel "$(uname -r)"
result cmdline "$(cat /proc/cmdline)"
result unmapped_page_control "$(cat /proc/sys/vm/unmapped_page_control 2>/dev/null || echo absent)"
# Everything below runs in one child memory cgroup, in every scenario: this
# guest's root cgroup shows no memory.* files (so no root memory.reclaim),
# and scenario (c) needs a cgroup to reclaim from.
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/work
echo $$ >/sys/fs/cgroup/work/cgroup.procs || fail "cannot enter /sys/fs/cgroup/work"
result cgroup "$(cat /proc/self/cgroup)"
result mem_total_kb "$(awk '/^MemTotal:/{print $2}' /proc/meminfo)"

# The guest's own view, on the same port: meminfo + vmstat every 500 ms.
workload sampler 500 $out &
sampler=$!

# A process that keeps a file mapped: the control must leave it resident.
workload maphold /data/map/mapped >/tmp/maphold.out &
maphold=$!
while ! grep -q '^ready' /tmp/maphold.out 2>/dev/null; do usleep 100000; done
result maphold_ready_pages "$(awk '/^ready/{print $2}' /tmp/maphold.out)"

# The scenario's control, started before the workload and left running.
case $scenario in
a | e | f) ;;
b) workload dropper 10000 >/tmp/dropper.out & control=$! ;;
c) sh /bin/gradual-reclaim.sh & control=$! ;;
d)
	[ -x /bin/upcd ] || fail "upcd not in the initramfs"
	# upcd with its defaults: the system scope, whose fadvise inventory
	# walks the local disk-backed mounts (here /data; the initramfs root is
	# memory-backed and left alone).  upcc.upcd_args (commas for spaces)
	# gives other options.
	upcd_args=$(param upcd_args | tr , ' ')
	upcd $upcd_args >/tmp/upcd.out 2>&1 &
	control=$!
	;;
*) fail "unknown scenario '$scenario'" ;;
esac

case $workload in
w1)
	mark scan_start
	workload stream /data/scan >/tmp/stream.out || fail "stream"
	mark scan_end
	result scan_mib_per_s "$(awk '/^mib_per_s/{print $2}' /tmp/stream.out)"
	sleep "$idle"
	mark idle_end
	;;
w2)
	# One warm-up pass so that every scenario starts with the hot set cached.
	workload hotset /data/hot --passes 1 >/tmp/warm.out || fail "hotset warm-up"
	mark stream_start
	workload hotset /data/hot --passes 1000000 >/tmp/hot.out &
	hot=$!
	workload stream /data/scan >/tmp/stream.out || fail "stream"
	kill $hot
	wait $hot
	mark stream_end
	result scan_mib_per_s "$(awk '/^mib_per_s/{print $2}' /tmp/stream.out)"
	awk '/^pass/{n++; ms += $3} END{if (n) printf "R hot_passes %d\nR hot_pass_ms %.1f\n", n, ms / n}' \
		/tmp/hot.out >$out
	result hot_hit_ratio "$(awk '/^hit_ratio/{print $2}' /tmp/hot.out)"
	sleep "$idle"
	mark idle_end
	;;
*) fail "unknown workload '$workload'" ;;
esac

# What the mapped file kept, by the mapping's own mincore() checks.
kill -USR1 $maphold
usleep 300000
result maphold_resident_pages "$(awk '/^resident/{v=$2} END{print v}' /tmp/maphold.out)"
result maphold_total_pages "$(awk '/^pages/{v=$2} END{print v}' /tmp/maphold.out)"
result maphold_min_resident "$(awk '/^min_resident/{v=$2} END{print v}' /tmp/maphold.out)"
[ -n "$control" ] && kill "$control" 2>/dev/null
awk '/^(Cached|Mapped|MemFree):/{printf "R guest_%s_kb %s\n", $1, $2}' /proc/meminfo |
	tr -d : >$out
# Free blocks per order: free page reporting only hands over blocks of
# pageblock order (2 MiB) and up, so this shows what it could not report.
sed 's/^/R buddyinfo /' /proc/buddyinfo >$out
grep -E '^(kswapd_unmapped_wake|pgscan_unmapped|pgsteal_unmapped) ' /proc/vmstat |
	sed 's/^/R /' >$out
if [ "$scenario" = d ]; then
	tail -n 5 /tmp/upcd.out | sed 's/^/R upcd_log /' >$out
	upcc status 2>&1 | sed 's/^/R upcc_status /' >$out
fi
kill $sampler
finish
