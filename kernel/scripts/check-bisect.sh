#!/usr/bin/env bash
# Development check that every patch of the series compiles on its own:
# for each commit of a git worktree of the series (see export-patches.sh),
# compile the objects the series touches, for UML (no NUMA) and x86_64
# (NUMA), both with CONFIG_UNMAPPED_PAGECACHE_CONTROL=y where it exists.
#   check-bisect.sh WORKTREE BASE
# Not part of make check: it costs a kernel configuration per arch.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
tree=$(cd "$1" && pwd)
base=$2
objs=(mm/vmscan.o mm/page_alloc.o mm/vmstat.o mm/memcontrol.o mm/swap.o mm/compaction.o)
frag=$(mktemp)
trap 'rm -f "$frag"' EXIT
printf 'CONFIG_UNMAPPED_PAGECACHE_CONTROL=y\nCONFIG_LRU_GEN=y\nCONFIG_MEMCG=y\nCONFIG_DEBUG_INFO_NONE=y\n' > "$frag"
head=$(git -C "$tree" rev-parse HEAD)
rc=0
for c in $(git -C "$tree" rev-list --reverse "$base..$head"); do
	git -C "$tree" checkout -q "$c"
	for arch in um x86_64; do
		out=$top/build/kernel/bisect-$arch
		mkdir -p "$out"
		make -s -C "$tree" O="$out" ARCH=$arch defconfig >/dev/null
		(cd "$out" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" .config "$frag" >/dev/null 2>&1)
		make -s -C "$tree" O="$out" ARCH=$arch olddefconfig >/dev/null
		if nice -n 10 make -s -C "$tree" O="$out" ARCH=$arch CC="ccache gcc" \
			-j"${JOBS:-2}" "${objs[@]}" >"$out/log" 2>&1; then
			echo "PASS: $arch $(git -C "$tree" log -1 --format='%h %s' "$c")"
		else
			echo "FAIL: $arch $(git -C "$tree" log -1 --format='%h %s' "$c")"
			sed 's/^/    /' "$out/log" | tail -20
			rc=1
		fi
	done
done
git -C "$tree" checkout -q "$head"
exit $rc
