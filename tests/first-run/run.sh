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
# 3. The deb set (install-deps.sh deb, make deb) holds the build set and
#    covers debian/control's Build-Depends; in the same clone, make deb
#    succeeds, runs install-deps.sh deb, and its last line is the .deb at
#    the path the README's quick start installs (~10 s more).
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

# The deb set (make deb): the build set, and every package debian/control's
# Build-Depends names, by its name or one it provides (debhelper-compat is
# debhelper's), plus build-essential, which dpkg-checkbuilddeps requires of
# every build, dpkg-dev (dpkg-buildpackage) and git (build-deb.sh).
mapfile -t deb_list < <("$top/scripts/install-deps.sh" deb --list)
miss=
for p in "${build_list[@]}"; do
	printf '%s\n' "${deb_list[@]}" | grep -qxF "$p" || miss+=" $p"
done
result deb_set_holds_build_set "$([ -z "$miss" ]; echo $?)" "missing:$miss"
provided=$(closure "${deb_list[@]}" | xargs dpkg-query -W -f='${Package}\n${Provides}\n' 2>/dev/null |
	tr ',' '\n' | sed -E 's/^ *//; s/ .*//' | sort -u)
build_depends=$(sed -n '/^Build-Depends:/,/^[^ ]/p' "$top/debian/control" | sed '$!b; /^[^ ]/d' |
	sed 's/^Build-Depends://' | tr ',' '\n' | sed -E 's/\(.*\)//; s/\[.*\]//; s/^ *//; s/ *$//' | grep .)
miss=
for p in $build_depends build-essential dpkg-dev git; do
	grep -qxF "$p" <<<"$provided" || miss+=" $p"
done
result deb_set_covers_build_depends "$([ -z "$miss" ]; echo $?)" \
	"not installed by the deb set:$miss (Build-Depends: $(echo $build_depends))"
miss=
for p in dpkg-dev debhelper; do
	printf '%s\n' "${deb_list[@]}" | grep -qxF "$p" || miss+=" $p"
done
result deb_set_names_dpkg_dev_and_debhelper "$([ -z "$miss" ]; echo $?)" "missing:$miss"

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

# make deb in the same clone: it installs its set and its last line is the
# .deb, at the path the README's quick start gives apt install.
(cd "$clone" && make --no-print-directory deb) >"$work/deb.out" 2>&1
rc=$?
result make_deb_in_clean_clone "$rc" "exit $rc: $(tail -n 5 "$work/deb.out")"
grep -q 'install-deps.sh deb' "$work/deb.out"
result make_deb_checked_dependencies $? "no dependency check in make deb's output"
last=$(tail -n 1 "$work/deb.out")
readme_deb=$(grep -oE 'apt install \./build/deb/[^ ]+\.deb' "$top/README.md" | cut -d' ' -f3)
[ -n "$readme_deb" ] && [ "$last" = "$readme_deb" ] && [ -f "$clone/$last" ]
result make_deb_ends_on_the_readme_deb $? "last line '$last', README '$readme_deb'$([ -f "$clone/$last" ] || echo ', no such file')"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
