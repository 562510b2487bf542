#!/usr/bin/env bash
# Fetch the kernel source tarball a kernel/VERSION* file names.
#
# usage: fetch-source.sh [VERSIONFILE]   (default kernel/VERSION)
#
# A file without "suite=" names a package of the machine's own apt sources
# (linux-source-6.12, linux-source-6.1): it is installed with apt-get, the
# pinned version while the archive has it, else the newest of its line
# (source-version.sh).
#
# A file with "suite=" names a suite the machine's sources lack (Debian's
# 7.3 is in trixie-backports): the package is downloaded with a private
# sources list, lists and archive cache under build/kernel/apt/, and
# unpacked with dpkg -x under build/kernel/fetched/PACKAGE/.  The machine's
# apt sources, lists and dpkg database are never touched, and nothing is
# installed.  The unpacked version is written to build/kernel/fetched/
# PACKAGE.version, which prepare-source.sh reads in place of dpkg's.
#
# Cheap when the tree is there: nothing is downloaded twice.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
version_file=${1:-kernel/VERSION}
suite=
. "$version_file"

die() { echo "fetch-source: $*" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

if [ -z "$suite" ]; then
	have=$(dpkg-query -W -f='${Status} ${Version}' "$package" 2>/dev/null || true)
	case "$have" in
	"install ok installed $version") exit 0 ;;	# the pinned one
	"install ok installed "?*)	# a stock tree that pins none takes any
		[ -n "$version" ] || exit 0 ;;
	esac
	apt-get update -q
	want=$(kernel/scripts/source-version.sh "$version_file")
	[ "$have" != "install ok installed $want" ] || exit 0
	apt-get install -y -q --no-install-recommends --allow-downgrades \
		"$package${want:+=$want}"
	exit 0
fi

fetched=$top/build/kernel/fetched
stamp=$fetched/$package.version
if [ -f "$stamp" ] && [ -f "$tarball" ]; then
	echo "fetch-source: $package $(cat "$stamp") already in $fetched"
	exit 0
fi

apt_dir=$top/build/kernel/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$fetched"
# Signed by the archive's own keyring, which holds trixie's keys on
# Debian 12 (debian-archive-keyring).
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
	"http://deb.debian.org/debian $suite main" > "$apt_dir/sources.list"
export APT_PRIVATE_DIR=$apt_dir
apt=$top/kernel/scripts/private-apt.sh
"$apt" apt-get update -q
# source-version.sh asks apt-cache madison: the private lists' answer.
want=$(APT_CACHE="$top/kernel/scripts/private-apt-cache.sh" \
	kernel/scripts/source-version.sh "$version_file") ||
	die "$suite has no $package of the pinned line"
[ -n "$want" ] || die "$version_file must pin a version for a fetched suite"

rm -f "$apt_dir"/*.deb
(cd "$apt_dir" && "$apt" apt-get download -q "$package=$want") ||
	die "cannot download $package=$want from $suite"
deb=$(ls "$apt_dir"/"${package}"_*.deb)
rm -rf "${fetched:?}/$package"
dpkg -x "$deb" "$fetched/$package"
rm -f "$deb"
[ -f "$tarball" ] || die "$package $want did not hold $tarball"
echo "$want" > "$stamp"
echo "fetch-source: $package $want from $suite unpacked in $fetched/$package"
