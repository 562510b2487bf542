#!/usr/bin/env bash
# top.sh [UPCD_HOOKED UPCC] - issue 31 item 9: upcc top, the live view.  The
# integration suite's hooked upcd runs as a daemon on a path scope over a
# tree this script creates and keeps feeding (a new 1 MiB file every
# 0.2 s: fadvise drops it, compact = no: nothing but the tree's pages is
# touched), with its own --state file.  upcc top is run without a
# terminal (-n frames, for scripts), under strace (it opens the state file,
# never the tree), and in a real terminal: a tmux session (new-session -d,
# capture-pane, send-keys) that is resized, then quit with q and with
# Ctrl-C.  Ends on "N passed, N failed".
set -u
upcd=${1:-${UPCD_HOOKED:?}}
upcc=${2:-${UPCC:?}}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
scratch_init top
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
session=upcc-top-$$
tmux_() { tmux -L "$session" "$@"; }	# a tmux server of this script's own
trap 'tmux_ kill-server 2>/dev/null; for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

mkdir -p "$tmp/tree"
cat >"$tmp/upcd.conf" <<CONF
interval = 200ms
tick = 100ms
backend = fadvise
compact = no
state = $tmp/state.json

[scope tree]
type = path
path = $tmp/tree
target = 0
CONF
start_file_stream "$tmp/tree"
UPCC_MOUNTINFO=/nonexistent "$upcd" --config "$tmp/upcd.conf" 2>"$tmp/upcd.err" &
daemon=$!
pids+=("$daemon")
check "the daemon writes its state" wait_for 20 test -s "$tmp/state.json"

# Without a terminal: -n frames, one after the other, no escape sequence.
check "upcc top -n 3 -d 1 exits 0 (upcd runs)" exit_code_is 0 "$upcc" top -n 3 -d 1 --state "$tmp/state.json"
check "three frames" test "$(grep -c '^upcc top - ' "$tmp/out")" -eq 3
check "no escape sequence without a terminal" eval '! grep -q $'"'"'\033'"'"' "$tmp/out"'
check "the columns: UNMAPPED TARGET RECLAIMED RECLAIM/s INFLOW/s ROUNDS/s BACKEND" \
	grep -qE '^SCOPE +UNMAPPED +TARGET +RECLAIMED +RECLAIM/s +INFLOW/s +ROUNDS/s +BACKEND' "$tmp/out"
check "the first frame has no rates yet" eval 'grep -E "^tree " "$tmp/out" | head -n 1 | grep -qE " - +- +- +fadvise"'
# A new MiB every 0.2 s: reclaimed and inflow a few MiB/s, rounds a few a second.
rates_ok() {
	grep -E '^tree ' "$tmp/out" | tail -n 1 |
		grep -qE '^tree +[0-9.]+([KMG]i|B) +0B +[0-9.]+([KMG]i|B) +[0-9.]+([KM]i|B) +[0-9.]+([KM]i|B) +[0-9]+\.[0-9] +fadvise *$'
}
check "the last frame has rates: reclaimed/s, inflow/s, rounds/s" rates_ok
stream_shows() {	# the last frame's RECLAIM/s and ROUNDS/s are not zero
	grep -E '^tree ' "$tmp/out" | tail -n 1 | awk '{ exit !($5 != "0B" && $7 > 0) }'
}
check "the stream shows: something reclaimed a second, rounds a second" stream_shows
check "the title says upcd runs" grep -qE '^upcd: pid [0-9]+ running, state updated' "$tmp/out"
check "--bytes: exact bytes" exit_code_is 0 "$upcc" top -n 1 --bytes --state "$tmp/state.json"
check "--bytes: the unmapped cache in bytes" eval 'grep -qE "^tree +[0-9]+ +0 " "$tmp/out"'
check "--delay 0 is bad usage (2)" exit_code_is 2 "$upcc" top -n 1 -d 0 --state "$tmp/state.json"
check "-n 0 is bad usage (2)" exit_code_is 2 "$upcc" top -n 0 --state "$tmp/state.json"
check "a --state FILE that is not there: 1" exit_code_is 1 "$upcc" top -n 1 --state "$tmp/none.json"
check "the config's state = is found" exit_code_is 0 "$upcc" top -n 1 --config "$tmp/upcd.conf"

# It reads the state, not the scope: not a file of the tree is opened or listed.
if command -v strace >/dev/null; then
	strace -f -qq -e trace=%file,getdents64 -o "$tmp/strace" \
		"$upcc" top -n 2 -d 0.5 --state "$tmp/state.json" >/dev/null 2>&1
	check "strace: the state file is read" grep -qF "$tmp/state.json" "$tmp/strace"
	check "strace: nothing under the scope's tree is opened or walked" \
		eval '! grep -F "$tmp/tree" "$tmp/strace"'
fi

# A real terminal: 100x20.
tmux_ new-session -d -s top -x 100 -y 20 \
	"'$upcc' top -d 1 --state '$tmp/state.json'; echo \$? >'$tmp/rc1'; stty -a >'$tmp/stty1'; sleep 60"
screen() { tmux_ capture-pane -p -t top >"$tmp/screen"; }
has_rates() {
	screen
	grep -qE '^tree +[0-9.]+([KMG]i|B) +0B +[0-9.]+([KMG]i|B) +[0-9.]+([KM]i|B) +[0-9.]+([KM]i|B) +[0-9]+\.[0-9] +fadvise' "$tmp/screen"
}
check "tmux: upcc top draws its table with rates" wait_for 15 has_rates
check "tmux: the title on the first row, q named" eval 'head -n 1 "$tmp/screen" | grep -qE "^upcc top - [0-9:]+, every 1s \(q quits\)"'
check "tmux: redrawn in place (one title on the screen)" test "$(grep -c '^upcc top - ' "$tmp/screen")" -eq 1
t1=$(head -n 1 "$tmp/screen")
sleep 2.2
screen
check "tmux: the clock moves: redrawn every second" test "$(head -n 1 "$tmp/screen")" != "$t1"
# Narrower than its lines: each is cut at the width, none wraps and
# pushes the table down (the state's path alone is wider than 40).
tmux_ resize-window -t top -x 40 -y 12
fits() {
	screen
	head -n 1 "$tmp/screen" | grep -q '^upcc top - ' &&
		sed -n 4p "$tmp/screen" | grep -q '^SCOPE ' &&
		sed -n 5p "$tmp/screen" | grep -q '^tree '
}
check "tmux: resized to 40x12, the frame fits (lines cut, not wrapped)" wait_for 5 fits
tmux_ send-keys -t top q
check "tmux: q quits" wait_for 10 test -s "$tmp/rc1"
check "tmux: exit 0 after q" test "$(cat "$tmp/rc1" 2>/dev/null)" = 0
check "tmux: the terminal is given back (echo, canonical mode)" \
	eval 'grep -qE "(^| )icanon( |$)" "$tmp/stty1" && grep -qE "(^| )echo( |$)" "$tmp/stty1"'
screen
check "tmux: the shell's screen is back (alternate screen left)" eval '! grep -q "RECLAIM/s" "$tmp/screen"'

tmux_ new-window -t top -n two \
	"'$upcc' top -d 1 --state '$tmp/state.json'; echo \$? >'$tmp/rc2'; stty -a >'$tmp/stty2'; sleep 60"
screen2() { tmux_ capture-pane -p -t top:two >"$tmp/screen"; grep -q 'RECLAIM/s' "$tmp/screen"; }
check "tmux: a second view draws" wait_for 15 screen2
tmux_ send-keys -t top:two C-c
check "tmux: Ctrl-C quits" wait_for 10 test -s "$tmp/rc2"
check "tmux: the terminal is given back after Ctrl-C" \
	eval 'grep -qE "(^| )icanon( |$)" "$tmp/stty2" && grep -qE "(^| )echo( |$)" "$tmp/stty2"'

kill -TERM "$daemon"
wait "$daemon"
check "upcd exits 0 (ASan clean)" test $? -eq 0
check "upcd gone: upcc top -n 1 exits 3" exit_code_is 3 "$upcc" top -n 1 --state "$tmp/state.json"
check "upcd gone: the title says not running" grep -q '^upcd: not running (stale state' "$tmp/out"

summary
