#!/usr/bin/env bash
# programs-valgrind.sh - upcd and upcc themselves under valgrind memcheck
# (dry runs and status only: nothing global is touched).  Any memcheck
# error or leak fails the check.  Ends on "N passed, N failed".
set -u
upcd=${UPCD:?}
upcc=${UPCC:?}
tmp=$(mktemp -d /tmp/upcc-vg-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
vg() {	# vg WANT_EXIT COMMAND...: memcheck clean and the program's exit code
	local want=$1 rc
	shift
	valgrind --quiet --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] || { echo "exit $rc (wanted $want): $*"; grep -v '^upcd:' "$tmp/err" | head -30; return 1; }
}
check() {
	local name=$1
	shift
	if "$@"; then echo "PASS $name"; passed=$((passed + 1)); else echo "FAIL $name"; failed=$((failed + 1)); fi
}
printf '[scope a]\ntype = system\n[scope b]\ntype = node\nnode = 0\ntarget = 64M\n' >"$tmp/good.conf"
printf '[scope a]\ntype = system\n[scope b]\ntype = cgroup\n' >"$tmp/bad.conf"
check "upcd --once --dry-run (defaults)" vg 0 "$upcd" --once --dry-run --state "$tmp/s.json" --metrics "$tmp/m.prom"
check "upcd --once --dry-run (config, two scopes)" vg 0 "$upcd" --config "$tmp/good.conf" --once --dry-run
check "upcd refuses a bad config" vg 2 "$upcd" --config "$tmp/bad.conf" --once --dry-run
check "upcd --check (config, two scopes)" vg 0 "$upcd" --check --config "$tmp/good.conf"
check "upcd --check (no usable backend)" vg 1 "$upcd" --check --backend=damon --scope "path:$tmp"
check "upcc evict --json --dry-run" vg 0 "$upcc" evict --json --dry-run "$tmp"
check "upcc status (a --once state: not running, 3)" vg 3 "$upcc" status --state "$tmp/s.json"
check "upcc status --json (a stale state)" vg 3 "$upcc" status --json --state "$tmp/s.json"
printf 'state = %s\n' "$tmp/s.json" >"$tmp/state.conf"
check "upcc status --config (its state =)" vg 3 "$upcc" status --config "$tmp/state.conf"
check "upcc status --state MISSING (an error)" vg 1 "$upcc" status --json --state "$tmp/none.json"
check "upcc top -n 2 (a --once state: not running at the last frame, 3)" \
	vg 3 "$upcc" top -n 2 -d 0.1 --state "$tmp/s.json"
check "upcc top --state MISSING (an error)" vg 1 "$upcc" top -n 1 --state "$tmp/none.json"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
