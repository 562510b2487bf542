#!/usr/bin/env bash
# run.sh - the layers suite (`make layers`, mk/11-layers.mk): a call up a
# floor of src/ is a build error, and the check that says so can fail.
# The floors are make's (`make -s print-layers`: USR_LAYERS, USR_BELOW_X),
# not written down a second time here.
#
#   up-a-floor-fails  core's archive with tests/layers/up-a-floor.c in it (a
#                     file standing in core/ that calls sys's upcc_measure):
#                     core's own check, the X.ok rule of mk/10-userspace.mk,
#                     stops make on an undefined reference to upcc_measure,
#                     and to nothing else
#   up-a-floor-links  the positive control: the same archive and rule, sys
#                     put below core (USR_BELOW_core on make's command line)
#   X-links           every folder's X.ok relinked (make -W tests/layers/main.c),
#                     no error or warning
#   X-includes        no file under src/X/ or tests/unit/X/ includes "Y/..."
#                     for a folder Y that is neither X nor below X, nor a
#                     path with ..; a bare include in src/X/ is a header of X
#   folders           every src/*/ is in USR_LAYERS and every layer a folder
#
# The controls run make with BUILD=$LAYERS_TEST/build on copies of the
# archives (make -o: they are not remade); of $BUILD only the X.ok stamps
# are touched.  Ends on "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
build=${BUILD:-build}
test_dir=${LAYERS_TEST:-$build/layers-test}
ar=${AR:-ar}
fixture=$test_dir/up-a-floor.o
symbol=upcc_measure
passed=0
failed=0

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() {	# fail NAME WHY [OUTPUT]
	echo "FAIL $1: $2"
	[ -n "${3:-}" ] && printf '%s\n' "$3" | tail -n 20 | sed 's/^/    /'
	failed=$((failed + 1))
}
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

# The floors, from the Makefile.
declare -A below=()
layers=()
if ! floors=$(make -s --no-print-directory print-layers 2>&1) || [ -z "$floors" ]; then
	fail print-layers "make -s print-layers gave no floors" "$floors"
	finish
fi
while IFS=: read -r layer rest; do
	layers+=("$layer")
	below[$layer]=${rest# }
done <<<"$floors"
is_below() {	# is_below Y X: Y is one of the folders below X
	case " ${below[$2]:-} " in *" $1 "*) return 0 ;; esac
	return 1
}
is_layer() { [ -n "${below[$1]+set}" ]; }

# The floors are a line: each folder may call exactly the folders before it
# in USR_LAYERS (the programs, upcd and upcc, side by side on top: every
# folder but the two).  A folder given one more, to make a failing link
# pass, or two given each other, is caught here, not accepted.
order_ok=true
for ((i = 0; i < ${#layers[@]}; i++)); do
	layer=${layers[i]}
	want=""
	for ((j = i - 1; j >= 0; j--)); do
		case "${layers[j]}" in upcd|upcc) continue ;; esac
		want="$want ${layers[j]}"
	done
	want=${want# }
	if [ "${below[$layer]}" != "$want" ]; then
		fail "floors-$layer" "USR_BELOW_$layer is '${below[$layer]}', the floors below it are '$want'"
		order_ok=false
	fi
done
$order_ok && pass "floors: each folder calls exactly the folders before it (${layers[*]})"

# The fixture calls from core up into sys: that is only a test if sys is
# above core.
if ! is_layer core || ! is_layer sys || is_below sys core || ! is_below core sys; then
	fail premise "the fixture needs core below sys (print-layers: $(tr '\n' ';' <<<"$floors"))"
	finish
fi

# core's archive with the fixture in it, and the archives core and sys
# would link against, copied under the controls' own BUILD.
tbuild=$test_dir/build
rm -rf "$tbuild"
mkdir -p "$tbuild/layers"
olds=()
for layer in core sys ${below[sys]}; do
	cp "$build/layers/$layer.a" "$tbuild/layers/" || { fail setup "no $build/layers/$layer.a"; finish; }
	olds+=(-o "$tbuild/layers/$layer.a")
done
"$ar" r "$tbuild/layers/core.a" "$fixture" 2>/dev/null || { fail setup "cannot add $fixture to core.a"; finish; }

# (a) the negative control: core's check must stop on the call up.
ok=$tbuild/layers/core.ok
out=$(make --no-print-directory --no-silent BUILD="$tbuild" "${olds[@]}" "$ok" 2>&1)
rc=$?
undefined=$(sed -nE "s/.*undefined reference to [\`']([^']*)'.*/\1/p; s/.*undefined symbol: ([^ ]*).*/\1/p" <<<"$out" | sort -u | tr '\n' ' ')
if [ "$rc" -eq 0 ] || [ -e "$ok" ]; then
	fail up-a-floor-fails "core.ok with a call into sys linked (make exit $rc)" "$out"
elif [ "$undefined" != "$symbol " ]; then
	fail up-a-floor-fails "make stopped, but the undefined symbols are [${undefined% }], not [$symbol]" "$out"
else
	pass "up-a-floor-fails: core.ok stops make on an undefined reference to $symbol (exit $rc)"
fi

# (b) the positive control: the same object and rule, sys below core.
rm -f "$ok"
out=$(make --no-print-directory --no-silent BUILD="$tbuild" "${olds[@]}" \
	"USR_BELOW_core=sys ${below[core]}" "$ok" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || [ ! -e "$ok" ]; then
	fail up-a-floor-links "core.ok with sys below core did not link (make exit $rc)" "$out"
elif ! grep -qF "$tbuild/layers/sys.a" <<<"$out"; then
	fail up-a-floor-links "core.ok linked, but not against sys.a" "$out"
else
	pass "up-a-floor-links: with sys below core the same object links"
fi

# (c) every folder's own check, relinked.
for layer in "${layers[@]}"; do
	ok=$build/layers/$layer.ok
	touch "$test_dir/before"
	out=$(make --no-print-directory --no-silent -W tests/layers/main.c "$ok" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -e "$ok" ]; then
		fail "$layer-links" "make $ok: exit $rc" "$out"
	elif [ ! "$ok" -nt "$test_dir/before" ]; then
		fail "$layer-links" "make did not relink $ok" "$out"
	elif grep -qE 'warning:|error:|undefined' <<<"$out"; then
		fail "$layer-links" "make $ok said something wrong" "$out"
	else
		pass "$layer-links: ${below[$layer]:-nothing} below"
	fi
done

# (d) includes: a folder's files include their own headers and those of the
# folders below, named by folder.  tests/layers/known-up-includes lists the
# exceptions still to be fixed ("FILE HEADER" a line); each must match.
declare -A known=()
while read -r file header _; do
	case $file in ''|'#'*) continue ;; esac
	known["$file $header"]=unused
done < tests/layers/known-up-includes
for layer in "${layers[@]}"; do
	bad=""
	allowed=""
	nfiles=0
	for f in src/"$layer"/*.[ch] tests/unit/"$layer"/*.[ch]; do
		[ -e "$f" ] || continue
		nfiles=$((nfiles + 1))
		while IFS=: read -r line path; do
			case $path in
			*..*) bad+="$f:$line \"$path\" (a relative path); " ;;
			*/*)
				to=${path%%/*}
				if ! is_layer "$to"; then
					bad+="$f:$line \"$path\" ($to is no folder of src/); "
				elif [ "$to" != "$layer" ] && ! is_below "$to" "$layer"; then
					if [ -n "${known["$f $path"]+set}" ]; then
						known["$f $path"]=used
						allowed+=", $f:$line \"$path\""
					else
						bad+="$f:$line \"$path\" ($to is not below $layer); "
					fi
				fi ;;
			*)
				if [ "${f#src/}" != "$f" ] && [ ! -e "src/$layer/$path" ]; then
					bad+="$f:$line \"$path\" (no such header in src/$layer/); "
				fi ;;
			esac
		done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
			 sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/')
	done
	if [ -n "$bad" ]; then
		fail "$layer-includes" "${bad%; }"
	else
		from="$layer ${below[$layer]}"
		pass "$layer-includes: $nfiles files include from ${from% } only${allowed:+ (known up a floor: ${allowed#, })}"
	fi
done
stale=""
for entry in "${!known[@]}"; do
	[ "${known[$entry]}" = used ] || stale+=", $entry"
done
if [ -n "$stale" ]; then
	fail known-up-includes "no longer up a floor, delete from tests/layers/known-up-includes: ${stale#, }"
else
	pass "known-up-includes: ${#known[@]} known, each still there"
fi

# Every folder of src/ is a layer, and every layer a folder of src/.
extra=""
for d in src/*/; do
	d=${d#src/}
	d=${d%/}
	is_layer "$d" || extra+=" src/$d/"
done
missing=""
for layer in "${layers[@]}"; do
	[ -d "src/$layer" ] || missing+=" $layer"
done
if [ -n "$extra$missing" ]; then
	fail folders "not in USR_LAYERS:${extra:- none}; layers without a folder:${missing:- none}"
else
	pass "folders: src/ has the ${#layers[@]} folders of USR_LAYERS"
fi

finish
