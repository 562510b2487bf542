#!/usr/bin/env bash
# Build a kernel from the patched tree: build-kernel.sh ARCH NAME
#
#   ARCH  um or x86_64
#   NAME  kernel/configs/NAME.config is merged onto ARCH's defconfig and the
#         build goes to build/kernel/NAME/.
#
# A fragment may name its base with a "#base TARGET" line (for example
# "#base tinyconfig": the QEMU guest kernel needs a fraction of defconfig's
# compile units); without one the base is ARCH's defconfig.
#
# Every CONFIG_...=y line of the fragment must survive into the final .config
# (Kconfig silently drops options whose dependencies are not met); if one does
# not, the build fails loudly instead of producing a kernel without it.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
. "$top/kernel/scripts/lock.sh"

die() { echo "build-kernel: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: $0 ARCH NAME (e.g. um uml)"
arch=$1
name=$2
case "$arch" in
um | x86_64) ;;
*) die "unsupported ARCH '$arch' (um or x86_64)" ;;
esac
fragment=$top/kernel/configs/$name.config
[ -f "$fragment" ] || die "no config fragment $fragment"

# A fragment may build on others with "#include OTHER.config" lines; those
# are merged first, in order, and their options are checked as well.
fragments=()
while read -r inc; do
	[ -f "$top/kernel/configs/$inc" ] || die "$name.config includes missing $inc"
	fragments+=("$top/kernel/configs/$inc")
done < <(sed -nE 's/^#include[[:space:]]+([A-Za-z0-9_.-]+)[[:space:]]*$/\1/p' "$fragment")
fragments+=("$fragment")
base=$(sed -nE 's/^#base[[:space:]]+([a-z0-9_]+config)[[:space:]]*$/\1/p' "$fragment" | tail -n 1)
base=${base:-defconfig}
# "#source FILE" names the tree (kernel/FILE, shaped as kernel/VERSION); the
# default is the series' base tree.
version_file=kernel/$(sed -nE 's/^#source[[:space:]]+([A-Za-z0-9_.-]+)[[:space:]]*$/\1/p' "$fragment" | tail -n 1)
[ "$version_file" != kernel/ ] || version_file=kernel/VERSION
[ -f "$version_file" ] || die "$name.config names a missing source $version_file"
subdir=
. "$version_file"

# A tree of its own (subdir=, see prepare-source.sh) and its builds beside it.
kroot=$top/build/kernel${subdir:+/$subdir}
tree=$kroot/src/$topdir
out=$kroot/$name
jobs=${JOBS:-$(nproc)}

[ -f "$tarball" ] || kernel/scripts/fetch-source.sh "$version_file"
kernel/scripts/prepare-source.sh "$version_file"

mkdir -p "$out"
# Paths under the checkout are hashed relative to it, so that a fresh clone in
# another folder (as CI makes) hits the cache that earlier builds filled.
export CCACHE_BASEDIR=$top
kmake() {
	nice -n 10 make -C "$tree" O="$out" ARCH="$arch" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# Regenerate .config only when the fragment or the tree changed, so that a
# rerun is an incremental (mostly no-op) make.
cfg_key=$( { sha256sum "${fragments[@]}"; cat "$kroot/src/$topdir.prepared"; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.config-key" 2>/dev/null)" != "$cfg_key" ]; then
	echo "build-kernel: configuring $name ($arch $base + ${fragments[*]##*/})"
	kmake "$base" >/dev/null
	(cd "$out" && ARCH="$arch" CC="ccache gcc" \
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${fragments[@]}" >/dev/null)
	kmake olddefconfig >/dev/null
	echo "$cfg_key" > "$out/.config-key"
fi

missing=()
while IFS= read -r opt; do
	grep -qx "$opt" "$out/.config" || missing+=("$opt")
done < <(cat "${fragments[@]}" | grep -E '^CONFIG_[A-Za-z0-9_]+=y' | sed 's/[[:space:]]*#.*//')
if [ ${#missing[@]} -gt 0 ]; then
	rm -f "$out/.config-key"
	die "options of ${fragments[*]##*/} not in the final .config (unmet dependencies?): ${missing[*]}"
fi

echo "build-kernel: building $name with -j$jobs"
kmake -j"$jobs"
case "$arch" in
um) image=$out/linux ;;
x86_64) image=$out/arch/x86/boot/bzImage ;;
esac
[ -f "$image" ] || die "build finished but $image is missing"
echo "build-kernel: $image"
