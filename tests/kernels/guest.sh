#!/bin/sh
# Inside a kernel matrix guest (tests/kernels/init, as root on the host's files): the BPF suites,
# a real muxbpf run on the default target, one on upstream 2.14 (tests/kernels/upstream.sh)
# and tests/e2e/nonroot.sh.  Where the kernel can trace
# x64_sys_call (Debian's 6.1 and 6.12) the suites run with the ledger's fentry hook forced, the
# real run must pick it by itself, and test_bpf_ledger runs once more with the tracepoints
# forced: the ledger's ground truth in both modes.  $repo, $out, $series, $only (a subset:
# MUXBPF_GUEST_ONLY of run.sh) and $require (the host's MUXBPF_REQUIRE_BPF, for the 2.14 run's
# skip) come from /kresults/guest.conf; the log, a one-line
# summary and the exit code go to /kresults.
set -u
res=/kresults
cd "$repo" || exit 1
# MUXBPF_GUEST_TCG: the vCPU is emulated (run.sh: -accel tcg); tests whose truth a stalled vCPU
# breaks skip on it (tests/test_bpf_synth.c)
export MUXBPF_GUEST_TCG=1 MUXBPF_REQUIRE_BPF=1 TMPDIR=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# a guest of another architecture (arm64 on an x86-64 host): busybox's applets are its tools
# (tests/kernels/init).  Its netmux is the cross build's (make ARCH=arm64 netmux): where that is
# not built, the suites and the run that start one skip, named once in the log.  nonroot skips
# there always: it needs setcap, setpriv and useradd, which busybox has not, and the host's are
# x86-64 (Debian's libcap2-bin and passwd are not co-installable :arm64).  The 2.14 run is
# native only (make upstream has no cross build).
arch=${arch:-x86} foreign=${foreign:-}
[ -n "$foreign" ] && PATH=/opt/muxbpf-busybox:$PATH && export MUXBPF_NO_SOURCE_CHECKS=1
# and its binutils' addr2line and nm (run.sh unpacks them), which test_bpf_symbols runs
if [ -n "$foreign" ]; then
	for t in "$out"/kernels/binutils/usr/bin/*-addr2line; do
		[ -x "$t" ] || continue
		mkdir -p /opt/muxbpf-binutils
		ln -sf "$t" /opt/muxbpf-binutils/addr2line
		ln -sf "${t%addr2line}nm" /opt/muxbpf-binutils/nm
		PATH=/opt/muxbpf-binutils:$PATH
	done
fi
no_netmux=
[ -n "$foreign" ] && [ ! -x "$out/tinymux/fp/mux2.12/src/netmux" ] &&
	no_netmux="skipped: no $arch netmux build here (make ARCH=$arch netmux builds it)"
# figures DIR: a real run's per-phase samples, stacks and leaf symbols (DIR/report.txt)
figures() {
	echo "--- $1/report.txt: phases, stacks, symbols"
	grep -E '^== |^  stacks: |^    truncated|^symbols |^  [^ ]+ +[0-9.]+%  ' "$1/report.txt"
}
# complete DIR [NAMED]: the foreign guest's bar for a real run (the host's runs check theirs
# with node, which a busybox guest has not): stacks reach the outermost frame in >= 99% of the
# walks of every phase with 100 user samples or more, and >= 99% of the leaf samples in netmux
# and libc are named (NAMED=libc: libc's only, for a stripped netmux without debuginfo).  One
# line per miss; non-zero when any.
complete() {
	awk -v min=99 -v named="${2:-netmux libc.so.6}" '
	/^== / { ph = $2; sub(":", "", ph); n = $3 + 0; next }
	/^  stacks: / && n >= 100 {
		v = $2; sub("%", "", v)
		if (v + 0 < min) { print "  stacks of " ph ": " v "% complete (< " min "%)"; bad = 1 }
	}
	/^  (netmux|libc\.so\.6) +[0-9.]+%  named/ && index(" " named " ", " " $1 " ") {
		v = $4; sub("%,", "", v); seen[$1] = 1
		if (v + 0 < min) { print "  " $1 ": " v "% of its samples named (< " min "%)"; bad = 1 }
	}
	END {
		n = split(named, want, " ")
		for (i = 1; i <= n; i++)
			if (!seen[want[i]]) { print "  no symbols line for " want[i]; bad = 1 }
		exit bad
	}' "$1/report.txt"
}
# other_run NAME NETMUX WHAT [NAMED]: the real run's phases on another netmux, into /tmp/run-NAME,
# held to complete's bar (NAMED as there).  Non-zero when it fails or falls short.
other_run() {
	echo "=== muxbpf --netmux $2 ($3), the same phases"
	(cd /tmp && "$out/muxbpf" --netmux "$2" --scale 0.1 --out "/tmp/run-$1" \
		--phase boot,create,attrwrite,softcode_arith) >"/tmp/run-$1.out" 2>&1
	r=$?
	[ $r -eq 0 ] || { cat "/tmp/run-$1.out"; return $r; }
	figures "/tmp/run-$1"
	complete "/tmp/run-$1" ${4:+"$4"} && return 0
	echo "the run on $2 ($3): stacks or names fall short"
	return 1
}
no_tools="skipped: setcap, setpriv and useradd are not in a $arch guest's busybox"
no_upstream="skipped: no $arch 2.14 build (make upstream builds the host's only)"
{
	echo "guest: $(uname -r); perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)," \
		"unprivileged_bpf_disabled $(cat /proc/sys/kernel/unprivileged_bpf_disabled)"
	# "run" and "upstream" in $only are the real runs below, not suites; "none" alone selects
	# nothing
	suites=${only:-"test_bpf_synth test_bpf_ledger test_bpf_unwind test_bpf_noloss
		       test_bpf_symbols nonroot"}
	suites=$(printf '%s\n' $suites | grep -vxE "run|upstream|none" | tr '\n' ' ')
	# test_bpf_symbols and nonroot start netmux
	if [ -n "$foreign" ]; then
		case " $suites " in *" nonroot "*) echo "=== nonroot: $no_tools" ;; esac
		skip="nonroot"
		if [ -n "$no_netmux" ]; then
			case " $suites " in
			*" test_bpf_symbols "*) echo "=== test_bpf_symbols: $no_netmux" ;;
			esac
			skip="nonroot|test_bpf_symbols"
		fi
		suites=$(printf '%s\n' $suites | grep -vxE "$skip" | tr '\n' ' ')
	fi
	# the ledger's syscall hook: Debian's x86 6.1 and 6.12 trace x64_sys_call (measured,
	# ../shared/notes/kernels.md), so there the suites run with fentry forced (a failed probe
	# fails them); on 6.17 (past 6.15: x64_sys_call cannot be traced) the probe must pick the
	# tracepoints by itself (picks: test_hook_chosen checks it); other series and arm64 (no
	# x64_sys_call) with whatever the probe picks
	picks=
	case $arch:$series in
	x86:6.1 | x86:6.12) hook=fentry ;;
	x86:6.17) hook=auto picks=tracepoint ;;
	*) hook=auto ;;
	esac
	echo "syscall hook: $hook"
	if [ -n "$suites" ]; then
		MUXBPF_SYSCALL_HOOK=$hook MUXBPF_SYSCALL_HOOK_PICKS=$picks MUXBPF_ONLY=$suites \
			sh tests/run.sh "$out"
		echo "tests rc=$?"
	else
		echo "tests: no suite selected" && echo "tests rc=0"
	fi
	case " $suites " in
	*" test_bpf_ledger "*)
		echo "=== test_bpf_ledger with the tracepoints forced"
		MUXBPF_SYSCALL_HOOK=tracepoint MUXBPF_ONLY=test_bpf_ledger sh tests/run.sh "$out" \
			>/tmp/tp.log 2>&1
		rc=$?
		sed 's/^tests: /tracepoint tests: /' /tmp/tp.log
		echo "tracepoint tests rc=$rc" ;;
	*) echo "tracepoint tests rc=0" ;;
	esac
	case " ${only:-run} " in
	*" run "*) if [ -n "$no_netmux" ]; then
		echo "=== the real run: $no_netmux" && echo "real run rc=0"
	else
		echo "=== muxbpf --phase boot,create,attrwrite,softcode_arith --scale 0.1"
		(cd /tmp && "$out/muxbpf" --phase boot,create,attrwrite,softcode_arith --scale 0.1 \
			--out /tmp/run) >/tmp/run.out
		rc=$?
		cat /tmp/run.out
		figures /tmp/run
		if [ -n "$foreign" ] && [ $rc -eq 0 ] && ! complete /tmp/run; then
			echo "the real run's stacks or names fall short"
			rc=1
		fi
		# a foreign guest runs the frame-pointer-less build too, where it is built (make
		# ARCH=arm64 netmux-nofp): its stacks by CFI alone
		nofp=$out/tinymux/nofp/mux2.12/src/netmux
		if [ -n "$foreign" ] && [ -x "$nofp" ]; then
			other_run nofp "$nofp" "no frame pointers" || rc=1
		fi
		# and Debian's own stripped netmux of the guest's architecture (run.sh fetches it):
		# every stack by CFI alone, netmux's frames by DSO+offset, libc's named
		deb=$out/kernels/tinymux/usr/lib/tinymux/game/bin/netmux
		if [ -n "$foreign" ] && [ -x "$deb" ]; then
			other_run deb "$deb" "Debian's, stripped" libc.so.6 || rc=1
		elif [ -n "$foreign" ]; then
			echo "=== Debian's $arch tinymux: not fetched (apt-get download tinymux:$arch)"
		fi
		# auto picks fentry by itself wherever the suites ran with it forced
		if [ "$hook" = fentry ] && ! grep -q '^  syscall hook: fentry/fexit' /tmp/run.out; then
			echo "the real run did not pick the fentry hook"
			rc=1
		fi
		echo "real run rc=$rc"
	fi ;;
	*) echo "=== the real run: not selected" && echo "real run rc=0" ;;
	esac
	# the same on upstream 2.14 (make upstream), under the host's MUXBPF_REQUIRE_BPF: where it is
	# not built it skips with one line, or fails when the host asked for no skip
	case " ${only:-upstream} " in
	*" upstream "*) if [ -n "$foreign" ]; then
		echo "=== upstream 2.14: $no_upstream" && echo "2.14 run: skipped" &&
			echo "2.14 run rc=0"
	else
		echo "=== upstream 2.14: tests/kernels/upstream.sh"
		MUXBPF_REQUIRE_BPF=$require sh tests/kernels/upstream.sh "$out"
		rc=$?
		[ $rc -eq 77 ] && echo "2.14 run: skipped" && rc=0
		echo "2.14 run rc=$rc"
	fi ;;
	*) echo "=== the 2.14 run: not selected" && echo "2.14 run rc=0" ;;
	esac
	# MUXBPF_GUEST_BENCH of run.sh: a benchmark, its output for the log only
	if [ -n "${bench:-}" ]; then
		echo "=== bench: $bench"
		$bench
		echo "bench rc=$?"
	fi
} >"$res/log" 2>&1
tests=$(grep '^tests: ' "$res/log" | tail -1)
tp=$(grep '^tracepoint tests: ' "$res/log" | tail -1)
run_rc=$(sed -n 's/^real run rc=//p' "$res/log")
up_rc=$(sed -n 's/^2\.14 run rc=//p' "$res/log")
up=$(grep -q '^2\.14 run: skipped' "$res/log" && echo skipped || echo "exit $up_rc")
grep -q '^=== the 2\.14 run: not selected' "$res/log" && up="not selected"
tests_rc=$(sed -n 's/^tests rc=//p' "$res/log")
tp_rc=$(sed -n 's/^tracepoint tests rc=//p' "$res/log")
rc=0
[ "$tests_rc" = 0 ] && [ "$tp_rc" = 0 ] && [ "$run_rc" = 0 ] && [ "$up_rc" = 0 ] || rc=1
tests="$tests (syscall hook: $(sed -n 's/^syscall hook: //p' "$res/log"))${tp:+; $tp}"
runs="muxbpf --phase run exit $run_rc; 2.14 run $up"
grep -q '^=== the real run: skipped' "$res/log" && runs="real runs $no_netmux"
echo "$tests; $runs" >"$res/summary"
echo "$rc" >"$res/rc"
echo "guest: ${tests:-no tests ran}; $runs"
