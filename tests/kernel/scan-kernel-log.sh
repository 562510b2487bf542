#!/usr/bin/env bash
# scan-kernel-log.sh LOG...
#
# Print the first kernel reports in the given guest logs (console or dmesg)
# that a debug kernel must never produce: BUG, WARNING, lockdep ("possible
# circular locking", "INFO: " also starts hung-task and RCU-stall reports),
# KASAN, UBSAN, Oops.  Exit 1 if there is any, 0 if there is none, 2 if a
# log is missing.  Lines written by the test harness itself (uml-run's
# notes, the suite's PASS/FAIL/INFO lines) are not kernel reports.
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,9s/^# \{0,1\}//p' "$0" >&2; exit 2; }
for log in "$@"; do
	[ -f "$log" ] || { echo "scan-kernel-log: no such log $log" >&2; exit 2; }
done
hits=$(grep -E -H -n 'BUG|WARNING|possible circular locking|INFO: |KASAN|UBSAN|Oops' "$@" |
	grep -v -E ':[0-9]+:(\[ *[0-9.]+\] )?(uml-run: |PASS |FAIL |INFO )' | head -n 5)
[ -z "$hits" ] && exit 0
echo "$hits"
exit 1
