#!/usr/bin/env bash
# The kernel-kunit suite: run the series' KUnit tests with
# tools/testing/kunit/kunit.py on UML, print one line per test case and end
# on "N passed, N failed" computed from kunit.py's JSON results.  A kernel
# that fails to build or boot, or a suite that reports no test cases at all,
# is a failure, never a silent pass.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
. "$top/kernel/scripts/lock.sh"
. kernel/VERSION

kernel/scripts/prepare-source.sh || { echo "0 passed, 1 failed"; exit 1; }

tree=$top/build/kernel/src/$topdir
build_dir=$top/build/kernel/kunit
json=$top/build/kernel/kunit-results.json
jobs=${JOBS:-$(nproc)}
rm -f "$json"
# As in build-kernel.sh: hash paths relative to the checkout, so that a fresh
# clone elsewhere reuses the compiler cache.
export CCACHE_BASEDIR=$top

(cd "$tree" && nice -n 10 python3 tools/testing/kunit/kunit.py run --arch=um \
	--build_dir="$build_dir" --kunitconfig="$top/kernel/configs/kunitconfig" \
	--jobs="$jobs" --make_options "CC=ccache gcc" --json="$json")
kunit_rc=$?

python3 - "$json" "$kunit_rc" <<'PY'
import json, sys

path, kunit_rc = sys.argv[1], int(sys.argv[2])
passed = failed = 0


def walk(group, prefix):
    global passed, failed
    name = f"{prefix}{group['name']}."
    for case in group.get("test_cases", []):
        ok = case["status"] in ("PASS", "SKIP")
        print(f"{'PASS' if ok else 'FAIL'}: {name}{case['name']} ({case['status']})")
        if ok:
            passed += 1
        else:
            failed += 1
    for sub in group.get("sub_groups", []):
        walk(sub, name)


try:
    with open(path) as f:
        root = json.load(f)
    for suite in root.get("sub_groups", []):
        walk(suite, "")
except (OSError, ValueError) as err:
    print(f"FAIL: no KUnit results in {path}: {err}")
    failed += 1
if passed + failed == 0:
    print("FAIL: kunit.py ran no test cases")
    failed += 1
if kunit_rc != 0 and failed == 0:
    print(f"FAIL: kunit.py exited with {kunit_rc}")
    failed += 1
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
