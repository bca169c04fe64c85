#!/bin/sh
# What muxbpf writes, unchanged (no root): every --out artifact of a fixture report
# (tests/helper_artifacts.c) and `muxbpf diff --out` with its printed text over two saved runs
# (tests/fixtures/reports/: report.json and the folded stacks of create, attrread, dispatch), checked
# against the sha256 sums in tests/expected/artifacts.sha256.  A change meant to leave the output
# alone passes as it is; one meant to change it rewrites the sums (MUXBPF_UPDATE_EXPECTED=1)
# in the same commit, which then shows which files changed.
#   tests/e2e/same_artifacts.sh [BUILD_DIR]
set -u
out=$(cd "${1:-build}" && pwd) || exit 1
repo=$(pwd)
expected=$repo/tests/expected/artifacts.sha256
fail() { echo "same_artifacts: $*" >&2; exit 1; }

[ -x "$out/muxbpf" ] && [ -x "$out/tests/helper_artifacts" ] ||
	fail "no $out/muxbpf or $out/tests/helper_artifacts (make first)"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work" "$work.sums"' EXIT
cd "$work" || exit 1

"$out/tests/helper_artifacts" fixture || fail "helper_artifacts failed"
for run in old new; do
	mkdir "$run" && tar -xzf "$repo/tests/fixtures/reports/$run.tar.gz" -C "$run" ||
		fail "tests/fixtures/reports/$run.tar.gz"
done
"$out/muxbpf" diff old new --out diff > diff.out 2>&1
echo "exit $?" >> diff.out
rm -r old new

find . -type f | LC_ALL=C sort | xargs sha256sum > "$work.sums"
trap 'rm -rf "$work" "$work.sums"' EXIT
if [ -n "${MUXBPF_UPDATE_EXPECTED:-}" ]; then
	cp "$work.sums" "$expected" && echo "same_artifacts: wrote $expected" && exit 0
	exit 1
fi
[ -f "$expected" ] || fail "no $expected"
if ! diff -u "$expected" "$work.sums"; then
	fail "the artifacts above differ from tests/expected/artifacts.sha256"
fi
echo "same_artifacts: $(wc -l < "$work.sums") files byte-identical to the expected ones"
