#!/bin/sh
# The false-positive rate of muxbpf ab's verdicts: RUNS A/A runs of the default target against
# itself (two server processes of the same binary, nothing differs), and how often a phase was
# judged faster or slower.  Prints every run's table rows and, per phase and overall, the
# verdicts that were not "same", with the ratios' spread.
#
#   bench/ab_aa.sh BUILD_DIR [RUNS (default 10)] [EXTRA muxbpf ab OPTIONS...]
#
# Needs root.  It measures; it passes or fails on nothing.
set -u
out=${1:-build}
runs=${2:-10}
[ $# -ge 2 ] && shift 2 || shift $#
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
muxbpf=$out/muxbpf
netmux=$out/tinymux/fp/mux2.12/src/netmux
tmp=$(mktemp -d /tmp/muxbpf-ab-aa.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

machine_facts
echo "A/A: $runs runs of muxbpf ab $* $netmux $netmux"
for k in $(seq 1 "$runs"); do
	t0=$(date +%s)
	"$muxbpf" ab -q "$@" "$netmux" "$netmux" >"$tmp/run$k.txt" 2>"$tmp/run$k.err"
	rc=$?
	[ $rc -le 1 ] || { echo "run $k failed (exit $rc):"; cat "$tmp/run$k.err"; continue; }
	echo "run $k: $(($(date +%s) - t0)) s, load $(cut -d' ' -f1 /proc/loadavg)"
	sed -n '/^phase /,/^$/p' "$tmp/run$k.txt" | sed '/^$/d; s/^/  /'
done
cat "$tmp"/run*.txt | awk '
	/^phase / { on = 1; next }
	on && /^$/ { on = 0 }
	on && NF >= 10 {
		n[$1]++; all++
		if ($NF != "same") { bad[$1]++; wrong++ }
		r = $6 + 0; if (!($1 in lo) || r < lo[$1]) lo[$1] = r
		if (!($1 in hi) || r > hi[$1]) hi[$1] = r
	}
	END {
		printf "\nphase            verdicts  not same   B/A min..max\n"
		for (p in n) printf "%-15s %9d %9d   %.3f..%.3f\n", p, n[p], bad[p] + 0, lo[p], hi[p]
		printf "all             %9d %9d   false-positive rate %.1f%% per phase verdict\n",
			all, wrong + 0, all ? 100 * wrong / all : 0
	}'
