#!/usr/bin/env bash
# Integration: the working set and the sampling tick (issue 10), on an ext4
# image on a loop device this script makes, mounts and removes.  Real
# build/upcd (daemon mode, its own --state and --metrics), outcomes measured
# with cachestat by tests/integration/probe.c and bench/wset/wsetload.c,
# never taken from upcd's own report alone.  Needs root.
#
#   tests/integration/wset.sh [BUILD_DIR]
#
# 1. hot set kept under a stream, target above the hot set: hit ratio and
#    residency of the hot files;
# 2. excess over the trigger removed by the round the first tick above it
#    starts (interval 1 h: no interval round can do it), counted in rounds;
# 3. effective target raised while a hot set bigger than the target is
#    read, back to the target within 30 s once it is not;
# 4. on a kernel without file handles (no CONFIG_FHANDLE; NO_FHANDLE runs
#    upcd under a seccomp filter that says so), fanotify events cannot name
#    a file: the inventory walks instead, and a stream of files opened
#    after the start is still bounded.
# 5. one large file streamed (1 GiB, sparse, at 64 MiB/s): its cache stays
#    near the trigger, not at half of what was read.
set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
UPCD=$BUILD/upcd
PROBE=${PROBE:-build/integration/probe}
LOAD=${LOAD:-build/bench/wsetload}
. tests/integration/lib.sh

. tests/integration/loopfs.sh
loopfs_init wset

for prog in "$UPCD" "$PROBE" "$LOAD"; do
	[ -x "$prog" ] || { fail "setup: $prog not built"; finish; }
done
[ "$(id -u)" -eq 0 ] || { fail "setup: needs root (loop device, mount)"; finish; }
loopfs_mount 640M
mkdir -p "$mnt/hot" "$mnt/stream" "$mnt/burst" "$mnt/big"
for i in 1 2 3 4 5 6 7 8; do head -c 1M /dev/urandom > "$mnt/hot/h$i"; done
for i in $(seq 10 25); do head -c 1M /dev/urandom > "$mnt/big/h$i"; done
# The stream is read once (11 x 32 MiB > 10 s at 32 MiB/s): it never comes back.
for i in $(seq 10 20); do head -c 32M /dev/zero > "$mnt/stream/s$i"; done
head -c 40M /dev/zero > "$mnt/burst/b"
sync
"$LOAD" evict "$mnt"
pass "setup: ext4 on $loop mounted on $mnt"

mib_pages() { echo $(( $1 * 1024 * 1024 / PAGE )); }
cached_sum() { "$PROBE" sum "$@" | awk '{ print $1 }'; }
metric() { awk -v m="$1" '$1 ~ "^"m"{" { print $2 }' "$work/m.prom" 2>/dev/null | head -n 1; }
state_field() { grep -o "\"$1\":[^,]*" "$work/state.json" 2>/dev/null | head -n 1 | cut -d: -f2 | tr -d '"'; }
start_upcd() {	# start_upcd SCOPE_DIR UPCD-OPTIONS...
	local dir=$1
	shift
	rm -f "$work/m.prom" "$work/state.json"
	${WRAP:-} "$UPCD" --scope "path:$dir" --backend=fadvise --state "$work/state.json" \
		--metrics "$work/m.prom" "$@" 2>"$work/upcd.log" &
	upid=$!
	pids+=("$upid")
	for _ in $(seq 100); do [ -s "$work/m.prom" ] && break; sleep 0.05; done
}
stop_upcd() {
	kill "$upid" 2>/dev/null
	wait "$upid"
	urc=$?
	check "upcd stopped cleanly (rc $urc)" test "$urc" -eq 0
}

# ---- 1. hot set kept under a stream (hot 8 MiB, target 16 MiB) --------------
start_upcd "$mnt" --target=16M --trigger=32M
"$LOAD" hot "$mnt/hot" 10 200 > "$work/hot.out" &
hot_pid=$!
"$LOAD" stream "$mnt/stream" 10 32 > "$work/stream.out"
wait "$hot_pid"
hit=$(awk '/hit_ratio/ { print $2 }' "$work/hot.out")
hot_kept=$(cached_sum "$mnt"/hot/h*)
streamed=$(awk '/streamed_bytes/ { print $2 }' "$work/stream.out")
reclaimed=$(metric upcc_reclaimed_bytes_total)
check "hot set kept under a stream: hit ratio $hit >= 0.97" \
	awk -v h="$hit" 'BEGIN { exit !(h >= 0.97) }'
# The machine's own reclaim may take a page or two of it under the load
# beside the suite (seen: 2047 of 2048); upcd drops whole halves of files.
check "hot set resident after the stream: $hot_kept of $(mib_pages 8) pages (8 may go to the host's own reclaim)" \
	test "$hot_kept" -ge "$(( $(mib_pages 8) - 8 ))"
check "the stream was bounded: reclaimed ${reclaimed:-0} bytes of $streamed streamed (>= 0.5)" \
	awk -v r="${reclaimed:-0}" -v s="$streamed" 'BEGIN { exit !(r >= 0.5 * s) }'
check "effective target stayed the target (the hot set fits): $(state_field effective_target_reason)" \
	test "$(state_field effective_target_reason)" = target
stop_upcd

# ---- 2. excess removed by the round the first tick above the trigger starts --
# --interval 1h: only a tick can start a round after the first.  40 MiB read
# at once (trigger 32 MiB, target 16 MiB): it crosses the trigger once.
start_upcd "$mnt/burst" --target=16M --trigger=32M --interval=1h --tick=100ms
rounds0=$(metric upcc_rounds_total)
cat "$mnt/burst/b" > /dev/null
sleep 1.5
left=$(cached_sum "$mnt/burst/b")
rounds=$(metric upcc_rounds_total)
tick_rounds=$(metric upcc_tick_rounds_total)
ticks=$(metric upcc_ticks_total)
check "excess removed within one round: $left pages left <= target + what was read after it ($(mib_pages 24))" \
	test "$left" -le "$(mib_pages 24)"
check "one round started by a tick above the trigger (rounds ${rounds0:-?} -> ${rounds:-?}, tick rounds ${tick_rounds:-?}, ticks ${ticks:-?})" \
	test "${rounds:-0}" -eq $(( ${rounds0:-0} + 1 )) -a "${tick_rounds:-0}" -eq 1 -a "${ticks:-0}" -ge 1
stop_upcd

# ---- 3. effective target raised above the target, decayed after -------------
# 16 MiB hot set re-read every 0.2 s, target 8 MiB: once its files refault,
# the target is raised to hold them (at most 8 + 16 MiB); when the reading
# stops, it is back to 8 MiB within 30 s (+2 s: "in use" lasts 2 s).
start_upcd "$mnt/big" --target=8M --trigger=12M
"$LOAD" hot "$mnt/big" 8 200 > "$work/big.out"
sleep 1.2
eff=$(state_field effective_target_bytes)
why=$(state_field effective_target_reason)
check "effective target raised for the hot set: $eff bytes ($why)" \
	test "${eff:-0}" -gt $((8 << 20)) -a "${eff:-0}" -le $((24 << 20))
check "the hot set kept once the target is raised: $(awk '/hit_ratio/ { print $2 }' "$work/big.out") (>= 0.8)" \
	awk -v h="$(awk '/hit_ratio/ { print $2 }' "$work/big.out")" 'BEGIN { exit !(h >= 0.8) }'
sleep 32
eff=$(state_field effective_target_bytes)
why=$(state_field effective_target_reason)
check "effective target back to the target within 30 s: $eff bytes ($why)" \
	test "${eff:-0}" -eq $((8 << 20)) -a "$why" = target
stop_upcd

# ---- 4. no file handles: walks, and the stream is still bounded -----------
NO_FHANDLE=${NO_FHANDLE:-build/integration/no-fhandle}
if [ -x "$NO_FHANDLE" ]; then
	"$LOAD" evict "$mnt"
	WRAP=$NO_FHANDLE start_upcd "$mnt" --target=16M --trigger=32M
	"$LOAD" stream "$mnt/stream" 6 32 > "$work/stream.out"
	sleep 1.5
	streamed=$(awk '/streamed_bytes/ { print $2 }' "$work/stream.out")
	reclaimed=$(metric upcc_reclaimed_bytes_total)
	check "no file handles: upcd says why it walks ($(grep -o 'inventory: walks ([^)]*)' "$work/upcd.log" | head -n 1))" \
		grep -q "inventory: walks (.*file handles: Function not implemented" "$work/upcd.log"
	check "no file handles: the stream was bounded: reclaimed ${reclaimed:-0} bytes of $streamed streamed (>= 0.5)" \
		awk -v r="${reclaimed:-0}" -v s="$streamed" 'BEGIN { exit !(r >= 0.5 * s) }'
	stop_upcd
else
	fail "setup: $NO_FHANDLE not built"
fi

# ---- 5. one large file streamed: a window at its reader, not half of it ----
# A backup reads one big file through: the file keeps a readahead window
# at its reader (drop.c, reader_keep_end), so the scope stays near its
# trigger.  Keeping the upper half of what a file read held half of every
# byte streamed (475 MiB of 1 GiB at a 64 MiB target).
mkdir -p "$mnt/one"
truncate -s 1G "$mnt/one/image"
"$LOAD" evict "$mnt"
# The interval at 250 ms: a round that could not reach the target blocks
# the tick's rounds until the interval's, and a second of the stream is
# 64 MiB; what is judged here is the window a file keeps, not the interval.
start_upcd "$mnt/one" --target=16M --trigger=32M --interval=250ms
"$LOAD" stream "$mnt/one" 10 64 > "$work/stream.out" &
stream_pid=$!
samples=()
for _ in $(seq 36); do
	sleep 0.25
	kill -0 "$stream_pid" 2>/dev/null || break
	samples+=("$(cached_sum "$mnt/one/image")")
done
wait "$stream_pid"
streamed=$(awk '/streamed_bytes/ { print $2 }' "$work/stream.out")
n=${#samples[@]}
sorted=$(printf '%s\n' "${samples[@]}" | sort -n)
mean=$(awk '{ s += $1 } END { print int(s / (NR ? NR : 1)) }' <<<"$sorted")
peak=$(tail -n 1 <<<"$sorted")
# The 95th percentile, as the other timing checks take it (docs/development.md):
# a loaded machine may run a round late; a stream kept at half of what it
# read is over in nearly every sample.
p95=$(sed -n "$(( (n * 95 + 99) / 100 ))p" <<<"$sorted")
check "one file streamed: 95% of $n samples <= 2 x trigger ($(mib_pages 64)): ${p95:-?} pages (largest $peak), $streamed bytes read" \
	test "$n" -ge 20 -a "${p95:-999999999}" -le "$(mib_pages 64)"
check "one file streamed: mean $mean pages <= trigger + a tick's read ($(mib_pages 40)) over $n samples" \
	test "$n" -ge 20 -a "$mean" -le "$(mib_pages 40)"
stop_upcd

finish
