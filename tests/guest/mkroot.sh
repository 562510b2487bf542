#!/usr/bin/env bash
# mkroot.sh OUTDIR [EXTRA_FILES...]
#
# Make (or refresh) a root directory that a User-Mode Linux guest boots from
# over hostfs (see uml-run.sh): busybox-static and all its applets, the mount
# points the guest init uses, the device nodes the kernel needs before
# devtmpfs is mounted, the guest init itself, and any extra files (static
# binaries or scripts) copied into OUTDIR/bin.
#
# Idempotent and fast: the applet links are only made again when busybox
# changes, and a file is only copied when its content differs.  Safe to run
# concurrently on the same OUTDIR (serialised with flock).
set -euo pipefail

usage() {
	sed -n '2,12s/^# \{0,1\}//p' "$0"
}

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
	usage
	[ $# -ge 1 ] && exit 0
	exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
outdir=$1
shift
busybox=${BUSYBOX:-/bin/busybox}

die() {
	echo "mkroot: $*" >&2
	exit 1
}

[ -x "$busybox" ] || die "$busybox not found: apt-get install busybox-static"
# A dynamically linked busybox would need the host's libraries in the root.
if readelf -l "$busybox" 2>/dev/null | grep -q 'Requesting program interpreter'; then
	die "$busybox is dynamically linked; install busybox-static"
fi
for f in "$@"; do
	[ -f "$f" ] || die "extra file '$f' does not exist"
	if head -c 4 "$f" | grep -q 'ELF' &&
	   readelf -l "$f" 2>/dev/null | grep -q 'Requesting program interpreter'; then
		die "'$f' is dynamically linked; build it with gcc -static"
	fi
done

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
exec 9>"$outdir/.mkroot.lock"
flock 9

# Copy SRC to DST (mode MODE) only if the content differs, so reruns do not
# touch mtimes (and UML COW backing files, if any, stay valid).
install_if_changed() {
	local src=$1 dst=$2 mode=$3
	if ! cmp -s "$src" "$dst" 2>/dev/null; then
		install -D -m "$mode" "$src" "$dst.tmp.$$"
		mv -f "$dst.tmp.$$" "$dst"
	fi
}

for d in bin sbin usr/bin usr/sbin proc sys dev tmp run mnt host etc root var/tmp; do
	mkdir -p "$outdir/$d"
done
chmod 1777 "$outdir/tmp" "$outdir/var/tmp"

install_if_changed "$busybox" "$outdir/bin/busybox" 755
stamp="$outdir/.busybox-applets"
want=$(sha256sum "$busybox" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	"$busybox" --list-full | while read -r applet; do
		[ "$applet" = bin/busybox ] && continue
		mkdir -p "$outdir/$(dirname "$applet")"
		ln -sfn /bin/busybox "$outdir/$applet"
	done
	echo "$want" >"$stamp"
fi

# The kernel opens /dev/console before init runs; without
# CONFIG_DEVTMPFS_MOUNT that node must already exist on the root.
make_node() {
	local path=$1 major=$2 minor=$3
	if [ ! -c "$outdir/dev/$path" ]; then
		rm -f "$outdir/dev/$path"
		mknod -m 600 "$outdir/dev/$path" c "$major" "$minor"
	fi
}
make_node console 5 1
make_node null 1 3
make_node zero 1 5
make_node tty 5 0
chmod 666 "$outdir/dev/null" "$outdir/dev/zero" "$outdir/dev/tty"

ln -sfn /proc/mounts "$outdir/etc/mtab"
[ -f "$outdir/etc/passwd" ] || echo 'root:x:0:0:root:/root:/bin/sh' >"$outdir/etc/passwd"
[ -f "$outdir/etc/group" ] || echo 'root:x:0:' >"$outdir/etc/group"

install_if_changed "$here/guest-init.sh" "$outdir/sbin/upcc-guest-init" 755

for f in "$@"; do
	install_if_changed "$f" "$outdir/bin/$(basename "$f")" 755
done
