#!/usr/bin/env bash
# hostile.sh [UPCD UPCC] - the adversarial test's reproductions
# (docs: ../shared/reviews/upcd-adversarial-test.md, issue 12), run against
# the programs: each check fails on the code before its fix.  Every upcd
# is a --dry-run or works on a tree this script creates; nothing global is
# touched.  Ends on "N passed, N failed".
set -u
upcd=${1:-${UPCD:?}}
upcc=${2:-${UPCC:?}}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
scratch_init hostile

# 2. A dry run writes only the files the command line names: not the
# config's metrics, and after SIGHUP not the config's state either.
mkdir "$tmp/dr"
printf 'metrics = %s\nstate = %s\n' "$tmp/dr/cfg.prom" "$tmp/dr/cfg.json" >"$tmp/dr/dr.conf"
check "dry run --once with --state exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--config "$tmp/dr/dr.conf" --state "$tmp/dr/cli.json"
check "dry run wrote the --state file" test -s "$tmp/dr/cli.json"
check "dry run did not write the config's metrics" absent "$tmp/dr/cfg.prom"
check "dry run did not write the config's state" absent "$tmp/dr/cfg.json"
"$upcd" --dry-run --config "$tmp/dr/dr.conf" --metrics "$tmp/dr/cli.prom" \
	--interval 100ms 2>"$tmp/dr/daemon.err" &
pids+=($!)
check "dry-run daemon writes --metrics" wait_for 10 test -s "$tmp/dr/cli.prom"
kill -HUP "${pids[-1]}"
check "dry-run daemon reloads" wait_for 10 grep -q 'reloaded' "$tmp/dr/daemon.err"
sleep 0.5
check "after SIGHUP a dry run writes no config state" absent "$tmp/dr/cfg.json"
check "after SIGHUP a dry run writes no config metrics" absent "$tmp/dr/cfg.prom"
kill -TERM "${pids[-1]}"; wait "${pids[-1]}"

# 5. The same --scope twice is refused at start-up (exit 2).
check "--scope given twice exits 2" exit_code_is 2 "$upcd" --once --dry-run \
	--scope "path:$tmp" --scope "path:$tmp"

# 6. A '#' after a path value is refused when the file is read (exit 2).
printf '[scope d]\ntype = path\npath = %s # data\n' "$tmp" >"$tmp/comment.conf"
check "path with a trailing comment exits 2" exit_code_is 2 "$upcd" --once --dry-run \
	--config "$tmp/comment.conf"
printf 'metrics = %s/m.prom   # textfile\n' "$tmp" >"$tmp/comment2.conf"
check "metrics with a trailing comment exits 2" exit_code_is 2 "$upcd" --once --dry-run \
	--config "$tmp/comment2.conf" --metrics "$tmp/cli.prom"
check "no file named after the comment" absent "$tmp/m.prom   # textfile"

# 11. Relative --state/--metrics are refused, as they are in the config.
check "relative --state exits 2" exit_code_is 2 "$upcd" --once --dry-run --state rel.json
check "relative --metrics exits 2" exit_code_is 2 "$upcd" --once --dry-run --metrics rel.prom

# 9. A FIFO as the state file does not hang upcc status.
mkfifo "$tmp/state.fifo"
# (Issue 11: a named state file that cannot be read is an error, exit 1.)
check "upcc status --state FIFO returns" exit_code_is 1 "$upcc" status --state "$tmp/state.fifo"

# 10. Bytes in status --json saturate instead of wrapping to 0.
mkdir "$tmp/big"
check "huge --target dry run exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--scope "path:$tmp/big" --target 1152921504606846976 --state "$tmp/big.json"
target_bytes() { "$upcc" status --json --state "$tmp/big.json" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["scopes"][0]["target_bytes"])'; }
check "status --json target_bytes saturates" test "$(target_bytes)" = 18446744073709551615

# 8. File names and state-file strings reach the terminal without their
# control bytes: no escape sequence, no forged row.
mkdir "$tmp/esc"
esc_name=$(printf 'x\033]0;pwned\a')
nl_name=$(printf 'a\nFORGED 999 pages  passwd')
head -c 8192 /dev/urandom >"$tmp/esc/$esc_name"
head -c 8192 /dev/urandom >"$tmp/esc/$nl_name"
cat "$tmp/esc"/* >/dev/null
no_control() { ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$1"; }
no_forged_row() { ! grep -q '^FORGED' "$1"; }
check "upcc files exits 0" exit_code_is 0 "$upcc" files "$tmp/esc"
check "upcc files prints no control byte" no_control "$tmp/out"
check "upcc files prints no forged row" no_forged_row "$tmp/out"
check "upcc files shows the escape as \\x1b" grep -qF 'x\x1b]0;pwned\x07' "$tmp/out"
check "upcc evict --dry-run exits 0" exit_code_is 0 "$upcc" evict --dry-run "$tmp/esc"
check "upcc evict --dry-run prints no control byte" no_control "$tmp/out"
check "upcc evict --dry-run prints no forged row" no_forged_row "$tmp/out"
mkdir "$tmp/esc/$esc_name.d"
check "dry run on an escape-named path exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--scope "path:$tmp/esc/$esc_name.d" --state "$tmp/esc.json"
check "upcd's log has no control byte" no_control "$tmp/err"
check "upcc status from that state exits 3 (the --once upcd is gone)" exit_code_is 3 "$upcc" status --state "$tmp/esc.json"
check "upcc status prints no control byte" no_control "$tmp/out"
# Issue 32 (review 3): nor a bidi control, which would show
# "invoice<U+202E>fdp.exe" as "invoiceexe.pdf".
mkdir "$tmp/bidi"
bidi_name=$(printf 'invoice\xe2\x80\xaefdp.exe')
head -c 8192 /dev/urandom >"$tmp/bidi/$bidi_name"
cat "$tmp/bidi/$bidi_name" >/dev/null
no_bidi() { ! LC_ALL=C grep -q $'\xe2\x80\xae' "$1"; }
check "upcc files with a U+202E name exits 0" exit_code_is 0 "$upcc" files "$tmp/bidi"
check "upcc files prints no raw U+202E" no_bidi "$tmp/out"
check "upcc files shows U+202E as \\xe2\\x80\\xae" grep -qF 'invoice\xe2\x80\xaefdp.exe' "$tmp/out"
json_has_name() { "$upcc" files --json "$tmp/bidi" | python3 -c '
import json, sys
assert [f["path"] for f in json.load(sys.stdin)["files"]] == [sys.argv[1]]' "$tmp/bidi/$bidi_name"; }
check "upcc files --json keeps the name as it is" json_has_name

# Issue 32 (review 3, M3): the state and metrics files are never written
# through a symbolic link or into a directory another user owns or may
# write: refused, the directory named, nothing written (--once exits 1, as
# for any report file it cannot write).  The link is nobody's, in nobody's
# non-sticky directory, so fs.protected_symlinks has no say either way.
if [ "$(id -u)" -eq 0 ] && nobody=$(id -u nobody 2>/dev/null); then
	m3=$tmp/m3
	mkdir -p "$m3/d1" "$m3/victim" "$m3/theirs" "$m3/group"
	chmod 0775 "$m3/group"
	ln -s "$m3/victim" "$m3/theirs/upcc"
	chown -h nobody "$m3/theirs/upcc"
	chown nobody "$m3/theirs"
	# The state's lock is taken first, under the same rules: a state file
	# that can never be written is a bad configuration (2), refused at start.
	check "--state through nobody's symlink: --once exits 2" exit_code_is 2 "$upcd" --once \
		--dry-run --scope "path:$m3/d1" --state "$m3/theirs/upcc/state.json"
	check "the symlink is named" grep -qF \
		"for the state file $m3/theirs/upcc/state.json: $m3/theirs/upcc is a symbolic link" "$tmp/err"
	check "nothing written where the symlink points" test -z "$(ls -A "$m3/victim")"
	check "--metrics in nobody's directory: --once exits 1" exit_code_is 1 "$upcd" --once \
		--dry-run --scope "path:$m3/d1" --metrics "$m3/theirs/m.prom"
	check "the directory and its owner are named" grep -qF \
		"cannot write metrics $m3/theirs/m.prom: directory $m3/theirs is owned by uid $nobody" \
		"$tmp/err"
	check "nothing written in nobody's directory" absent "$m3/theirs/m.prom"
	check "--state in a group-writable directory: --once exits 2" exit_code_is 2 "$upcd" \
		--once --dry-run --scope "path:$m3/d1" --state "$m3/group/state.json"
	check "the group-writable directory is named" grep -qF \
		"directory $m3/group is writable by its group (mode 0775) without the sticky bit" \
		"$tmp/err"
	check "nothing written in the group-writable directory" test -z "$(ls -A "$m3/group")"
	check "a safe --state and --metrics: --once exits 0" exit_code_is 0 "$upcd" --once \
		--dry-run --scope "path:$m3/d1" --state "$m3/run/state.json" --metrics "$m3/m.prom"
	check "the state's missing directory was made" test -s "$m3/run/state.json"
	check "the metrics were written" test -s "$m3/m.prom"
else
	echo "SKIP report paths of another user (needs root and a user nobody)"
fi

# 11. Small amounts are shown as they are: "target 40Ki", not "0.0 MiB".
mkdir "$tmp/small"
check "--target 10 dry run exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--scope "path:$tmp/small" --target 10 --trigger 5
check "10 pages are not logged as 0.0 MiB" eval '! grep -q "0\.0 MiB" "$tmp/err"'
check "10 pages are logged as $((10 * $(getconf PAGESIZE) / 1024))Ki" \
	grep -q "target $((10 * $(getconf PAGESIZE) / 1024))Ki" "$tmp/err"

# 11. A scope that cannot be measured is not logged every round.
"$upcd" --dry-run --scope cgroup:/sys/fs/cgroup/upcc-no-such-cgroup --interval 10ms \
	2>"$tmp/unmeasurable.err" &
pids+=($!)
sleep 2
kill -TERM "${pids[-1]}"; wait "${pids[-1]}"
echo "cannot measure: $(grep -c 'cannot measure' "$tmp/unmeasurable.err") lines in 2 s"
check "unmeasurable scope logged at least once" grep -q 'cannot measure' "$tmp/unmeasurable.err"
check "unmeasurable scope logged at most twice in 2 s at 10 ms" \
	test "$(grep -c 'cannot measure' "$tmp/unmeasurable.err")" -le 2

# 4. Hard links and a bind mount of part of the tree on the same
# filesystem are one file's cache (in a private mount namespace).
mkdir -p "$tmp/links/sub" "$tmp/links/bind"
head -c 1M /dev/urandom >"$tmp/links/sub/file"
for i in 1 2 3 4 5 6 7 8 9; do ln "$tmp/links/sub/file" "$tmp/links/sub/link$i"; done
cat "$tmp/links/sub/file" >/dev/null
files_total_kb() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["total"]["cached_pages"] * d["page_size"] // 1024)'; }
check "upcc files: 9 hard links count once" \
	test "$("$upcc" files --json "$tmp/links" | files_total_kb)" -eq 1024
if unshare -m true 2>/dev/null; then
	check "upcc files: a bind mount of the tree counts once" \
		test "$(unshare -m sh -c 'mount --bind "$1/sub" "$1/bind" && "$2" files --json "$1"' - \
			"$tmp/links" "$upcc" | files_total_kb)" -eq 1024
else
	echo "SKIP bind mount (no unshare -m here)"
fi
check "dry run: 9 hard links count once" exit_code_is 0 "$upcd" --once --dry-run \
	--scope "path:$tmp/links" --target 0 --state "$tmp/links.json"
check "dry run logs 1.0Mi unmapped, not 10Mi" grep -q 'unmapped 1.0Mi' "$tmp/err"

# 7. Files below the walk's depth cap are counted as left out and said so,
# in upcc files (--json and the table) and in upcd's log.
deep=$tmp/deep
mkdir -p "$deep"
d=$deep
for level in $(seq 1 100); do
	d=$d/d
	case $level in 50|64|65|100) mkdir -p "$d"; head -c 4096 /dev/urandom >"$d/f$level" ;; esac
done
cat "$deep"/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/f50 >/dev/null
skipped() { python3 -c 'import json,sys; print(json.load(sys.stdin)["skipped"].get(sys.argv[1], "missing"))' "$1"; }
check "upcc files --json counts depth skips" \
	test "$("$upcc" files --json "$deep" | skipped depth)" -ge 1
for reason in special mounts pseudo raced duplicate errors; do
	check "upcc files --json lists skipped.$reason" \
		test "$("$upcc" files --json "$deep" | skipped $reason)" != missing
done
check "upcc files says what it did not walk" exit_code_is 0 "$upcc" files "$deep"
check "upcc files names the depth cap" grep -q 'deeper than 64 levels not walked' "$tmp/err"
check "dry run on a deep tree exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--scope "path:$deep"
check "upcd logs the directories it left out" grep -q 'left out 1 directories deeper than 64' "$tmp/err"

# The state file and upcc status --json share one schema: version 2, the
# same top-level keys and every state scope key in status's scope.
same_keys() { "$upcc" status --json --state "$1" | python3 -c '
import json, sys
state = json.load(open(sys.argv[1])); status = json.load(sys.stdin)
assert state["version"] == status["version"] == 2, "version"
assert set(state) == set(status), (set(state) ^ set(status))
assert set(state["daemon"]) == set(status["daemon"]), "daemon keys"
missing = set(state["scopes"][0]) - set(status["scopes"][0])
assert not missing, missing
for k, v in state["scopes"][0].items():
    if k.endswith("_pages") and not k.endswith("_total"):
        assert k[:-6] + "_bytes" in state["scopes"][0], k
' "$1"; }
check "state file and status --json have the same keys" same_keys "$tmp/links.json"

summary
