#!/bin/sh
# The kernel matrix as part of `make test`: Debian's 6.1 and 6.12 booted in QEMU, the BPF suites,
# a real run and nonroot.sh inside (tests/kernels/run.sh says how).  Exit 0, 1, or 77 where the
# guests cannot run here (no root, no qemu, no package archive); with MUXBPF_REQUIRE_BPF set
# run.sh turns that skip into a failure itself.  A guest's own tests/run.sh names its suites, so
# this script never runs inside a guest.
exec sh "$(dirname "$0")/../kernels/run.sh" "${1:-build}"
