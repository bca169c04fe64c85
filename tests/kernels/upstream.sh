#!/bin/sh
# Inside a kernel matrix guest (tests/kernels/guest.sh, as root): a short real muxbpf run on
# upstream TinyMUX 2.14 (make upstream on the host: netmux, engine.so and libmux.so, the game
# directory the build makes; the guest reads them over the host's / like the rest of the
# build), dispatch and softcode_arith at --scale 0.1, one round each.  Checks that it exits 0,
# names MUX 2.14, measures every asked phase with samples and no negative figure, that the
# phases' stacks reach the outermost frame in 95% of their walks (a few hundred, some in the
# children netmux forks, whose files the unwinder has not loaded: as tests/e2e/upstream.sh's
# short phases) and that engine.so's samples are named (95%).
#   tests/kernels/upstream.sh BUILD_DIR
# Exit 77 (lib.inc skip: a failure under MUXBPF_REQUIRE_BPF) when 2.14 is not built.
set -u
out=${1:-build}
muxbpf=$out/muxbpf
. "$(dirname "$0")/../e2e/lib.inc"
game=$out/upstream/src/mux/game
phases=dispatch,softcode_arith
need_root_bpf
[ -x "$game/bin/netmux" ] || skip "upstream TinyMUX is not built ($game/bin/netmux; make" \
	"upstream needs the tarball in ../shared/tinymux/)"
command -v node >/dev/null 2>&1 || fail "node not installed (make deps)"
e2e_init guest_upstream
export TMPDIR=$work/tmp
t0=$(date +%s)
"$muxbpf" --netmux "$game/bin/netmux" --game "$game" --phase $phases --scale 0.1 --freq 4999 \
	--max-phase-seconds 0 --out "$work/art" >"$work/out" 2>"$work/err"
rc=$?
cat "$work/out"
# its warnings too, kept in the guest's log whatever the verdict; and the guest's room, which
# a failure quotes beside them
sed 's/^/stderr: /' "$work/err"
{ df -k "$work"; free -m; } >"$work/room" 2>&1
fail_files="$work/err $work/room $work/out"
[ $rc -eq 0 ] || fail "muxbpf exited $rc on upstream's netmux"
grep -q '^  version  MUX 2\.14\.' "$work/out" || fail "the run names no MUX 2.14"
fail_files=
node "$e2e_dir/check_artifacts.js" asked "$work/art" $phases stacks=95 named=engine.so:95 ||
	fail "the asked phases"
echo "upstream 2.14 in the guest: $phases, $(($(date +%s) - t0)) s"
