#!/usr/bin/env bash
# tests/install/run.sh BUILD - `make install` and what it installs, checked
# in scratch DESTDIRs (never the machine's own /usr or /etc):
#  - the file list under PREFIX=/usr and PREFIX=/usr/local, the unit's
#    ExecStart naming the installed upcd, no @SBINDIR@ left;
#  - systemd-analyze verify of the installed unit, Documentation= included
#    (man:upcd(8) resolved against the installed man pages; a negative
#    control shows the check fails without them);
#  - the man pages render with no groff warning;
#  - every option in each program's --help is in its man page, and every
#    option the man page documents is in --help (no drift either way);
#  - bash completion offers exactly the --help options (run through
#    bash-completion itself);
#  - the shipped config is accepted as is, and with every commented
#    setting switched on; its keys are the keys upcd.conf(5) documents;
#  - install keeps an existing config; uninstall removes what install put
#    there, the config only if unedited.
# Ends on "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
upcd=$(realpath "$build/upcd")
upcc=$(realpath "$build/upcc")
tmp=$(mktemp -d /tmp/upcc-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. tests/unit/programs/lib.sh

# --- file lists -------------------------------------------------------------
usr=$tmp/usr-root
make --no-print-directory -s install BUILD="$build" PREFIX=/usr DESTDIR="$usr" >"$tmp/install.log" 2>&1
rc=$?
got=$(cd "$usr" && find . -type f | sort)
want=$(printf '%s\n' ./etc/upcc/upcd.conf ./lib/systemd/system/upcd.service \
	./usr/bin/upcc ./usr/sbin/upcd ./usr/share/bash-completion/completions/upcc \
	./usr/share/bash-completion/completions/upcd ./usr/share/man/man5/upcd.conf.5 \
	./usr/share/man/man8/upcc.8 ./usr/share/man/man8/upcd.8 \
	./usr/share/doc/upcc/examples/upcc.rules.yml ./usr/share/doc/upcc/examples/upcc.json | sort)
[ $rc -eq 0 ] && [ "$got" = "$want" ]
result "make install PREFIX=/usr DESTDIR=...: exactly the expected files" $? \
	"rc $rc; $(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"

unit=$usr/lib/systemd/system/upcd.service
grep -qE '^ExecStart=/usr/sbin/upcd( |$)' "$unit" && ! grep -q '@SBINDIR@' "$unit" &&
	[ -x "$usr/usr/sbin/upcd" ] && [ -x "$usr/usr/bin/upcc" ]
result "installed unit runs the installed /usr/sbin/upcd, no placeholder left" $? \
	"$(grep -n 'ExecStart\|@' "$unit")"

local_root=$tmp/local-root
make --no-print-directory -s install BUILD="$build" PREFIX=/usr/local DESTDIR="$local_root" \
	>"$tmp/install-local.log" 2>&1
lunit=$local_root/usr/local/lib/systemd/system/upcd.service
[ -x "$local_root/usr/local/sbin/upcd" ] && [ -x "$local_root/usr/local/bin/upcc" ] &&
	grep -qE '^ExecStart=/usr/local/sbin/upcd( |$)' "$lunit" &&
	[ -f "$local_root/usr/local/share/man/man8/upcd.8" ] &&
	[ -f "$local_root/usr/local/share/doc/upcc/examples/upcc.rules.yml" ] &&
	[ -f "$local_root/etc/upcc/upcd.conf" ]
result "PREFIX=/usr/local: programs, man pages and unit under /usr/local, its ExecStart follows" $? \
	"$(cd "$local_root" && find . -type f | tr '\n' ' ')"

# --- the installed unit, as systemd reads it ----------------------------------
# ExecStart is pointed into DESTDIR (the path must exist) and man(1) looks in
# DESTDIR's man pages: --man=yes runs "man upcd(8)" for each Documentation=.
sed "s|^ExecStart=/usr/sbin/upcd|ExecStart=$usr/usr/sbin/upcd|" "$unit" >"$tmp/upcd.service"
out=$(MANPATH=$usr/usr/share/man systemd-analyze verify --man=yes "$tmp/upcd.service" 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ]
result "systemd-analyze verify --man=yes of the installed unit: no finding" $? "$out"

mkdir -p "$tmp/no-man"
out=$(MANPATH=$tmp/no-man systemd-analyze verify --man=yes "$tmp/upcd.service" 2>&1)
grep -q "man upcd(8)" <<<"$out"
result "negative control: without the man pages verify reports Documentation=man:upcd(8)" $? "$out"

# --- man pages ------------------------------------------------------------------
for page in docs/man/upcd.8 docs/man/upcc.8 docs/man/upcd.conf.5; do
	out=$(groff -man -ww -z "$page" 2>&1; LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	[ -z "$out" ]
	result "$page renders with no warning" $? "$out"
done

# help_opts TEXT: the options an option list names ("  -v, --verbose  ...").
help_opts() {
	grep -E '^ +-' | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,' | sort -u
}

# man_opts PAGE START END: options on the .TP lines between two headings.
man_opts() {
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1" |
		awk -v s="$2" -v e="$3" '
			index($0, s) == 1 { on = 1; next }
			on && index($0, e) == 1 { on = 0 }
			on && tp { print; tp = 0 }
			on && $0 == ".TP" { tp = 1 }' |
		grep -oE -- '(^|[ ,"])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,"' | sort -u
}

same_opts() {	# same_opts NAME HELP_LIST MAN_LIST
	local extra missing
	missing=$(comm -23 <(echo "$2") <(echo "$3") | tr '\n' ' ')
	extra=$(comm -13 <(echo "$2") <(echo "$3") | tr '\n' ' ')
	local n
	n=$(echo "$2" | wc -l)
	[ -n "$2" ] && [ -z "$missing$extra" ]
	result "$1: --help options = man page options ($n)" $? \
		"not in the man page: ${missing:-none}; not in --help: ${extra:-none}"
}

upcd_help=$("$upcd" --help | help_opts)
same_opts "upcd(8)" "$upcd_help" "$(man_opts docs/man/upcd.8 '.SH OPTIONS' '.SH ')"
for cmd in status top files evict; do
	help=$("$upcc" "$cmd" --help | help_opts)
	same_opts "upcc(8) $cmd" "$help" \
		"$(man_opts docs/man/upcc.8 ".SS \"upcc $cmd" '.S')"
done
# The commands upcc --help lists are the man page's subsections.
cmds_help=$("$upcc" --help | sed -n '/^Commands:/,/^$/p' | sed -nE 's/^  ([a-z]+)( .*)?$/\1/p' | sort)
cmds_man=$(sed -n 's/^\.SS "upcc \([a-z]*\).*/\1/p' docs/man/upcc.8 | sort)
[ -n "$cmds_help" ] && [ "$cmds_help" = "$cmds_man" ]
result "upcc(8) has a section for each command of upcc --help" $? \
	"help: $(echo $cmds_help); man: $(echo $cmds_man)"

# A drift the check must catch: an option removed from the page.
sed '/^\.BI \\-\\-interval/d' docs/man/upcd.8 >"$tmp/upcd-drift.8"
[ "$upcd_help" != "$(man_opts "$tmp/upcd-drift.8" '.SH OPTIONS' '.SH ')" ]
result "negative control: a man page missing --interval is told apart" $?

# --- bash completion --------------------------------------------------------------
# complete WORDS...: what the installed completion offers for the last word.
complete_words() {
	bash --norc -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		"_${COMP_WORDS[0]}" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$@" | sort -u
}
comp=$(complete_words "$usr/usr/share/bash-completion/completions/upcd" upcd -)
[ "$comp" = "$upcd_help" ]
result "completion: upcd - offers exactly upcd --help's options" $? \
	"$(diff <(echo "$upcd_help") <(echo "$comp") | tr '\n' ' ')"
for cmd in status top files evict; do
	help=$("$upcc" "$cmd" --help | help_opts)
	comp=$(complete_words "$usr/usr/share/bash-completion/completions/upcc" upcc "$cmd" -)
	[ "$comp" = "$help" ]
	result "completion: upcc $cmd - offers exactly its --help options" $? \
		"$(diff <(echo "$help") <(echo "$comp") | tr '\n' ' ')"
done
comp=$(complete_words "$usr/usr/share/bash-completion/completions/upcc" upcc '')
[ "$(grep -v '^-' <<<"$comp")" = "$cmds_help" ]
result "completion: upcc offers its commands" $? "$(echo $comp)"
comp=$(complete_words "$usr/usr/share/bash-completion/completions/upcd" upcd --backend '')
[ "$(echo $comp)" = "auto damon dropcache fadvise memcg" ]
result "completion: upcd --backend offers the backends" $? "$(echo $comp)"

# --- the config file ----------------------------------------------------------------
conf=$usr/etc/upcc/upcd.conf
"$upcd" --config "$conf" --once --dry-run --state "$tmp/state.json" >"$tmp/conf.log" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '"name":"system"' "$tmp/state.json"
result "the shipped config is accepted as it is (one system scope, exit $rc)" $? \
	"$(tail -n 2 "$tmp/conf.log")"

# Every commented "#key = value" switched on; paths it writes moved here.
sed -E 's/^#([a-z_]+ = .*|\[scope .*)$/\1/' "$conf" |
	sed -E "s|^(metrics = ).*|\1$tmp/upcc.prom|; s|^(state = ).*|\1$tmp/state2.json|" \
		>"$tmp/all.conf"
"$upcd" --config "$tmp/all.conf" --once --dry-run --state "$tmp/state3.json" \
	--metrics "$tmp/m.prom" >"$tmp/all.log" 2>&1
rc=$?
nscopes=$(grep -c '^\[scope ' "$tmp/all.conf")
[ $rc -ne 2 ] && ! grep -q "$tmp/all.conf:" "$tmp/all.log" && [ "$nscopes" -ge 4 ]
result "every setting of the shipped config switched on parses ($nscopes scopes; exit $rc, not 2)" $? \
	"$(grep "$tmp/all.conf" "$tmp/all.log" | head -n 3)"

keys_conf=$(sed -nE 's/^([a-z_]+) = .*/\1/p' "$tmp/all.conf" | sort -u)
keys_man=$(sed 's/\\-/-/g' docs/man/upcd.conf.5 | sed -nE '/^\.SH (DAEMON|SCOPE) KEYS/,/^\.SH (AMOUNTS)/ s/^\.BI "([a-z_]+) = ".*/\1/p' | sort -u)
n=$(echo "$keys_man" | wc -l)
[ -n "$keys_man" ] && [ "$keys_conf" = "$keys_man" ]
result "the shipped config names every key upcd.conf(5) documents ($n)" $? \
	"$(diff <(echo "$keys_man") <(echo "$keys_conf") | tr '\n' ' ')"

printf 'bogus = 1\n' >"$tmp/bad.conf"
"$upcd" --config "$tmp/bad.conf" --once --dry-run --state "$tmp/s4.json" >"$tmp/bad.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "$tmp/bad.conf:1:" "$tmp/bad.log"
result "negative control: an unknown key is refused (exit $rc, line named)" $?

# --- keep, uninstall ----------------------------------------------------------------
echo "interval = 2s" >>"$conf"
make --no-print-directory -s install BUILD="$build" PREFIX=/usr DESTDIR="$usr" >"$tmp/reinstall.log" 2>&1
tail -n 1 "$conf" | grep -qx 'interval = 2s'
result "install over an edited config keeps it" $? "$(cat "$tmp/reinstall.log")"

make --no-print-directory -s uninstall BUILD="$build" PREFIX=/usr DESTDIR="$usr" >"$tmp/un.log" 2>&1
left=$(cd "$usr" && find . -type f | sort | tr '\n' ' ')
[ "$left" = "./etc/upcc/upcd.conf " ]
result "uninstall removes every installed file but the edited config" $? "left: $left"

make --no-print-directory -s uninstall BUILD="$build" PREFIX=/usr/local DESTDIR="$local_root" >"$tmp/un2.log" 2>&1
left=$(cd "$local_root" && find . -type f | tr '\n' ' ')
[ -z "$left" ]
result "uninstall of an untouched install leaves no file (the shipped config too)" $? "left: $left"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
