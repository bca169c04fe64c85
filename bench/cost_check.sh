#!/bin/sh
# The cost line with the statistics off against the statistics' own figure, side by side in one
# muxbpf run per round: muxbpf --bpf-stats keeps the run-time statistics on all through, and each
# phase's cost line gives both the statistics' BPF time and the estimate from the programs' own
# run counts (src/model/cost.c, cost_estimate(), with the ns per run of the calibration window at
# the start).  Prints per round and phase the two figures and estimate / statistics.
#
#   bench/cost_check.sh BUILD_DIR [ROUNDS (3)] [SCALE (0.3)] [PHASES (dispatch,softcode_arith,attrread)]
#
# The goal (issue 18): within 20 % in every phase.  Needs root.  Nothing passes or fails here.
set -u
out=${1:-build}
rounds=${2:-3}
scale=${3:-0.3}
phases=${4:-dispatch,softcode_arith,attrread}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
tmp=$(mktemp -d /tmp/muxbpf-costcheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
machine_facts
echo "muxbpf --bpf-stats --phase $phases --scale $scale, $rounds rounds"
printf '%-6s %-16s %12s %12s %9s\n' round phase "stats ms" "estimate ms" "est/stats"
r=1
while [ "$r" -le "$rounds" ]; do
	if ! "$out/muxbpf" --full --bpf-stats --phase "$phases" --scale "$scale" >"$tmp/report.txt" \
		2>"$tmp/err"; then
		echo "round $r: muxbpf failed: $(tail -1 "$tmp/err")"
		exit 1
	fi
	# "== PHASE: ..." opens a phase's section; its profiler cost line ends it
	awk -v r="$r" '
		/^== / {ph = $2; sub(":", "", ph)}
		/^  profiler cost: BPF/ && /estimated from the run counts/ {
			s = $4
			e = $0; sub(/.*estimated from the run counts: /, "", e); sub(/ ms.*/, "", e)
			printf "%-6s %-16s %12.3f %12.3f %8.3fx\n", r, ph, s, e, (s > 0 ? e / s : 0)
		}' "$tmp/report.txt" | tee -a "$tmp/all"
	r=$((r + 1))
done
echo "est/stats over every round and phase (min median max spread%):"
awk '{sub("x", "", $5); print $5}' "$tmp/all" | mmm
