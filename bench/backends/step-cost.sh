#!/usr/bin/env bash
# step-cost.sh - what one `upcd --once` drain of a path scope costs, for one
# or more upcd binaries side by side (e.g. before and after a change).
#
# usage: bench/backends/step-cost.sh [--files N] [--kib K] [--runs R] [--target SIZE]
#                           [--trigger SIZE] [UPCD...]
#
# Makes a tree of N (3000) files of K (64) KiB under build/bench-step/, on the
# repo's own disk, and syncs it (so every page is clean and fadvise may drop
# it).  Then R (3) times, for each UPCD in turn (default build/upcd): reads the
# whole tree into the page cache and runs
#   UPCD --once --backend=fadvise --scope=path:TREE --target T --trigger G
# timing it.  It prints one row per run: wall ms, steps, KiB asked for,
# KiB reclaimed (from upcd -v's step lines, sizes as upcd logs them), the over-ask (reclaimed beyond what a step asked for), and
# the scope's unmapped cache at the end.  Then the median wall time per binary
# and its ratio to the first.  Only the files it made are read or evicted.
#
# An older binary to compare with:
#   git worktree add /tmp/upcc-old REV && make -C /tmp/upcc-old build/upcd
#   bench/backends/step-cost.sh /tmp/upcc-old/build/upcd build/upcd
set -eu
cd "$(dirname "$0")/../.."
files=3000
kib=64
runs=3
target=8M
trigger=16M
upcds=()
while [ $# -gt 0 ]; do
	case "$1" in
	--files) files=$2; shift 2 ;;
	--kib) kib=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--target) target=$2; shift 2 ;;
	--trigger) trigger=$2; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	-*) echo "step-cost: unknown option $1" >&2; exit 2 ;;
	*) upcds+=("$1"); shift ;;
	esac
done
[ ${#upcds[@]} -gt 0 ] || upcds=(build/upcd)
for u in "${upcds[@]}"; do
	[ -x "$u" ] || { echo "step-cost: $u is not an executable (make build/upcd?)" >&2; exit 2; }
done

work=$PWD/build/bench-step
tree=$work/tree
bench/inventory/make-tree.sh "$work" "$files" "$kib" $(((files + 299) / 300))

# One drain; prints "wall_ms steps asked reclaimed over end_unmapped".
drain() {
	local upcd=$1 log=$work/run.log start end
	find "$tree" -type f -exec cat {} + >/dev/null
	start=$(date +%s%N)
	"$upcd" -v --once --backend=fadvise --scope="path:$tree" --target "$target" \
		--trigger "$trigger" --state "$work/state.json" 2>"$log" || true
	end=$(date +%s%N)
	awk -v wall=$(((end - start) / 1000000)) '
		function kib(t,  n) {
			n = t + 0
			if (t ~ /Ki/) return n; if (t ~ /Mi/) return n * 1024
			if (t ~ /Gi/) return n * 1048576; return n / 1024
		}
		/: step [0-9]+: asked fadvise for .*, it took / {
			for (i = 1; i <= NF; i++) {
				if ($i == "for" && $(i - 1) == "fadvise") { t = $(i + 1); sub(/,$/, "", t); asked = kib(t) }
				if ($i == "took") got = kib($(i + 1))
			}
			steps++; sum_asked += asked; sum_got += got
			if (got > asked) over += got - asked
		}
		/idle: unmapped/ {
			for (i = 1; i <= NF; i++) if ($i == "unmapped") end = $(i + 1)
			sub(/,$/, "", end)
		}
		END { printf "%d %d %.0f %.0f %.0f %s\n", wall, steps, sum_asked, sum_got, over, end }' "$log"
}

echo "tree: $(cat "$work/stamp") ($(du -sh "$tree" | cut -f1)), target $target, trigger $trigger, $runs runs"
printf '| upcd | run | wall ms | steps | asked KiB | reclaimed KiB | over-ask KiB | unmapped at end |\n'
printf '|---|---|---|---|---|---|---|---|\n'
declare -A walls
for ((r = 1; r <= runs; r++)); do
	for u in "${upcds[@]}"; do
		read -r wall steps asked got over end_value end_unit <<<"$(drain "$u")"
		printf '| %s | %d | %d | %d | %d | %d | %d | %s %s |\n' "$u" "$r" "$wall" "$steps" \
			"$asked" "$got" "$over" "$end_value" "$end_unit"
		walls[$u]="${walls[$u]:-} $wall"
	done
done
echo
first=
for u in "${upcds[@]}"; do
	median=$(tr ' ' '\n' <<<"${walls[$u]}" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	[ -n "$first" ] || first=$median
	awk -v u="$u" -v m="$median" -v f="$first" \
		'BEGIN { printf "median %s: %d ms (%.2fx the first)\n", u, m, m / f }'
done
