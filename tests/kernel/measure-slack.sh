#!/usr/bin/env bash
# measure-slack.sh [--kernel PATH] [--repeats N] [--interval-ms MS]
#
# How far above UNMAPPED_PAGE_RATIO x min_unmapped_pages does the unmapped
# page cache really go while 4x RAM is streamed?  Boots the UML kernel once
# with unmapped_page_control and streams the functional suite's data disk
# N times with MGLRU on and N times with it off, sampling every MS
# milliseconds (finer than the suite's 100 ms, to catch short peaks), and
# prints each run's peak minus the bound and the worst one.  The suite's
# SLACK_PAGES (run-functional.sh) is chosen from these figures.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kernel=$repo/build/kernel/uml/linux
repeats=5
interval=10

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--repeats) repeats=$2; shift 2 ;;
	--interval-ms) interval=$2; shift 2 ;;
	*) sed -n '2,11s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done

work=$repo/build/tests/kernel
image=$work/data.img
[ -f "$image" ] || { echo "measure-slack: no $image: run tests/kernel/run-functional.sh once" >&2; exit 1; }
[ -x "$work/ktest" ] || { echo "measure-slack: no $work/ktest: make $work/ktest" >&2; exit 1; }
mkdir -p "$work/measure"
guest=$work/measure/guest.sh
cat >"$guest" <<GUEST
mkdir -p /data && mount -t ext4 -o noatime /dev/ubda /data || exit 1
echo 1 >/proc/sys/vm/min_unmapped_ratio
for lru in y n; do
	echo \$lru >/sys/kernel/mm/lru_gen/enabled || exit 1
	i=0
	while [ \$i -lt $repeats ]; do
		echo 3 >/proc/sys/vm/drop_caches
		ktest stream --name "lru_gen_\${lru}_run\$i" --interval-ms $interval \
			--expect bounded --trace /results/lru_gen_\${lru}_${interval}ms_run\$i.csv /data/stream/*
		i=\$((i + 1))
	done
done
exit 0
GUEST
"$repo/tests/guest/uml-run.sh" --kernel "$kernel" --mem 256M --root "$work/root" \
	--file "$work/ktest" --disk-cow "$image" --share "$work/measure:/results" \
	--append unmapped_page_control --timeout 900 --log "$work/measure/console.log" \
	-- "$guest" >"$work/measure/out" || true
# "INFO NAME: peak unmapped P pages ... bound B pages ..." -> excess P - B.
summary=$(awk '/^INFO .*peak unmapped/ {
	name = $2; sub(":", "", name)
	for (i = 1; i <= NF; i++) {
		if ($i == "unmapped") peak = $(i + 1)
		if ($i == "bound") bound = $(i + 1)
		if ($i == "samples,") samples = $(i - 1)
	}
	printf "%-16s peak %6d  bound %6d  excess %6d pages  (%d samples)\n", name, peak, bound, peak - bound, samples
	if (n == 0 || peak - bound > worst) worst = peak - bound
	n++
}
END {
	if (n == 0) { print "measure-slack: no stream results; see the console log"; exit 1 }
	printf "worst excess over the bound: %d pages (%.1f MiB) in %d runs at '"$interval"' ms\n", worst, worst * 4096 / 1048576, n
	print "bound " bound
}' "$work/measure/out")
echo "$summary" | grep -v '^bound '
bound=$(echo "$summary" | sed -n 's/^bound //p')
[ -n "$bound" ] || exit 1
# How often a sample is over the bound by more than a given slack.
awk -F, -v bound="$bound" 'FNR > 1 {
	total++
	for (s = 0; s <= 2048; s = s ? s * 2 : 128)
		if ($2 > bound + s) over[s]++
}
END {
	for (s = 0; s <= 2048; s = s ? s * 2 : 128)
		printf "samples over bound + %4d pages: %5d of %d\n", s, over[s], total
}' "$work/measure"/lru_gen_*_"${interval}"ms_run*.csv
