#!/usr/bin/env bash
# Run each make target named on the command line as one test suite, keep its
# output in build/results/NAME.log, and end on the sum of the suites'
# "N passed, N failed" lines.  A suite that exits non-zero or prints no such
# line counts as one failure of its own.
set -u
cd "$(dirname "$0")/.."
mkdir -p build/results
total_passed=0
total_failed=0
summary=()
for suite in "$@"; do
	log="build/results/$suite.log"
	start=$(date +%s)
	echo "=== suite $suite"
	make --no-print-directory "$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	secs=$(( $(date +%s) - start ))
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	passed=$(sed -nE 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/p' <<<"$line")
	failed=$(sed -nE 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/p' <<<"$line")
	passed=${passed:-0}
	failed=${failed:-0}
	if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
		failed=1
	fi
	if [ -z "$line" ] && [ "$failed" -eq 0 ]; then
		failed=1
	fi
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
	summary+=("$(printf '%-24s %4d passed %4d failed  rc=%d  %4ds' "$suite" "$passed" "$failed" "$rc" "$secs")")
done
echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
