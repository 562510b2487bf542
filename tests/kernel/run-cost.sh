#!/usr/bin/env bash
# run-cost.sh [RUNS]
#
# The series' cost runs (issue 9 item 7; docs/kernel.md "Cost"): boots the
# x86_64 kernel (build/kernel/x86_64/bzImage) in QEMU with 2 vCPUs under
# multi-threaded TCG, 192 MiB of RAM and unmapped_page_control on the
# command line, and runs tests/kernel/guest-cost.sh: an anonymous page
# fault benchmark on both vCPUs and a buffered read of a 256 MiB file, each
# RUNS times (default 10) with vm.unmapped_page_control 0 and 1,
# alternating.  Prints, per benchmark, the median with the control off and
# on, the on-vs-off difference, and the noise floor: the differences
# between consecutive off runs (and between consecutive on runs); for the
# read also kswapd0's CPU per GiB streamed, off and on.  The raw lines are
# kept in build/tests/kernel/cost/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
runs=${1:-10}
kernel=${KERNEL:-$repo/build/kernel/x86_64/bzImage}
work=$repo/build/tests/kernel
out=$work/cost
image=$work/data.img
for f in "$kernel" "$work/ktest" "$image"; do
	[ -e "$f" ] || { echo "run-cost: $f missing (make kernel-x86_64 $work/ktest;" \
		"the data disk comes from make kernel-functional-smp)" >&2; exit 1; }
done
mkdir -p "$out"
start=$(date +%s)
"$repo/tests/guest/qemu-run.sh" --kernel "$kernel" --mem 192 --file "$work/ktest" \
	--disk-cow "$image" --append unmapped_page_control --timeout 1800 \
	--log "$out/console.log" --dmesg "$out/dmesg.log" \
	-- "$here/guest-cost.sh" "$runs" | tee "$out/raw.txt"
secs=$(($(date +%s) - start))
grep -q '^COST-DONE' "$out/raw.txt" || { echo "run-cost: the guest did not finish" >&2; exit 1; }

# key=value of a COST line
# stats BENCH KEY: median off/on, on-vs-off, consecutive-run spreads.
stats() {
	awk -v bench="$1" -v key="$2" '
	function med(a, n,   i, j, t, b) {
		for (i = 1; i <= n; i++) b[i] = a[i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && b[j - 1] > b[j]; j--) {
			t = b[j]; b[j] = b[j - 1]; b[j - 1] = t }
		return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
	}
	function abs(x) { return x < 0 ? -x : x }
	$1 == "COST" && $2 == bench {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		c = v["control"]; n[c]++; x[c, n[c]] = v[key]
	}
	END {
		for (c = 0; c <= 1; c++) {
			for (i = 1; i <= n[c]; i++) a[c, i] = x[c, i]
			for (i = 1; i <= n[c]; i++) t[i] = x[c, i]
			m[c] = med(t, n[c])
			k = 0
			for (i = 2; i <= n[c]; i++) d[++k] = abs(x[c, i] - x[c, i - 1]) / m[c] * 100
			dm[c] = med(d, k); dx[c] = 0
			for (i = 1; i <= k; i++) if (d[i] > dx[c]) dx[c] = d[i]
			delete t; delete d
		}
		printf "%s %s: off median %.1f (n=%d), on median %.1f (n=%d), on vs off %+.2f%%;" \
			" consecutive off-off |diff| median %.2f%% max %.2f%%, on-on median %.2f%% max %.2f%%\n",
			bench, key, m[0], n[0], m[1], n[1], (m[1] / m[0] - 1) * 100,
			dm[0], dx[0], dm[1], dx[1]
	}' "$out/raw.txt"
}
{
	echo "=== cost: $runs runs each, off/on alternating, $(date -u +%Y-%m-%dT%H:%MZ), host load $(cut -d' ' -f1-3 /proc/loadavg)"
	stats faults faults_per_s
	stats read mib_per_s
	awk '$1 == "COST" && $2 == "read" {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		c = v["control"]; b[c] += v["bytes"]; k[c] += v["kswapd_ms"]; s[c] += v["pgsteal_unmapped"]
	} END {
		for (c = 0; c <= 1; c++)
			printf "read kswapd0 CPU, control %d: %d ms over %.2f GiB = %.0f ms/GiB; pgsteal_unmapped %d\n",
				c, k[c], b[c] / 2^30, k[c] / (b[c] / 2^30), s[c]
	}' "$out/raw.txt"
	echo "wall time: ${secs}s (boot to power-off)"
} | tee "$out/summary.txt"
