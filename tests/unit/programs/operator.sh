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

# Item 5. Every output prints sizes as 64Mi, 1.5Gi; the command line and
# the config refused them ("expected ... bytes (64M)").  A size copied
# from upcc status goes back in as the amount it shows.
mkdir "$tmp/sz"
check "--target 1.5Gi --trigger 2GiB dry run exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--scope "path:$tmp/sz" --target 1.5Gi --trigger 2GiB --state "$tmp/sz.json"
check "the log says target 1.5Gi, trigger 2.0Gi" grep -q 'target 1.5Gi, trigger 2.0Gi' "$tmp/err"
check "--target 0.5G --trigger 64Mi dry run exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--scope "path:$tmp/sz" --target 0.5G --trigger 64Mi
check "the log says target 512Mi" grep -q 'target 512Mi, trigger 512Mi' "$tmp/err"
# upcc status of the system scope (the host's 1% and 16x), its TARGET and
# TRIGGER cells pasted into a config of a path scope.
check "dry run of the system scope exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--scope system --state "$tmp/sys.json"
check "upcc status exits 0" exit_code_is 0 "$upcc" status --state "$tmp/sys.json"
cell() {	# cell COLUMN: that column of the first scope's row of $tmp/out
	awk -v col="$1" 'NR == 2 { for (i = 1; i <= NF; i++) if ($i == col) n = i }
		NR == 3 { print $n }' "$tmp/out"
}
target=$(cell TARGET)
trigger=$(cell TRIGGER)
echo "upcc status: target $target, trigger $trigger"
printf '[scope sz]\ntype = path\npath = %s\ntarget = %s\ntrigger = %s\nmax_step = 64MiB\n' \
	"$tmp/sz" "$target" "$trigger" >"$tmp/sz.conf"
check "a config of upcc status's sizes passes --check" exit_code_is 0 "$upcd" --check \
	--config "$tmp/sz.conf"
check "--check reads them back as shown" grep -q "target $target, trigger $trigger," "$tmp/out"
# Garbage is still refused, in the existing style.
check "--target 1.5Xi exits 2" exit_code_is 2 "$upcd" --once --dry-run --scope "path:$tmp/sz" \
	--target 1.5Xi
check "--target 1.5Xi is named" grep -q -- '--target=1.5Xi: expected' "$tmp/err"
for bad in '64 Mi' '1.5B' '1.5' '.5G' '64MiBB' '16Ei'; do
	printf '[scope sz]\ntype = path\npath = %s\ntarget = %s\n' "$tmp/sz" "$bad" >"$tmp/bad.conf"
	check "target = $bad exits 2" exit_code_is 2 "$upcd" --check --config "$tmp/bad.conf"
	check "target = $bad: FILE:LINE" grep -qF "$tmp/bad.conf:4: target \"$bad\": expected" "$tmp/err"
done

summary
