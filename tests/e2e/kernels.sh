#!/bin/sh
# The kernel matrix as part of `make test`: Debian's 6.1 and 6.12 booted in QEMU, the BPF suites,
# a real run and nonroot.sh inside (tests/kernels/run.sh says how); then Debian 13's backported
# 6.17, past 6.15 where x64_sys_call cannot be traced, with the ledger's suite (the probe must
# pick the tracepoints by itself there) and a real run.  Exit 0, 1, or 77 where the guests cannot
# run here (no root, no qemu, no package archive); with MUXBPF_REQUIRE_BPF set run.sh turns that
# skip into a failure itself.  A guest's own tests/run.sh names its suites, so this script never
# runs inside a guest.
. "$(dirname "$0")/lib.inc" # skip()
run=$(dirname "$0")/../kernels/run.sh
sh "$run" "${1:-build}"
rc=$?
MUXBPF_GUEST_ONLY="test_bpf_ledger run" sh "$run" "${1:-build}" 6.17
rc2=$?
[ $rc -eq 1 ] || [ $rc2 -eq 1 ] && exit 1
# a series that could not run here (its line says which) makes the whole a skip
[ $rc -eq 77 ] || [ $rc2 -eq 77 ] && skip "a kernel series could not run here"
exit 0
