#!/usr/bin/env bash
# with-cpu-hog.sh [-n N] COMMAND... - run COMMAND with N busy loops beside it
# (default: one per CPU, `yes >/dev/null` at nice 0, the priority of the
# tests themselves), and kill them when it ends.  The exit status is
# COMMAND's.  What `make check-busy` runs the kernel suites under, to show
# that no timing check in them needs an idle machine (docs/development.md,
# "Timing-dependent checks").  Prints each hog's CPU time at the end, so a
# run says how busy the machine really was.
set -euo pipefail
n=$(nproc)
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
[ $# -gt 0 ] || { sed -n '2,8s/^# \{0,1\}//p' "$0" >&2; exit 2; }
hz=$(getconf CLK_TCK)
hogs=()
# shellcheck disable=SC2317 # called by the EXIT trap
stop_hogs() {
	local p
	for p in "${hogs[@]}"; do
		awk -v hz="$hz" -v p="$p" '{ printf "with-cpu-hog: hog %s used %.0f s of CPU\n", p, ($14 + $15) / hz }' \
			"/proc/$p/stat" 2>/dev/null || true
		kill "$p" 2>/dev/null || true
	done
	hogs=()
}
trap stop_hogs EXIT
for _ in $(seq "$n"); do
	nice -n 0 yes >/dev/null &
	hogs+=("$!")
done
echo "with-cpu-hog: $n x yes >/dev/null at nice 0 beside: $*"
start=$(date +%s)
rc=0
"$@" || rc=$?
echo "with-cpu-hog: $* exited $rc after $(( $(date +%s) - start )) s"
exit "$rc"
