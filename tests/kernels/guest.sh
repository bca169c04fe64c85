#!/bin/sh
# Inside a kernel matrix guest (tests/kernels/init, as root on the host's files): the BPF suites,
# a real muxbpf run on the default target and tests/e2e/nonroot.sh.  $repo, $out, $series and $only
# (a subset: MUXBPF_GUEST_ONLY of run.sh) come from /kresults/guest.conf; the log, a one-line
# summary and the exit code go to /kresults.
set -u
res=/kresults
cd "$repo" || exit 1
# MUXBPF_GUEST_TCG: the vCPU is emulated (run.sh: -accel tcg); tests whose truth a stalled vCPU
# breaks skip on it (tests/test_bpf_synth.c)
export MUXBPF_GUEST_TCG=1 MUXBPF_REQUIRE_BPF=1 TMPDIR=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
{
	echo "guest: $(uname -r); perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)," \
		"unprivileged_bpf_disabled $(cat /proc/sys/kernel/unprivileged_bpf_disabled)"
	# "run" in $only is the real run below, not a suite
	suites=${only:-"test_bpf_synth test_bpf_ledger test_bpf_unwind test_bpf_noloss
		       test_bpf_symbols nonroot"}
	suites=$(printf '%s\n' $suites | grep -vx run | tr '\n' ' ')
	if [ -n "$suites" ]; then
		MUXBPF_ONLY=$suites sh tests/run.sh "$out"
		echo "tests rc=$?"
	else
		echo "tests: no suite selected" && echo "tests rc=0"
	fi
	case " ${only:-run} " in
	*" run "*)
		echo "=== muxbpf --phase boot,create,attrwrite,softcode_arith --scale 0.1"
		(cd /tmp && "$out/muxbpf" --phase boot,create,attrwrite,softcode_arith --scale 0.1)
		echo "real run rc=$?" ;;
	*) echo "=== the real run: not selected" && echo "real run rc=0" ;;
	esac
} >"$res/log" 2>&1
tests=$(grep '^tests: ' "$res/log" | tail -1)
run_rc=$(sed -n 's/^real run rc=//p' "$res/log")
tests_rc=$(sed -n 's/^tests rc=//p' "$res/log")
rc=0
[ "$tests_rc" = 0 ] && [ "$run_rc" = 0 ] || rc=1
echo "$tests; muxbpf --phase run exit $run_rc" >"$res/summary"
echo "$rc" >"$res/rc"
echo "guest: ${tests:-no tests ran}; muxbpf --phase run exit $run_rc"
