#!/usr/bin/env bash
# daemon.sh [UPCD UPCC] - upcd and upcc as programs: options, exit codes,
# config refusal, the event loop (sd_notify READY/WATCHDOG/STOPPING, SIGHUP
# reload keeping the old config on error, SIGTERM), the report files, the
# state file's lock (one upcd a state file), upcc status' exit codes and
# where it finds the state.  Every upcd here is a --dry-run except one --once on a tree of files this
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
check "dry run says what it would do" grep -qE "dry run: would have [a-z]+ reclaim|idle:" "$tmp/err"
check "state file is JSON" json_ok "$tmp/state.json"
check "metrics file has unmapped gauge" grep -q '^upcc_unmapped_bytes{scope="system"} [0-9]' "$tmp/upcc.prom"
check "no temporary files left" test "$(ls "$tmp" | grep -c '\.tmp\.')" -eq 0

# Issue 31: the --once process is gone, so status says upcd is not
# running, and exits 3 for a script (it was 0 whatever the daemon did).
check "upcc status on a --once state exits 3 (upcd not running)" exit_code_is 3 "$upcc" status --state "$tmp/state.json"
state_backend=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["scopes"][0]["backend"])' "$tmp/state.json")
check "upcc status shows the daemon's backend ($state_backend)" grep -qE "^system .* $state_backend " "$tmp/out"
check "upcc status --json on a --once state exits 3" exit_code_is 3 "$upcc" status --json --state "$tmp/state.json"
check "upcc status --json is JSON" json_ok "$tmp/out"
check "upcc status on a --once state exits 3 again" exit_code_is 3 "$upcc" status --state "$tmp/state.json"
check "upcc status: the --once process is not running (stale state)" \
	stdout_has "upcd: not running (stale state $tmp/state.json of pid"
running_is() { "$upcc" status --json --state "$1" |
	python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["daemon"]["running"] != (sys.argv[1] == "true"))' "$2"; }
check "upcc status --json: a --once state's daemon is not running" running_is "$tmp/state.json" false
check "upcc status --state MISSING exits 1" exit_code_is 1 "$upcc" status --state "$tmp/none.json"
check "upcc status --state MISSING says so" stderr_has "cannot read state file $tmp/none.json: no such file"
check "upcc status --state MISSING prints no table" test ! -s "$tmp/out"
check "upcc status --bytes (not running) exits 3" exit_code_is 3 "$upcc" status --bytes --state "$tmp/state.json"
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
# What upcc says on stderr names upcc and the command, getopt's messages
# too (they named argv[0], a bare "files:").
first_err_is() { head -n 1 "$tmp/err" | grep -q "^$1: "; }
for cmd in status files evict; do
	check "upcc $cmd --bogus exits 2" exit_code_is 2 "$upcc" "$cmd" --bogus
	check "upcc $cmd --bogus: the message names \"upcc $cmd\"" first_err_is "upcc $cmd"
done
check "upcc status --help exits 0" exit_code_is 0 "$upcc" status --help
check "upcc status --help documents exit code 3" stdout_has "3 upcd is not running"

# Issue 31: upcc status reads upcd's config file for its state =, with
# upcd's own parser; a named config that cannot be used is bad usage (2).
check "upcc status --config MISSING exits 2" exit_code_is 2 "$upcc" status --config "$tmp/none.conf"
check "upcc status --config MISSING says so, as upcc status" stderr_has "upcc status: $tmp/none.conf: cannot read"
check "upcc status --config BAD exits 2" exit_code_is 2 "$upcc" status --config "$tmp/bad.conf"
check "upcc status --config BAD names file:line" stderr_has "upcc status: $tmp/bad.conf:6: trigger"
printf 'state = %s\n' "$tmp/nowhere.json" >"$tmp/nowhere.conf"
check "upcc status, no state file where the config says: exits 3" exit_code_is 3 "$upcc" status --config "$tmp/nowhere.conf"
check "upcc status, no state file: the line says not running, and where it looked" \
	stdout_has "upcd: not running (no state file at $tmp/nowhere.json)"
check "upcc status, no state file: nothing on stderr" test ! -s "$tmp/err"

# Issue 31: a daemon that runs but stopped rewriting its state (stopped,
# stuck) is stale after 3 heartbeats + 10 s: exit 3.  A sleep stands in
# for the daemon: its pid and start time are what a state records.
sleep 300 &
fake_pid=$!
fake_state() {	# fake_state FILE AGE_S: a state of $fake_pid written AGE_S ago, heartbeat 1 s
	python3 - "$1" "$fake_pid" "$2" <<'PY'
import json, sys, time
path, pid, age = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
start = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[19])
json.dump({"version": 2, "page_size": 4096,
           "daemon": {"pid": pid, "start_time": start, "updated": int(time.time()) - age,
                      "heartbeat_ms": 1000, "dry_run": True, "running": True, "stale": False},
           "scopes": [{"name": "system", "kind": "system", "node": -1, "path": ""}]},
          open(path, "w"))
PY
}
fake_state "$tmp/fresh.json" 0
check "upcc status on a fresh state of a live pid exits 0" exit_code_is 0 "$upcc" status --state "$tmp/fresh.json"
fake_state "$tmp/stale.json" 60
check "upcc status on a state 60 s old, heartbeat 1 s, exits 3" exit_code_is 3 "$upcc" status --state "$tmp/stale.json"
check "upcc status says the daemon is stale" stdout_has "upcd: stale (pid $fake_pid runs, but its state $tmp/stale.json was last updated 60s ago, promised every 1s)"
stale_is() { "$upcc" status --json --state "$1" |
	python3 -c 'import json,sys; d = json.load(sys.stdin)["daemon"]; sys.exit(not (d["running"] and d["stale"] == (sys.argv[1] == "true")))' "$2"; }
check "upcc status --json: running and stale" stale_is "$tmp/stale.json" true
check "upcc status --json: a fresh state is not stale" stale_is "$tmp/fresh.json" false
kill "$fake_pid"
wait "$fake_pid" 2>/dev/null
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
# Issue 31: without --state, status finds the state where upcd writes it,
# the config file's state = (here not the default /run/upcc/state.json).
printf 'interval = 100ms\nstate = %s\n' "$tmp/live.json" >"$tmp/status.conf"
check "upcc status --config (state = the live daemon's) exits 0" exit_code_is 0 "$upcc" status --config "$tmp/status.conf"
check "upcc status --config names the live daemon's pid" stdout_has "upcd: running, pid $daemon_pid,"
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
check "upcc status --config after the daemon stopped exits 3" exit_code_is 3 "$upcc" status --config "$tmp/status.conf"
check "upcc status --config: not running, the config's state file named" \
	stdout_has "upcd: not running (stale state $tmp/live.json of pid"
check "STOPPING=1 sent" wait_for 5 grep -q ' STOPPING=1$' "$tmp/notify.log"
wait "$listener_pid" 2>/dev/null
listener_pid=

# Issue 31 (L1): one upcd a state file.  A second on the same state file
# refuses to start, naming the first, which keeps running; once the first
# stopped, a new one starts.  What writes no state file is never refused.
mkdir "$tmp/lockscope"
lock_daemon() {	# lock_daemon: a dry-run daemon on $tmp/lock.json, in the background
	"$upcd" --dry-run --scope "path:$tmp/lockscope" --interval 100ms \
		--state "$tmp/lock.json" 2>>"$tmp/lock-daemon.err" &
	daemon_pid=$!
}
state_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["daemon"][sys.argv[2]])' "$@" 2>/dev/null; }
state_pid_is() { [ "$(state_field "$tmp/lock.json" pid)" = "$1" ]; }
lock_daemon
first_pid=$daemon_pid
check "the first upcd writes its state" wait_for 10 state_pid_is "$first_pid"
check "a second upcd on the same state file exits 1" exit_code_is 1 "$upcd" --dry-run \
	--scope "path:$tmp/lockscope" --interval 100ms --state "$tmp/lock.json"
check "the refusal names the first upcd's pid and the lock" \
	stderr_has "state file $tmp/lock.json is in use: pid $first_pid (upcd) holds its lock $tmp/lock.json.lock"
check "the refusal says why" stderr_has "one upcd a state file, not starting a second one"
check "the second started nothing: no backend line" eval '! grep -q "backend" "$tmp/err"'
check "another spelling of the same state file is refused too" exit_code_is 1 "$upcd" --dry-run \
	--scope "path:$tmp/lockscope" --state "$tmp/./lock.json"
check "upcd --once --dry-run --state on that state file is refused (1)" exit_code_is 1 "$upcd" \
	--once --dry-run --scope "path:$tmp/lockscope" --state "$tmp/lock.json"
check "upcd --check beside it is not refused" exit_code_is 0 "$upcd" --check \
	--scope "path:$tmp/lockscope"
check "upcd --once --dry-run beside it (no --state) is not refused" exit_code_is 0 "$upcd" \
	--once --dry-run --scope "path:$tmp/lockscope"
updated=$(state_field "$tmp/lock.json" updated)
state_newer() { [ "$(state_field "$tmp/lock.json" updated)" -gt "$updated" ] && state_pid_is "$first_pid"; }
check "the first upcd still runs" kill -0 "$first_pid"
check "the first upcd still writes its state" wait_for 10 state_newer
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
check "the first upcd stops with exit 0" test "$rc" -eq 0
check "the lock file stays (removing it would race)" test -f "$tmp/lock.json.lock"
lock_daemon
check "after the first stopped, a new upcd starts on the state file" wait_for 10 state_pid_is "$daemon_pid"
check "the new upcd runs" kill -0 "$daemon_pid"
kill -TERM "$daemon_pid"
wait "$daemon_pid"
daemon_pid=
# The lock's name is never followed through a symbolic link.
ln -s "$tmp/lock-victim" "$tmp/sym.json.lock"
# A lock that can never be taken is the state path's fault: a bad config
# (2), which systemd does not restart in a loop.
check "a symlink at the lock's name: upcd exits 2" exit_code_is 2 "$upcd" --once --dry-run \
	--scope "path:$tmp/lockscope" --state "$tmp/sym.json"
check "a symlink at the lock's name: says so" stderr_has "cannot lock $tmp/sym.json.lock for the state file $tmp/sym.json: a symbolic link, not followed"
check "a symlink at the lock's name: its target is not made" absent "$tmp/lock-victim"

# One real --once on files of our own: clean cached files come down to the target.
mkdir "$tmp/tree"
for i in 1 2 3 4; do head -c 4M /dev/urandom >"$tmp/tree/f$i"; done
sync
cat "$tmp/tree"/* >/dev/null
cached_kb() { "$upcc" status --json --state "$tmp/tree.json" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["scopes"][0]["unmapped_bytes"] // 1024)'; }
# Issue 11: a dry run and --check say what would happen to the whole excess
# (16Mi cached, target 2M), not only to the first step.
check "--once --dry-run on the tree exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--backend=fadvise --scope="path:$tmp/tree" --target=2M
excess_over_step() { python3 - "$1" <<'PY'
import re, sys
units = {"B": 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
def size(t):
    m = re.fullmatch(r"([0-9.]+)(B|Ki|Mi|Gi)", t)
    return float(m.group(1)) * units[m.group(2)]
m = re.search(r"reclaim ([0-9.]+[KMG]?i?B?), down to the target, in steps of at most ([0-9.]+[KMG]?i?B?)",
              open(sys.argv[1]).read())
sys.exit(0 if m and size(m.group(1)) >= 8 << 20 and size(m.group(1)) > size(m.group(2)) else 1)
PY
}
check "dry run reports the whole excess (over 8Mi), beyond its first step" excess_over_step "$tmp/err"
check "upcd --check on the tree exits 0" exit_code_is 0 "$upcd" --check --backend=fadvise \
	--scope="path:$tmp/tree" --target=2M --trigger=4M
check "--check names the backend" stdout_has "scope path:$tmp/tree: backend fadvise ("
check "--check reports the whole excess" excess_over_step "$tmp/out"
check "--check ends on ok" grep -qx 'check: ok' "$tmp/out"
printf 'state = %s\nmetrics = %s\n' "$tmp/check.json" "$tmp/check.prom" >"$tmp/check.conf"
printf 'state = %s\n' "$tmp/new-state/state.json" >"$tmp/new-state.conf"
check "upcd --check --config exits 0" exit_code_is 0 "$upcd" --check --config "$tmp/check.conf" \
	--scope="path:$tmp/tree"
check "--check names the config it checked" stdout_has "config $tmp/check.conf: valid: 1 scope"
check "upcd --check writes neither state nor metrics" eval 'absent "$tmp/check.json" && absent "$tmp/check.prom"'
# --check opens the state and metrics directories as their writers will
# (upcc_atomic_open_dir) and says so per path, making and writing nothing
# (issue 31: a missing metrics directory passed, then failed every round).
check "--check says the state directory is ok" stdout_has "state $tmp/check.json: directory $tmp: ok"
check "--check says the metrics directory is ok" stdout_has "metrics $tmp/check.prom: directory $tmp: ok"
check "--check on a missing metrics directory exits 1" exit_code_is 1 "$upcd" --check \
	--backend=fadvise --scope="path:$tmp/tree" --metrics "$tmp/no-such/upcc.prom"
check "--check names the missing metrics directory" \
	stdout_has "metrics $tmp/no-such/upcc.prom: cannot be written: directory $tmp/no-such: No such file or directory"
check "--check ends on what cannot be written" grep -qx 'check: the metrics file cannot be written' "$tmp/out"
check "--check on a missing state directory exits 0: upcd makes it" exit_code_is 0 "$upcd" --check \
	--backend=fadvise --scope="path:$tmp/tree" --config "$tmp/new-state.conf"
check "--check says upcd makes the state directory" \
	stdout_has "state $tmp/new-state/state.json: directory $tmp/new-state: missing, upcd makes it (in $tmp: ok)"
check "--check made no directory" absent "$tmp/new-state"
mkdir -m 0777 "$tmp/open-dir" && chmod 0777 "$tmp/open-dir"
check "--check on a world-writable metrics directory exits 1" exit_code_is 1 "$upcd" --check \
	--backend=fadvise --scope="path:$tmp/tree" --metrics "$tmp/open-dir/upcc.prom"
check "--check says it is writable by others" stdout_has "is writable by its group and others (mode 0777)"
mkdir "$tmp/real-dir" && ln -s real-dir "$tmp/link-dir"
check "--check on a metrics directory through a symlink exits 1" exit_code_is 1 "$upcd" --check \
	--backend=fadvise --scope="path:$tmp/tree" --metrics "$tmp/link-dir/upcc.prom"
check "--check says it is a symbolic link" eval 'grep -q "^metrics $tmp/link-dir/upcc.prom: cannot be written: .*symbolic link" "$tmp/out"'
if [ "$(id -u)" = 0 ]; then
	mkdir "$tmp/nobodys" && chown nobody "$tmp/nobodys"
	printf 'state = %s\n' "$tmp/nobodys/state.json" >"$tmp/nobodys.conf"
	check "--check on another user's state directory exits 2, as the start would" exit_code_is 2 \
		"$upcd" --check --backend=fadvise --scope="path:$tmp/tree" --config "$tmp/nobodys.conf"
	check "--check says whose it is" eval 'grep -q "^state $tmp/nobodys/state.json: cannot be written: .*owned by" "$tmp/out"'
fi
check "--check with no metrics = says there are none" exit_code_is 0 "$upcd" --check \
	--backend=fadvise --scope="path:$tmp/tree" --target=0
check "--check says metrics: none" grep -qx 'metrics: none (metrics = is not set)' "$tmp/out"
# target = 0 is valid and rarely meant: a notice, not an error.
check "--check says what target = 0 means" \
	stdout_has "NOTICE scope path:$tmp/tree: target = 0 means drop all clean unmapped cache down to nothing"
check "upcd --check with no usable backend exits 1" exit_code_is 1 "$upcd" --check \
	--backend=damon --scope="path:$tmp/tree"
check "--check says which scope cannot be controlled" stdout_has "check: 1 of 1 scope cannot be controlled"
check "--check says what to do" stdout_has "choose backend auto"
check "upcd --check with a bad config exits 2" exit_code_is 2 "$upcd" --check --config "$tmp/bad.conf"
check "upcd --check --once is a usage error (2)" exit_code_is 2 "$upcd" --check --once
check "--once --dry-run with no usable backend exits 1" exit_code_is 1 "$upcd" --once --dry-run \
	--backend=damon --scope="path:$tmp/tree"
check "no usable backend names the fix" stderr_has "no usable backend: damon unusable: "
check "no 'would ask none'" eval '! grep -q "would ask none" "$tmp/err"'

check "--once on a tree exits 0" exit_code_is 0 "$upcd" --once --backend=fadvise \
	--scope="path:$tmp/tree" --target=2M --state "$tmp/tree.json"
after=$(cached_kb)
echo "tree cache after --once: ${after} KiB (target 2048 KiB)"
check "tree cache at or below target" test "${after:-99999}" -le 2048
check "the round was logged: reclaimed, steps, time, asked, why it ended" \
	grep -qE 'fadvise reclaimed [0-9.]+[KMG]i in [0-9]+ steps?, [0-9.]+ ms \(asked for [0-9.]+([KMG]i|B)\): at the target; unmapped ' "$tmp/err"
check "one INFO line for the round, no step lines without -v" \
	test "$(grep -c 'reclaimed' "$tmp/err")" -eq 1 -a "$(grep -c ': step [0-9]*:' "$tmp/err")" -eq 0
check "no page counts in the log" eval '! grep -qE "[0-9] pages|of [0-9]+ pages" "$tmp/err"'
cat "$tmp/tree"/* >/dev/null
check "--once -v on a tree exits 0" exit_code_is 0 "$upcd" -v --once --backend=fadvise \
	--scope="path:$tmp/tree" --target=2M
check "-v logs each step at debug" grep -qE ': step 1: asked fadvise for [0-9.]+([KMG]i|B), it took ' "$tmp/err"

# Issue 11: errors that name the problem and the fix, exit 2 at start-up.
check "--scope node:7 on this machine exits 2" exit_code_is 2 "$upcd" --once --dry-run --scope node:7
check "node:7: names the nodes there are" stderr_has "no NUMA node 7 (this machine has node"
mkdir -p "$tmp/cgroot"
touch "$tmp/cgroot/cgroup.controllers"
check "the root cgroup as a scope exits 2" exit_code_is 2 "$upcd" --once --dry-run \
	--scope "cgroup:$tmp/cgroot"
check "root cgroup: says to use scope system" stderr_has "is the root cgroup, which has no memory.stat on this kernel: for the whole machine use scope system"

summary
