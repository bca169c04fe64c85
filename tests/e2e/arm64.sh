#!/bin/sh
# arm64 in make test, from an x86-64 host: the cross build (make ARCH=arm64 deps all netmux, in
# build-arm64) and Debian's arm64 6.1 under qemu-system-aarch64 (TCG) running a reduced set that
# keeps the whole CI run under its budget: test_bpf_ledger (with the fentry/tracepoint hook the
# guest allows), test_bpf_unwind (CFI on x29/x30/sp, leaf functions, the x29 fallback) and one
# real muxbpf run on the cross-built netmux 2.12, whose stacks and names must pass the guest's
# bar (tests/kernels/guest.sh: complete).  Every suite, test_bpf_symbols and the run without
# frame pointers: make test-arm64.  On an arm64 host make test runs all of it natively: a pass
# with one line.  Exit 0, 1, or 77 (lib.inc skip: a failure under MUXBPF_REQUIRE_BPF).
set -u
. "$(dirname "$0")/lib.inc"
repo=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(uname -m)" != x86_64 ]; then
	echo "arm64: the host is $(uname -m): make test's own suites ran natively"
	exit 0
fi
[ "$(id -u)" = 0 ] || skip "needs root (make ARCH=arm64 deps installs packages; the guest)"
e2e_init arm64
fail_files="$work/log"
t0=$(date +%s)
# the packages: where the archive is unreachable this is a skip, as for the kernel matrix
make -C "$repo" --no-print-directory ARCH=arm64 deps >"$work/log" 2>&1 ||
	skip "make ARCH=arm64 deps failed (is the package archive reachable?): $(tail -1 "$work/log")"
make -C "$repo" --no-print-directory ARCH=arm64 all netmux >"$work/log" 2>&1 ||
	fail "make ARCH=arm64 all netmux"
t1=$(date +%s)
fail_files=
MUXBPF_GUEST_ONLY="test_bpf_ledger test_bpf_unwind run" sh "$repo/tests/kernels/run.sh" \
	"$repo/build-arm64" 6.1
rc=$?
echo "arm64: cross build $((t1 - t0)) s, guest $(($(date +%s) - t1)) s"
exit $rc
