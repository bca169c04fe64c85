#!/bin/sh
# The sampler's cost per sample, two muxbpf builds side by side on one netmux.  A netmux driven
# without a profiler (muxbpf --no-profile, one command phase) gets two `muxbpf attach` processes,
# build A's and build B's, each with its own sampler at 997 Hz; every WIN_S seconds the kernel's
# run-time statistics give each mb_sample's ns per run over that window.  Both samplers run in the
# same milliseconds, so what the host does to one it does to the other: B/A per window is paired
# at millisecond scale (two runs of one build minutes apart differ by 20-60% on these VMs).
# The attach order moves the ratio by a few percent (A/A runs: 0.90-1.01 in one order), so the
# pair runs twice, B attached second and then first, and the order-balanced ratio is the
# geometric mean of the two orders' medians; an A/A run shows what the method resolves.  This is
# a long-running profiler's regime: warm maps and rule caches after the first seconds (ignored:
# the windows start 4 s after both attached); bench/sampler_stages.sh measures fresh profilers.
#   bench/sampler_pair.sh A [B (default A: an A/A run, the method's own resolution)]
#                         [WINDOWS (8)] [WIN_S (3)] [PHASE (dispatch)]
# A and B: muxbpf binaries, or build directories holding one (bench/run.sh passes build: A/A).
# NETMUX: the target (default: the default target of A's build directory or of the repo's build/,
# make netmux).  Root.  It measures; it passes or fails on nothing.
set -u
A=${1:?usage: bench/sampler_pair.sh A [B [WINDOWS [WIN_S [PHASE]]]]}
B=${2:-$A}
[ -d "$A" ] && A=$A/muxbpf
[ -d "$B" ] && B=$B/muxbpf
windows=${3:-8}
win_s=${4:-3}
phase=${5:-dispatch}
. "$(dirname "$0")/common.inc"
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 0; }
for f in "$A" "$B"; do
	[ -x "$f" ] || { echo "sampler_pair: $f is not an executable muxbpf"; exit 1; }
done
netmux=${NETMUX:-$(ls "$(dirname "$A")"/tinymux/fp/mux*/src/netmux \
	"$(dirname "$0")"/../build/tinymux/fp/mux*/src/netmux 2>/dev/null | head -1)}
[ -x "$netmux" ] || { echo "sampler_pair: no netmux (make netmux, or NETMUX=PATH)"; exit 1; }
tmp=$(mktemp -d /tmp/muxbpf-pair.XXXXXX)
stats0=$(cat /proc/sys/kernel/bpf_stats_enabled)
pids=
cleanup() {
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill -INT $pids 2>/dev/null && wait 2>/dev/null
	echo "$stats0" >/proc/sys/kernel/bpf_stats_enabled
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo 1 >/proc/sys/kernel/bpf_stats_enabled

# "id run_cnt run_time_ns" of every loaded mb_sample, in load order
snap() {
	bpftool prog show name mb_sample 2>/dev/null | awk '/ name mb_sample / {
		id = $1; sub(":", "", id); c = t = 0
		for (i = 1; i < NF; i++) { if ($i == "run_cnt") c = $(i + 1); if ($i == "run_time_ns") t = $(i + 1) }
		print id, c, t }' | sort -n
}

# one_order FIRST SECOND: per window, SECOND's ns per run over FIRST's, one line each
one_order() {
	# long enough for every window on a machine a few times faster than this one (~0.08 s of
	# dispatch per unit here); a window where the phase had ended has no samples and is left out
	scale=$(((windows * win_s + 20) * 15))
	[ "$scale" -gt 1000 ] && scale=1000
	"$A" --no-profile -q --netmux "$netmux" --phase "$phase" --scale "$scale" \
		>"$tmp/driver.out" 2>&1 &
	drv=$!
	pids=$drv
	mux=
	while [ -z "$mux" ] && kill -0 "$drv" 2>/dev/null; do
		sleep 0.2
		mux=$(pgrep -P "$drv" -x netmux | head -1)
	done
	[ -n "$mux" ] || { echo "sampler_pair: the driver started no netmux:"; cat "$tmp/driver.out"; exit 1; }
	sleep 2
	"$1" attach --pid "$mux" -q >"$tmp/first.out" 2>&1 &
	pids="$pids $!"
	sleep 1
	"$2" attach --pid "$mux" -q >"$tmp/second.out" 2>&1 &
	pids="$pids $!"
	sleep 4
	snap >"$tmp/s0"
	[ "$(wc -l <"$tmp/s0")" = 2 ] || { echo "sampler_pair: not two samplers attached:"; cat "$tmp"/*.out; exit 1; }
	for w in $(seq 1 "$windows"); do
		sleep "$win_s"
		snap >"$tmp/s$w"
		paste "$tmp/s$((w - 1))" "$tmp/s$w" | awk '
			{ n[NR] = $5 - $2; ns[NR] = n[NR] ? ($6 - $3) / n[NR] : 0 }
			END { if (NR == 2 && n[1] > 0 && n[2] > 0) printf "%.0f %.0f %d %d\n", ns[1], ns[2], n[1], n[2] }' >>"$tmp/w"
	done
	# shellcheck disable=SC2086
	kill -INT $pids 2>/dev/null
	wait 2>/dev/null
	pids=
}

echo "# mb_sample ns per run, A=$A B=$B: $windows windows of $win_s s, phase $phase, 997 Hz, attach"
machine_facts
: >"$tmp/w"
one_order "$A" "$B"
mv "$tmp/w" "$tmp/w.Bsecond"
: >"$tmp/w"
one_order "$B" "$A"
mv "$tmp/w" "$tmp/w.Bfirst"
echo "# load at the end $(load1)"
[ -s "$tmp/w.Bsecond" ] && [ -s "$tmp/w.Bfirst" ] || { echo "sampler_pair: no window had samples of both"; exit 1; }
echo "order     window: A ns  B ns  (A runs, B runs)  B/A"
awk '{ printf "B second  %6d: %5d %5d  (%d, %d)  %.3f\n", NR, $1, $2, $3, $4, $2 / $1 }' "$tmp/w.Bsecond"
awk '{ printf "B first   %6d: %5d %5d  (%d, %d)  %.3f\n", NR, $2, $1, $4, $3, $1 / $2 }' "$tmp/w.Bfirst"
m2=$(awk '{ print $2 / $1 }' "$tmp/w.Bsecond" | median)
m1=$(awk '{ print $1 / $2 }' "$tmp/w.Bfirst" | median)
a=$( (awk '{ print $1 }' "$tmp/w.Bsecond"; awk '{ print $2 }' "$tmp/w.Bfirst") | median)
b=$( (awk '{ print $2 }' "$tmp/w.Bsecond"; awk '{ print $1 }' "$tmp/w.Bfirst") | median)
echo "median ns per run: A $a, B $b (every window of both orders)"
echo "B/A median: B attached second $m2, B attached first $m1;" \
	"order-balanced $(echo "$m1 $m2" | awk '{ printf "%.3f", sqrt($1 * $2) }')"
