#!/usr/bin/env bash
# hostile-3.sh [UPCD UPCC] - the third hostile test's reproductions
# (../shared/reviews/upcd-hostile-test-3.md, issue 32), run against the
# programs: each finding has checks that fail on the code before its fix
# (at 93d3f9c: 9 passed, 33 failed; those that passed pin what held, such
# as exit 2 for a NUL byte, or nested scopes being allowed).  Every upcd
# here is a --dry-run, a --check, or works on a tree this script creates
# (a path scope: nothing global is touched, compaction counts only system
# and node scopes).  Ends on "N passed, N failed".
set -u
upcd=${1:-${UPCD:?}}
upcc=${2:-${UPCC:?}}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
scratch_init hostile3

stderr_has() { grep -qF -- "$1" "$tmp/err"; }
not_a_config_error() {	# not_a_config_error COMMAND...: exits, but not with 2
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -ne 2 ] && [ "$rc" -ne 124 ]
}

# L4. A NUL byte, or a binary file, is an error at its line, not "cannot
# read: Invalid argument".
mkdir "$tmp/d1"
printf '[scope a]\ntype = path\npath = %s\0junk\n' "$tmp/d1" >"$tmp/nul.conf"
check "a NUL byte in the config exits 2" exit_code_is 2 "$upcd" --check --config "$tmp/nul.conf"
check "a NUL byte is named at its line" stderr_has "$tmp/nul.conf:3: NUL byte at column"
head -c 4096 "$upcd" >"$tmp/binary.conf"
check "a binary config exits 2" exit_code_is 2 "$upcd" --check --config "$tmp/binary.conf"
check "a binary config is not text, at line 1" stderr_has "$tmp/binary.conf:1: NUL byte at column"

# L4. A metrics or state path that names a directory is refused when the
# config is read, not at the first write.
printf 'metrics = /\n' >"$tmp/metrics-root.conf"
check "metrics = / exits 2" exit_code_is 2 "$upcd" --check --config "$tmp/metrics-root.conf" \
	--scope "path:$tmp/d1"
check "metrics = / is named at its line" \
	stderr_has "$tmp/metrics-root.conf:1: metrics \"/\": names a directory"
printf '[daemon]\nstate = %s/\n' "$tmp" >"$tmp/state-slash.conf"
check "state = DIR/ exits 2" exit_code_is 2 "$upcd" --check --config "$tmp/state-slash.conf" \
	--scope "path:$tmp/d1"
check "state = DIR/ is named at its line" \
	stderr_has "$tmp/state-slash.conf:2: state \"$tmp/\": names a directory"
check "--metrics=/ exits 2" exit_code_is 2 "$upcd" --check --scope "path:$tmp/d1" --metrics /
check "--metrics=/ says why" stderr_has "--metrics=/: names a directory"
check "--state=DIR/.. exits 2" exit_code_is 2 "$upcd" --check --scope "path:$tmp/d1" \
	--state "$tmp/d1/.."

# L4. An existing directory as the state or metrics file is refused at
# start-up and by --check, not warned about at the first write.
mkdir "$tmp/reports"
printf 'state = %s\n' "$tmp/reports" >"$tmp/state-dir.conf"
check "state = an existing directory: --check exits 2" exit_code_is 2 "$upcd" --check \
	--config "$tmp/state-dir.conf" --scope "path:$tmp/d1"
check "state = an existing directory is named at its line" \
	stderr_has "$tmp/state-dir.conf:1: state $tmp/reports: is a directory"
check "--state=DIR: --once --dry-run does not start (exit 2)" exit_code_is 2 \
	"$upcd" --once --dry-run --config "$tmp/state-dir.conf" --scope "path:$tmp/d1" --state "$tmp/reports"
check "--state=DIR says which option" stderr_has "--state=$tmp/reports: is a directory"
check "--metrics=DIR: --check exits 2" exit_code_is 2 "$upcd" --check --scope "path:$tmp/d1" \
	--metrics "$tmp/reports"
check "--metrics=DIR names a file to use instead" stderr_has "name a file ($tmp/reports/upcc.prom)"

# L4. --check lists every error of the file, the first as a start says it.
printf 'interval = soon\n[scope a]\ntype = numa\npath = /x\n[daemon]\ntick = 1ms\n' >"$tmp/many.conf"
check "--check on a file with three errors exits 2" exit_code_is 2 "$upcd" --check \
	--config "$tmp/many.conf"
check "--check names the first error first" \
	eval 'head -n 1 "$tmp/err" | grep -qF "$tmp/many.conf:1: interval \"soon\""'
check "--check names every error, each once" \
	eval 'grep -c "many.conf:[0-9]*: " "$tmp/err" | grep -qx 3 &&
	      grep -qF "$tmp/many.conf:3: type \"numa\"" "$tmp/err" &&
	      grep -qF "$tmp/many.conf:6: tick \"1ms\"" "$tmp/err"'
check "a start says the first error only" exit_code_is 2 "$upcd" --once --dry-run \
	--config "$tmp/many.conf"
check "a start's error is the first" \
	eval 'grep -c "many.conf:" "$tmp/err" | grep -qx 1 && grep -qF "many.conf:1: " "$tmp/err"'

# L5. Two scopes over one tree, spelled differently, are refused; the
# error names both.
check "--scope path:D and path:D/ exits 2" exit_code_is 2 "$upcd" --check \
	--scope "path:$tmp/d1" --scope "path:$tmp/d1/"
check "--scope path:D/ names the other" \
	stderr_has "--scope=path:$tmp/d1/: the same tree as --scope=path:$tmp/d1"
printf '[scope a]\ntype = path\npath = %s\n\n[scope b]\ntype = path\npath = %s\n' \
	"$tmp/d1" "$tmp//d1/." >"$tmp/twice.conf"
check "two sections with one path exit 2" exit_code_is 2 "$upcd" --check --config "$tmp/twice.conf"
check "two sections with one path: both named, with their lines" \
	stderr_has "$tmp/twice.conf:7: [scope b]: path \"$tmp//d1/.\" is the tree of [scope a] (line 3)"

# L5. ... and so are two scopes that the filesystem resolves to one
# directory: "..", a symlink, a bind mount; nested trees are warned about.
mkdir -p "$tmp/x" "$tmp/d1/sub" "$tmp/cg/web/child"
ln -s d1 "$tmp/link"
check "--scope path:X/../D and path:D exits 2" exit_code_is 2 "$upcd" --check \
	--scope "path:$tmp/x/../d1" --scope "path:$tmp/d1"
check "path:X/../D and path:D: both named, and the directory" \
	stderr_has "--scope=path:$tmp/d1 and --scope=path:$tmp/x/../d1 are one tree, $tmp/d1:"
check "--scope path:SYMLINK and path:D exits 2" exit_code_is 2 "$upcd" --check \
	--scope "path:$tmp/d1" --scope "path:$tmp/link"
printf '[scope a]\ntype = path\npath = %s\n\n[scope b]\ntype = path\npath = %s\n' \
	"$tmp/d1" "$tmp/link" >"$tmp/symlink.conf"
check "two sections, a path and a symlink to it, exit 2" exit_code_is 2 "$upcd" --check \
	--config "$tmp/symlink.conf"
check "a path and a symlink to it: both sections named, with their lines" \
	stderr_has "$tmp/symlink.conf:7: [scope b] path $tmp/link and [scope a] (line 3, path $tmp/d1) are one tree, $tmp/d1:"
check "--scope cgroup:X/../C and cgroup:C exits 2" exit_code_is 2 "$upcd" --check \
	--scope "cgroup:$tmp/cg/web" --scope "cgroup:$tmp/x/../cg/web"
check "cgroup:X/../C and cgroup:C are one cgroup" \
	stderr_has "--scope=cgroup:$tmp/x/../cg/web and --scope=cgroup:$tmp/cg/web are one cgroup"
if unshare -m true 2>/dev/null; then
	mkdir "$tmp/bind"
	check "a bind mount of the tree as another scope exits 2" exit_code_is 2 \
		unshare -m sh -c 'mount --bind "$1/d1" "$1/bind" && exec "$2" --check \
			--scope "path:$1/d1" --scope "path:$1/bind"' - "$tmp" "$upcd"
	check "a bind mount: both directories named" stderr_has "are one tree, $tmp/bind and $tmp/d1:"
else
	echo "SKIP bind mount (no unshare -m here)"
fi
check "nested trees are allowed (--check exits 0)" exit_code_is 0 "$upcd" --check \
	--backend=fadvise --scope "path:$tmp/d1" --scope "path:$tmp/d1/sub"
check "nested trees are warned about" \
	stderr_has "--scope=path:$tmp/d1/sub is inside --scope=path:$tmp/d1: the pages under $tmp/d1/sub have two controllers"
# (Fake cgroups: no backend can act on them here, exit 1, not 2.)
check "nested cgroups are allowed" not_a_config_error "$upcd" --check \
	--scope "cgroup:$tmp/cg/web" --scope "cgroup:$tmp/cg/web/child"
check "nested cgroups are warned about" stderr_has "--scope=cgroup:$tmp/cg/web/child is inside"

# L6. A scope that cannot reach its target (a file larger than the target
# kept dirty by a writer) says so once, not every round: at a 100 ms
# interval for 4 s, one line where there were about 40.
mkdir "$tmp/stuck"
python3 - "$tmp/stuck/dirty" <<'PY' &
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
data = b"x" * (1 << 20)
for _ in range(1200):		# at most 60 s: killed when the check is done
    for i in range(16):
        os.pwrite(fd, data, i << 20)
    time.sleep(0.05)
PY
pids+=($!)
sleep 0.5
# Its own state file: the default one's lock (/run/upcc) is any other
# upcd's on this machine, another test run's too.
"$upcd" --backend=fadvise --scope "path:$tmp/stuck" --target 2M --trigger 4M --interval 100ms \
	--tick 50ms --state "$tmp/stuck.json" 2>"$tmp/stuck.err" &
pids+=($!)
sleep 4
kill -TERM "${pids[-1]}"; wait "${pids[-1]}"
kill "${pids[-2]}"; wait "${pids[-2]}" 2>/dev/null
stuck_lines=$(grep -c 'nothing more came off' "$tmp/stuck.err")
echo "a stuck scope, 4 s at 100 ms: $stuck_lines lines"
check "a stuck scope is logged" test "$stuck_lines" -ge 1
check "a stuck scope says when it speaks again" grep -q 'said again when this changes, else in 5 min' \
	"$tmp/stuck.err"
# (More than one only if someone's sync cleaned the file for a moment.)
check "a stuck scope is logged at most 3 times in 4 s at 100 ms" test "$stuck_lines" -le 3

summary
