#!/usr/bin/env bash
# Run cmocka unit test binaries and sum their results.
#   run.sh MODE BIN... [-- MODE BIN...]...
# MODE is script (the argument is a program that prints its own
# "N passed, N failed" line), plain, asan (the binaries are ASan/UBSan builds: run as is, any
# report aborts them) or valgrind (memcheck; any error or leak fails).
# Each binary's "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)" are
# summed; a binary that exits non-zero without reporting a failed test
# (a crash, a sanitizer or valgrind report) counts as one failure.
# Ends on a plain "N passed, N failed" line.
set -u
cd "$(dirname "$0")/../.."
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
total_passed=0
total_failed=0
mode=plain
for arg in "$@"; do
	case "$arg" in
	--) continue ;;
	plain|asan|valgrind|script) mode=$arg; continue ;;
	esac
	name="$mode/$(basename "$arg")"
	if [ "$mode" = valgrind ]; then
		output=$(valgrind --quiet --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite,indirect,possible \
			--show-leak-kinds=definite,indirect,possible "$arg" 2>&1)
	else
		output=$("$arg" 2>&1)
	fi
	rc=$?
	if [ "$mode" = script ]; then
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$output" | tail -n 1)
		passed=$(sed -nE 's/^([0-9]+) passed.*/\1/p' <<<"$line")
		failed=$(sed -nE 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/p' <<<"$line")
		passed=${passed:-0}
		failed=${failed:-0}
		[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
		grep -E '^(PASS|FAIL) ' <<<"$output" | sed "s|^|$name |"
		[ "$failed" -ne 0 ] && printf '%s\n' "$output" | tail -n 20
		echo "$([ "$failed" -eq 0 ] && echo 'ok  ' || echo FAIL) $name: $passed passed, $failed failed"
		total_passed=$((total_passed + passed))
		total_failed=$((total_failed + failed))
		continue
	fi
	passed=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) test.*/\1/p' <<<"$output" | tail -n 1)
	failed=$(sed -nE 's/^\[  FAILED  \] ([0-9]+) test.*/\1/p' <<<"$output" | tail -n 1)
	passed=${passed:-0}
	failed=${failed:-0}
	if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
		failed=1
	fi
	if [ "$failed" -ne 0 ]; then
		printf '%s\n' "$output"
		echo "FAIL $name: $passed passed, $failed failed (exit $rc)"
	else
		grep -E '^\[       OK \]' <<<"$output" | sed "s|^|$name |"
		echo "ok   $name: $passed passed"
	fi
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
done
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
