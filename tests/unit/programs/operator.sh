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
	# 3: the state is a --once run's, whose upcd is gone (upcc.8).
	check "nobody: upcc status --json measures (exit 3: no daemon at work)" \
		exit_code_is 3 "${nobody[@]}" "$tmp/upcc" status --json --state "$tmp/ro.json"
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
check "upcc status measures (exit 3: no daemon at work)" exit_code_is 3 "$upcc" status \
	--state "$tmp/sys.json"
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

# Item 6. A file name with a byte that is not UTF-8 made --json invalid
# JSON (Python's json.load failed, jq turned it into U+FFFD silently), and
# upcc files --json had no *_bytes twins though upcc --help promises them.
# Every string is UTF-8 now; a name that is not has its exact bytes in
# KEY_hex.  Checked with Python's strict decoder over names with every
# byte 0x80-0xff, control bytes, quotes, backslashes, U+2028 and U+2029.
cat >"$tmp/json_check.py" <<'PY'
import json, os, sys

def strict(path):
    """The JSON in PATH, or an exception: UTF-8 decoded strictly (Python's
    json.load on a file opened in a C locale would take raw bytes), and no
    string holding a lone surrogate (valid JSON syntax, not Unicode)."""
    obj = json.loads(open(path, "rb").read().decode("utf-8", "strict"))
    def walk(o):
        if isinstance(o, str):
            o.encode("utf-8")
        elif isinstance(o, dict):
            for k, v in o.items():
                walk(k)
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(obj)
    return obj

def name(record, key):
    """A name's exact bytes: KEY_hex's where given, which must be exactly
    where the name is not UTF-8."""
    if key + "_hex" in record:
        raw = bytes.fromhex(record[key + "_hex"])
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw
        raise SystemExit("%s_hex given for a UTF-8 name %r" % (key, raw))
    return record[key].encode("utf-8")

def twins(o, page):
    """Every *_pages count has its *_bytes twin, in bytes."""
    if isinstance(o, dict):
        for k, v in o.items():
            if "_pages" in k and isinstance(v, int):
                b = k.replace("_pages", "_bytes")
                if o.get(b) != min(v * page, 2**64 - 1):
                    raise SystemExit("%s=%d but %s=%r" % (k, v, b, o.get(b)))
            twins(v, page)
    elif isinstance(o, list):
        for v in o:
            twins(v, page)

what, path = sys.argv[1], sys.argv[2]
d = strict(path)
if what == "valid":
    sys.exit(0)
if what == "twins":
    twins(d, d["page_size"])
    sys.exit(0)
if what == "names":
    tree = os.fsencode(sys.argv[3])
    want = {tree + b"/" + n for n in os.listdir(tree)}
    got = {name(r, "path") for r in d["files"]}
    if got != want:
        raise SystemExit("missing %r, extra %r" % (sorted(want - got)[:5], sorted(got - want)[:5]))
    sys.exit(0)
if what == "scope":
    s = d["scopes"][0]
    if name(s, "path") != os.fsencode(sys.argv[3]):
        raise SystemExit("path %r" % name(s, "path"))
    if name(s, "name") != b"path:" + os.fsencode(sys.argv[3]):
        raise SystemExit("name %r" % name(s, "name"))
    sys.exit(0)
raise SystemExit("unknown check " + what)
PY
json_check() { python3 "$tmp/json_check.py" "$@"; }

names=$tmp/names
mkdir "$names"
for b in $(seq 128 255) $(seq 1 31) 127; do
	printf -v n 'b\\x%02x.%d' "$b" "$b"
	printf -v n "$n"
	printf x >"$names/$n"
done
for n in 'q"uote' 'back\slash' "$(printf 'sep\xe2\x80\xa8and\xe2\x80\xa9')" \
	"$(printf 'caf\xc3\xa9 \xf0\x9f\x98\x80')" "$(printf 'over\xc0\xaflong')" \
	"$(printf 'surr\xed\xa0\x80')" "$(printf 'big\xf4\x90\x80\x80')" \
	"$(printf 'cut\xe2\x82')"; do
	printf x >"$names/$n"
done
warm_names() { cat "$names"/* >/dev/null; }
warm_names
check "upcc files --json over hostile names exits 0" exit_code_is 0 \
	"$upcc" files --json --top 1000 "$names"
cp "$tmp/out" "$tmp/names-files.json"
check "upcc files --json is valid JSON (strict UTF-8)" json_check valid "$tmp/names-files.json"
check "upcc files --json: every name comes back exactly (path or path_hex)" \
	json_check names "$tmp/names-files.json" "$names"
check "upcc files --json: every *_pages has its *_bytes twin" \
	json_check twins "$tmp/names-files.json"
warm_names
check "upcc evict --dry-run --json over hostile names exits 0" exit_code_is 0 \
	"$upcc" evict --dry-run --json "$names"
cp "$tmp/out" "$tmp/names-evict.json"
check "upcc evict --json is valid JSON (strict UTF-8)" json_check valid "$tmp/names-evict.json"
check "upcc evict --json: every name comes back exactly" \
	json_check names "$tmp/names-evict.json" "$names"
check "upcc evict --json: every *_pages has its *_bytes twin" \
	json_check twins "$tmp/names-evict.json"

# A path scope whose directory is not UTF-8: the state file and status
# --json are valid JSON, and status still measures that directory.
scope_dir=$(printf '%s/scope\xff\xc3(' "$tmp")
mkdir "$scope_dir"
head -c 65536 /dev/zero >"$scope_dir/f"
check "dry run on a non-UTF-8 path scope exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--scope "path:$scope_dir" --state "$tmp/bad-scope.json"
check "its state file is valid JSON (strict UTF-8)" json_check valid "$tmp/bad-scope.json"
check "its state file gives the exact path and name" \
	json_check scope "$tmp/bad-scope.json" "$scope_dir"
check "upcc status --json measures (exit 3: no daemon at work)" exit_code_is 3 "$upcc" status \
	--json --state "$tmp/bad-scope.json"
cp "$tmp/out" "$tmp/bad-status.json"
check "upcc status --json is valid JSON (strict UTF-8)" json_check valid "$tmp/bad-status.json"
check "upcc status --json gives the exact path and name" \
	json_check scope "$tmp/bad-status.json" "$scope_dir"
check "upcc status --json: every *_pages has its *_bytes twin" \
	json_check twins "$tmp/bad-status.json"
check "upcc status measures the scope read back" exit_code_is 3 "$upcc" status \
	--state "$tmp/bad-scope.json"
check "... not \"cannot measure\"" eval '! grep -q "cannot measure" "$tmp/out"'

summary
