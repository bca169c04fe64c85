#!/bin/sh
# The kernel matrix's verdict reads the guest's console (tests/kernels/verdict.inc), checked on
# fixture consoles in tests/kernels/fixtures/ without booting a guest (no root): each is given a
# guest result that passed (rc 0), and a crash, a lockdep splat or a WARNING from BPF during the
# suites must fail it, named in the verdict line; a WARNING outside BPF is named, not a failure;
# a clean console passes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../kernels/fixtures
. "$here/lib.inc"
. "$here/../kernels/verdict.inc"
e2e_init kernel_verdict
guest_timeout=1200

bad=0 n=0
# case_ FIXTURE STATUS PATTERN: the verdict on FIXTURE after a passing guest, whose status must
# be STATUS and whose lines must match the extended regular expression PATTERN
case_() {
	n=$((n + 1))
	res=$work/$1
	mkdir -p "$res"
	cp "$fixtures/$1" "$res/console.log"
	echo 0 >"$res/rc"
	echo "tests: 31 passed, 0 failed, 1 skipped; muxbpf --phase run exit 0" >"$res/summary"
	: >"$res/log"
	verdict 6.12 linux-image-test 100 0 "" "$res" "$res/line" "$res/status"
	why=
	[ "$(cat "$res/status")" = "$2" ] || why="status $(cat "$res/status"), expected $2"
	grep -Eq -- "$3" "$res/line" || why="${why:+$why; }the verdict does not match /$3/"
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		echo "not ok - $1: $why"
		sed 's/^/    | /' "$res/line"
	else
		echo "ok - $1: $(head -1 "$res/line")"
	fi
}

case_ clean.console ok '^kernel 6.12 \(linux-image-test\): tests: 31 passed.* in 100 s$'
case_ bug_during_suites.console fail \
	'FAILED in 100 s: .*reported crash: BUG: sleeping function called from invalid context'
case_ oops_during_run.console fail 'reported crash: Oops: general protection fault'
case_ bpf_warning.console fail \
	'reported bpf: WARNING: CPU: 1 PID: 540 at kernel/trace/bpf_trace.c:1234'
case_ lockdep.console fail 'reported lockdep: WARNING: possible circular locking dependency'
case_ other_warning.console ok '^    console: note: WARNING: CPU: 0 PID: 1 at drivers/char/tpm'
# the clean console's verdict has no console line at all
grep -q 'console:' "$work/clean.console/line" && { echo "not ok - a console line for a clean boot"; bad=$((bad + 1)); }
echo "kernel_verdict: $n fixtures, $bad failed"
[ "$bad" -eq 0 ]
