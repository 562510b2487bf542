#!/usr/bin/env bash
# bench/inventory/cost.sh [--files N] [--dirs D] - the inventory's cost on a big
# tree, beside find(1): N (100000) one-page files in D (200) directories
# under build/bench-inventory/ (bench/inventory/make-tree.sh: made once, on the repo's disk, read into the
# page cache before each measurement), then
#   build/bench/inventory-cost walk TREE      the walk alone
#   build/bench/inventory-cost refresh TREE   walk + residency + table
#   build/upcc files TREE --top 1             the CLI's fincore view
#   find TREE -type f                         the baseline
# each with wall time and peak RSS from /usr/bin/time.  Reads only.
set -eu
cd "$(dirname "$0")/../.."
files=100000
dirs=200
while [ $# -gt 0 ]; do
	case "$1" in
	--files) files=$2; shift 2 ;;
	--dirs) dirs=$2; shift 2 ;;
	-h|--help) sed -n '2,10p' "$0"; exit 0 ;;
	*) echo "inventory-cost: unknown argument $1" >&2; exit 2 ;;
	esac
done
make -s build/bench/inventory-cost build/upcc
work=$PWD/build/bench-inventory
tree=$work/tree
bench/inventory/make-tree.sh "$work" "$files" 4 "$dirs"
echo "tree: $(cat "$work/stamp") ($(du -sh "$tree" | cut -f1))"
measure() {	# measure NAME COMMAND...
	local name=$1
	shift
	find "$tree" -type f -exec cat {} + >/dev/null	# cached, warm dentries
	/usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>&1 || {
		echo "$name failed:"; cat "$work/out"; return 1; }
	read -r wall rss <"$work/time"
	printf '| %s | %s s | %s KiB | %s |\n' "$name" "$wall" "$rss" "$(head -n 1 "$work/out" | cut -c1-110)"
}
printf '| what | wall | peak RSS | first line of output |\n|---|---|---|---|\n'
measure "inventory-cost walk" build/bench/inventory-cost walk "$tree"
measure "inventory-cost refresh" build/bench/inventory-cost refresh "$tree"
measure "upcc files --top 1" build/upcc files "$tree" --top 1
measure "find -type f" find "$tree" -type f
