#!/bin/sh
# Run every test program and print one closing line: "tests: N passed, N failed, N skipped".
#   tests/run.sh BUILD_DIR
# cmocka suites report in TAP; tests/e2e/*.sh scripts exit 0 (pass), 77 (skip) or other (fail).
# MUXBPF_ONLY="test_bpf_ledger nonroot ...": only these suites and scripts (the kernel matrix).
# MUXBPF_RUNNER=qemu-aarch64-static: a cross build's suites under user-mode emulation (make
# ARCH=arm64 test-emulated), with MUXBPF_TESTS=suites.  Emulation has no bpf() and runs the
# emulator's own threads beside the test's; the suites that need the target's kernel (BPF), or
# start the target's programs and read their maps or threads, are skipped there: they run in a
# guest of that architecture.
set -u
out=${1:-build}
pass=0 fail=0 skip=0
failed_names=

selected() { # $1 = suite or script name
	[ -z "${MUXBPF_ONLY:-}" ] && return 0
	for n in $MUXBPF_ONLY; do [ "$n" = "$1" ] && return 0; done
	return 1
}

count_tap() { # $1 = TAP text, $2 = suite name
	p=$(printf '%s\n' "$1" | grep -c '^ok .*' ) || true
	# cmocka marks a skipped test "not ok N # SKIP": a skip, not a failure
	s=$(printf '%s\n' "$1" | grep -c '^ok .*# SKIP') || true
	sn=$(printf '%s\n' "$1" | grep -c '^not ok .*# SKIP') || true
	f=$(printf '%s\n' "$1" | grep '^not ok' | grep -vc '# SKIP') || true
	pass=$((pass + p - s)) skip=$((skip + s + sn)) fail=$((fail + f))
	[ "$f" -gt 0 ] && failed_names="$failed_names $2"
}

# The include rules: folder order, one header per .c, no circle (no root, no build needed).
# MUXBPF_NO_SOURCE_CHECKS=1: not these two source checks (a guest of another architecture, whose
# busybox has no tsort: tests/kernels/guest.sh); they are the host's (make test).
if [ -n "${MUXBPF_NO_SOURCE_CHECKS:-}" ]; then
	echo "=== includes, skips: not run here (MUXBPF_NO_SOURCE_CHECKS; the host's make test runs them)"
else
echo "=== includes"
if scripts/check-includes.sh .; then
	pass=$((pass + 1)); echo "ok - includes"
else
	fail=$((fail + 1)) failed_names="$failed_names includes"; echo "not ok - includes"
fi

# Every skip goes through the helper that fails under MUXBPF_REQUIRE_BPF (no build needed).
echo "=== skips"
if scripts/check-skips.sh .; then
	pass=$((pass + 1)); echo "ok - skips"
else
	fail=$((fail + 1)) failed_names="$failed_names skips"; echo "not ok - skips"
fi
fi

# Every suite in tests/ runs: one whose binary is missing (it failed to build) is a failure.
for src in tests/test_*.c; do
	name=$(basename "$src" .c)
	t=$out/tests/$name
	selected "$name" || continue
	echo "=== $name"
	if [ -n "${MUXBPF_RUNNER:-}" ]; then
		case $name in
		test_bpf_* | test_symbolize | test_control)
			echo "ok - $name # SKIP needs a native kernel or process ($MUXBPF_RUNNER)"
			skip=$((skip + 1))
			continue ;;
		esac
	fi
	if [ ! -x "$t" ]; then
		echo "not ok - $name ($t not built)"
		fail=$((fail + 1)) failed_names="$failed_names $name"
		continue
	fi
	echo "=== $name"
	tap=$(CMOCKA_MESSAGE_OUTPUT=TAP ${MUXBPF_RUNNER:-} "$t" 2>&1)
	rc=$?
	printf '%s\n' "$tap"
	count_tap "$tap" "$name"
	if [ $rc -ne 0 ] && ! printf '%s\n' "$tap" | grep -q '^not ok'; then
		echo "$name: exited $rc without a failing test (crash?)"
		fail=$((fail + 1)) failed_names="$failed_names $name"
	fi
done

for t in tests/e2e/*.sh; do
	# MUXBPF_TESTS=suites: the cmocka suites only (make test-asan)
	[ "${MUXBPF_TESTS:-all}" = suites ] && break
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	selected "$name" || continue
	echo "=== $name"
	sh "$t" "$out"
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "ok - $name" ;;
	77) if [ -n "${MUXBPF_REQUIRE_BPF:-}" ]; then
		fail=$((fail + 1)) failed_names="$failed_names $name"
		echo "not ok - $name (skipped, but MUXBPF_REQUIRE_BPF is set)"
	    else
		skip=$((skip + 1)); echo "ok - $name # SKIP"
	    fi ;;
	*) fail=$((fail + 1)) failed_names="$failed_names $name"; echo "not ok - $name (exit $rc)" ;;
	esac
done

# A name in MUXBPF_ONLY that no suite or script has is a failure, not a silent skip: the guests
# ran three suites for a while after the BPF suites were renamed.
for n in ${MUXBPF_ONLY:-}; do
	[ -f "tests/$n.c" ] && continue
	[ -f "tests/e2e/$n.sh" ] && continue
	echo "not ok - $n (MUXBPF_ONLY names no such suite or script)"
	fail=$((fail + 1)) failed_names="$failed_names $n"
done

[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
