#!/usr/bin/env bash
# make-tree.sh DIR FILES KIB DIRS - a tree of FILES files of KIB KiB each,
# spread over DIRS subdirectories of DIR/tree, synced so that every page is
# clean.  Made once: DIR/stamp records the shape, and a different shape
# makes it anew.  Shared by bench/backends/step-cost.sh and bench/inventory/cost.sh.
set -eu
work=$1 files=$2 kib=$3 dirs=$4
tree=$work/tree
stamp="$files files of $kib KiB in $dirs dirs"
[ "$(cat "$work/stamp" 2>/dev/null)" = "$stamp" ] && exit 0
rm -rf "$work"
mkdir -p "$tree"
for ((d = 0; d < dirs; d++)); do
	per=$((files / dirs + (d < files % dirs ? 1 : 0)))
	mkdir "$tree/$d"
	[ "$per" -gt 0 ] || continue
	# One process pair per directory, not one per file.
	head -c $((per * kib * 1024)) /dev/urandom |
		split -b $((kib * 1024)) -d -a 7 - "$tree/$d/f"
done
sync -f "$tree"
echo "$stamp" >"$work/stamp"
