#!/usr/bin/env bash
# The kernel-archive suite: the series' tree outlives the pinned package.
# kernel/scripts/source-version.sh against fake apt-cache listings (pinned
# offered, pinned gone with newer 6.12s beside other lines, no 6.12 left),
# then the tree in use: prepared, the series applied, its version named;
# then 7.3 fetched from trixie-backports without touching apt's sources.
# Ends on "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
passed=0
failed=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

check() { # name, condition result (0 = pass), detail
	if [ "$2" -eq 0 ]; then
		echo "PASS: $1 ($3)"
		passed=$((passed + 1))
	else
		echo "FAIL: $1 ($3)"
		failed=$((failed + 1))
	fi
}

cat >"$scratch/VERSION" <<'EOF'
package=linux-source-6.12
version=6.12.118-1~deb12u1
tarball=/usr/src/linux-source-6.12.tar.xz
sha256=0
topdir=linux-source-6.12
EOF

# A fake apt-cache that prints $scratch/listing as "madison" does.
cat >"$scratch/apt-cache" <<EOF
#!/bin/sh
[ "\$1" = madison ] && [ "\$2" = linux-source-6.12 ] || exit 1
exec cat "$scratch/listing"
EOF
chmod +x "$scratch/apt-cache"

resolve() { # listing lines... -> stdout version, $scratch/err, return code
	printf ' linux-source-6.12 | %s | http://deb.debian.org/debian bookworm/main Sources\n' \
		"$@" >"$scratch/listing"
	APT_CACHE=$scratch/apt-cache kernel/scripts/source-version.sh "$scratch/VERSION" \
		2>"$scratch/err"
}

got=$(resolve 6.12.119-1~deb12u1 6.12.118-1~deb12u1 6.12.117-1~deb12u1)
rc=$?
[ $rc -eq 0 ] && [ "$got" = 6.12.118-1~deb12u1 ] && [ ! -s "$scratch/err" ]
check pinned_offered_is_used $? "got '$got', exit $rc"

got=$(resolve 6.12.119-1~deb12u1 6.12.121-1~deb12u1 6.12.120-2~deb12u1 6.13.2-1 6.1.158-1)
rc=$?
[ $rc -eq 0 ] && [ "$got" = 6.12.121-1~deb12u1 ] &&
	grep -q "no longer in the archive; using 6.12.121-1~deb12u1" "$scratch/err"
check pinned_gone_newest_6_12_used $? "got '$got', exit $rc: $(head -c 200 "$scratch/err")"

got=$(resolve 6.13.2-1 6.1.158-1)
rc=$?
[ $rc -eq 1 ] && [ -z "$got" ] && grep -q "offers no linux-source-6.12 of the 6.12 line" "$scratch/err"
check no_6_12_left_refused $? "got '$got', exit $rc: $(head -c 200 "$scratch/err")"

# The real tree: install-deps put a linux-source-6.12 there (pinned or the
# fallback); prepare-source applies the series to it and names it.
out=$(kernel/scripts/prepare-source.sh 2>&1)
rc=$?
used=$(cat "$top/build/kernel/src/linux-source-6.12.version" 2>/dev/null)
installed=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)
[ $rc -eq 0 ] && [ "$used" = "linux-source-6.12 $installed" ]
check series_applies_to_tree_in_use $? "exit $rc; tree from '$used'; $(tail -n 1 <<<"$out")"
. kernel/VERSION
echo "INFO: tree $used; pinned reference $package $version"

# A tree of a suite the machine's sources lack (7.3, trixie-backports):
# fetched with a private sources list, nothing installed, apt's own
# sources and lists as they were.
apt_state() {
	{ ls -l --time-style=+%s /etc/apt/sources.list /etc/apt/sources.list.d/ \
		/var/lib/apt/lists/ 2>/dev/null; cat /etc/apt/sources.list \
		/etc/apt/sources.list.d/* 2>/dev/null; } | sha256sum
}
before=$(apt_state)
rm -rf "$top/build/kernel/fetched/linux-source-7.3" \
	"$top/build/kernel/fetched/linux-source-7.3.version"
out=$(kernel/scripts/fetch-source.sh kernel/VERSION-7.3 2>&1)
rc=$?
(. kernel/VERSION-7.3 && [ $rc -eq 0 ] && [ -f "$tarball" ] &&
	[ "$(sha256sum < "$tarball" | cut -d' ' -f1)" = "$sha256" ])
check fetched_7_3_tarball_is_the_pinned_one $? "exit $rc; $(tail -n 1 <<<"$out")"
[ "$(apt_state)" = "$before" ] &&
	! dpkg-query -W -f='${Status}' linux-source-7.3 2>/dev/null | grep -q installed
check fetch_left_apt_sources_and_dpkg_alone $? \
	"sources, lists and dpkg's database unchanged; linux-source-7.3 not installed"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
