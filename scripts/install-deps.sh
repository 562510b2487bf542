#!/usr/bin/env bash
# Install, with apt-get, every Debian package that the builds and tests need.
# Cheap when all are present: apt is only called for what is missing.
set -eu
cd "$(dirname "$0")/.."
. kernel/VERSION
packages=(
	build-essential bc bison flex libelf-dev libssl-dev python3 python3-ply python3-git rsync cpio kmod
	ccache e2fsprogs util-linux busybox-static
	# the userspace half's older-kernel suite (guest-backends-6.1)
	linux-source-6.1
	libcmocka-dev libjson-c-dev valgrind pkg-config clang libclang-rt-14-dev
	systemd
	# make install checks, the Debian package, the systemd guest's image
	bash-completion man-db groff-base dpkg-dev debhelper lintian git mmdebstrap
	qemu-system-x86 qemu-utils
	gnuplot-nox
)
missing=()
for p in "${packages[@]}"; do
	name=${p%%=*}
	want=${p#*=}
	have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
	case "$have" in
	"install ok installed"*) ;;
	*) missing+=("$p"); continue ;;
	esac
	if [ "$want" != "$p" ] && [ "${have##* }" != "$want" ]; then
		missing+=("$p")
	fi
done
export DEBIAN_FRONTEND=noninteractive
updated=0
# The series' tree: the pinned version while the archive has it, else the
# archive's newest 6.12 (kernel/scripts/source-version.sh says why).
have=$(dpkg-query -W -f='${Status} ${Version}' "$package" 2>/dev/null || true)
case "$have" in
"install ok installed $version") ;;
*)
	apt-get update -q
	updated=1
	want=$(kernel/scripts/source-version.sh)
	[ "$have" = "install ok installed $want" ] || missing+=("$package=$want")
	;;
esac
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	[ "$updated" -eq 1 ] || apt-get update -q
	apt-get install -y -q --no-install-recommends --allow-downgrades "${missing[@]}"
fi
