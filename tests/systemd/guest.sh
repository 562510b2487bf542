#!/bin/bash
# guest.sh RESULTS - runs inside the Debian 12 guest (tests/systemd/run.sh),
# as root under systemd as PID 1, from the payload disk next to the two
# packages (upcc_V_ARCH.deb and the same package with a bumped version,
# upgrade/upcc_V+1_ARCH.deb).  Each check writes "PASS name" or
# "FAIL name: detail" to RESULTS (a virtio-serial port the host reads) and
# to the console; the host asserts on them.  Ends with "DONE".
set -u
results=${1:-/dev/null}
here=$(dirname "$(readlink -f "$0")")
exec 3>>"$results" || exec 3>/dev/null
export SYSTEMD_PAGER= SYSTEMD_COLORS=0 LC_ALL=C.UTF-8

say() {
	echo "$*" >&3
	echo "upcc-result: $*"
}
result() {	# result NAME OK [DETAIL]
	if [ "$2" -eq 0 ]; then
		say "PASS $1"
	else
		say "FAIL $1${3:+: $(echo "$3" | tr '\n' ' ' | cut -c1-600)}"
	fi
}
# wait_for SECONDS COMMAND...: poll every half second until COMMAND succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.5
	done
}
prop() { systemctl show -P "$1" upcd.service; }
is_active() { [ "$(prop ActiveState)" = active ] && [ "$(prop SubState)" = running ]; }
target_bytes() {	# target_bytes SCOPE: the target upcc status shows for SCOPE
	upcc status --json | grep -oE "\"name\":\"$1\"[^}]*\"target_bytes\":[0-9]+" |
		sed -E 's/.*"target_bytes":([0-9]+)/\1/'
}
journal() { journalctl -q -u upcd.service -o cat "$@"; }

deb=$(ls "$here"/upcc_*.deb)
deb2=$(ls "$here"/upgrade/upcc_*.deb)
say "INFO kernel $(uname -r); $(systemctl --version | head -n 1); PID 1 $(readlink /proc/1/exe)"

# Written first: with mincore (no cachestat on 6.1) a file is evicted only
# once it has not changed for the dirty-expiry period plus a margin
# (70 s with Debian's writeback settings), so it ages while the rest runs.
mkdir -p /srv/data
dd if=/dev/urandom of=/srv/data/blob bs=1M count=16 status=none
sync
data_written=$SECONDS

# --- install --------------------------------------------------------------------
[ "$(readlink /proc/1/exe)" = /usr/lib/systemd/systemd ] || [ "$(readlink /proc/1/exe)" = /lib/systemd/systemd ]
result "systemd is PID 1" $? "$(readlink /proc/1/exe)"
case $(uname -r) in 6.1.*) ok=0 ;; *) ok=1 ;; esac
result "the guest runs Debian 12's stock kernel 6.1 ($(uname -r))" $ok

mkdir -p /var/lib/prometheus/node-exporter	# what prometheus-node-exporter creates
dpkg -i "$deb" </dev/null >/tmp/dpkg-i.log 2>&1
rc=$?
result "dpkg -i $(basename "$deb")" $rc "$(tail -n 5 /tmp/dpkg-i.log)"
wait_for 60 is_active
result "Type=notify: upcd.service active (running) after install, so READY=1 was sent" $? \
	"$(systemctl status upcd.service 2>&1 | head -n 12)"
[ "$(systemctl is-enabled upcd.service)" = enabled ]
result "upcd.service enabled by the package" $? "$(systemctl is-enabled upcd.service 2>&1)"
# Issue 31: STATUS= says what upcd does, not how it was started.
status_says() {
	status_text=$(prop StatusText)
	grep -qE "^$1" <<<"$status_text"
}
wait_for 30 status_says 'system [0-9.]+([KMGT]i|B)/[0-9.]+([KMGT]i|B), reclaimed [0-9.]+([KMGT]i|B); last round [0-9]+s ago$'
result "sd_notify STATUS= reaches systemd and says what upcd does (\"$status_text\")" $?
systemctl status upcd.service 2>&1 | grep -qE '^ *Status: "system .*, reclaimed .*; last round'
result "systemctl status shows it" $? "$(systemctl status upcd.service 2>&1 | head -n 8)"
# The rollout default, argued in docs/operations.md: the package acts at
# once (dry_run = no as shipped); dry_run = yes and a reload observe.
grep -qx '#dry_run = no' /etc/upcc/upcd.conf && upcc status --json | grep -q '"dry_run":false' &&
	! grep -q ', dry run' /tmp/status.txt 2>/dev/null && ! journal | grep -q 'dry run'
result "rollout default: the shipped config acts at once (dry_run = no, the state says so)" $? \
	"$(grep dry_run /etc/upcc/upcd.conf; upcc status 2>&1 | head -n 1)"
upcc status >/tmp/status.txt 2>&1 && grep -q '^system ' /tmp/status.txt &&
	grep -q "pid $(prop MainPID)" /tmp/status.txt
result "upcc status shows the running daemon's system scope" $? "$(cat /tmp/status.txt)"
# Issue 31: a "upcd -v" by hand beside the service reads the same upcd.conf,
# so the same state file: it is refused, naming the service's pid, and
# the service runs on.
timeout 20 /usr/sbin/upcd -v >/tmp/second.log 2>&1
rc=$?
[ $rc -eq 1 ] && grep -qF "pid $(prop MainPID) (upcd) holds its lock /run/upcc/state.json.lock" /tmp/second.log &&
	is_active
result "a second upcd by hand is refused (exit $rc), naming the service's pid" $? "$(cat /tmp/second.log)"

# --- observe first: dry_run = yes on reload ---------------------------------------
printf 'dry_run = yes\n' >/etc/upcc/upcd.conf
systemctl reload upcd.service
dry_state() { upcc status --json | grep -q '"dry_run":true'; }
wait_for 20 dry_state && wait_for 20 status_says 'dry run: system [0-9.]+([KMGT]i|B)/[0-9.]+([KMGT]i|B), reclaimed [0-9.]+([KMGT]i|B); last round [0-9]+s ago$'
result "rollout: dry_run = yes on reload: the state and STATUS= say dry run (\"$status_text\")" $? \
	"$(upcc status 2>&1 | head -n 1)"
journal | grep -q 'reloaded: 1 scope(s), interval 1000 ms: dry_run no -> yes'
result "journal: the reload says what changed (dry_run no -> yes)" $? "$(journal | grep reloaded | tail -n 2)"

# --- metrics in Debian's textfile collector directory ---------------------------
cat >/etc/upcc/upcd.conf <<'CONF'
metrics = /var/lib/prometheus/node-exporter/upcc.prom

[scope system]
type = system
target = 2%

[scope data]
type = path
path = /srv/data
target = 1M
trigger = 2M
CONF
systemctl reload upcd.service
prom=/var/lib/prometheus/node-exporter/upcc.prom
wait_for 30 grep -q 'upcc_unmapped_bytes{scope="data"}' "$prom"
result "metrics written to $prom under ProtectSystem=strict" $? "$(ls -l "$prom" 2>&1; journal | tail -n 3)"
m1=$(stat -c %Y "$prom" 2>/dev/null)
mtime_moved() { [ "$(stat -c %Y "$prom" 2>/dev/null)" != "$m1" ]; }
wait_for 10 mtime_moved
result "metrics rewritten every round" $?

# Negative control: the same unit without that ReadWritePaths= entry cannot
# write there (this is what the shipped unit did before).
mkdir -p /run/systemd/system/upcd.service.d
cat >/run/systemd/system/upcd.service.d/rw.conf <<'CONF'
[Service]
ReadWritePaths=
ReadWritePaths=/run/upcc -/sys/fs/cgroup -/sys/kernel/mm/damon
ReadWritePaths=-/proc/sys/vm/compact_memory -/proc/sys/vm/drop_caches
CONF
systemctl daemon-reload
since=$(date '+%Y-%m-%d %H:%M:%S')
systemctl restart upcd.service
wait_for 60 is_active
rm -f "$prom"
wait_for 30 sh -c "journalctl -q -u upcd.service -o cat --since '$since' | grep -q 'cannot write metrics.*upcc.prom'"
nowrite=$?
sleep 3
[ $nowrite -eq 0 ] && [ ! -e "$prom" ]
result "negative control: without ReadWritePaths=/var/lib/prometheus/node-exporter the write fails" $? \
	"$(journal --since "$since" | tail -n 3)"
rm -rf /run/systemd/system/upcd.service.d
systemctl daemon-reload
systemctl restart upcd.service
wait_for 60 is_active
wait_for 30 test -s "$prom"
result "metrics written again with the shipped unit" $?

# --- reload -----------------------------------------------------------------------
pid=$(prop MainPID)
before=$(target_bytes system)
sed -i 's/^target = 2%/target = 3%/' /etc/upcc/upcd.conf
systemctl reload upcd.service
rc=$?
target_moved() { [ "$(target_bytes system)" != "$before" ]; }
wait_for 20 target_moved
changed=$?
after=$(target_bytes system)
[ $rc -eq 0 ] && [ $changed -eq 0 ] && [ "$after" -gt "$before" ] && [ "$(prop MainPID)" = "$pid" ]
result "systemctl reload applies a good config: system target $before -> $after bytes, same pid" $? \
	"rc $rc; $(journal | tail -n 3)"
journal | grep -q 'reloaded: 2 scope(s), interval 1000 ms: scope system: target 2% -> 3%'
result "journal: the reload names the setting (scope system: target 2% -> 3%)" $? \
	"$(journal | grep reloaded | tail -n 2)"

since=$(date '+%Y-%m-%d %H:%M:%S')
printf 'not a setting\n' >>/etc/upcc/upcd.conf
bad_line=$(wc -l </etc/upcc/upcd.conf)
systemctl reload upcd.service
wait_for 20 sh -c "journalctl -q -u upcd.service -o cat --since '$since' | grep -q 'upcd.conf:$bad_line:'"
logged=$?
sleep 2
[ $logged -eq 0 ] && [ "$(target_bytes system)" = "$after" ] && is_active && [ "$(prop MainPID)" = "$pid" ]
result "a bad config on reload is refused (line $bad_line logged), the old target $after kept, still running" $? \
	"target now $(target_bytes system); $(journal --since "$since" | tail -n 3)"
journalctl -q -u upcd.service --since "$since" -p err -o cat | grep -q "upcd.conf:$bad_line:"
result "journal: the refusal is logged at priority err" $? \
	"$(journalctl -q -u upcd.service --since "$since" -o verbose | grep -E 'PRIORITY|MESSAGE' | tail -n 4)"
sed -i '$d' /etc/upcc/upcd.conf
systemctl reload upcd.service

# --- journal --------------------------------------------------------------------
journal | grep -q 'scope system: backend '
result "journal: each scope's backend and why" $? "$(journal | head -n 5)"
journal -p info | grep -q 'scope data: backend fadvise' && ! journal -p err | grep -q 'scope data: backend'
result "journal: start lines at info, not err" $?

# --- no cachestat on 6.1: mincore, and the path scope still reclaims ---------------
upcc files --json /srv/data >/tmp/files.json 2>&1
grep -q '"method":"mincore"' /tmp/files.json
result "upcc files on 6.1 uses mincore (no cachestat)" $? "$(cut -c1-300 /tmp/files.json)"
upcc status --json | grep -oE '"name":"data"[^}]*' | grep -q 'mincore'
result "upcd's path scope says it measures with mincore" $? "$(upcc status 2>&1 | tail -n 4)"
cached() { upcc files --json /srv/data | grep -oE '"cached_pages":[0-9]+' | head -n 1 | cut -d: -f2; }
# After the quiet period the file is known clean and upcd drops it to 1M.
left=$((150 - (SECONDS - data_written)))
[ $left -ge 30 ] || left=30
wait_for $left sh -c "[ \"\$(upcc files --json /srv/data | grep -oE '\"cached_pages\":[0-9]+' | head -n 1 | cut -d: -f2)\" -le 300 ]"
rc=$?
result "upcd on 6.1 brings a path scope to its target with mincore ($(cached) pages cached after $((SECONDS - data_written)) s)" $rc \
	"$(upcc files /srv/data 2>&1 | tail -n 3; journal | grep 'scope data' | tail -n 3)"
journal | grep -q 'scope data: fadvise reclaimed'
result "journal: the reclaim is logged" $? "$(journal | tail -n 3)"
# Issue 31: native journal entries with fields, so one scope can be asked for.
journalctl -q -u upcd.service SCOPE=data UPCC_EVENT=round -o verbose >/tmp/verbose.txt
grep -qE '^ *RECLAIMED_BYTES=[0-9]+$' /tmp/verbose.txt && grep -qE '^ *BACKEND=fadvise$' /tmp/verbose.txt &&
	grep -qE '^ *_TRANSPORT=journal$' /tmp/verbose.txt && grep -qE '^ *SYSLOG_IDENTIFIER=upcd$' /tmp/verbose.txt &&
	grep -qE '^ *PRIORITY=6$' /tmp/verbose.txt
result "journal: journalctl -u upcd SCOPE=data -o verbose has RECLAIMED_BYTES=, BACKEND=, native transport" $? \
	"$(grep -E '^ *[A-Z_]+=' /tmp/verbose.txt | head -n 20)"
journalctl -q -u upcd.service SCOPE=system -o cat | grep -q 'scope data' 
[ $? -ne 0 ]
result "journal: SCOPE=system has no line of scope data" $?

# --- watchdog ---------------------------------------------------------------------
pid=$(prop MainPID)
restarts=$(prop NRestarts)
since=$(date '+%Y-%m-%d %H:%M:%S')
kill -STOP "$pid"
wait_for 120 sh -c "[ \"\$(systemctl show -P NRestarts upcd.service)\" = $((restarts + 1)) ]"
rc=$?
wait_for 60 is_active
n=$(prop NRestarts)
[ $rc -eq 0 ] && is_active && [ "$(prop MainPID)" != "$pid" ] && [ "$n" = 1 ]
result "a SIGSTOPped upcd is killed by the watchdog and restarted (NRestarts=$n)" $? \
	"$(systemctl status upcd.service 2>&1 | head -n 8)"
journalctl -q --since "$since" -u upcd.service -o cat | grep -qi 'watchdog timeout'
result "journal: systemd logged the watchdog timeout" $? "$(journalctl -q --since "$since" -u upcd.service -o cat | tail -n 5)"

# --- stop -------------------------------------------------------------------------
timeout_us=$(prop TimeoutStopUSec)
t0=$(date +%s%N)
systemctl stop upcd.service
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
[ "$(prop ActiveState)" = inactive ] && [ "$(prop Result)" = success ] && [ "$(prop ExecMainStatus)" = 0 ]
result "systemctl stop: clean exit 0 in $ms ms (timeout $timeout_us)" $? \
	"state $(prop ActiveState) result $(prop Result) status $(prop ExecMainStatus)"
[ $ms -lt 10000 ]
result "systemctl stop within 10 s" $?
[ ! -e /run/upcc ]
result "stop removes the runtime directory /run/upcc" $?
systemctl start upcd.service
wait_for 60 is_active
result "start again" $?

# --- upgrade ----------------------------------------------------------------------
pid=$(prop MainPID)
v2=$(dpkg-deb -f "$deb2" Version)
dpkg -i "$deb2" </dev/null >/tmp/dpkg-u.log 2>&1
rc=$?
wait_for 60 is_active
[ $rc -eq 0 ] && [ "$(dpkg-query -W -f '${Version}' upcc)" = "$v2" ] && is_active &&
	[ "$(prop MainPID)" != "$pid" ]
result "upgrade to $v2: installed, service restarted" $? "rc $rc; $(tail -n 5 /tmp/dpkg-u.log)"
grep -q '^target = 3%' /etc/upcc/upcd.conf && [ ! -e /etc/upcc/upcd.conf.dpkg-new ] &&
	[ ! -e /etc/upcc/upcd.conf.dpkg-dist ]
result "upgrade keeps the edited config, without a prompt" $? "$(ls /etc/upcc)"
grep -qi 'error\|warning' /tmp/dpkg-u.log
[ $? -ne 0 ]
result "upgrade prints no error or warning" $? "$(grep -i 'error\|warning' /tmp/dpkg-u.log)"

# --- remove, purge ------------------------------------------------------------------
dpkg -r upcc </dev/null >/tmp/dpkg-r.log 2>&1
rc=$?
[ $rc -eq 0 ] && [ ! -e /usr/sbin/upcd ] && [ ! -e /lib/systemd/system/upcd.service ] &&
	[ "$(systemctl show -P ActiveState upcd.service)" = inactive ] && ! pgrep -x upcd >/dev/null
result "dpkg -r: programs and unit gone, daemon stopped" $? "rc $rc; $(tail -n 3 /tmp/dpkg-r.log); $(pgrep -a upcd)"
grep -q '^target = 3%' /etc/upcc/upcd.conf
result "dpkg -r keeps the config" $? "$(ls -l /etc/upcc 2>&1)"
dpkg -P upcc </dev/null >/tmp/dpkg-p.log 2>&1
rc=$?
left=$(ls -d /etc/upcc /var/lib/systemd/deb-systemd-helper-enabled/*upcd* \
	/etc/systemd/system/multi-user.target.wants/upcd.service 2>/dev/null)
[ $rc -eq 0 ] && [ -z "$left" ] && ! dpkg-query -W upcc >/dev/null 2>&1
result "dpkg -P: config, enablement and package record gone" $? "rc $rc; left: $left"

journalctl -q -u upcd.service -o short-monotonic | tail -n 40 | sed 's/^/journal: /'
say "DONE"
