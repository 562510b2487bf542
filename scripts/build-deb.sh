#!/usr/bin/env bash
# build-deb.sh OUTDIR - the Debian package from this tree (debian/), built
# with dpkg-buildpackage -b -us -uc in a copy of the tree under OUTDIR (so
# its artefacts, which dpkg-buildpackage writes to the parent directory,
# stay under OUTDIR), then moved to OUTDIR.  The copy holds the files git
# knows, committed or not, and none it ignores (build/).  Its last line,
# on stdout, is the .deb's path as apt install takes it: OUTDIR as given
# (relative to the top of the tree) with a leading ./ if relative, so that
# `make deb` ends on ./build/deb/upcc_VERSION_ARCH.deb, the README's path.
# The .changes file (for lintian) is beside it, with the same stem.
set -euo pipefail
cd "$(dirname "$0")/.."
given=${1:?usage: build-deb.sh OUTDIR}
given=${given%/}
case "$given" in /* | ./*) ;; *) given=./$given ;; esac
out=$(realpath -m "$given")
version=$(dpkg-parsechangelog -S Version)
src=$out/src/upcc-$version
rm -rf "$out/src"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf - | tar -xf - -C "$src"
(cd "$src" && nice dpkg-buildpackage -b -us -uc >"$out/build.log" 2>&1) || {
	tail -n 30 "$out/build.log" >&2
	exit 1
}
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
rm -rf "$out/src"
echo "$given/upcc_${version}_$(dpkg-architecture -q DEB_HOST_ARCH).deb"
