#!/bin/sh
# Is the server the bottleneck?  Per command phase: netmux's on-CPU time / the phase's wall
# time (goal >= 90%), and where the rest of the wall time went, from muxbpf's time ledger:
# off-CPU inside syscalls (blocked: waiting for input from the driver, or for the disk), the
# syscall that blocked longest, and preemption / runqueue wait (waiting for a CPU: the driver,
# muxbpf or another process had it).
#
#   bench/driver.sh BUILD_DIR [RUNS (default 3)] [EXTRA muxbpf OPTIONS...]
#
# RUNS bare runs (--no-profile: the driver alone) and RUNS profiled runs (for the ledger),
# alternating.  Nothing passes or fails on a number.  Needs root for the profiled runs.
set -u
out=${1:-build}
runs=${2:-3}
[ $# -ge 2 ] && shift 2 || shift $#
extra="$*"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
muxbpf=$out/muxbpf
phases=create,attrwrite,dump,attrread,dispatch,softcode_arith,softcode_list
tmp=$(mktemp -d /tmp/muxbpf-driver.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

machine_facts
for i in $(seq 1 "$runs"); do
	s0=$(steal_now)
	l0=$(load1)
	# shellcheck disable=SC2086
	"$muxbpf" --full --no-profile --phase $phases -q $extra >"$tmp/bare.$i" 2>&1
	echo "bare run $i: steal $(steal_pct "$s0" "$(steal_now)")%, load $l0" >>"$tmp/host"
	s0=$(steal_now)
	l0=$(load1)
	# shellcheck disable=SC2086
	"$muxbpf" --full --phase $phases -q $extra >"$tmp/prof.$i" 2>&1
	echo "profiled run $i: steal $(steal_pct "$s0" "$(steal_now)")%, load $l0" >>"$tmp/host"
done

echo
echo "netmux on-CPU / wall per phase (min / median / max over $runs runs)"
echo "\$ $muxbpf --no-profile --phase $phases -q $extra   and the same without --no-profile"
printf "  %-16s %-26s %-26s\n" phase "bare (--no-profile)" "profiled (default)"
for p in $(echo $phases | tr , ' '); do
	b=$(for i in $(seq 1 "$runs"); do
		awk -v p="$p" '/^phase +wall s/ {t=1; next} t && $1==p {printf "%.2f\n", 100*$5/($2*1000); exit}' "$tmp/bare.$i"
	done | mmm)
	f=$(for i in $(seq 1 "$runs"); do
		awk -v p="$p" '/^phase +wall s/ {t=1; next} t && $1==p {printf "%.2f\n", 100*$5/($2*1000); exit}' "$tmp/prof.$i"
	done | mmm)
	printf "  %-16s %-26s %-26s\n" "$p" "$(echo "$b" | awk '{printf "%s / %s / %s %%", $1, $2, $3}')" \
		"$(echo "$f" | awk '{printf "%s / %s / %s %%", $1, $2, $3}')"
done

echo
echo "where the wall time goes (profiled run 1, the time ledger; % of the phase's wall time)"
printf "  %-16s %8s %8s %10s %10s %9s  %s\n" phase "wall ms" on-CPU "blocked" "preempted" "runq" \
	"longest-blocking syscall (calls, wall ms, on-CPU ms)"
awk '
/^== / { ph = $2; sub(":", "", ph); inph = 1; best = ""; bestoff = -1; next }
inph && /ledger \(/ {
	for (i = 1; i <= NF; i++) {
		if ($i == "wall") w = $(i + 1)
		if ($i == "on-CPU" && $(i - 1) == "=") c = $(i + 1)
		if ($i == "syscalls" && $(i - 1) == "in" && $(i - 2) == "off-CPU") b = $(i + 1)
		if ($i == "mode" && $(i - 1) == "user") pr = $(i + 1)
	}
	next
}
inph && /^  runqueue wait/ { rq = $3; next }
inph && /^  syscall +calls/ { sys = 1; next }
inph && sys && /^  [a-z_0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$/ {
	off = $4 - $3
	if (off > bestoff) { bestoff = off; best = sprintf("%s (%d, %.2f, %.2f)", $1, $2, $4, $3) }
	next
}
inph && sys && !/^  [a-z_0-9]+ +[0-9]+/ {
	if (w > 0 && ph != "outside" && ph != "boot" && ph != "idle")
		printf "  %-16s %8.1f %7.1f%% %9.1f%% %9.1f%% %8.1f%%  %s\n", ph, w, 100*c/w, 100*b/w, 100*pr/w, 100*rq/w, best
	sys = 0; inph = 0
}
' "$tmp/prof.1"
echo
cat "$tmp/host"
