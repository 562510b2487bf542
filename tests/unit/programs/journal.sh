#!/usr/bin/env bash
# journal.sh [UPCD_HOOKED] - issue 31 item 7: what upcd says to journald and
# systemd.  The integration suite's hooked upcd (tests/integration/
# hooked_main.c) runs as a daemon on a path scope over a tree this script
# creates and keeps re-reading (fadvise, target 0, compact = no: nothing
# but the tree's pages is touched), its stderr a file $JOURNAL_STREAM
# names, its journal socket (UPCC_JOURNAL_SOCKET) and notify socket this
# script's: never the host's journald or systemd.  The summary's period is
# shortened to 2 s (UPCC_LOG_SUMMARY_MS).  Checked: native entries with
# SCOPE=, BACKEND=, RECLAIMED_BYTES=; a round a spell at info, the rest in
# summaries; STATUS= saying what the scope is at; a reload naming what it
# changed; "<N>" lines on stderr when the journal socket is away.  Ends on
# "N passed, N failed".
set -u
upcd=${1:-${UPCD_HOOKED:?}}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
scratch_init journal
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99

# The journal's side: each datagram parsed by the native protocol (NAME=value
# lines, or NAME\n + 64-bit LE length + value + \n) into a JSON line.
cat >"$tmp/journald.py" <<'PY'
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "w") as out:
    try:
        while True:
            data = s.recv(65536)
            fields, i = {}, 0
            while i < len(data):
                nl = data.index(b"\n", i)
                line = data[i:nl]
                if b"=" in line:
                    k, v = line.split(b"=", 1)
                    i = nl + 1
                else:
                    k = line
                    n = struct.unpack("<Q", data[nl + 1:nl + 9])[0]
                    v = data[nl + 9:nl + 9 + n]
                    assert data[nl + 9 + n:nl + 10 + n] == b"\n"
                    i = nl + 10 + n
                fields[k.decode()] = v.decode()
            out.write(json.dumps(fields) + "\n")
            out.flush()
    except socket.timeout:
        pass
PY
entries() {	# entries PYTHON-EXPR: how many journal entries e make EXPR true
	python3 -c 'import json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    try:
        n += bool(eval(sys.argv[2]))
    except (KeyError, ValueError):
        pass
print(n)' "$tmp/journal.jsonl" "$1"
}
at_least() {	# at_least N PYTHON-EXPR
	[ "$(entries "$2")" -ge "$1" ]
}
exactly() {	# exactly N PYTHON-EXPR
	local n
	n=$(entries "$2")
	[ "$n" -eq "$1" ] || { echo "$n entries, wanted $1: $2"; return 1; }
}
write_config() {	# write_config INTERVAL TARGET [EXTRA SCOPE SECTION]
	cat >"$tmp/upcd.conf.new" <<CONF
interval = $1
tick = 100ms
backend = fadvise
compact = no
state = $tmp/state.json

[scope tree]
type = path
path = $tmp/tree
target = $2
${3:-}
CONF
	mv "$tmp/upcd.conf.new" "$tmp/upcd.conf"
}

mkdir -p "$tmp/tree" "$tmp/tree2"
for f in a b c d; do
	dd if=/dev/urandom of="$tmp/tree/$f" bs=1M count=2 status=none conv=fsync
done
start_file_stream "$tmp/tree"	# cold cache arriving: rounds keep acting

python3 "$tmp/journald.py" "$tmp/journal.sock" "$tmp/journal.jsonl" &
pids+=("$!")
write_notify_listener "$tmp/listen.py"
python3 "$tmp/listen.py" "$tmp/notify.sock" "$tmp/notify.log" &
pids+=("$!")
wait_for 10 test -S "$tmp/journal.sock"
wait_for 10 test -S "$tmp/notify.sock"

write_config 200ms 0
: >"$tmp/upcd.err"
stream=$(stat -c '%d:%i' "$tmp/upcd.err")
JOURNAL_STREAM=$stream UPCC_JOURNAL_SOCKET=$tmp/journal.sock UPCC_LOG_SUMMARY_MS=2000 \
	NOTIFY_SOCKET=$tmp/notify.sock UPCC_MOUNTINFO=/nonexistent \
	"$upcd" --config "$tmp/upcd.conf" 2>>"$tmp/upcd.err" &
daemon=$!
pids+=("$daemon")

# Rounds act every few hundred ms: 7 s is three summary periods.
check "entries reach the journal socket" wait_for 20 at_least 1 'e["SYSLOG_IDENTIFIER"] == "upcd"'
sleep 7
check "the daemon still runs" kill -0 "$daemon"
check "a round's entry has SCOPE=, BACKEND=, RECLAIMED_BYTES=, PRIORITY=6" at_least 1 \
	'e.get("UPCC_EVENT") == "round" and e["SCOPE"] == "tree" and e["BACKEND"] == "fadvise" and int(e["RECLAIMED_BYTES"]) > 0 and e["PRIORITY"] == "6" and "reclaimed" in e["MESSAGE"]'
# Each spell starts with one round at info; the rest are summed (a round
# that is stuck above the target is news too, rate-limited apart).
rounds_info() {
	local all stuck spells
	all=$(entries 'e.get("UPCC_EVENT") == "round"')
	stuck=$(entries 'e.get("UPCC_EVENT") == "round" and "nothing more came off" in e["MESSAGE"]')
	spells=$(entries 'e.get("UPCC_EVENT") == "spell-end"')
	[ "$all" -ge 1 ] && [ $((all - stuck)) -le $((spells + 1)) ] ||
		{ echo "$all rounds at info ($stuck stuck), $spells spells ended"; return 1; }
}
check "a round at info a spell, not one a round (the rest at debug: not sent)" rounds_info
check "summaries at info every 2 s with what the rounds took" at_least 1 \
	'e.get("UPCC_EVENT") == "summary" and e["SCOPE"] == "tree" and int(e["ROUNDS"]) >= 2 and int(e["RECLAIMED_BYTES"]) > 0 and e["PRIORITY"] == "6" and "in the last" in e["MESSAGE"]'
check "summaries carry the unmapped range and target" at_least 1 \
	'int(e["UNMAPPED_MAX_BYTES"]) >= int(e["UNMAPPED_MIN_BYTES"]) and e["TARGET_BYTES"] == "0"'
check "nothing sent to the journal is also on the stream" \
	eval '! grep -q "reclaimed" "$tmp/upcd.err"'
status_ok() {
	grep -qE '^[0-9.]+ STATUS=tree [0-9.]+([KMGT]i|B)/0B, reclaimed [0-9.]+([KMGT]i|B); last round [0-9]+s ago$' \
		"$tmp/notify.log"
}
check "STATUS= says the scope's unmapped/target, reclaimed, last round" wait_for 10 status_ok
check "STATUS= is no longer the static \"controlling N scope(s)\"" \
	eval '! grep -q "controlling" "$tmp/notify.log"'
check "STATUS= not sent every round (at most every 5 s, plus start)" \
	test "$(grep -c STATUS= "$tmp/notify.log")" -le 4

write_config 500ms 1M "[scope more]
type = path
path = $tmp/tree2"
kill -HUP "$daemon"
reload_says() {	# reload_says TEXT
	at_least 1 "e.get(\"UPCC_EVENT\") == \"reload\" and \"$1\" in e[\"CHANGED\"]"
}
check "a reload names a setting that changed (interval 200ms -> 500ms)" \
	wait_for 10 reload_says "interval 200ms -> 500ms"
check "a reload names a scope added" reload_says "scope more added"
check "a reload names a scope's setting that changed" reload_says "scope tree: target 0 -> 1.0Mi"
check "a reload counts its changes (CHANGES=3)" at_least 1 'e.get("UPCC_EVENT") == "reload" and e["CHANGES"] == "3"'
check "a reload's message says it too" at_least 1 \
	'e.get("UPCC_EVENT") == "reload" and e["MESSAGE"].startswith("reloaded: 2 scope(s), interval 500 ms: interval 200ms -> 500ms")'
check "STATUS= after the reload names both scopes, measured" wait_for 10 \
	grep -qE 'STATUS=tree [0-9.]+([KMGT]i|B)/1.0Mi, .*; more [0-9.]+([KMGT]i|B)/.*; last round [0-9]+s ago$' "$tmp/notify.log"
check "STATUS= never says \"no round yet\" (sent after the first round, also after a reload)" \
	eval '! grep -q "no round yet" "$tmp/notify.log"'
write_config 500ms 1M
kill -HUP "$daemon"
check "a reload names a scope removed" wait_for 10 reload_says "scope more removed"
kill -HUP "$daemon"
check "a reload that changed nothing says so" wait_for 10 reload_says "nothing changed"
kill -TERM "$daemon"
wait "$daemon"
check "upcd exits 0 (ASan clean)" test $? -eq 0

# journald away: the same lines, on the stream with their priority.
: >"$tmp/upcd2.err"
stream=$(stat -c '%d:%i' "$tmp/upcd2.err")
JOURNAL_STREAM=$stream UPCC_JOURNAL_SOCKET=$tmp/no-such.sock UPCC_MOUNTINFO=/nonexistent \
	timeout 60 "$upcd" --once --config "$tmp/upcd.conf" 2>>"$tmp/upcd2.err"
check "no journal socket: \"<N>\" lines on stderr" grep -qE '^<[0-7]>scope tree: ' "$tmp/upcd2.err"
# A stream that is not our stderr is not journald's: plain lines.
JOURNAL_STREAM=$stream UPCC_JOURNAL_SOCKET=$tmp/journal.sock UPCC_MOUNTINFO=/nonexistent \
	timeout 60 "$upcd" --once --config "$tmp/upcd.conf" 2>"$tmp/upcd3.err"
check "JOURNAL_STREAM naming another file: plain \"upcd:\" lines" grep -qE '^upcd: scope tree: ' "$tmp/upcd3.err"
summary
