#!/usr/bin/env bash
# Build the benchmark guest's initramfs: busybox-static, upcc's own static
# binaries (the workload tool, upcd and upcc when they are built), W5's
# driver (bench/pg/w5.sh, w5.sql, run in the guest's Debian chroot) and
# guest-init.sh as /init.
#
#   mkinitramfs.sh OUT.cpio.gz
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
out=${1:?usage: mkinitramfs.sh OUT.cpio.gz}

die() { echo "mkinitramfs: $*" >&2; exit 1; }
# No program interpreter = static (readelf is in binutils, build-essential).
is_static() { ! readelf -l "$1" 2>/dev/null | grep -q 'Requesting program interpreter' &&
	readelf -h "$1" >/dev/null 2>&1; }

busybox=/bin/busybox
[ -x "$busybox" ] && is_static "$busybox" || die "$busybox is not busybox-static (scripts/install-deps.sh)"
workload=$top/build/bench/workload
[ -x "$workload" ] && is_static "$workload" || die "$workload missing or not static (make bench)"

root=$(mktemp -d "$top/build/bench-host/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,data}
cp "$busybox" "$root/bin/busybox"
cp "$workload" "$root/bin/workload"
for tool in upcd upcc; do
	bin=$top/build/static/$tool
	if [ -x "$bin" ] && is_static "$bin"; then
		cp "$bin" "$root/bin/$tool"
		echo "mkinitramfs: with $tool"
	else
		echo "mkinitramfs: no static $tool in build/static/: scenario (d) will report it missing"
	fi
done
install -m 0755 bench/host/guest-init.sh "$root/init"
install -m 0755 bench/host/gradual-reclaim.sh "$root/bin/gradual-reclaim.sh"
install -m 0755 bench/host/damos-pageout.sh "$root/bin/damos-pageout.sh"
install -m 0755 bench/pg/w5.sh "$root/bin/w5.sh"
install -m 0644 bench/pg/w5.sql "$root/bin/w5.sql"
agent=$top/build/bench-host/psi-agent
[ -x "$agent" ] && is_static "$agent" || die "$agent missing or not static (make bench-host-deps)"
cp "$agent" "$root/bin/psi-agent"
(cd "$root" && find . | cpio -o -H newc --quiet --owner=0:0 | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(du -k "$out" | cut -f1) KiB)"
