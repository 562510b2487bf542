#!/usr/bin/env bash
# golden.sh [UPCC] [UPCD] - the CLI's tables, compared byte for byte with the
# expected outputs committed in tests/unit/programs/golden/.  The inputs are made
# deterministic: sparse files (no page cached, no dirty page, sizes fixed)
# in a temporary tree, whose path is shown as TMP; the residency method
# (cachestat or mincore, by kernel) as METHOD; in upcc status, the columns
# that measure the host's memory (MEMORY, TARGET, TRIGGER) as *.
# GOLDEN_UPDATE=1 rewrites the expected files instead (review the diff).
# Ends on "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
upcc=$(realpath "${1:-${UPCC:?}}")
upcd=$(realpath "${2:-${UPCD:?}}")
tmp=$(mktemp -d /tmp/upcc-golden-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. tests/unit/programs/lib.sh

mkdir -p "$tmp/tree/sub"
# Cached whole and clean (written, then fsynced): 1M, 64K and 4K + 1 byte;
# one sparse file with nothing cached; one empty file.
head -c 1048576 /dev/zero >"$tmp/tree/one"
head -c 65536 /dev/zero >"$tmp/tree/sub/two"
head -c 4097 /dev/zero >"$tmp/tree/sub/odd"
sync "$tmp/tree/one" "$tmp/tree/sub/two" "$tmp/tree/sub/odd"
truncate -s 3G "$tmp/tree/big"
printf '' >"$tmp/tree/empty"

normalize() { sed -e "s|$tmp|TMP|g" -e 's/cachestat/METHOD/g; s/mincore/METHOD/g'; }
# upcc status: the table's cells measured from the host (MEMORY, TARGET,
# TRIGGER: the 1st, 6th and 7th size columns) shown as a right-aligned *,
# the cell's width kept.
mask_status() {
	normalize | python3 -c '
import re, sys
lines = sys.stdin.read().split("\n")
for n, line in enumerate(lines):
    if n == 2:
        cells = re.findall(r"\s*\S+", line)
        for i in (1, 6, 7):
            cells[i] = " " * (len(cells[i]) - 1) + "*"
        line = "".join(cells)
    print(line, end="\n" if n + 1 < len(lines) else "")
'
}

# The host is shared and its own reclaim (a kdamond runs on it) may take a
# page of a file left alone for a while: the cached files are read again
# just before each command, so that they are cached whole when it looks.
warm() { cat "$tmp/tree/one" "$tmp/tree/sub/two" "$tmp/tree/sub/odd" >/dev/null; }

golden() {	# golden NAME FILTER COMMAND...: COMMAND's stdout through FILTER = golden/NAME
	local name=$1 filter=$2
	shift 2
	warm
	"$@" 2>"$tmp/err" | $filter >"$tmp/$name.out"
	if [ -n "${GOLDEN_UPDATE:-}" ]; then
		cp "$tmp/$name.out" "tests/unit/programs/golden/$name.out"
	fi
	diff -u "tests/unit/programs/golden/$name.out" "$tmp/$name.out" >"$tmp/diff"
	result "$name: as tests/unit/programs/golden/$name.out" $? "$(cat "$tmp/diff")"
}

golden files normalize "$upcc" files "$tmp/tree"
golden files-bytes normalize "$upcc" files --bytes "$tmp/tree"
golden files-json normalize "$upcc" files --json "$tmp/tree"
golden files-top normalize "$upcc" files --top 2 "$tmp/tree"

warm
"$upcd" --once --dry-run --scope "path:$tmp/tree" --state "$tmp/state.json" \
	--metrics "$tmp/upcc.prom" >/dev/null 2>&1
# The --once process is gone: its line says how long ago, masked.
mask_daemon() { mask_status | sed -E 's/of pid [0-9]+, last updated [0-9]+s ago/of pid PID, last updated Ns ago/'; }
golden status mask_daemon "$upcc" status --state "$tmp/state.json"
golden status-bytes mask_daemon "$upcc" status --bytes --state "$tmp/state.json"

# A daemon holding a working set (issue 30): status says what it holds, its
# cap and the effective target's reason, human and --json alike.
python3 - "$tmp/state.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["scopes"][0]
s.update(working_set_pages=1536, working_set_cap_pages=2048, working_set_items=3,
         effective_target_pages=s["target_pages"] + 1536,
         effective_target_reason="working set in use, capped")
json.dump(d, open(sys.argv[1], "w"))
PY
"$upcc" status --state "$tmp/state.json" > "$tmp/wset.out" 2>&1
grep -q 'working set in use, capped); working set 6.0Mi held in 3 files/ranges, cap 8.0Mi above the target' "$tmp/wset.out"
result "status: the working set held, its cap, the effective target's reason" $? "$(cat "$tmp/wset.out")"
"$upcc" status --json --state "$tmp/state.json" | python3 -c '
import json, sys
s = json.load(sys.stdin)["scopes"][0]
assert s["working_set_bytes"] == 1536 * 4096 and s["working_set_cap_pages"] == 2048, s
assert s["working_set_items"] == 3 and s["effective_target_reason"] == "working set in use, capped", s
' > "$tmp/wset-json.out" 2>&1
result "status --json: working_set_*, working_set_cap_*, working_set_items" $? "$(cat "$tmp/wset-json.out")"
summary
