# lib.sh - what the program-level suites (tests/unit/programs/*.sh, tests/install,
# tests/package, tests/systemd) share.  Source it from the top of the
# checkout; check() needs $tmp (a scratch directory).  It keeps the counts
# in $passed and $failed.
passed=0
failed=0

cached_pages() {	# cached_pages FILE...: resident pages of the files, summed (mincore)
	fincore --bytes --noheadings --raw --output PAGES "$@" | awk '{ n += $1 } END { print n + 0 }'
}
# What upcd did not drop: the cached pages and those the kernel's reclaim
# took (cachestat's evicted: reclaim leaves shadow entries, DONTNEED none).
# This machine's own DAMON pageout (docs/backends.md) takes pages of any
# file, a read one too: hundreds of a file in one pass.  $PROBE is the
# integration suite's cachestat probe (make unit builds it).
not_dropped() {	# not_dropped FILE...: cached + evicted by reclaim, summed
	"${PROBE:-build/integration/probe}" stat "$@" | awk '{ n += $1 + $4 } END { print n + 0 }'
}

# A stream of clean cache into DIR, in the background (its pid in $pids):
# a new 1 MiB file every 0.2 s, written through, the oldest of 20 removed,
# so that a daemon's rounds keep finding cold cache to act on.
start_file_stream() {	# start_file_stream DIR
	( i=0; while :; do
		dd if=/dev/urandom of="$1/s$i" bs=1M count=1 status=none conv=fsync
		rm -f "$1/s$((i - 20))"
		i=$((i + 1))
		sleep 0.2
	  done ) &
	pids+=("$!")
}

scratch_init() {	# scratch_init NAME: $tmp (a new directory) and $pids, both gone at exit
	tmp=$(mktemp -d "/var/tmp/upcc-$1-XXXXXX")
	pids=()
	trap 'for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
}

check() {	# check NAME COMMAND...: passes if COMMAND succeeds
	local name=$1
	shift
	if "$@" >>"$tmp/check.log" 2>&1; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		tail -n 5 "$tmp/check.log"
		failed=$((failed + 1))
	fi
}

result() {	# result NAME STATUS [DETAIL]: passes if STATUS is 0
	if [ "$2" -eq 0 ]; then
		echo "PASS $1"
		passed=$((passed + 1))
	else
		echo "FAIL $1${3:+: $3}"
		failed=$((failed + 1))
	fi
}

exit_code_is() {	# exit_code_is WANT COMMAND...: output in $tmp/out, $tmp/err
	local want=$1
	shift
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq "$want" ] || { echo "exit $rc, wanted $want: $*"; cat "$tmp/err"; return 1; }
}

wait_for() {	# wait_for SECONDS COMMAND...
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.1
	done
}

absent() { [ ! -e "$1" ]; }

# A fake systemd notify socket: listen.py SOCKET LOG writes each message
# to LOG with its wall-clock time, until STOPPING=1 or 30 s of silence.
write_notify_listener() {	# write_notify_listener PATH
	cat >"$1" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(30)
with open(sys.argv[2], "w") as out:
    try:
        while True:
            msg = s.recv(4096).decode()
            out.write("%.6f %s\n" % (time.time(), msg.split("\n")[0]))
            out.flush()
            if msg.startswith("STOPPING"):
                break
    except socket.timeout:
        pass
PY
}

summary() {	# the last line every suite ends on; exit status to match
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
