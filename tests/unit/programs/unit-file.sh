#!/usr/bin/env bash
# unit-file.sh [UPCD] - systemd/upcd.service.in as systemd reads it.
# This machine does not run systemd, so the unit is checked offline (a real
# systemd runs it in tests/systemd/, `make check-systemd`):
#  - ExecStart is the template's @SBINDIR@/upcd: no installed path is
#    hard-coded (make install substitutes it);
#  - systemd-analyze verify finds no error in it (with ExecStart pointed at
#    the upcd under test);
#  - every path upcd is documented to write is writable under
#    ProtectSystem=strict: /run/upcc (state) and Debian's textfile collector
#    directory /var/lib/prometheus/node-exporter (metrics), as the shipped
#    config's metrics = names it;
#  - ProtectKernelTunables=yes, and the kernel files upcd writes (each as its
#    writer in src/act/ names it: compact_memory, drop_caches, DAMON's
#    sysfs, cgroup v2's memory.reclaim) are writable, no other;
#  - Documentation= names the man pages the repository ships;
#  - its hardening stays where it was measured: an exposure level of at most
#    UNIT_EXPOSURE_MAX (systemd-analyze security --offline; 2.5 when written,
#    2.4 with ProtectKernelTunables=yes);
#  - upcd starts with the unit's ExecStart arguments as they are, with no
#    config file (the unit must not name one: a named config that is missing
#    is an error), the runtime folder moved under a temporary one, run
#    --once --dry-run;
#  - ExecStart names no --state: the config's state = is the daemon's state
#    file, the one upcc status finds through the same config (issue 31);
#  - the exit code the unit does not restart on is the one upcd gives for a
#    bad config (docs/upcd.md).
# Ends on "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
upcd=$(realpath "${1:-${UPCD:?}}")
unit=systemd/upcd.service.in
exposure_max=${UNIT_EXPOSURE_MAX:-3.0}
tmp=$(mktemp -d /tmp/upcc-unit-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. tests/unit/programs/lib.sh

exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
installed=${exec_start%% *}
[ "$installed" = "@SBINDIR@/upcd" ]
result "ExecStart is @SBINDIR@/upcd, substituted at install" $? "$installed"
sed "s|^ExecStart=$installed|ExecStart=$upcd|" "$unit" >"$tmp/upcd.service"

# ReadWritePaths may be given more than once; "-" marks a path that may be missing.
rw=" $(sed -n 's/^ReadWritePaths=//p' "$unit" | tr '\n' ' ' | sed -E 's/(^| )-/\1/g') "
shipped_metrics=$(sed -nE 's/^#?metrics = (.*)/\1/p' dist/upcd.conf)
ok=0
for path in /run/upcc "$(dirname "$shipped_metrics")" /var/lib/prometheus/node-exporter; do
	[[ $rw == *" $path "* ]] || ok=1
done
result "writable under the unit: /run/upcc and the metrics directory ${shipped_metrics%/*}" $ok "$rw"

# ProtectKernelTunables=yes keeps /proc/sys and /sys read-only but for the
# ReadWritePaths: each kernel file upcd writes (the path as its writer's
# source names it) must be one of them or under one, and nothing else of
# /proc/sys or /sys may be.  Each pair: the path, the file that writes it.
grep -qx 'ProtectKernelTunables=yes' "$unit"
result "ProtectKernelTunables=yes" $? "$(grep -n 'ProtectKernelTunables' "$unit" || echo 'not set')"
ok=0 why=
for pair in /proc/sys/vm/compact_memory:src/act/compact.c \
	/proc/sys/vm/drop_caches:src/act/backend_dropcache.c \
	/sys/kernel/mm/damon/admin:src/act/backend_damon.c \
	/sys/fs/cgroup:src/act/backend_memcg.c; do
	path=${pair%%:*} src=${pair#*:}
	if ! grep -qF "\"$path\"" "$src"; then ok=1 why+=" $src no longer names $path;"; continue; fi
	covered=1
	for w in $rw; do
		[[ $path == "$w" || $path == "$w"/* ]] && covered=0
	done
	[ $covered -eq 0 ] || { ok=1 why+=" $path not writable;"; }
done
for w in $rw; do
	case "$w" in
	/proc/sys/vm/compact_memory | /proc/sys/vm/drop_caches | /sys/kernel/mm/damon | /sys/fs/cgroup) ;;
	/proc/* | /sys/*) ok=1 why+=" $w writable, upcd does not write it;" ;;
	esac
done
result "writable kernel files: compact_memory, drop_caches, DAMON's admin, cgroup memory.reclaim, no other" $ok \
	"${why}ReadWritePaths:$rw"

docs=$(sed -n 's/^Documentation=//p' "$unit")
ok=0
for doc in $docs; do
	page=${doc#man:}
	name=${page%(*}
	section=${page#*(}
	section=${section%)}
	[ "$doc" != "$page" ] && [ -f "docs/man/$name.$section" ] || ok=1
done
[ -n "$docs" ] && [ $ok -eq 0 ]
result "Documentation= names only shipped man pages ($docs)" $?

# verify exits 0 on warnings too: any line it prints about the unit is a finding.
out=$(systemd-analyze verify --man=no "$tmp/upcd.service" 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ]
result "systemd-analyze verify: no finding" $? "$out"

out=$(systemd-analyze security --offline=yes "$tmp/upcd.service" 2>&1)
level=$(sed -nE 's/.*Overall exposure level for [^:]*: ([0-9.]+).*/\1/p' <<<"$out")
[ -n "$level" ] && awk -v l="$level" -v m="$exposure_max" 'BEGIN { exit !(l <= m) }'
result "exposure level ${level:-?} <= $exposure_max" $? "$(tail -n 3 <<<"$out")"

# The unit's own arguments, its runtime folder moved: /run/upcc does not exist here.
read -r -a args <<<"${exec_start#"$installed"}"
for i in "${!args[@]}"; do
	args[i]=${args[i]//\/run\/upcc/$tmp}
done
"$upcd" "${args[@]}" --once --dry-run >"$tmp/run.log" 2>&1
rc=$?
[ $rc -eq 0 ]
result "upcd takes the unit's ExecStart arguments (exit $rc)" $? \
	"$(tail -n 3 "$tmp/run.log")"
# With --state the unit wrote /run/upcc/state.json whatever upcd.conf said,
# and upcc status, which reads upcd.conf, looked elsewhere.
! grep -qE -- '(^| )--state([ =]|$)' <<<"$exec_start"
result "ExecStart names no --state: upcd.conf's state = is the daemon's, as upcc status reads it" $? \
	"$exec_start"

no_restart=$(sed -n 's/^RestartPreventExitStatus=//p' "$unit")
printf '# upcd.conf\nnot a line\n' >"$tmp/upcd.conf"
"$upcd" "${args[@]}" --config "$tmp/upcd.conf" --once --dry-run >"$tmp/bad.log" 2>&1
rc=$?
[ "$rc" = "$no_restart" ] && grep -qF "$tmp/upcd.conf:2: " "$tmp/bad.log"
result "a bad config exits $rc, the status the unit does not restart on ($no_restart), naming the line" $? \
	"$(tail -n 2 "$tmp/bad.log")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
