#!/usr/bin/env bash
# The first run on a bare machine: does `make run` install what it needs?
#
# 1. Every file outside the tree that building upcd and upcc reads (each
#    header of each src/*/*.c, the json-c library it links) belongs to a
#    package that `scripts/install-deps.sh build` installs, itself or
#    through its dependencies.  Negative control: the same check with the
#    list less libjson-c-dev must name json-c's header (so the check can
#    fail, and would have caught make run at 87699b7).
# 2. A clean clone of this checkout runs `make run` with the real
#    dependency check (install-deps.sh build asks dpkg, and apt-get for
#    what is missing): exit 0, upcc status prints its system scope row, and
#    upcd wrote its state under the clone's build/run/ only.
# Prints one line per check and "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/upcc-first-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
result() {
	if [ "$2" -eq 0 ]; then echo "ok $1"; passed=$((passed + 1))
	else echo "FAIL $1: $3"; failed=$((failed + 1)); fi
}

# The packages a list installs, with everything they depend on (installed).
closure() {
	apt-cache depends --recurse --installed --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances "$@" 2>/dev/null |
		grep -v '^ ' | sort -u
}

# Files outside the tree that the build reads: headers (gcc -M on every
# source with the build's own flags) and the library it links.
build_inputs() {
	local f
	for f in "$top"/src/*/*.c; do
		gcc -std=c11 -D_GNU_SOURCE -iquote "$top/src" -M "$f"
	done | tr ' \\' '\n\n' | grep '^/' | grep -v "^$top/" | sort -u
	gcc -print-file-name=libjson-c.so
}

# dpkg's owner of every input, once: "PACKAGE PATH" a line.  Paths are
# made absolute without resolving links: the library's .so link belongs to
# the -dev package, the file it points to to the runtime one.
owners() {
	local f
	while read -r f; do realpath -s "$f"; done < <(build_inputs) | sort -u >"$work/inputs"
	xargs dpkg -S <"$work/inputs" 2>/dev/null | sed -E 's/^([^:]+)(:[^:]+)?: (.*)$/\1 \3/' >"$work/owners"
}

# The inputs whose package is not in the closure of the list given.
uncovered() {
	local have f pkg
	have=$(closure "$@")
	while read -r f; do
		pkg=$(awk -v f="$f" '$2 == f { print $1; exit }' "$work/owners")
		if [ -z "$pkg" ]; then echo "$f (no package)"; continue; fi
		grep -qxF "$pkg" <<<"$have" || echo "$f ($pkg)"
	done <"$work/inputs"
}

owners
echo "# $(wc -l <"$work/inputs") files outside the tree, from $(cut -d" " -f1 "$work/owners" | sort -u | tr "\n" " ")"
mapfile -t build_list < <("$top/scripts/install-deps.sh" build --list)
miss=$(uncovered "${build_list[@]}")
result build_set_covers_every_input "$([ -z "$miss" ]; echo $?)" "not installed by the build set: $miss"

less=()
for p in "${build_list[@]}"; do [ "$p" = libjson-c-dev ] || less+=("$p"); done
miss=$(uncovered "${less[@]}")
result control_without_json_c_is_caught "$(grep -q 'json-c/json.h' <<<"$miss"; echo $?)" \
	"the check did not miss json-c/json.h without libjson-c-dev: ${miss:-nothing}"

clone=$work/clone
git clone -q "$top" "$clone"
make -C "$clone" run >"$work/run.out" 2>&1
rc=$?
result make_run_in_clean_clone "$rc" "exit $rc: $(tail -n 5 "$work/run.out")"
grep -q 'install-deps.sh build' "$work/run.out"
result make_run_checked_dependencies $? "no dependency check in make run's output"
grep -qE '^system +[0-9.]+[KMGT]?i?B? ' "$work/run.out"
result upcc_status_shows_system_scope $? "no system row: $(grep -A2 '^SCOPE' "$work/run.out")"
[ -s "$clone/build/run/state.json" ]
result state_written_in_clone $? "no $clone/build/run/state.json"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
