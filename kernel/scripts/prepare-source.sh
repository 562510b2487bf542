#!/usr/bin/env bash
# Extract the pinned linux-source-6.12 tarball into build/kernel/src/ and
# apply kernel/patches/series on top of it.
#
# usage: prepare-source.sh [VERSIONFILE]
#   VERSIONFILE  kernel/VERSION (the default: the series' base tree) or
#                another file of the same shape, such as kernel/VERSION-6.1,
#                whose empty "series=" asks for the stock tree and whose
#                empty "sha256=" takes whatever version the archive installed.
#                A "series=" path names the series file; its patches sit
#                beside it (kernel/patches-7.3/series: the v7 series).  A
#                "subdir=" key puts the tree under build/kernel/SUBDIR/src/
#                instead of build/kernel/src/, so that a patched tree of the
#                same package lives beside the stock one (build-kernel.sh
#                builds it in build/kernel/SUBDIR/NAME: the same relative
#                layout, so ccache hits for the files the series leaves alone).
#
# Idempotent: a stamp file holds the sha256 of the tarball and of every patch
# in the series, so a rerun with unchanged patches does nothing, while any
# change to the series (or a tree left half patched) re-extracts from the
# pristine tarball instead of patching a tree twice.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
. "$top/kernel/scripts/lock.sh"
version_file=${1:-kernel/VERSION}
series=$top/kernel/patches/series
subdir=
. "$version_file"
# The series' patches sit beside its series file.
patch_dir=$(dirname "$series")
patch_dir=${patch_dir#"$top"/}

src_root=$top/build/kernel/${subdir:+$subdir/}src
tree=$src_root/$topdir
# One stamp per tree, so that a stock tree beside the series' never makes
# the other look out of date.
stamp=$src_root/$topdir.prepared

die() { echo "prepare-source: $*" >&2; exit 1; }

[ -f "$tarball" ] || die "$tarball missing: kernel/scripts/fetch-source.sh $version_file"
have_sum=$(sha256sum "$tarball" | cut -d' ' -f1)
suite=${suite:-}
if [ -n "$suite" ]; then	# fetched, not installed (fetch-source.sh)
	installed=$(cat "build/kernel/fetched/$package.version" 2>/dev/null || echo unknown)
else
	installed=$(dpkg-query -W -f='${Version}' "$package" 2>/dev/null || echo unknown)
fi
# The checksum holds the pinned package to its tarball.  Another version is
# there only because the archive dropped the pinned one (install-deps.sh):
# it is used, and the series must apply to it, which the loop below checks.
if [ -n "$sha256" ] && [ "$installed" = "$version" ]; then
	[ "$have_sum" = "$sha256" ] ||
		die "$tarball has sha256 $have_sum, $version_file pins $sha256 ($package $version); refusing to build on another tree"
elif [ -n "$version" ] && [ "$installed" != "$version" ]; then
	echo "prepare-source: $package $installed installed, not the pinned $version" \
		"(the reference): building on it if the series applies" >&2
fi

patch_list() {
	[ -n "$series" ] && [ -f "$series" ] || return 0
	# Comments and blank lines are allowed in series, as in quilt.
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$series" | grep -v '^$' || true
}

# What the tree should be: this tarball plus exactly these patches.
want=$( {
	echo "tarball $have_sum"
	for p in $(patch_list); do
		[ -f "$patch_dir/$p" ] || die "series names $p but $patch_dir/$p does not exist"
		sha256sum "$patch_dir/$p"
	done
} | sha256sum | cut -d' ' -f1)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$tree/Makefile" ]; then
	echo "prepare-source: $tree is up to date ($(cat "$src_root/$topdir.version" 2>/dev/null), ${series:-no series})"
	exit 0
fi

echo "prepare-source: extracting $tarball into $src_root"
rm -rf "$tree" "$stamp"
mkdir -p "$src_root"
tar -C "$src_root" -xf "$tarball"
[ -f "$tree/Makefile" ] || die "tarball did not contain $topdir/"

n=0
for p in $(patch_list); do
	echo "prepare-source: applying $p"
	patch -d "$tree" -p1 --batch --forward --quiet < "$patch_dir/$p" ||
		die "$p does not apply to $package $installed"
	n=$((n + 1))
done
echo "$want" > "$stamp"
# The archive moves on: say which package version the tree came from.
echo "$package $installed" > "$src_root/$topdir.version"
echo "prepare-source: $tree ready from $package $installed ($n patches applied)"
