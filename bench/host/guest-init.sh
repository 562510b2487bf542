#!/bin/busybox sh
# /init of the QEMU benchmark guest (bench/host/).  Runs one scenario and one
# workload, chosen on the kernel command line, then powers the guest off:
#
#   upcc.scenario=a..i  upcc.workload=w1|w2|w3|w5  upcc.idle=SECONDS
#   upcc.io=SECONDS (W2/W3 I/O phase, default 60)  upcc.rate=MIB_PER_S (32)
#   upcc.w5_s=SECONDS (W5: each of its three pgbench runs, default 60)
#
# (W4 is three guests each running W1; the host starts them.)  W5 runs
# PostgreSQL from a Debian root on the second disk (vdb, read-only) in a
# chroot, its database on the third (vdc, a qcow2 overlay on the host).
# ttyS0 carries the kernel log; ttyS1 carries only machine-readable lines
# for the host: the guest sampler's TSV rows (every 500 ms), "M phase"
# markers and "R key value" results.  The host timestamps every line as it
# arrives, so host memory and guest phases share one clock.
#
# Counters are snapshotted ("R LABEL_key value") at the start of the I/O
# phase (start), at its end (io_end) and at the end of the idle phase (end);
# the host computes the deltas.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /sys/fs/cgroup /data /tmp /run
mount -t cgroup2 none /sys/fs/cgroup || echo "guest-init: no cgroup2"
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run

param() { sed -n "s/.*upcc\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
scenario=$(param scenario)
workload=$(param workload)
idle=$(param idle)
io_s=$(param io)
io_s=${io_s:-60}
rate=$(param rate)
rate=${rate:-32}
out=/dev/ttyS1
actions_log=/tmp/actions.log
: >$actions_log
control=
# Hold ttyS1 open for the whole run, before anything else opens it: each
# ">$out" below opens and closes it, and an open that meets the previous
# close still tearing the port down fails with EAGAIN ("can't create
# /dev/ttyS1: Resource temporarily unavailable", 1 run in about 90 of
# make bench-host, right after the stty below).  With fd 3 open, a close
# never tears it down.
exec 3<>$out
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

# utime + stime (+ cutime + cstime: a shell control's awk and echo children)
# of PID in clock ticks (USER_HZ = 100); fields after the ")" of comm.
pid_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 + $14 + $15 }'; }
comm_ticks() {
	total=0
	for d in /proc/[0-9]*; do
		case "$(cat "$d/comm" 2>/dev/null)" in
		$1*) total=$((total + $(pid_ticks "${d#/proc/}"))) ;;
		esac
	done
	echo $total
}
control_ticks() {
	case $scenario in
	b | c | h) [ -n "$control" ] && pid_ticks "$control" || echo 0 ;;
	# upcd's damon backend acts through its kdamond: upcd's cost too
	d) echo $(( $([ -n "$control" ] && pid_ticks "$control" || echo 0) + $(comm_ticks kdamond) )) ;;
	e) comm_ticks kswapd ;;	# the series reclaims in kswapd
	i) comm_ticks kdamond ;;
	*) echo 0 ;;
	esac
}
# What the control did so far, in its own unit: drops (b), reclaim steps
# (c, h), upcd actions (d), kswapd wake-ups for unmapped cache (e), DAMOS
# regions paged out (i).
actions() {
	case $scenario in
	b | c | h) grep -c -E '^(drop|reclaim)' $actions_log ;;
	d) tr ',' '\n' </run/upcc/state.json 2>/dev/null |
		sed -n 's/^"actions_total":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }' ;;
	e) awk '$1 == "kswapd_unmapped_wake" { v = $2 } END { print v + 0 }' /proc/vmstat ;;
	i) sh /bin/damos-pageout.sh stats | awk '{ print $2 }' ;;
	*) echo 0 ;;
	esac
}
snap() {
	{
		awk -v l="$1" '$1 == "workingset_refault_file" || $1 == "workingset_activate_file" ||
			$1 ~ /unmapped/ { print "R " l "_" $1, $2 }' /proc/vmstat
		echo "R $1_kswapd_ticks $(comm_ticks kswapd)"
		echo "R $1_control_ticks $(control_ticks)"
		echo "R $1_kdamond_ticks $(comm_ticks kdamond)"
		echo "R $1_actions $(actions)"
		# upcd's compaction runs in its thread, so in its CPU: apart.
		if [ "$scenario" = d ]; then
			usec=$(tr ',' '\n' </run/upcc/state.json 2>/dev/null |
				sed -n 's/^"compaction_cpu_usec_total":\([0-9]*\).*/\1/p' | head -n 1)
			echo "R $1_compact_usec ${usec:-0}"
		fi
		echo "R $1_psi_some $(head -n 1 /proc/pressure/memory 2>/dev/null | tr ' ' ,)"
	} >$out
}

case $scenario in
f) mount -t ext4 -o ro,noatime,dax /dev/pmem0 /data || fail "mount pmem dax" ;;
*) mount -t ext4 -o ro,noatime /dev/vda /data || fail "mount vda" ;;
esac
result kernel "$(uname -r)"
result cmdline "$(cat /proc/cmdline)"
result nproc "$(nproc)"
result unmapped_page_control "$(cat /proc/sys/vm/unmapped_page_control 2>/dev/null || echo absent)"
# Everything below runs in one child memory cgroup, in every scenario: this
# guest's root cgroup shows no memory.* files (so no root memory.reclaim),
# and scenarios (c) and (h) need a cgroup to reclaim from.
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

# W5's userland: the Debian root of tests/systemd/mkimage.sh (with
# postgresql-15), read-only, with the database disk at /mnt/upcc-test and
# tmpfs where PostgreSQL and runuser write outside it.
w5_root=/sysroot
w5_db=/mnt/upcc-test/pg
w5_root_up() {
	mkdir -p $w5_root
	mount -t ext4 -o ro,noatime /dev/vdb $w5_root || fail "mount the Debian root (vdb)"
	mount -t ext4 -o noatime /dev/vdc $w5_root/mnt/upcc-test || fail "mount the database (vdc)"
	mount -t proc proc $w5_root/proc
	mount -t sysfs sys $w5_root/sys
	mount -o bind /dev $w5_root/dev
	mount -t tmpfs tmp $w5_root/tmp
	mount -t tmpfs run $w5_root/run
	mkdir -p $w5_root/run/w5
	cp /bin/w5.sh /bin/w5.sql $w5_root/run/w5/
}
pg() { chroot $w5_root /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin /run/w5/w5.sh "$@"; }
# sectors read from the database disk, in MiB
vdc_read_mib() { awk '{ printf "%.1f\n", $3 / 2048 }' /sys/block/vdc/stat; }
# Mounted before the control starts, so that upcd's first walk of the
# local mounts already sees the database disk.
[ "$workload" = w5 ] && w5_root_up

# The scenario's control, started before the workload and left running.
case $scenario in
a | e | f | g) ;;
b)
	# drop_caches every 10 s (what `workload dropper 10000` does), one
	# line per drop so that the run counts them
	while :; do
		echo 1 >/proc/sys/vm/drop_caches
		echo drop >>$actions_log
		sleep 10
	done &
	control=$!
	;;
c) sh /bin/gradual-reclaim.sh $actions_log & control=$! ;;
d)
	[ -x /bin/upcd ] || fail "upcd not in the initramfs"
	# upcd with its defaults: the system scope, whose fadvise inventory
	# walks the local disk-backed mounts (here /data; the initramfs root is
	# memory-backed and left alone).  upcc.upcd_args (commas for spaces)
	# gives other options, upcc.upcd_backend=NAME the backend (--backend=).
	upcd_args=$(param upcd_args | tr , ' ')
	upcd_backend=$(param upcd_backend)
	upcd ${upcd_backend:+--backend=$upcd_backend} $upcd_args >/tmp/upcd.out 2>&1 &
	control=$!
	;;
h)
	psi-agent /sys/fs/cgroup/work $actions_log 2>/tmp/agent.err &
	control=$!
	usleep 300000
	kill -0 $control 2>/dev/null || fail "psi-agent: $(cat /tmp/agent.err)"
	;;
i) sh /bin/damos-pageout.sh start >/tmp/damos.out 2>&1 || fail "damos: $(cat /tmp/damos.out)" ;;
*) fail "unknown scenario '$scenario'" ;;
esac

case $workload in
w1)
	snap start
	mark scan_start
	workload stream /data/scan >/tmp/stream.out || fail "stream"
	mark scan_end
	snap io_end
	result scan_mib_per_s "$(awk '/^mib_per_s/{print $2}' /tmp/stream.out)"
	sleep "$idle"
	mark idle_end
	;;
w2 | w3)
	# W2: the hot set is 10% of RAM, W3: 25%; re-read with 0.2 s pauses
	# while the scan files stream past at $rate MiB/s for $io_s seconds
	# (looping over them as often as needed).
	hot=/data/hot
	[ $workload = w3 ] && hot=/data/hot25
	# One warm-up pass so that every scenario starts with the hot set cached.
	workload hotset $hot --passes 1 >/tmp/warm.out || fail "hotset warm-up"
	snap start
	mark stream_start
	workload hotset $hot --passes 1000000 --pause-ms 200 >/tmp/hot.out &
	hotpid=$!
	workload stream /data/scan --loop --rate "$rate" >/tmp/stream.out &
	stream=$!
	sleep "$io_s"
	kill $stream
	wait $stream
	kill $hotpid
	wait $hotpid
	mark stream_end
	snap io_end
	result scan_mib_per_s "$(awk '/^mib_per_s/{print $2}' /tmp/stream.out)"
	result stream_mib "$(awk '/^bytes/{printf "%.0f", $2 / 1048576}' /tmp/stream.out)"
	awk '/^pass/{n++; ms += $3} END{if (n) printf "R hot_passes %d\nR hot_pass_ms %.1f\n", n, ms / n}' \
		/tmp/hot.out >$out
	result hot_hit_ratio "$(awk '/^hit_ratio/{print $2}' /tmp/hot.out)"
	sleep "$idle"
	mark idle_end
	;;
w5)
	# W5: pgbench's skewed select-only script (bench/pg/w5.sql) three
	# times, W2's stream of the scan files beside it at $rate MiB/s.
	w5_s=$(param w5_s)
	w5_s=${w5_s:-60}
	pg start $w5_db >/tmp/pg.out 2>&1 || fail "postgres start: $(tail -n 3 /tmp/pg.out)"
	result w5_relation_files "$(pg relfiles $w5_db | wc -l)"
	# One warm-up run so that every scenario starts with the hot pages cached.
	pg run $w5_db 30 >/tmp/warm.out 2>&1 || fail "pgbench warm-up: $(tail -n 3 /tmp/warm.out)"
	result w5_warm_tps "$(awk '{ print $3 }' /tmp/warm.out)"
	snap start
	blks0=$(pg blksread $w5_db)
	disk0=$(vdc_read_mib)
	mark stream_start
	workload stream /data/scan --loop --rate "$rate" >/tmp/stream.out &
	stream=$!
	for i in 1 2 3; do
		pg run $w5_db "$w5_s" >/tmp/run.out 2>&1 || fail "pgbench run $i: $(tail -n 3 /tmp/run.out)"
		result w5_tps_$i "$(awk '{ print $3 }' /tmp/run.out)"
	done
	kill $stream
	wait $stream
	mark stream_end
	snap io_end
	result w5_pg_read_mib "$(( ($(pg blksread $w5_db) - blks0) / 128 ))"
	result w5_disk_read_mib "$(awk -v a="$disk0" -v b="$(vdc_read_mib)" 'BEGIN { printf "%.0f", b - a }')"
	result scan_mib_per_s "$(awk '/^mib_per_s/{print $2}' /tmp/stream.out)"
	result stream_mib "$(awk '/^bytes/{printf "%.0f", $2 / 1048576}' /tmp/stream.out)"
	# What the guest cache kept of pgbench_accounts and its key: under no
	# control, every page the runs read, so an upper bound on the hot pages.
	result w5_rel_cached_mib "$(workload resident $(pg relfiles $w5_db | sed "s#^#$w5_root#") |
		awk '!/^#/ { n += $3 } END { printf "%.0f", n / 256 }')"
	pg stop $w5_db || result error "postgres stop"
	sleep "$idle"
	mark idle_end
	;;
*) fail "unknown workload '$workload'" ;;
esac
snap end

# What the mapped file kept, by the mapping's own mincore() checks.
kill -USR1 $maphold
usleep 300000
result maphold_resident_pages "$(awk '/^resident/{v=$2} END{print v}' /tmp/maphold.out)"
result maphold_total_pages "$(awk '/^pages/{v=$2} END{print v}' /tmp/maphold.out)"
result maphold_min_resident "$(awk '/^min_resident/{v=$2} END{print v}' /tmp/maphold.out)"
awk '/^(Cached|Mapped|MemFree):/{printf "R guest_%s_kb %s\n", $1, $2}' /proc/meminfo |
	tr -d : >$out
# Free blocks per order: free page reporting only hands over blocks of
# pageblock order (2 MiB) and up, so this shows what it could not report.
sed 's/^/R buddyinfo /' /proc/buddyinfo >$out
result compactions "$(grep -c '^compact' $actions_log)"
case $scenario in
d)
	# upcc.upcd_log=N (UPCD_LOG=N of run-scenario.sh): more of the log,
	# for a run with UPCD_ARGS=-v.
	upcd_log=$(param upcd_log)
	tail -n "${upcd_log:-5}" /tmp/upcd.out | sed 's/^/R upcd_log /' >$out
	# Under this balloon (free-page-reporting=on) upcd compacts after
	# freeing enough, so that what it freed can be reported (compact.h).
	result upcd_compactions "$(grep -c 'compacted memory for free page reporting' /tmp/upcd.out)"
	grep -m1 'compaction for free page reporting' /tmp/upcd.out | sed 's/^/R upcd_compact_why /' >$out
	upcc status 2>&1 | sed 's/^/R upcc_status /' >$out
	;;
h) grep -c '^backoff' $actions_log | sed 's/^/R agent_backoffs /' >$out ;;
i)
	sh /bin/damos-pageout.sh stats | sed 's/^/R damos /' >$out
	result damos_form "$(cat /tmp/damos-form 2>/dev/null)"
	;;
esac
[ -n "$control" ] && kill "$control" 2>/dev/null
kill $sampler
finish
