#!/bin/sh
# Target failure, as root: netmux killed with SIGKILL in the middle of a phase (idle, then a
# command phase).  muxbpf must notice at once (pidfd in the driver's loop), report the phases
# measured so far plus the one it died in, named with the signal, exit 1, and leave nothing:
# stubslave and slave killed with it, no game directory, no BPF program.  Exit 77 = skipped.
set -u
out=${1:-build}
out=$(cd "$out" && pwd)
muxbpf=$out/muxbpf
. "$(dirname "$0")/lib.inc"
need_root_bpf
e2e_init death
export TMPDIR=$work/tmp
fail=0
bad() { echo "FAIL ($1): $2"; sed 's/^/    | /' "$work/out" "$work/err" | head -40; fail=1; }


# kill_in NAME PHASE WAIT_FN DELAY ARGS...
kill_in() {
	name=$1 phase=$2 ready=$3 delay=$4
	shift 4
	before=$(mb_progs)
	"$muxbpf" --full "$@" >"$work/out" 2>"$work/err" &
	pid=$!
	wait_until 60 "$ready" || bad "$name" "$phase never started"
	sleep "$delay"
	victim=$(netmux_pid_in "$work/tmp")
	t0=$(date +%s.%N)
	kill -KILL "$victim"
	wait "$pid"
	rc=$?
	t1=$(date +%s.%N)
	[ "$rc" -eq 1 ] || bad "$name" "exit $rc, expected 1"
	grep -Eq "^$phase .*FAILED" "$work/out" || bad "$name" "no FAILED $phase row"
	grep -q "run stopped early: netmux (pid $victim) was killed by SIGKILL during $phase" \
		"$work/out" || bad "$name" "the report does not name the death"
	grep -q "phase $phase failed: netmux was killed by SIGKILL" "$work/err" ||
		bad "$name" "no error line naming the death"
	check_clean "$name" "$before" || fail=1
	echo "ok - $name (muxbpf done $(awk "BEGIN {print $t1 - $t0}") s after the kill)"
}

kill_in "SIGKILL netmux inside idle" idle idle_started 0.5 \
	--phase all --scale 0.1 --idle-seconds 60 --max-phase-seconds 0
for p in boot create attrwrite dump attrread; do
	grep -Eq "^$p " "$work/out" || bad "inside idle" "phase $p missing"
done
grep -q '^== attrread: ' "$work/out" || bad "inside idle" "attrread's table missing"
kill_in "SIGKILL netmux inside dispatch" dispatch connected 1.5 --phase dispatch --scale 20

[ "$fail" -eq 0 ] && echo "target_death: deaths named, data kept, nothing left behind"
exit "$fail"
