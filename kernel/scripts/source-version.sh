#!/usr/bin/env bash
# Which version of a kernel source package to install: the one that
# kernel/VERSION pins while the archive still has it, else the newest of the
# same upstream line (6.12.x) that the archive offers.  Debian replaces
# linux-source-6.12 with every point release and drops the old ones, so a
# pin alone would make a fresh machine's build fail once it goes.
#
# usage: source-version.sh [VERSIONFILE]
#   Prints the version to install (empty for a file that pins none, such as
#   kernel/VERSION-6.1), and on stderr why when it is not the pinned one.
#   Exits 1 when the archive has no version of the pinned line.
#   APT_CACHE names the apt-cache command (tests give a fake one); the
#   caller runs apt-get update first.
set -euo pipefail
cd "$(dirname "$0")/../.."
. "${1:-kernel/VERSION}"
apt_cache=${APT_CACHE:-apt-cache}

[ -n "$version" ] || { echo; exit 0; }

# "6.12.118-1~deb12u1" -> "6.12": what a replacement must share.
line=$(sed -E 's/^([0-9]+\.[0-9]+)[.-].*/\1/' <<<"$version")

# apt-cache madison: " pkg | version | source", one line per version and
# archive; a version may be listed twice.
mapfile -t offered < <("$apt_cache" madison "$package" 2>/dev/null |
	awk -F'|' '{ gsub(/[[:space:]]/, "", $2); if ($2 != "") print $2 }' | sort -u)

newest=
for v in "${offered[@]}"; do
	[ "$v" = "$version" ] && { echo "$version"; exit 0; }
	case "$v" in "$line".*) ;; *) continue ;; esac
	if [ -z "$newest" ] || dpkg --compare-versions "$v" gt "$newest"; then
		newest=$v
	fi
done
if [ -z "$newest" ]; then
	echo "source-version: the archive offers no $package of the $line line" \
		"(pinned: $version)" >&2
	exit 1
fi
echo "source-version: $package $version is no longer in the archive;" \
	"using $newest (the series must still apply: prepare-source.sh checks)" >&2
echo "$newest"
