#!/usr/bin/env bash
# Regenerate kernel/patches/ (and series) from a development git tree of the
# pinned source, one commit per patch on top of the base commit:
#   export-patches.sh [TREE [BASE]]
# TREE defaults to build/src/linux-source-6.12, BASE to the tree's root commit.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
tree=${1:-$top/build/src/linux-source-6.12}
base=${2:-$(git -C "$tree" rev-list --max-parents=0 HEAD)}
rm -f kernel/patches/*.patch
git -C "$tree" format-patch -q --no-signature --zero-commit -o "$top/kernel/patches" "$base..HEAD"
(cd kernel/patches && ls -1 ./*.patch | sed 's|^\./||' > series)
echo "export-patches: $(wc -l < kernel/patches/series) patches from $tree"
