#!/usr/bin/env bash
# rollout.sh [UPCD UPCC] - issue 31 item 2: a safe rollout.  upcd runs as a
# daemon with "dry_run = yes" in its config on a path scope over a tree
# this script creates (target 0: every clean page is above it), drops
# nothing, and says so in its state, upcc status and metrics; the config
# rewritten to "dry_run = no" and a SIGHUP, the same daemon drops the
# files.  Residency is measured by fincore(1) (mincore), not by upcc.
# compact = no: nothing but the tree's own pages is touched.  Ends on
# "N passed, N failed".
set -u
upcd=${1:-${UPCD:?}}
upcc=${2:-${UPCC:?}}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
scratch_init rollout
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99

json_of() {	# json_of FILE EXPR: EXPR of the JSON in FILE (as d), printed; -1 if none
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"$@" 2>/dev/null || echo -1
}
write_config() {	# write_config yes|no [TARGET [EXCLUDE]]
	cat >"$tmp/upcd.conf.new" <<CONF
interval = 200ms
tick = 100ms
backend = fadvise
compact = no
dry_run = $1
state = $tmp/state.json
metrics = $tmp/upcc.prom

[scope tree]
type = path
path = $tmp/tree
target = ${2:-0}
${3:+exclude = $3}
CONF
	mv "$tmp/upcd.conf.new" "$tmp/upcd.conf"
}

mkdir -p "$tmp/tree/sub"
files=("$tmp/tree/a" "$tmp/tree/b" "$tmp/tree/sub/c" "$tmp/tree/sub/d")
for f in "${files[@]}"; do
	dd if=/dev/urandom of="$f" bs=1M count=4 status=none conv=fsync
	cat "$f" >/dev/null
done
pages=$((16 * 1024 * 1024 / $(getconf PAGESIZE)))
before=$(cached_pages "${files[@]}")
check "setup: 16 MiB of clean files read ($(not_dropped "${files[@]}") of $pages pages cached or reclaimed by the kernel)" \
	test "$(not_dropped "${files[@]}")" -ge "$pages"

write_config yes
"$upcd" --config "$tmp/upcd.conf" 2>"$tmp/upcd.log" &
daemon=$!
pids+=("$daemon")
state_says_dry_run() {
	[ "$(json_of "$tmp/state.json" 'd["daemon"]["dry_run"] and d["daemon"]["pid"]')" = "$daemon" ]
}
check "dry_run = yes: the state file says dry run" wait_for 20 state_says_dry_run
# Rounds ran meanwhile: give it a few more, then look.
sleep 1.5
check "dry_run = yes: the daemon still runs" kill -0 "$daemon"
kept=$(not_dropped "${files[@]}")
check "dry_run = yes: nothing dropped ($kept of $before pages cached or reclaimed by the kernel)" \
	test "$kept" -ge "$before"
check "dry_run = yes: the log says it would reclaim" grep -q "dry run: would have" "$tmp/upcd.log"
check "dry_run = yes: the log says where the dry run comes from" grep -qF '"dry_run = yes" in the config' "$tmp/upcd.log"
check "dry_run = yes: upcc_dry_run 1" grep -qx 'upcc_dry_run 1' "$tmp/upcc.prom"
check "dry_run = yes: upcc status exits 0" exit_code_is 0 "$upcc" status --state "$tmp/state.json"
check "dry_run = yes: upcc status says dry run" grep -q '^upcd: running, pid .*, dry run' "$tmp/out"

write_config no
kill -HUP "$daemon"
state_says_acting() {
	[ "$(json_of "$tmp/state.json" 'd["daemon"]["dry_run"]')" = False ]
}
dropped() { [ "$(cached_pages "${files[@]}")" -le $((before / 8)) ]; }
check "dry_run = no + SIGHUP: the state file says acting" wait_for 20 state_says_acting
check "dry_run = no + SIGHUP: the files are dropped ($(cached_pages "${files[@]}") pages left)" \
	wait_for 20 dropped
check "dry_run = no + SIGHUP: the log says the dry run is over" grep -q "dry run over: reclaiming" "$tmp/upcd.log"
check "dry_run = no + SIGHUP: upcc_dry_run 0" wait_for 10 grep -qx 'upcc_dry_run 0' "$tmp/upcc.prom"
check "dry_run = no: upcc status exits 0" exit_code_is 0 "$upcc" status --state "$tmp/state.json"
not_dry_run() { grep -q '^upcd: running, pid ' "$tmp/out" && ! grep -q 'dry run' "$tmp/out"; }
check "dry_run = no: upcc status does not say dry run" not_dry_run

# A reload that changes the policy alone keeps the running backend, with
# what it learnt (scoperun.h): no new inventory, no new walk.  One that
# changes what the backend works on (an exclude) starts a new one: the
# negative control of the first.
reloads() { grep -c '^upcd: reloaded: ' "$tmp/upcd.log"; }
inventories() { grep -c 'inventory root' "$tmp/upcd.log"; }
reloaded_to() { [ "$(reloads)" -ge "$1" ]; }
n_reloads=$(reloads)
n_inv=$(inventories)
write_config no 1M
kill -HUP "$daemon"
check "target alone + SIGHUP: reloaded" wait_for 20 reloaded_to $((n_reloads + 1))
check "target alone + SIGHUP: the log says the backend was kept" \
	grep -q "scope tree: backend fadvise kept across the reload" "$tmp/upcd.log"
check "target alone + SIGHUP: no new inventory ($(inventories) lines, $n_inv before)" \
	test "$(inventories)" -eq "$n_inv"
write_config no 1M "$tmp/tree/sub"
kill -HUP "$daemon"
check "exclude changed + SIGHUP: reloaded" wait_for 20 reloaded_to $((n_reloads + 2))
check "exclude changed + SIGHUP: a new inventory ($(inventories) lines, $n_inv before)" \
	test "$(inventories)" -gt "$n_inv"

# And back: a SIGHUP to "dry_run = yes" stops the dropping without a restart.
write_config yes
kill -HUP "$daemon"
check "dry_run = yes again + SIGHUP: the state file says dry run" wait_for 20 state_says_dry_run
for f in "${files[@]}"; do cat "$f" >/dev/null; done
again=$(not_dropped "${files[@]}")
sleep 1.5
kept=$(not_dropped "${files[@]}")
check "dry_run = yes again: nothing dropped ($kept of $again pages cached or reclaimed by the kernel)" \
	test "$kept" -ge "$again"
check "dry_run = yes again: upcc_dry_run 1" grep -qx 'upcc_dry_run 1' "$tmp/upcc.prom"

# --dry-run wins over the file's "dry_run = no".
write_config no
for f in "${files[@]}"; do cat "$f" >/dev/null; done
again=$(not_dropped "${files[@]}")
check "--dry-run --once over dry_run = no exits 0" exit_code_is 0 "$upcd" --once --dry-run \
	--config "$tmp/upcd.conf" --state "$tmp/once.json"
kept=$(not_dropped "${files[@]}")
check "--dry-run over dry_run = no: nothing dropped ($kept of $again pages cached or reclaimed)" \
	test "$kept" -ge "$again"
check "--dry-run over dry_run = no: its state says dry run" \
	test "$(json_of "$tmp/once.json" 'd["daemon"]["dry_run"]')" = True

kill -TERM "$daemon"
wait "$daemon"
rc=$?
check "upcd stops on SIGTERM, exit 0 (was $rc)" test "$rc" -eq 0
summary
