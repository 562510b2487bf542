#!/usr/bin/env bash
# daemon.sh [UPCD UPCC] - upcd and upcc as programs: options, exit codes,
# config refusal, the event loop (sd_notify READY/WATCHDOG/STOPPING, SIGHUP
# reload keeping the old config on error, SIGTERM), the report files.
# Every upcd here is a --dry-run except one --once on a tree of files this
# script creates: nothing global is touched.  Ends on "N passed, N failed".
set -u
upcd=${1:-${UPCD:?}}
upcc=${2:-${UPCC:?}}
tmp=$(mktemp -d /tmp/upcc-daemon-XXXXXX)
. "$(dirname "$0")/lib.sh"
daemon_pid=
listener_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	[ -n "$listener_pid" ] && kill "$listener_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

stderr_has() { grep -qF -- "$1" "$tmp/err"; }
stdout_has() { grep -qF -- "$1" "$tmp/out"; }
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; }

check "upcd --help exits 0" exit_code_is 0 "$upcd" --help
check "upcd --help documents exit codes" stdout_has "Exit codes"
check "upcd --version exits 0" exit_code_is 0 "$upcd" --version
check "upcd bad option exits 2" exit_code_is 2 "$upcd" --no-such-option
check "upcd stray argument exits 2" exit_code_is 2 "$upcd" extra
check "upcd --scope=foo exits 2" exit_code_is 2 "$upcd" --once --dry-run --scope=foo
check "upcd --target=lots exits 2" exit_code_is 2 "$upcd" --once --dry-run --target=lots
check "upcd --backend=bogus exits 2" exit_code_is 2 "$upcd" --once --dry-run --backend=bogus
check "upcd missing --config exits 2" exit_code_is 2 "$upcd" --config "$tmp/none.conf" --once --dry-run

printf 'interval = 1s\n\n[scope s]\ntype = system\ntarget = 1%%\ntrigger = sixteen\n' >"$tmp/bad.conf"
check "upcd bad config exits 2" exit_code_is 2 "$upcd" --config "$tmp/bad.conf" --once --dry-run
check "bad config error names file:line" stderr_has "$tmp/bad.conf:6: trigger \"sixteen\""
printf 'backend = dropcache\n' >"$tmp/drop.conf"
check "dropcache without consent refused" exit_code_is 2 "$upcd" --config "$tmp/drop.conf" --once --dry-run

check "upcd --once --dry-run exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--state "$tmp/state.json" --metrics "$tmp/upcc.prom" --scope=system
check "dry run says what it would do" grep -qE "dry run: would ask|idle:" "$tmp/err"
check "state file is JSON" json_ok "$tmp/state.json"
check "metrics file has unmapped gauge" grep -q '^upcc_unmapped_bytes{scope="system"} [0-9]' "$tmp/upcc.prom"
check "no temporary files left" test "$(ls "$tmp" | grep -c '\.tmp\.')" -eq 0

check "upcc status exits 0" exit_code_is 0 "$upcc" status --state "$tmp/state.json"
state_backend=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["scopes"][0]["backend"])' "$tmp/state.json")
check "upcc status shows the daemon's backend ($state_backend)" grep -qE "^system .* $state_backend " "$tmp/out"
check "upcc status --json exits 0" exit_code_is 0 "$upcc" status --json --state "$tmp/state.json"
check "upcc status --json is JSON" json_ok "$tmp/out"
check "upcc status on a --once state exits 0" exit_code_is 0 "$upcc" status --state "$tmp/state.json"
check "upcc status: the --once process is not running (stale state)" \
	stdout_has "upcd: not running (stale state $tmp/state.json of pid"
running_is() { "$upcc" status --json --state "$1" |
	python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["daemon"]["running"] != (sys.argv[1] == "true"))' "$2"; }
check "upcc status --json: a --once state's daemon is not running" running_is "$tmp/state.json" false
check "upcc status --state MISSING exits 1" exit_code_is 1 "$upcc" status --state "$tmp/none.json"
check "upcc status --state MISSING says so" stderr_has "cannot read state file $tmp/none.json: no such file"
check "upcc status --state MISSING prints no table" test ! -s "$tmp/out"
check "upcc status --bytes exits 0" exit_code_is 0 "$upcc" status --bytes --state "$tmp/state.json"
check "upcc status has a DIRTY column" grep -qE '^SCOPE +MEMORY +FILE_LRU +MAPPED +UNMAPPED +DIRTY ' "$tmp/out"
check "upcc status --bytes prints exact bytes" grep -qE '^system +[0-9]+ +[0-9]+ ' "$tmp/out"

# --once writes no state file but the one --state names: not the config's
# (nor the default /run/upcc/state.json) that upcc status reads as the daemon's.
mkdir "$tmp/empty"
printf 'state = %s\n' "$tmp/cfg-state.json" >"$tmp/once.conf"
check "upcd --once (no --state) exits 0" exit_code_is 0 "$upcd" --once --config "$tmp/once.conf" \
	--backend=fadvise --scope="path:$tmp/empty"
check "upcd --once wrote no state file without --state" absent "$tmp/cfg-state.json"
check "upcd --once --state writes it" exit_code_is 0 "$upcd" --once --config "$tmp/once.conf" \
	--backend=fadvise --scope="path:$tmp/empty" --state "$tmp/once.json"
check "upcd --once --state wrote the state" test -s "$tmp/once.json"
# A report --once could not write fails the run.
check "upcd --once with an unwritable --metrics exits 1" exit_code_is 1 "$upcd" --once --dry-run \
	--scope=system --metrics "$tmp/no-such-dir/upcc.prom"
check "unwritable metrics is logged" stderr_has "cannot write metrics $tmp/no-such-dir/upcc.prom"
check "upcc unknown command exits 2" exit_code_is 2 "$upcc" frobnicate
check "upcc status --help exits 0" exit_code_is 0 "$upcc" status --help
check "upcc no command exits 2" exit_code_is 2 "$upcc"

# The event loop, under a fake systemd notify socket.
write_notify_listener "$tmp/listen.py"
python3 "$tmp/listen.py" "$tmp/notify.sock" "$tmp/notify.log" &
listener_pid=$!
for _ in $(seq 50); do [ -S "$tmp/notify.sock" ] && break; sleep 0.1; done
printf 'interval = 100ms\n[scope one]\ntype = system\n' >"$tmp/live.conf"
NOTIFY_SOCKET=$tmp/notify.sock WATCHDOG_USEC=300000 "$upcd" --config "$tmp/live.conf" \
	--dry-run --state "$tmp/live.json" 2>"$tmp/live.err" &
daemon_pid=$!
scopes_in_state() { [ "$(grep -c '^{"name":' "$tmp/live.json" 2>/dev/null)" -eq "$1" ]; }
check "READY=1 sent" wait_for 10 grep -q ' READY=1$' "$tmp/notify.log"
check "WATCHDOG=1 sent" wait_for 10 grep -q ' WATCHDOG=1$' "$tmp/notify.log"
check "state written by the loop" wait_for 10 scopes_in_state 1
check "upcc status: the live daemon is running" exit_code_is 0 "$upcc" status --state "$tmp/live.json"
check "upcc status names the live daemon's pid" stdout_has "upcd: running, pid $daemon_pid,"
check "upcc status --json: the live daemon is running" running_is "$tmp/live.json" true
printf 'interval = 100ms\n[scope one]\ntype = system\n[scope two]\ntype = system\ntarget = 64M\n' >"$tmp/live.conf"
kill -HUP "$daemon_pid"
check "SIGHUP reloads a good config" wait_for 10 scopes_in_state 2
check "reload logged" wait_for 5 grep -q 'reloaded: 2 scope' "$tmp/live.err"
printf 'interval = 100ms\n[scope one]\ntype = sytem\n' >"$tmp/live.conf"
kill -HUP "$daemon_pid"
check "SIGHUP with a bad config keeps the old" wait_for 10 grep -q 'keeping the old configuration' "$tmp/live.err"
check "bad reload names file:line" grep -q "live.conf:3: type \"sytem\"" "$tmp/live.err"
sleep 0.5
check "old config still running" scopes_in_state 2
check "daemon still alive" kill -0 "$daemon_pid"
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
check "SIGTERM stops with exit 0" test "$rc" -eq 0
check "STOPPING=1 sent" wait_for 5 grep -q ' STOPPING=1$' "$tmp/notify.log"
wait "$listener_pid" 2>/dev/null
listener_pid=

# One real --once on files of our own: clean cached files come down to the target.
mkdir "$tmp/tree"
for i in 1 2 3 4; do head -c 4M /dev/urandom >"$tmp/tree/f$i"; done
sync
cat "$tmp/tree"/* >/dev/null
cached_kb() { "$upcc" status --json --state "$tmp/tree.json" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["scopes"][0]["unmapped_bytes"] // 1024)'; }
check "--once on a tree exits 0" exit_code_is 0 "$upcd" --once --backend=fadvise \
	--scope="path:$tmp/tree" --target=2M --state "$tmp/tree.json"
after=$(cached_kb)
echo "tree cache after --once: ${after} KiB (target 2048 KiB)"
check "tree cache at or below target" test "${after:-99999}" -le 2048
check "reclaim was logged with amount and time" grep -qE 'fadvise reclaimed [0-9]+ of [0-9]+ pages .* in [0-9.]+ ms' "$tmp/err"

summary
