#!/bin/sh
# muxbpf ab --metric instructions and muxbpf gate, as root, on the default target (with the
# hardware counter where the machine has one, else netmux under callgrind, ~40x slower: the
# scale is small):
#  - A/A (dispatch, 8 rounds): same, with an mdd under 1%, and the source named;
#  - a known slowdown: B preloads tests/shim/spin.c (a spin in every write(), once per command):
#    slower, and (callgrind) shim_spin first among the function deltas;
#  - the gate's round trip: save a baseline of dispatch and softcode_arith, which validates
#    against doc/gate.schema.json; check the same build (exit 0); check it with the shim
#    preloaded (exit 1, naming dispatch SLOWER and shim_spin); a broken baseline (exit 2, one
#    error line); nothing left running.
# Exit 77 = skipped (not root, no BTF, no valgrind and no hardware counter).
set -u
out=${1:-build}
muxbpf=$out/muxbpf
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.inc"
npm_dir=$out/npm
netmux=$out/tinymux/fp/mux2.12/src/netmux
shim=$(cd "$out/tests" && pwd)/shim_spin.so

[ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] || skip "needs root and BTF"
command -v valgrind >/dev/null 2>&1 || perf stat -e instructions true >/dev/null 2>&1 ||
	skip "no hardware instructions counter and no valgrind (make deps)"
e2e_init instructions
export TMPDIR=$work/tmp
[ -x "$netmux" ] || fail "no default target (make netmux)"
[ -f "$shim" ] || fail "no $shim (make tests-build)"
progs_before=$(mb_progs)
spin="--env-b LD_PRELOAD=$shim --env-b MUXBPF_SHIM_SPIN_US=20"
jget() { node -e "$1" "$2"; }

# --- ab: A/A ---------------------------------------------------------------------------------
t0=$(date +%s)
fail_files="$work/aa.txt $work/aa.err"
"$muxbpf" ab -q --metric instructions --phase dispatch --scale 0.02 --rounds 8 \
	--out "$work/aa" "$netmux" "$netmux" >"$work/aa.txt" 2>"$work/aa.err"
rc=$?
sed -n '/^  instructions per/p; /^phase /,/^$/p' "$work/aa.txt"
echo "A/A: exit $rc, $(($(date +%s) - t0)) s"
[ $rc -eq 0 ] || fail "A/A on instructions exited $rc, not 0 (same)"
grep -q "source: .*\(callgrind\|hardware\)" "$work/aa.txt" || fail "the source is not named"
# the dispatch row's mdd (the field ending in %) and the verdict after it
row() { # $1 = file: "MDD VERDICT" of dispatch
	awk '$1 == "dispatch" { for (i = 2; i < NF; i++) if ($i ~ /%$/) { print $i, $(i + 1); exit } }' "$1"
}
set -- $(row "$work/aa.txt")
[ "${2:-}" = same ] && awk -v m="${1%\%}" 'BEGIN { exit !(m + 0 < 1) }' ||
	fail "A/A: dispatch not same with an mdd under 1% (mdd ${1:-?}, ${2:-?})"
grep -q '"metric": "instructions"' "$work/aa/ab.json" || fail "ab.json has no metric"
if command -v node >/dev/null 2>&1 && [ -d "$npm_dir/node_modules/ajv" ]; then
	node "$here/validate.js" "$npm_dir/node_modules" doc/ab.schema.json "$work/aa/ab.json" ||
		fail "ab.json (instructions) does not validate against doc/ab.schema.json"
fi

# --- ab: a known slowdown --------------------------------------------------------------------
t0=$(date +%s)
fail_files="$work/spin.txt $work/spin.err"
# shellcheck disable=SC2086
"$muxbpf" ab -q --metric instructions --phase dispatch --scale 0.02 --rounds 8 $spin \
	"$netmux" "$netmux" >"$work/spin.txt" 2>"$work/spin.err"
rc=$?
sed -n '/^phase /,/^$/p' "$work/spin.txt"
echo "slowdown: exit $rc, $(($(date +%s) - t0)) s"
[ $rc -eq 1 ] || fail "the spinning B: exit $rc, not 1"
set -- $(row "$work/spin.txt")
[ "${2:-}" = slower ] || fail "the spinning B is not slower in dispatch (${2:-?})"
if grep -q "instructions per command (callgrind" "$work/spin.txt"; then
	first=$(awk '/^  functions, B - A/ { getline; getline; print; exit }' "$work/spin.txt")
	echo "first function delta: $first"
	case $first in *shim_spin*) ;; *) fail "shim_spin is not first in the deltas" ;; esac
fi

# --- the gate --------------------------------------------------------------------------------
t0=$(date +%s)
fail_files="$work/save.txt $work/save.err"
"$muxbpf" gate save "$work/base.json" --phase dispatch,softcode_arith --scale 0.02 --rounds 2 \
	"$netmux" >"$work/save.txt" 2>"$work/save.err"
rc=$?
cat "$work/save.txt"
echo "save: exit $rc, $(($(date +%s) - t0)) s"
[ $rc -eq 0 ] || fail "gate save exited $rc"
if command -v node >/dev/null 2>&1 && [ -d "$npm_dir/node_modules/ajv" ]; then
	node "$here/validate.js" "$npm_dir/node_modules" doc/gate.schema.json "$work/base.json" ||
		fail "the baseline does not validate against doc/gate.schema.json"
	echo "baseline validates against doc/gate.schema.json"
fi
grep -q '"name": "softcode_arith"' "$work/base.json" || fail "no softcode_arith in the baseline"

t0=$(date +%s)
fail_files="$work/same.txt $work/same.err"
"$muxbpf" gate check "$work/base.json" "$netmux" >"$work/same.txt" 2>"$work/same.err"
rc=$?
sed -n '/^phase /,$p' "$work/same.txt"
echo "check, the same build: exit $rc, $(($(date +%s) - t0)) s"
[ $rc -eq 0 ] || fail "gate check of the same build exited $rc, not 0"

t0=$(date +%s)
fail_files="$work/slow.txt $work/slow.err"
"$muxbpf" gate check "$work/base.json" --env "LD_PRELOAD=$shim" --env MUXBPF_SHIM_SPIN_US=20 \
	"$netmux" >"$work/slow.txt" 2>"$work/slow.err"
rc=$?
sed -n '/^phase /,$p' "$work/slow.txt"
echo "check, the spinning build: exit $rc, $(($(date +%s) - t0)) s"
[ $rc -eq 1 ] || fail "gate check of the spinning build exited $rc, not 1"
grep -q '^dispatch .* SLOWER$' "$work/slow.txt" || fail "dispatch is not named SLOWER"
if grep -q "functions, instructions per command" "$work/slow.txt"; then
	awk '/^== dispatch moved/ { getline; getline; print; exit }' "$work/slow.txt" |
		grep -q shim_spin || fail "shim_spin is not the first function that moved"
fi

fail_files="$work/bad.err"
echo '{"schema_version": 1, "tool": "muxbpf gate"}' >"$work/bad.json"
"$muxbpf" gate check "$work/bad.json" "$netmux" >/dev/null 2>"$work/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "a broken baseline: exit $rc, not 2"
[ "$(wc -l <"$work/bad.err")" -eq 1 ] || fail "a broken baseline: not one error line"
cat "$work/bad.err"

fail_files=
[ -z "$(procs_in "$work/tmp")" ] || fail "processes left in $work/tmp"
[ -z "$(ls "$work/tmp")" ] || fail "files left in $work/tmp: $(ls "$work/tmp")"
left=$(mb_leftovers "$progs_before")
[ -z "$left" ] || fail "BPF programs left: $left"
echo "PASS"
