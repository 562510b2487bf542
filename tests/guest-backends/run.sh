#!/usr/bin/env bash
# run.sh - the guest-backends suite, host side: build the ext4 data disk
# (an image file this suite owns), boot the UML kernel with 256M through
# tests/guest/uml-run.sh, and run guest.sh inside.  Everything that changes
# kernel state happens in the guest; on the host this only writes files
# under build/guest-backends/.
#
# usage: tests/guest-backends/run.sh [CASE...]   (default: every case;
#        "none" runs the checks with no control, and must fail)
# env:   KERNEL (default build/kernel/uml/linux), GUEST_MEM (256M),
#        UPCC_STATIC (dir of the static upcd/upcc; default build/static)
set -eu
cd "$(dirname "$0")/../.."
repo=$PWD
work=$repo/build/guest-backends
kernel=${KERNEL:-$repo/build/kernel/uml/linux}
mem=${GUEST_MEM:-256M}
uml_run=$repo/tests/guest/uml-run.sh
# Where the static upcd and upcc are (mk/10-userspace.mk builds them here).
static=${UPCC_STATIC:-$repo/build/static}

die() {
	echo "guest-backends: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

for f in "$kernel" "$static/upcd" "$static/upcc" \
	"$repo/build/bench/workload" "$uml_run"; do
	[ -x "$f" ] || die "missing $f (make kernel; make)"
done

# The data disk: 8 x 16M fill files (128M: over five times the 24M trigger,
# yet cacheable whole in 256M), an 8M file that maphold keeps mapped, and
# a 4M hot set (4 x 1M under hot/) that the damon case re-reads, and a
# 24M one (3 x 8M under big/), bigger than its 16M target.
# Made once and kept: its content never changes and the guest mounts it
# read-write only to add the small dirty file.
image=$work/data.img
stamp=$work/data.stamp
layout="fill=16Mx8 hot.map=8M hot=1Mx4 big=8Mx3 v3"
if [ ! -f "$image" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$layout" ]; then
	rm -rf "$work/stage" "$image"
	mkdir -p "$work/stage"
	"$repo/build/bench/workload" mkfiles "$work/stage/fill" 16M 8 > /dev/null
	"$repo/build/bench/workload" mkfiles "$work/stage/map" 8M 1 > /dev/null
	mv "$work/stage/map/f000000" "$work/stage/hot.map"
	"$repo/build/bench/workload" mkfiles "$work/stage/hot" 1M 4 > /dev/null
	"$repo/build/bench/workload" mkfiles "$work/stage/big" 8M 3 > /dev/null
	rmdir "$work/stage/map"
	truncate -s 192M "$image"
	mkfs.ext4 -q -F -d "$work/stage" "$image"
	rm -rf "$work/stage"
	echo "$layout" > "$stamp"
fi

# What the guest runs: copies, so a rebuild during a run cannot race it.
bindir=$work/bin
mkdir -p "$bindir"
cp "$static/upcd" "$static/upcc" \
	"$repo/build/bench/workload" "$bindir/"

# The disk goes in copy-on-write: the guest's dirty file never reaches it.
exec "$uml_run" --kernel "$kernel" --mem "$mem" --disk-cow "$image" \
	--share "$bindir:/opt/upcc" --timeout 400 -- \
	"$repo/tests/guest-backends/guest.sh" /opt/upcc /dev/ubda "$@"
