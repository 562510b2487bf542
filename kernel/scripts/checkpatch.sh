#!/usr/bin/env bash
# The kernel-checkpatch suite: scripts/checkpatch.pl --strict on every patch
# of kernel/patches/series (checkpatch.sh [VERSIONFILE]: of the series that
# VERSIONFILE's series= names, with that tree's checkpatch.pl, e.g.
# kernel/VERSION-7.3-v7 for kernel/patches-7.3/).  A patch passes with 0 errors and 0 warnings
# (checks are reported but do not fail it).  Only FILE_PATH_CHANGES is
# ignored (see below).  Ends on "N passed, N failed".
set -uo pipefail
# checkpatch.pl runs scripts/spdxcheck.py with "python3"; it needs the
# python3-ply and python3-git modules, which Debian installs for /usr/bin.
export PATH=/usr/bin:$PATH
cd "$(dirname "$0")/../.."
top=$PWD
. "$top/kernel/scripts/lock.sh"
version_file=${1:-kernel/VERSION}
series=kernel/patches/series
subdir=
. "$version_file"
patch_dir=$(dirname "${series#"$top"/}")

kernel/scripts/prepare-source.sh "$version_file" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
tree=$top/build/kernel/${subdir:+$subdir/}src/$topdir

passed=0
failed=0
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$series" | grep -v '^$')
if [ ${#patches[@]} -eq 0 ]; then
	echo "FAIL: $series lists no patches"
	failed=1
fi
for p in "${patches[@]}"; do
	# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires for
	# any new file; the series adds only mm/unmapped_pagecache_kunit.c,
	# which MEMORY MANAGEMENT's "F: mm/" covers, and the v2 review asked
	# for no MAINTAINERS change.
	out=$(cd "$tree" && ./scripts/checkpatch.pl --strict --no-color \
		--ignore FILE_PATH_CHANGES "$top/$patch_dir/$p" 2>&1)
	summary=$(grep -E '^total: [0-9]+ errors, [0-9]+ warnings' <<<"$out" | tail -n 1)
	errors=$(sed -nE 's/^total: ([0-9]+) errors.*/\1/p' <<<"$summary")
	warnings=$(sed -nE 's/^total: [0-9]+ errors, ([0-9]+) warnings.*/\1/p' <<<"$summary")
	if [ -n "$summary" ] && [ "$errors" -eq 0 ] && [ "$warnings" -eq 0 ]; then
		echo "PASS: $p ($summary)"
		passed=$((passed + 1))
	else
		echo "FAIL: $p (${summary:-checkpatch.pl printed no summary})"
		grep -E '^(ERROR|WARNING):' -A3 <<<"$out" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
