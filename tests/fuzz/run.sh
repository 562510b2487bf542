#!/usr/bin/env bash
# run.sh RUNS FUZZER... - for each libFuzzer target (build/fuzz/fuzz_NAME):
# replay its committed corpus (tests/fuzz/corpus/NAME, every file once),
# then fuzz RUNS executions from it with a fixed seed (new inputs go to a
# scratch directory, never into the committed corpus).  A crash, a
# sanitizer report, a leak or a timeout fails.  Ends on "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
runs=$1
shift
passed=0
failed=0
scratch=$(mktemp -d /tmp/upcc-fuzz-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
result() {	# result NAME RC LOG
	if [ "$2" -eq 0 ]; then
		echo "PASS $1"
		passed=$((passed + 1))
	else
		echo "FAIL $1 (exit $2)"
		tail -n 30 "$3"
		failed=$((failed + 1))
	fi
}
for fuzzer in "$@"; do
	name=$(basename "$fuzzer")
	corpus=tests/fuzz/corpus/${name#fuzz_}
	log=$scratch/$name.log
	"$fuzzer" -timeout=10 -rss_limit_mb=2048 "$corpus"/* >"$log" 2>&1
	result "$name: replays its corpus ($(ls "$corpus" | wc -l) inputs)" $? "$log"
	mkdir -p "$scratch/$name"
	start=$SECONDS
	"$fuzzer" -runs="$runs" -seed=1 -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
		-artifact_prefix="$scratch/" "$scratch/$name" "$corpus" >"$log" 2>&1
	rc=$?
	result "$name: $runs executions from the corpus ($((SECONDS - start)) s)" $rc "$log"
	[ $rc -ne 0 ] && ls "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* 2>/dev/null
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
