#!/usr/bin/env bash
# operator.sh [UPCD UPCC] - the operator review's CLI findings (issue 31,
# /work/shared/reviews/operator-review.md), run against the programs: each
# check fails on the code before its fix.  Every upcd is a --dry-run on a
# tree this script creates; nothing global is touched.  Ends on
# "N passed, N failed".
set -u
upcd=${1:-${UPCD:?}}
upcc=${2:-${UPCC:?}}
here=$(cd "$(dirname "$0")" && pwd)
# Under /tmp, made traversable below: the unprivileged checks' user must
# reach it, and the checkout (and so build/) may sit where it cannot.
tmp=$(mktemp -d /tmp/upcc-operator-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

. "$here/lib.sh"

json_of() {	# json_of FILE EXPR: EXPR of the JSON in FILE (as d), printed; -1 if none
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"$@" 2>/dev/null || echo -1
}

# Item 3. As a user who may read a file but neither owns nor may write it,
# cachestat(2) is refused (EPERM on 6.x): upcc files said "0 files, 0B
# cached", exit 0, where fincore shows the file cached.  Such a file is
# measured by mincore, as fincore measures it.
nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1 && getent group nogroup >/dev/null; then
	chmod 755 "$tmp"
	mkdir -m 755 "$tmp/ro"
	head -c 4M /dev/urandom >"$tmp/ro/data"
	chmod 644 "$tmp/ro/data"
	# The program too: nobody may not traverse the checkout.
	cp "$upcc" "$tmp/upcc"
	chmod 755 "$tmp/upcc"
	pages=$((4 * 1024 * 1024 / $(getconf PAGESIZE)))
	cat "$tmp/ro/data" >/dev/null
	check "nobody: upcc files --json on a root file exits 0" \
		exit_code_is 0 "${nobody[@]}" "$tmp/upcc" files --json "$tmp/ro"
	cp "$tmp/out" "$tmp/nobody-files.json"
	# The host may reclaim a page or two of a file read a moment ago.
	check "nobody: upcc files counts the file" \
		test "$(json_of "$tmp/nobody-files.json" 'd["total"]["files"]')" -eq 1
	check "nobody: upcc files sees it cached, as fincore does" \
		test "$(json_of "$tmp/nobody-files.json" 'd["total"]["cached_pages"]')" -ge $((pages - 16))
	check "nobody: no error counted" \
		test "$(json_of "$tmp/nobody-files.json" 'd["skipped"]["errors"]')" -eq 0
	cat "$tmp/ro/data" >/dev/null
	check "nobody: upcc files (table) exits 0" exit_code_is 0 "${nobody[@]}" "$tmp/upcc" files "$tmp/ro"
	check "nobody: the table lists the file" grep -q " $tmp/ro/data\$" "$tmp/out"
	check "nobody: the total is not 0 files" grep -q '^total: 1 file, ' "$tmp/out"

	# upcc status on a path scope: FILE_LRU was 0B the same way.
	check "dry run on the tree exits 0" exit_code_is 0 "$upcd" --once --dry-run \
		--scope "path:$tmp/ro" --state "$tmp/ro.json"
	chmod 644 "$tmp/ro.json"
	cat "$tmp/ro/data" >/dev/null
	check "nobody: upcc status --json exits 0" \
		exit_code_is 0 "${nobody[@]}" "$tmp/upcc" status --json --state "$tmp/ro.json"
	cp "$tmp/out" "$tmp/nobody-status.json"
	check "nobody: upcc status sees the path scope's cache" \
		test "$(json_of "$tmp/nobody-status.json" 'd["scopes"][0]["file_lru_pages"]')" \
		-ge $((pages - 16))
else
	echo "SKIP unprivileged checks (not root, or no nobody/nogroup)"
fi

summary
