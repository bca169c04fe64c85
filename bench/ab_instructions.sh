#!/bin/sh
# muxbpf ab --metric instructions on this machine, three cases, each printed as muxbpf ab's
# verdict table and its first function rows, with the run's wall time:
#  - A/A: the default target against itself (every phase should be same, mdd under 1%);
#  - an injected slowdown: B preloads tests/shim/spin.c (SPIN_US of spinning in every write(),
#    once per command in dispatch and softcode_arith): slower there, shim_spin on top;
#  - a real code difference: the default target (-O2 -fno-omit-frame-pointer) against the
#    same source without frame pointers (make netmux-nofp).
# Also the measured cost: the wall of each run under callgrind, and of one native-time run
# of the same settings for comparison.
#
#   bench/ab_instructions.sh BUILD_DIR [SCALE (default 0.05)] [ROUNDS (default 8)] [PHASES]
#
# Needs root.  It measures; it passes or fails on nothing.  Holds /tmp/muxbpf-bpf.lock per run.
set -u
out=${1:-build}
scale=${2:-0.05}
rounds=${3:-8}
phases=${4:-all}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
muxbpf=$out/muxbpf
fp=$out/tinymux/fp/mux2.12/src/netmux
nofp=$out/tinymux/nofp/mux2.12/src/netmux
shim=$(cd "$out/tests" && pwd)/shim_spin.so
spin=${SPIN_US:-20}
tmp=$(mktemp -d /tmp/muxbpf-ab-ins.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

run() { # $1 = name, then muxbpf ab's arguments
	name=$1
	shift
	t0=$(date +%s)
	flock /tmp/muxbpf-bpf.lock "$muxbpf" ab -q --phase "$phases" --scale "$scale" \
		--rounds "$rounds" --top 3 "$@" >"$tmp/$name.txt" 2>"$tmp/$name.err"
	rc=$?
	echo "== $name: exit $rc, $(($(date +%s) - t0)) s, load $(cut -d' ' -f1 /proc/loadavg)"
	[ $rc -le 1 ] || { cat "$tmp/$name.err"; return; }
	sed -n '/^phase /,/^$/p' "$tmp/$name.txt" | sed '/^$/d; s/^/  /'
	awk '/^== /{ph=$2} /^ +self +total/{n=0; next} /^  functions/{f=1; next}
	     f && /^  syscalls/{f=0} f && n < 3 && /^ +[-+]/{print "  " ph " " $0; n++}' \
		"$tmp/$name.txt"
}

machine_facts
echo "muxbpf ab --metric instructions, --phase $phases --scale $scale --rounds $rounds"
run aa --metric instructions "$fp" "$fp"
run spin --metric instructions --env-b "LD_PRELOAD=$shim" --env-b "MUXBPF_SHIM_SPIN_US=$spin" \
	"$fp" "$fp"
[ -x "$nofp" ] && run fp_nofp --metric instructions "$fp" "$nofp"
run aa_time "$fp" "$fp"
