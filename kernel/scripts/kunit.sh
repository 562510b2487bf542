#!/usr/bin/env bash
# The kernel-kunit suite: the series' KUnit tests, built into the functional
# suite's UML kernel (kernel/configs/uml.config: CONFIG_KUNIT=y, off at boot)
# and run by booting it through tools/testing/kunit/kunit.py exec, which
# adds kunit.enable=1 and kunit_shutdown=halt.  Prints one line per test
# case and ends on "N passed, N failed" computed from kunit.py's JSON
# results.  A kernel that fails to boot, or a suite that reports no test
# cases at all, is a failure, never a silent pass.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
# kunit.py runs from build/kernel/src: no re-extraction under it.
. "$top/kernel/scripts/lock.sh"
. kernel/VERSION

tree=$top/build/kernel/src/$topdir
build_dir=$top/build/kernel/uml
json=$top/build/kernel/kunit-results.json
rm -f "$json"
if [ ! -x "$build_dir/linux" ]; then
	echo "FAIL: no UML kernel at $build_dir/linux (make kernel builds it)"
	echo "0 passed, 1 failed"
	exit 1
fi

# UML's memory file goes to TMPDIR (tests/guest/README.md).
(cd "$tree" && python3 tools/testing/kunit/kunit.py exec --arch=um \
	--build_dir="$build_dir" --timeout=120 --json="$json" 'unmapped_pagecache')
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
