# SPDX-License-Identifier: GPL-2.0
# lib.sh - sourced by the integration suites: the sanitizer settings of
# the ASan/UBSan programs, and the counting of checks.
#
#   pass NAME / fail NAME          count and print one check
#   check NAME COMMAND...          pass if COMMAND succeeds, else fail
#   finish                         print "N passed, N failed" and exit 0 or 1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
PAGE=$(getconf PAGESIZE)
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "ok   - $*"; }
fail() { failed=$((failed + 1)); echo "FAIL - $*"; }
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}
