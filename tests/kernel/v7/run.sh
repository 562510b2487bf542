#!/usr/bin/env bash
# run.sh [--debug] [--kernel PATH --tag NAME] [--no-control] [--keep]
#
# The v7 series' functional suite: boots the UML kernel built from
# kernel/patches-7.3/ (make kernel-v7: build/kernel/v7/uml-v7/linux) with
# 256M of RAM and an ext4 data disk, and runs guest.sh in it: memory.reclaim's
# "unmapped" key on the classic LRU and on MGLRU (switched at run time), each
# check beside its negative control (the same request without the key).
# Prints every check and ends on "N passed, N failed".  --debug boots
# build/kernel/v7/uml-v7-debug/linux (make kernel-v7-debug: DEBUG_VM,
# lockdep, KASAN), whose log must also be free of their reports.
# --kernel boots another kernel (e.g. the 6.12 port, make
# kernel-v7-6.12-functional); --tag names its logs (guest-NAME.out).
# The kernel boots with unmapped_page_control=1 and the automatic control's
# checks run; --no-control (a kernel without the control, e.g. the 6.12
# port) boots without it and skips them.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
kernel=$repo/build/kernel/v7/uml-v7/linux
keep=()
suffix=
append=(--append "unmapped_page_control=1")
while [ $# -gt 0 ]; do
	case "$1" in
	--debug) kernel=$repo/build/kernel/v7/uml-v7-debug/linux; suffix=-debug; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	--tag) suffix=-$2; shift 2 ;;
	--no-control) append=(); shift ;;
	--keep) keep=(--keep); shift ;;
	*) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
	esac
done

work=$repo/build/tests/kernel-v7
probe=$work/v7probe
selftest=$work/test_memcontrol
mkdir -p "$work"
passed=0
failed=0
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}
if [ ! -e "$kernel" ] || [ ! -e "$probe" ] || [ ! -e "$selftest" ]; then
	echo "FAIL prerequisites: $kernel, $probe or $selftest missing (make kernel-v7-functional)"
	failed=1
	finish
fi

# c0..c3 (64 MiB) and m (16 MiB) of random data (no holes), made once; the
# guest attaches the image copy-on-write, so it never changes.
image=$work/data.img
layout="c=64Mx4 m=16M v1"
if [ ! -f "$image" ] || [ "$(cat "$work/data.stamp" 2>/dev/null)" != "$layout" ]; then
	staging=$work/data.staging
	rm -rf "$staging" "$image"
	mkdir -p "$staging"
	for f in c0 c1 c2 c3; do head -c 64M /dev/urandom > "$staging/$f"; done
	head -c 16M /dev/urandom > "$staging/m"
	truncate -s 400M "$image.tmp" &&
		mkfs.ext4 -q -F -L upcc-v7 -d "$staging" "$image.tmp" &&
		mv "$image.tmp" "$image" && echo "$layout" > "$work/data.stamp"
	rm -rf "$staging"
	if [ ! -f "$image" ]; then
		echo "FAIL prerequisites: cannot make $image"
		failed=1
		finish
	fi
fi

out=$work/guest$suffix.out
start=$(date +%s)
"$repo/tests/guest/uml-run.sh" --kernel "$kernel" --mem 256M \
	--root "$work/root" --file "$probe" --file "$selftest" --disk-cow "$image" --timeout 900 \
	"${append[@]}" \
	--log "$work/console$suffix.log" "${keep[@]}" -- "$here/guest.sh" | tee "$out"
rc=${PIPESTATUS[0]}
secs=$(($(date +%s) - start))
passed=$(grep -c '^PASS ' "$out")
failed=$(grep -c '^FAIL ' "$out")
if grep -q '^CHECKS-DONE$' "$out" && { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; }; then
	echo "PASS boot_completed: guest ran every check, exit $rc, ${secs}s"
	passed=$((passed + 1))
else
	echo "FAIL boot_completed: guest exit $rc after ${secs}s; see $work/console$suffix.log"
	failed=$((failed + 1))
fi
finish
