#!/usr/bin/env bash
# mkimage.sh OUTBASE [PACKAGES] - a minimal Debian 12 system for the systemd
# test, made with Debian's own tools: mmdebstrap from the archive, Debian's
# stock kernel (linux-image-amd64, 6.1) and its initramfs, systemd as PID 1.
# PACKAGES (comma-separated) are installed on top: the host bench's W5
# guest uses this image with postgresql-15 (W5 in bench/host/guest-init.sh).
#
# Cached: the image lives in OUTBASE/KEY/, KEY a hash of its recipe (suite,
# mirror, packages, hooks, image size), and is reused while it exists.
# Older keys are removed.  (The archive moves on between point releases;
# `rm -rf build/systemd-image` takes the newest.)  Prints the image directory on stdout:
#   root.img   ext4 root, never written by a test (runs boot a qcow2 overlay)
#   vmlinuz    the kernel, initrd.img its initramfs (copied out of /boot)
#
# Inside the image, upcc-guest-test.service (enabled) mounts the second disk
# (/dev/vdb, ext4, label UPCCTEST) at /mnt/upcc-test, runs
# /mnt/upcc-test/guest.sh and powers off; a boot without that disk just
# powers off.  The payload, not the image, carries the package and the
# checks, so editing them does not rebuild the image.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The body is one block, read whole before it runs: editing this file
# while an image builds (minutes) cannot derail the running build.
{
outbase=${1:?usage: mkimage.sh OUTBASE [PACKAGES]}
extra=${2:-}
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
size=2G

runner='#!/bin/sh
# Run the payload of the upcc systemd test, then power off.
if mount -o ro LABEL=UPCCTEST /mnt/upcc-test 2>/dev/null && [ -x /mnt/upcc-test/guest.sh ]; then
	/mnt/upcc-test/guest.sh /dev/virtio-ports/upcc.results
	echo "upcc-guest-test: guest.sh exited $?" >/dev/console
fi
systemctl --no-block poweroff'

unit='[Unit]
Description=upcc systemd test payload
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/upcc-guest-test
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity
[Install]
WantedBy=multi-user.target'

# udev: /dev/disk/by-label and /dev/virtio-ports; procps: /bin/kill for
# the unit's ExecReload (the package depends on it) and pgrep.  Timers and
# gettys that only cost boot time are masked.
include=systemd-sysv,udev,linux-image-amd64,procps${extra:+,$extra}
hooks=(
	# The initramfs needs only the root disk's modules: with the default
	# MODULES=most it takes minutes to build (twice: at the kernel's
	# install and at initramfs-tools' trigger) and seconds to unpack at
	# every boot under TCG.  Written before the kernel is installed.
	--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" && echo MODULES=list >"$1/etc/initramfs-tools/conf.d/upcc-guest.conf"'
	--essential-hook='mkdir -p "$1/usr/share/initramfs-tools/modules.d" && printf "virtio_pci\nvirtio_blk\next4\n" >"$1/usr/share/initramfs-tools/modules.d/upcc-guest"'
	--customize-hook='echo upcc-guest >"$1/etc/hostname"'
	--customize-hook='printf "LABEL=upccroot / ext4 rw 0 0\n" >"$1/etc/fstab"'
	--customize-hook='mkdir -p "$1/mnt/upcc-test"'
	--customize-hook="printf '%s\n' '$runner' >\"\$1/usr/local/sbin/upcc-guest-test\""
	--customize-hook='chmod 755 "$1/usr/local/sbin/upcc-guest-test"'
	--customize-hook="printf '%s\n' '$unit' >\"\$1/etc/systemd/system/upcc-guest-test.service\""
	--customize-hook='chroot "$1" systemctl enable upcc-guest-test.service'
	--customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer getty@tty1.service serial-getty@ttyS0.service'
	--customize-hook='cp -L "$1/vmlinuz" "$1/initrd.img" "$1/../"'
)

key=$(printf '%s\n' "$suite" "$mirror" "$include" "${hooks[@]}" "$size" | sha256sum | cut -c1-16)
out=$outbase/$key
if [ -s "$out/root.img" ] && [ -s "$out/vmlinuz" ] && [ -s "$out/initrd.img" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$outbase"
for old in "$outbase"/*/; do
	[ -d "$old" ] && [ "${old%/}" != "$out" ] && rm -rf --one-file-system "${old%/}"
done
work=$out.tmp
# --one-file-system: never into a mount mmdebstrap may have left behind.
rm -rf --one-file-system "$work"
mkdir -p "$work"
trap 'rm -rf --one-file-system "$work"' EXIT

echo "mkimage: mmdebstrap $suite into $work/root (minutes on a cold cache)" >&2
nice mmdebstrap --mode=root --variant=minbase --quiet --include="$include" "${hooks[@]}" \
	"$suite" "$work/root" "$mirror" >&2
# Sparse; the root is about 600 MiB.
mke2fs -q -t ext4 -L upccroot -d "$work/root" "$work/root.img" "$size" >&2
rm -rf --one-file-system "$work/root"
mv "$work" "$out"
trap - EXIT
echo "$out"
exit 0
}
