#!/usr/bin/env bash
# tests/package/run.sh OUTDIR - the Debian package, built and checked on
# this machine without installing it (the install, upgrade, remove and purge
# under a real systemd are tests/systemd/, make check-systemd):
#  - make deb succeeds: install-deps.sh deb, then dpkg-buildpackage -b -us
#    -uc (scripts/build-deb.sh), and its last line is the .deb, for the
#    default OUTDIR the path in the README's quick start;
#  - lintian reports no error and no warning;
#  - the package holds the programs, the unit, the man pages, completion,
#    and /etc/upcc/upcd.conf as a conffile (kept on remove, gone on purge);
#  - the programs are built with the hardening flags;
#  - the maintainer scripts enable and start the unit (dh_installsystemd)
#    and restart it on upgrade;
#  - systemd-analyze verify --man=yes of the packaged unit, with the
#    packaged man pages: no finding;
#  - the package's version is the programs' --version.
# Ends on "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
out=${1:-build/deb}
tmp=$(mktemp -d /tmp/upcc-package-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. tests/unit/programs/lib.sh

start=$(date +%s)
make --no-print-directory deb DEB_DIR="$out" >"$tmp/build.out" 2>"$tmp/build.err"
rc=$?
result "make deb: install-deps.sh deb, dpkg-buildpackage -b -us -uc ($(( $(date +%s) - start )) s)" $rc \
	"$(tail -n 5 "$tmp/build.err")"
if [ $rc -ne 0 ]; then
	echo "$passed passed, $failed failed"
	exit 1
fi
# make deb's last line is the .deb, the path an operator gives apt install:
# for the default OUTDIR, the README's quick start path.
deb=$(tail -n 1 "$tmp/build.out")
changes=${deb%.deb}.changes
readme_deb=$(grep -oE 'apt install \./build/deb/[^ ]+\.deb' README.md | cut -d' ' -f3)
[ -f "$deb" ] && [ -f "$changes" ] && case "$out" in
	build/deb | ./build/deb) [ "$deb" = "$readme_deb" ] ;;
	*) true ;;
esac
result "make deb ends on the .deb it built (README: $readme_deb)" $? \
	"last line '$deb'$([ -f "$deb" ] || echo ' (no such file)')"
grep -q 'install-deps.sh deb' "$tmp/build.out"
result "make deb installs what it needs (install-deps.sh deb)" $? "$(head -n 3 "$tmp/build.out")"
version=$(dpkg-deb -f "$deb" Version)

lintian -I --fail-on error,warning --no-tag-display-limit "$changes" >"$tmp/lintian.log" 2>&1
rc=$?
tags=$(grep -E '^[EW]: ' "$tmp/lintian.log")
info=$(sed -nE 's/^I: [^ ]+ ([^ ]+).*/\1/p' "$tmp/lintian.log" | sort -u | tr '\n' ' ')
[ $rc -eq 0 ] && [ -z "$tags" ]
result "lintian: no error, no warning (info: ${info:-none})" $? "rc $rc: $tags"

contents=$(dpkg-deb -c "$deb" | awk '{ print $NF }')
missing=
for f in ./usr/sbin/upcd ./usr/bin/upcc ./lib/systemd/system/upcd.service \
	./etc/upcc/upcd.conf ./usr/share/man/man8/upcd.8.gz ./usr/share/man/man8/upcc.8.gz \
	./usr/share/man/man5/upcd.conf.5.gz ./usr/share/bash-completion/completions/upcc \
	./usr/share/bash-completion/completions/upcd ./usr/share/doc/upcc/copyright \
	./usr/share/doc/upcc/examples/upcc.rules.yml ./usr/share/doc/upcc/examples/upcc.json; do
	grep -qxF "$f" <<<"$contents" || missing+=" $f"
done
[ -z "$missing" ]
result "the package holds programs, unit, config, man pages, completion, monitoring examples" $? "missing:$missing"

dpkg-deb -e "$deb" "$tmp/control"
[ "$(cat "$tmp/control/conffiles")" = "/etc/upcc/upcd.conf" ]
result "/etc/upcc/upcd.conf is the one conffile" $? "$(cat "$tmp/control/conffiles")"

grep -q 'deb-systemd-helper enable.*upcd.service\|deb-systemd-helper.*enable' "$tmp/control/postinst" &&
	grep -q 'deb-systemd-invoke.*start.*upcd.service\|deb-systemd-invoke \$_dh_action.*upcd.service' \
		"$tmp/control/postinst" &&
	grep -q 'restart' "$tmp/control/postinst" &&
	grep -q 'deb-systemd-helper purge' "$tmp/control/postrm"
result "maintainer scripts enable and start upcd.service, restart on upgrade, purge its state" $? \
	"$(grep -h 'deb-systemd' "$tmp/control/postinst" "$tmp/control/postrm" | tr '\n' ' ')"

dpkg-deb -x "$deb" "$tmp/root"
relro=$(LC_ALL=C readelf -lW "$tmp/root/usr/sbin/upcd" | grep -c GNU_RELRO)
now=$(LC_ALL=C readelf -dW "$tmp/root/usr/sbin/upcd" | grep -cE 'BIND_NOW|FLAGS.*NOW')
fortify=$(LC_ALL=C nm -D "$tmp/root/usr/sbin/upcd" | grep -c '_chk@')
pie=$(LC_ALL=C readelf -hW "$tmp/root/usr/sbin/upcd" | grep -c 'DYN')
[ "$relro" -ge 1 ] && [ "$now" -ge 1 ] && [ "$fortify" -ge 1 ] && [ "$pie" -ge 1 ]
result "upcd is hardened: PIE, RELRO, BIND_NOW, fortified calls ($fortify)" $? \
	"relro $relro now $now fortify $fortify pie $pie"

unit=$tmp/root/lib/systemd/system/upcd.service
grep -qE '^ExecStart=/usr/sbin/upcd( |$)' "$unit"
result "the packaged unit runs /usr/sbin/upcd" $? "$(grep ExecStart "$unit")"
sed "s|^ExecStart=/usr/sbin/upcd|ExecStart=$tmp/root/usr/sbin/upcd|" "$unit" >"$tmp/upcd.service"
out_v=$(MANPATH=$tmp/root/usr/share/man systemd-analyze verify --man=yes "$tmp/upcd.service" 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -z "$out_v" ]
result "systemd-analyze verify --man=yes of the packaged unit and man pages: no finding" $? "$out_v"

v_upcd=$("$tmp/root/usr/sbin/upcd" --version | awk '{ print $2 }')
v_upcc=$("$tmp/root/usr/bin/upcc" --version | awk '{ print $2 }')
[ "$v_upcd" = "$version" ] && [ "$v_upcc" = "$version" ]
result "package version $version = upcd --version ($v_upcd) = upcc --version ($v_upcc)" $?

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
