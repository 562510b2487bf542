#!/usr/bin/env bash
# Build the benchmark's x86_64 guest kernel from the patched tree
# (kernel/scripts/prepare-source.sh) on a *tinyconfig* base plus
# kernel/configs/x86_64.config, into build/bench-host/kernel/.
#
# Why not kernel/scripts/build-kernel.sh: it merges fragments onto defconfig,
# which takes ~4x longer on two shared cores and blows host-e2e's CI budget.
# Same checks as that script: every CONFIG_...=y of the fragment must be in
# the final .config, or the build stops.
#
#   build-guest-kernel.sh        prints the bzImage path on its last line
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
# Hold the tree lock for the whole build, as build-kernel.sh does, so that
# nobody re-extracts build/kernel/src under it.
. kernel/scripts/lock.sh
. kernel/VERSION
fragment=$top/kernel/configs/x86_64.config
tree=$top/build/kernel/src/$topdir
out=$top/build/bench-host/kernel

die() { echo "build-guest-kernel: $*" >&2; exit 1; }

kernel/scripts/prepare-source.sh >&2
mkdir -p "$out"
kmake() {
	nice -n 10 make -C "$tree" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}
key=$( { sha256sum "$fragment"; cat "$top/build/kernel/src/.prepared"; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.config-key" 2>/dev/null)" != "$key" ]; then
	echo "build-guest-kernel: configuring (tinyconfig + $(basename "$fragment"))" >&2
	kmake tinyconfig >/dev/null
	(cd "$out" && ARCH=x86_64 "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config" "$fragment" >/dev/null)
	kmake olddefconfig >/dev/null
	echo "$key" >"$out/.config-key"
fi
missing=()
while IFS= read -r opt; do
	grep -qx "$opt" "$out/.config" || missing+=("$opt")
done < <(grep -E '^CONFIG_[A-Za-z0-9_]+=y' "$fragment")
if [ ${#missing[@]} -gt 0 ]; then
	rm -f "$out/.config-key"
	die "not in the final .config (unmet dependencies?): ${missing[*]}"
fi
start=$(date +%s)
kmake -j"${JOBS:-2}" bzImage >"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log" >&2; die "build failed"; }
echo "build-guest-kernel: built in $(( $(date +%s) - start ))s" >&2
echo "$out/arch/x86/boot/bzImage"
