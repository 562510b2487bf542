#!/usr/bin/env bash
# tests/monitoring/run.sh BUILD - the monitoring assets against a real
# upcd and promtool (from Debian's prometheus package, mk/72-monitoring.mk):
#  - the metrics file of a real run (upcd --once --dry-run on a path scope
#    made here) passes promtool check metrics, and has build_info, the
#    start time, the scope's up and last-measured timestamp, dry_run;
#  - dist/prometheus/upcc.rules.yml passes promtool check rules, and
#    promtool test rules (tests/monitoring/upcc.rules.test.yml); a rule
#    made to fire too early is caught by the test (negative control);
#  - dist/grafana/upcc.json is JSON, and every upcc_* name it or the rules
#    use is a metric of the real file (a made-up name is told apart).
# No Prometheus server runs: promtool only reads files.
# Ends on "N passed, N failed".
set -u
export LC_ALL=C	# sort and comm agree on the order
cd "$(dirname "$0")/../.."
build=${1:-build}
upcd=$(realpath "$build/upcd")
. tests/unit/programs/lib.sh
scratch_init monitoring
rules=dist/prometheus/upcc.rules.yml
dashboard=dist/grafana/upcc.json

# promtool: $PROMTOOL (mk/72-monitoring.mk takes it out of the package
# without installing it), else the one on PATH.
promtool=${PROMTOOL:-promtool}
promtool() { command "$promtool" "$@"; }
if ! command -v "$promtool" >/dev/null; then
	result "promtool found ($promtool; make monitoring-check fetches it)" 1
	echo "$passed passed, $failed failed"
	exit 1
fi

# --- a real run's metrics -------------------------------------------------------
mkdir -p "$tmp/scope/d"
head -c 1048576 /dev/zero >"$tmp/scope/d/f"
prom=$tmp/upcc.prom
before=$(date +%s)
"$upcd" --once --dry-run --scope "path:$tmp/scope" --state "$tmp/state.json" \
	--metrics "$prom" >"$tmp/upcd.log" 2>&1
rc=$?
after=$(date +%s)
[ $rc -eq 0 ] && [ -s "$prom" ]
result "upcd --once --dry-run --metrics on a path scope writes the file (exit $rc)" $? \
	"$(tail -n 3 "$tmp/upcd.log")"

out=$(promtool check metrics <"$prom" 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ]
result "promtool check metrics: no finding on the real file" $? "$out"

scope="path:$tmp/scope"
version=$("$upcd" --version | awk '{ print $2 }')
grep -qx "upcc_build_info{version=\"$version\"} 1" "$prom" &&
	grep -qx '# TYPE upcc_build_info gauge' "$prom"
result "upcc_build_info{version=\"$version\"} 1, as upcd --version" $? "$(grep build_info "$prom")"

# in_window NAME SELECTOR: the sample's value, as whole seconds, lies in
# [$before, $after].
in_window() {
	local value
	value=$(grep -F "$1 " "$prom" | grep -v '^#' | awk '{ print $2 }' | cut -d. -f1)
	[ -n "$value" ] && [ "$value" -ge "$before" ] && [ "$value" -le "$after" ]
}
in_window "upcc_start_time_seconds" && grep -qx '# TYPE upcc_start_time_seconds gauge' "$prom"
result "upcc_start_time_seconds is the run's start (unix time)" $? "$(grep start_time "$prom")"
in_window "upcc_last_round_timestamp_seconds{scope=\"$scope\"}" &&
	grep -q '^# HELP upcc_last_round_timestamp_seconds ' "$prom"
result "upcc_last_round_timestamp_seconds{scope} is when the run measured it" $? \
	"$(grep last_round "$prom")"
grep -qx "upcc_scope_up{scope=\"$scope\"} 1" "$prom" && grep -qx '# TYPE upcc_scope_up gauge' "$prom"
result "upcc_scope_up{scope} 1: the scope was measured" $? "$(grep scope_up "$prom")"
grep -qx 'upcc_dry_run 1' "$prom"
result "upcc_dry_run 1 under --dry-run" $? "$(grep dry_run "$prom")"

# --- the rules --------------------------------------------------------------------
out=$(promtool check rules "$rules" 2>&1)
result "promtool check rules $rules" $? "$out"
out=$(promtool test rules tests/monitoring/upcc.rules.test.yml 2>&1)
result "promtool test rules: the stuck, stale, down and error alerts fire when they should, only then" $? \
	"$(tail -n 20 <<<"$out")"

# Negative control: the stuck-above-trigger rule with "for: 1m" alerts at
# minute 10, which the test says it must not.
mkdir -p "$tmp/neg/dist/prometheus" "$tmp/neg/tests/monitoring"
awk '/alert: UpccScopeStuckAboveTrigger/ { on = 1 } on && /for:/ { sub(/for: .*/, "for: 1m"); on = 0 } { print }' \
	"$rules" >"$tmp/neg/dist/prometheus/upcc.rules.yml"
cp tests/monitoring/upcc.rules.test.yml "$tmp/neg/tests/monitoring/"
! cmp -s "$rules" "$tmp/neg/dist/prometheus/upcc.rules.yml" &&
	! promtool test rules "$tmp/neg/tests/monitoring/upcc.rules.test.yml" >"$tmp/neg.log" 2>&1 &&
	grep -q 'UpccScopeStuckAboveTrigger' "$tmp/neg.log"
result "negative control: a stuck rule that fires too early fails promtool test rules" $?

# --- names used = names written ------------------------------------------------------
written=$(grep -v '^#' "$prom" | grep -oE '^upcc_[a-z_]+' | sort -u)
# unknown NAMES: those not written by the real run.
unknown() { comm -23 <(echo "$1" | sort -u) <(echo "$written"); }

python3 -m json.tool "$dashboard" >/dev/null 2>"$tmp/json.err"
result "$dashboard is JSON (python3 -m json.tool)" $? "$(cat "$tmp/json.err")"
names=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in d["panels"] for t in p["targets"]]
exprs += [v["definition"] for v in d["templating"]["list"] if "definition" in v]
print("\n".join(exprs))' "$dashboard" | grep -oE 'upcc_[a-z_]+' | sort -u)
missing=$(unknown "$names")
[ -n "$names" ] && [ -z "$missing" ]
rc=$?	# before the count's command substitution below sets $?
result "every upcc_* metric the dashboard queries is in the real file ($(echo $names | wc -w))" $rc \
	"not written: $(echo $missing)"
names=$(grep -v '^ *#' "$rules" | grep -oE 'upcc_[a-z_]+' | sort -u)
missing=$(unknown "$names")
[ -n "$names" ] && [ -z "$missing" ]
rc=$?	# before the count's command substitution below sets $?
result "every upcc_* metric the rules use is in the real file ($(echo $names | wc -w))" $rc \
	"not written: $(echo $missing)"
[ -n "$(unknown "$(printf '%s\n' upcc_unmapped_bytes upcc_made_up_bytes)")" ]
result "negative control: a made-up metric name is told apart" $?

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
