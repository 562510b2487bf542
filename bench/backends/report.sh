#!/usr/bin/env bash
# report.sh - turn one benchmark run's raw files (OUTDIR/MODE.{tsv,info,
# hotset,maphold}) into the side-by-side table, in Markdown.
#
# usage: bench/backends/report.sh OUTDIR TARGET_KB TRIGGER_KB MODE...
#
# Columns (all over the measured window: stream start to stream end):
#   peak/mean unmapped   file LRU - Mapped from /proc/meminfo every 100 ms
#   hit ratio            pages of the hot set already resident before each
#                        read, over every pass of the window (mincore/cachestat)
#   mapped lost          pages of maphold's file found not resident at its
#                        100 ms checks: worst moment, and summed over checks
#   CPU s/GiB            control's utime+stime (upcd, or the drop_caches
#                        writer; plus kdamond threads for damon) per GiB it
#                        reports reclaiming
#   kswapd CPU s         the kernel's own reclaim in the window: what the
#                        control did not spare it (context, not the control's)
#   trigger->target      per episode: first sample above the trigger to the
#                        first sample at or below target + 10%; mean over the
#                        episodes that got there, and how many never did
set -eu
out=$1
target_kb=$2
trigger_kb=$3
shift 3

info() { awk -v k="$2" '$1 == k { print $2 }' "$out/$1.info"; }
kv() { awk -v k="$2" '$1 == k { v = $2 } END { print v }' "$1"; }

# peak_kb mean_kb episodes reached mean_ms, over the window of MODE's trace.
trace_figures() {
	local mode=$1 start end
	start=$(( $(info "$mode" start_ms) - $(info "$mode" sampler_start_ms) ))
	end=$(( $(info "$mode" end_ms) - $(info "$mode" sampler_start_ms) ))
	awk -F'\t' -v start="$start" -v end="$end" -v target="$target_kb" \
		-v trigger="$trigger_kb" '
	NR == 1 { next }
	$1 < start || $1 > end { next }
	{
		u = $3; n++; sum += u
		if (u > peak) peak = u
		if (!over && u > trigger) { over = 1; since = $1; episodes++ }
		if (over && u <= target * 1.1) { over = 0; reached++; total_ms += $1 - since }
	}
	END {
		printf "%d %d %d %d %d\n", peak, n ? sum / n : 0, episodes, reached,
		       reached ? total_ms / reached : -1
	}' "$out/$mode.tsv"
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

row() {
	local mode=$1 peak mean episodes reached mean_ms hit pages min_res lost
	local ticks reclaimed_kb cpu_per_gib ttt kswapd_s
	read -r peak mean episodes reached mean_ms < <(trace_figures "$mode")
	hit=$(kv "$out/$mode.hotset" hit_ratio)
	pages=$(kv "$out/$mode.maphold" pages)
	min_res=$(kv "$out/$mode.maphold" min_resident)
	lost=$(kv "$out/$mode.maphold" lost_total)
	ticks=$(( $(info "$mode" control_ticks) + $(info "$mode" kdamond_ticks) ))
	reclaimed_kb=$(info "$mode" dropped_kb)
	if [ -z "$reclaimed_kb" ]; then
		local rp
		rp=$(info "$mode" reclaimed_pages)
		reclaimed_kb=$(( ${rp:-0} * $(info "$mode" page_kb) ))
	fi
	if [ "$mode" = none ]; then
		cpu_per_gib="-"
	elif [ "$reclaimed_kb" -gt 0 ]; then
		cpu_per_gib=$(awk -v t="$ticks" -v hz="$(info "$mode" clk_tck)" -v kb="$reclaimed_kb" \
			'BEGIN { printf "%.2f", (t / hz) / (kb / 1048576) }')
	else
		cpu_per_gib="n/a (0 reclaimed)"
	fi
	if [ "$episodes" -eq 0 ]; then
		ttt="never above trigger"
	elif [ "$reached" -eq 0 ]; then
		ttt="never (0/$episodes)"
	else
		ttt="$mean_ms ms ($reached/$episodes)"
	fi
	kswapd_s=$(awk -v t="$(info "$mode" kswapd_ticks)" -v hz="$(info "$mode" clk_tck)" \
		'BEGIN { printf "%.2f", t / hz }')
	printf '| %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s |\n' \
		"$mode" "$(mib "$target_kb")" "$(mib "$peak")" "$(mib "$mean")" \
		"${hit:-?}" "$((pages - min_res))" "$lost" \
		"$(mib "$reclaimed_kb")" "$cpu_per_gib" "$kswapd_s" "$ttt"
}

echo "target $(mib "$target_kb") MiB, trigger $(mib "$trigger_kb") MiB"
echo
echo "| control | target MiB | peak unmapped MiB | mean unmapped MiB | hot-set hit ratio | mapped pages lost (worst / summed) | reclaimed MiB | control CPU s per GiB reclaimed | kswapd CPU s | trigger -> target |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for m in "$@"; do
	if [ -f "$out/$m.refused" ]; then
		echo "| $m | refused: $(grep -m1 -o 'unusable: .*' "$out/$m.control" | sed 's/)$//' | tr '|' '/' || echo "see $m.control") | | | | | | | | |"
	elif [ -s "$out/$m.tsv" ] && [ -s "$out/$m.info" ]; then
		row "$m"
	else
		echo "| $m | (no data: see $out/$m.control) | | | | | | | | |"
	fi
done
