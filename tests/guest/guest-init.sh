#!/bin/sh
# upcc-guest-init: PID 1 of a UML guest booted by uml-run.sh (busybox sh).
#
# Mounts the pseudo filesystems, mounts the per-run host directory (kernel
# parameter upcc_run=HOSTDIR) at /host, mounts any shares listed in
# /host/shares, runs /host/script with the arguments from /host/argv.sh,
# saves dmesg in /host/dmesg, records the script's exit code in /host/rc
# and on the console, then powers off.
# It must never exit: PID 1 exiting panics the kernel.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root TERM=dumb

say() {
	echo "upcc-guest: $*" >/dev/console
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
# Our kernels have devtmpfs (the kernel may have mounted it already, with
# CONFIG_DEVTMPFS_MOUNT); fall back to a few static nodes when a kernel has
# none, so the ubd disks are still usable.
if grep -q '^devtmpfs /dev ' /proc/mounts; then
	:
elif ! mount -t devtmpfs devtmpfs /dev 2>/dev/null; then
	mount -t tmpfs -o mode=755 tmpfs /dev
	mknod -m 600 /dev/console c 5 1
	mknod -m 666 /dev/null c 1 3
	mknod -m 666 /dev/zero c 1 5
	i=0
	for l in a b c d e f g h; do
		mknod -m 660 /dev/ubd$l b 98 $((i * 16))
		i=$((i + 1))
	done
fi
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run

run=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	upcc_run=*) run=${arg#upcc_run=} ;;
	esac
done

rc=125
if [ -z "$run" ]; then
	say "no upcc_run= on the kernel command line"
elif ! mount -t hostfs hostfs /host -o "$run"; then
	say "cannot mount hostfs $run at /host"
else
	ok=1
	if [ -f /host/shares ]; then
		while read -r hostdir guestdir; do
			[ -n "$hostdir" ] || continue
			mkdir -p "$guestdir" &&
				mount -t hostfs hostfs "$guestdir" -o "$hostdir" ||
				{ say "cannot mount share $hostdir at $guestdir"; ok=0; }
		done </host/shares
	fi
	if [ "$ok" = 1 ]; then
		cd /tmp
		set --
		. /host/argv.sh
		# The script's output goes to the console (the log) and to
		# /host/output (hostfs writes through at once), so the host
		# has it even if the guest is killed.  The exit code travels
		# through a file: a pipeline's status is tee's.
		{
			sh /host/script "$@"
			echo $? >/tmp/.rc
		} 2>&1 | tee /host/output >/dev/console
		rc=$(cat /tmp/.rc 2>/dev/null || echo 125)
	fi
	# The whole kernel log, whatever the console loglevel was.
	dmesg >/host/dmesg 2>/dev/null
	echo "$rc" >/host/rc
	sync
fi
say "exit $rc"
poweroff -f
halt -f
while :; do sleep 3600; done
