#!/usr/bin/env bash
# stop-latency.sh [UPCD] [FILES] - upcd stays responsive while a round
# walks a big tree: it exits within 1 s of SIGTERM and pings the systemd
# watchdog at least every WatchdogSec/2, mid-walk.  FILES one-page cached
# files (default 10000: about 60 steps of one walk each at --target 0);
# `make check-stop-200k` runs it on 200000, past the inventory's 65536
# entries (the table overflows, every step walks the tree: once).
# upcd only evicts the files made here.  Ends on "N passed, N failed".
set -u
# The release build by default: the bound is the product's, and an ASan
# build's exit-time leak scan of a big heap alone takes ~0.5 s.
upcd=${1:-${UPCD_RELEASE:-${UPCD:?}}}
nr_files=${2:-10000}
tmp=$(mktemp -d /var/tmp/upcc-stop-XXXXXX)
daemon_pid=
listener_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null
	[ -n "$listener_pid" ] && kill "$listener_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
. "$(dirname "$0")/lib.sh"

# The tree: FILES files of one page, 1000 to a directory, written back
# (dirty files are never evicted) and cached.
start=$(date +%s.%N)
python3 - "$tmp/tree" "$nr_files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
page = os.sysconf("SC_PAGE_SIZE")
data = b"x" * page
for i in range(n):
    d = os.path.join(root, "d%d" % (i // 1000))
    if i % 1000 == 0:
        os.makedirs(d)
    with open(os.path.join(d, "f%d" % i), "wb") as f:
        f.write(data)
PY
sync -f "$tmp/tree"
recache() { find "$tmp/tree" -type f -print0 | xargs -0 cat >/dev/null; }
recache
echo "setup: $nr_files files in $(echo "$(date +%s.%N) - $start" | bc) s"

# 1. SIGTERM in the middle of the first round.
"$upcd" --backend=fadvise --scope "path:$tmp/tree" --target 0 --interval 1h \
	--state "$tmp/state.json" 2>"$tmp/term.err" &
daemon_pid=$!
sleep 1
kill -0 "$daemon_pid" 2>/dev/null || echo "upcd exited before the signal"
grep -c 'reclaimed' "$tmp/term.err" | sed 's/^/steps before SIGTERM: /'
sent=$(date +%s%N)
kill -TERM "$daemon_pid"
for _ in $(seq 1 600); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.01; done
gone=$(date +%s%N)
stop_ms=$(((gone - sent) / 1000000))
wait "$daemon_pid"
rc=$?
daemon_pid=
echo "SIGTERM to exit: ${stop_ms} ms (exit $rc)"
check "upcd exits within 1 s of SIGTERM mid-round (${stop_ms} ms)" test "$stop_ms" -le 1000
check "SIGTERM mid-round exits 0" test "$rc" -eq 0

# 2. Watchdog pings while rounds walk the tree (one every second, each a
# step of a walk of FILES files), counted from READY=1 as systemd counts:
# WatchdogSec 200 ms.
recache
write_notify_listener "$tmp/listen.py"
python3 "$tmp/listen.py" "$tmp/notify.sock" "$tmp/notify.log" &
listener_pid=$!
for _ in $(seq 50); do [ -S "$tmp/notify.sock" ] && break; sleep 0.1; done
watchdog_usec=200000
NOTIFY_SOCKET=$tmp/notify.sock WATCHDOG_USEC=$watchdog_usec "$upcd" --backend=fadvise \
	--scope "path:$tmp/tree" --target 0 --interval 1s --state "$tmp/state.json" \
	2>"$tmp/watchdog.err" &
daemon_pid=$!
sleep 4
kill -TERM "$daemon_pid"
wait "$daemon_pid"
daemon_pid=
wait "$listener_pid"
listener_pid=
# The gaps between pings, in ms, smallest first.
awk '$2 == "READY=1" || (seen && $2 == "WATCHDOG=1") { seen = 1
	if (last) printf "%d\n", ($1 - last) * 1000; last = $1 }' "$tmp/notify.log" |
	sort -n >"$tmp/gaps"
max_gap_ms=$(tail -n 1 "$tmp/gaps")
max_gap_ms=${max_gap_ms:-0}
p95_gap_ms=$(awk '{ g[NR] = $1 } END { i = int(NR * 0.95 + 0.999); if (i < 1) i = 1
	printf "%d\n", (NR ? g[i] : 0) }' "$tmp/gaps")
pings=$(grep -c 'WATCHDOG=1' "$tmp/notify.log")
steps=$(grep -c 'reclaimed' "$tmp/watchdog.err")
echo "watchdog: $pings pings, gap p95 ${p95_gap_ms} ms, largest ${max_gap_ms} ms (reported, not checked; WatchdogSec/2 = $((watchdog_usec / 2000)) ms), $steps steps logged"
check "READY=1 before the first round ends" grep -q 'READY=1' "$tmp/notify.log"
check "at least 16 pings in 4 s" test "$pings" -ge 16
# Pings come mid-walk, not once a round (1 s): the 95th percentile of the
# gaps is within WatchdogSec/2 plus 150 ms of slack.  Not the largest gap:
# on two cores shared with other work, one gap of an ASan build and of the
# listener's timestamps can stretch past that (330 ms seen beside kernel
# builds) without upcd waiting for a round.  A daemon that pinged once a
# round would have every gap near 1000 ms and fail this.
check "95th percentile of the gaps between pings <= WatchdogSec/2 + 150 ms (${p95_gap_ms} ms)" \
	test "$p95_gap_ms" -le $((watchdog_usec / 2000 + 150))

summary
