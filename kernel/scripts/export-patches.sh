#!/usr/bin/env bash
# Regenerate kernel/patches/ (and series) from a development git tree of the
# pinned source, one commit per patch on top of the base commit:
#   export-patches.sh [TREE [BASE [HEAD]]]
# TREE defaults to build/kernel/src/linux-source-6.12, BASE to the tree's
# root commit (the pristine tarball), HEAD to HEAD.
#
# kernel/patches/0000-cover-letter.patch is written by hand and kept; it is
# not listed in series (it has no diff to apply).
#
# If TREE's working files are exactly BASE plus the exported patches, its
# prepare-source stamp is rewritten, so that the make targets build in it
# instead of re-extracting the tarball over the development tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
. kernel/VERSION
tree=${1:-$top/build/kernel/src/$topdir}
base=${2:-$(git -C "$tree" rev-list --max-parents=0 HEAD)}
head=${3:-HEAD}
find kernel/patches -maxdepth 1 -name '*.patch' ! -name '0000-cover-letter.patch' -delete
git -C "$tree" format-patch -q --no-signature --zero-commit -o "$top/kernel/patches" "$base..$head"
(cd kernel/patches && ls -1 ./*.patch | sed 's|^\./||' | grep -v '^0000-cover-letter\.patch$' > series)
echo "export-patches: $(wc -l < kernel/patches/series) patches from $tree ($base..$head)"

if [ "$tree" = "$top/build/kernel/src/$topdir" ] &&
	git -C "$tree" diff --quiet "$head" -- . 2>/dev/null; then
	want=$( {
		echo "tarball $(sha256sum "$tarball" | cut -d' ' -f1)"
		while read -r p; do sha256sum "kernel/patches/$p"; done < kernel/patches/series
	} | sha256sum | cut -d' ' -f1)
	echo "$want" > "$top/build/kernel/src/$topdir.prepared"
	echo "$package $(dpkg-query -W -f='${Version}' "$package" 2>/dev/null || echo unknown)" \
		> "$top/build/kernel/src/$topdir.version"
	echo "export-patches: $tree matches the series; stamp updated"
fi
