#!/usr/bin/env bash
# Install, with apt-get, the Debian packages that the builds and tests need.
# Cheap when all are present: apt is only called for what is missing.
#
#   install-deps.sh         everything make check needs (the default)
#   install-deps.sh build   what building upcd and upcc needs, alone (make run)
#   install-deps.sh deb     the build set plus what building the Debian
#                           package needs (make deb): debian/control's
#                           Build-Depends, dpkg-buildpackage, and git, which
#                           scripts/build-deb.sh asks for the tree's files
#   install-deps.sh SET --list   print the set's packages, install nothing
#
# The build set is kept apart so that the main job on a bare machine does
# not wait for kernel sources, QEMU and lintian; tests/first-run checks that
# it names every package whose files the build includes, and that the deb
# set names debian/control's Build-Depends.
set -eu
cd "$(dirname "$0")/.."
build_packages=(build-essential libjson-c-dev)
deb_packages=(dpkg-dev debhelper git)
set_name=${1:-all}
case "$set_name" in
build|deb|all) ;;
*) echo "usage: install-deps.sh [build|deb|all] [--list]" >&2; exit 2 ;;
esac
packages=("${build_packages[@]}")
[ "$set_name" = build ] || packages+=("${deb_packages[@]}")
[ "$set_name" != all ] || packages+=(
	bc bison flex libelf-dev libssl-dev python3 python3-ply python3-git rsync cpio kmod
	ccache e2fsprogs util-linux busybox-static
	libcmocka-dev valgrind pkg-config clang libclang-rt-14-dev
	systemd
	# make install checks, the Debian package, the systemd guest's image
	bash-completion man-db groff-base lintian mmdebstrap
	qemu-system-x86 qemu-utils
	gnuplot-nox
	# upcc top through a real terminal, and proof it opens no scope file
	# (tests/unit/programs/top.sh)
	tmux strace
)
if [ "${2:-}" = --list ]; then
	printf '%s\n' "${packages[@]}"
	exit 0
fi
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
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	apt-get update -q
	apt-get install -y -q --no-install-recommends --allow-downgrades "${missing[@]}"
fi
# The kernel trees: one script fetches every one (kernel/scripts/
# fetch-source.sh): the series' 6.12, pinned while the archive has it, and
# the stock 6.1 from the machine's sources.  Trees of other suites (7.3)
# are fetched by the kernel build that needs them, without apt's sources.
if [ "$set_name" = all ]; then
	for v in kernel/VERSION kernel/VERSION-6.1; do
		kernel/scripts/fetch-source.sh "$v"
	done
fi
