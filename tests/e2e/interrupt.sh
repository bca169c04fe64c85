#!/bin/sh
# Interruption, as root: SIGINT during boot, SIGINT inside the idle phase, SIGTERM inside a
# command phase, two SIGINTs in a row, and SIGKILL of muxbpf itself (the watchdog cleans up).
# Each: the conventional exit code (128 + signal), the report of what was measured with the
# interrupted phase marked PARTIAL, and nothing left behind: no process, no game directory, no
# BPF program of ours.  Exit 77 = skipped.
set -u
out=${1:-build}
out=$(cd "$out" && pwd)
muxbpf=$out/muxbpf
. "$(dirname "$0")/lib.inc"
need_root_bpf
e2e_init interrupt
export TMPDIR=$work/tmp
fail=0

# A netmux that takes 5 s to boot: a wrapper that sleeps before exec'ing the real one, next to
# its libmux.so, stubslave and slave (as netmux's directory must be).
real=$out/tinymux/fp/mux2.12/src
mkdir -p "$work/slowboot"
for f in libmux.so stubslave slave; do ln -s "$real/$f" "$work/slowboot/$f"; done
printf '#!/bin/sh\nsleep 5\nexec %s "$@"\n' "$real/netmux" >"$work/slowboot/netmux"
chmod 755 "$work/slowboot" "$work/slowboot/netmux"

bad() { echo "FAIL ($1): $2"; sed 's/^/    | /' "$work/out" "$work/err" | head -60; fail=1; }

# The wrapper's sleep runs in the game directory: boot has begun and cannot end for seconds.
# (Any process in the run's directory was not enough: set-up may run one there first, and a
# signal a fixed time after it could come after a fast boot.)
booting() {
	for p in $(procs_in "$work/tmp"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] && return 0
	done
	return 1
}

# start ARGS...: muxbpf in the background; $pid
start() {
	before=$(mb_progs)
	"$muxbpf" --full "$@" >"$work/out" 2>"$work/err" &
	pid=$!
}

# finish NAME SIG_RC: wait for muxbpf, check its code and that nothing is left
finish() {
	wait "$pid"
	rc=$?
	[ "$rc" -eq "$2" ] || bad "$1" "exit $rc, expected $2"
	check_clean "$1" "$before" || fail=1
}

# 1. SIGINT during boot: the boot window closes as PARTIAL, nothing else runs.
start --netmux "$work/slowboot/netmux" --phase all --scale 0.1 --idle-seconds 1
wait_until 30 booting || bad boot "netmux never started"
kill -INT "$pid"
finish "SIGINT during boot" 130
grep -Eq '^boot .*PARTIAL' "$work/out" || bad "SIGINT during boot" "no PARTIAL boot row"
grep -q 'interrupted by SIGINT during boot' "$work/err" || bad "SIGINT during boot" "no stop line"
grep -q '^create ' "$work/out" && bad "SIGINT during boot" "a phase ran after the interruption"
echo "ok - SIGINT during boot"

# 2. SIGINT inside idle: the phases before it are complete, idle is PARTIAL.
start --phase all --scale 0.1 --idle-seconds 60 --max-phase-seconds 0
wait_until 60 idle_started || bad idle "the idle phase never started"
sleep 0.5
kill -INT "$pid"
finish "SIGINT inside idle" 130
for p in boot create attrwrite dump attrread; do
	grep -Eq "^$p " "$work/out" || bad "SIGINT inside idle" "phase $p missing"
	grep -Eq "^$p .*(FAILED|PARTIAL)" "$work/out" && bad "SIGINT inside idle" "$p marked"
done
grep -Eq '^idle .*PARTIAL' "$work/out" || bad "SIGINT inside idle" "no PARTIAL idle row"
grep -q 'interrupted by SIGINT during idle' "$work/err" || bad "SIGINT inside idle" "no stop line"
grep -q '^== idle: .*PARTIAL' "$work/out" || bad "SIGINT inside idle" "idle's table not marked"
echo "ok - SIGINT inside idle"

# 3. SIGTERM inside a long command phase (dispatch at scale 20: 400,000 looks).
start --phase dispatch --scale 20
wait_until 60 connected || bad dispatch "no connection"
sleep 1.5
kill -TERM "$pid"
finish "SIGTERM inside dispatch" 143
grep -Eq '^dispatch .*PARTIAL' "$work/out" || bad "SIGTERM inside dispatch" "no PARTIAL row"
n=$(awk '$1 == "dispatch" {print $3; exit}' "$work/out")
[ "${n:-0}" -gt 0 ] && [ "${n:-0}" -lt 400000 ] ||
	bad "SIGTERM inside dispatch" "commands '$n' not between 0 and 400000"
echo "ok - SIGTERM inside dispatch ($n of 400000 commands)"

# 4. Two SIGINTs: the second exits at once, still without leftovers.
start --phase all --scale 0.1 --idle-seconds 60 --max-phase-seconds 0
wait_until 60 idle_started || bad twice "the idle phase never started"
kill -INT "$pid"
sleep 0.02
kill -INT "$pid"
finish "two SIGINTs" 130
grep -q 'second signal: exiting now' "$work/err" || bad "two SIGINTs" "no second-signal line"
echo "ok - two SIGINTs"

# 5. SIGKILL of muxbpf: nothing can run in it; the watchdog kills netmux's group and cleans up.
start --phase all --scale 0.1 --idle-seconds 60 --max-phase-seconds 0
wait_until 60 idle_started || bad sigkill "the idle phase never started"
kill -KILL "$pid"
finish "SIGKILL of muxbpf" 137
grep -q 'muxbpf-watchdog: muxbpf died' "$work/err" || bad "SIGKILL of muxbpf" "no watchdog line"
echo "ok - SIGKILL of muxbpf"

[ "$fail" -eq 0 ] && echo "interrupt: every signal left a report (or nothing) and nothing behind"
exit "$fail"
