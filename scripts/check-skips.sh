#!/bin/sh
# Every skip goes through the one helper that fails under MUXBPF_REQUIRE_BPF: exits 1, naming
# the lines, when a cmocka suite calls cmocka's skip() itself (only tests/testutil.h may: its
# skip_because(), skip_unless_bpf(), need_netmux(), skip_in_tcg_guest()) or a shell test exits 77
# itself (only tests/e2e/lib.inc's skip() may).
#   scripts/check-skips.sh [REPO_DIR]
set -u
cd "${1:-.}" || exit 2
bad=$(grep -nE '(^|[^A-Za-z0-9_])skip[[:space:]]*\([[:space:]]*\)' tests/*.c tests/*.h |
	grep -v '^tests/testutil\.h:'
	grep -nE '(^|[^A-Za-z0-9_#])exit[[:space:]]+77' tests/e2e/*.sh tests/kernels/*.sh \
		tests/kernels/*.inc 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
if [ -n "$bad" ]; then
	echo "skips outside the helpers (tests/testutil.h skip_because(), tests/e2e/lib.inc skip()):"
	printf '%s\n' "$bad" | sed 's/^/  /'
	exit 1
fi
echo "every skip goes through tests/testutil.h or tests/e2e/lib.inc"
