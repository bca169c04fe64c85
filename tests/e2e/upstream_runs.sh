#!/bin/sh
# --runs and diff on upstream TinyMUX 2.14 (make upstream: its engine in engine.so, dlopened at
# start), as root: two runs of --runs 2 on 2.14 and one on Debian's 2.12 (the default target),
# dispatch and softcode_arith at --scale 0.1.  Checks that each run exits 0 with every asked
# phase measured and sampled in every run, no negative figure, stacks complete in 95% of the
# walks (some in the children netmux forks, whose files the unwinder has not loaded) and
# engine.so's and libmux.so's samples named; that the spread and rounds tables have a row for
# each phase and agree with report.json (lib.inc check_runs); that diff of the two 2.14 runs,
# and of 2.12 against 2.14, gives finite figures and intervals, each function once, and names
# functions only engine.so defines (2.14/2.14) or only 2.14's objects define (2.12 against 2.14;
# by nm), with each side's version in its header; and that a
# 2.14 run diffed against itself shows no change.  Exit 77 = skipped (not root, no BTF, no 2.14
# build).
set -u
out=${1:-build}
muxbpf=$out/muxbpf
. "$(dirname "$0")/lib.inc"
game=$out/upstream/src/mux/game
netmux_a=$out/tinymux/fp/mux2.12/src/netmux
phases="dispatch softcode_arith"
need_root_bpf
[ -x "$game/bin/netmux" ] || skip "upstream TinyMUX is not built ($game/bin/netmux; make" \
	"upstream needs the tarball in ../shared/tinymux/)"
e2e_init upstream_runs
export TMPDIR=$work/tmp
command -v node >/dev/null 2>&1 || fail "node not installed (make deps)"
command -v nm >/dev/null 2>&1 || fail "nm not installed (make deps)"
[ -x "$netmux_a" ] || fail "no default target (make netmux)"
need_ajv "$out/npm"
progs_before=$(mb_progs)
t0=$(date +%s)

# runs NAME [--netmux N --game G]: --runs 2 of the asked phases into $work/NAME, its terminal
# text in $work/NAME.out; the checks of every --runs report
runs() {
	name=$1
	shift
	fail_files="$work/$name.out $work/$name.err"
	"$muxbpf" "$@" --phase "$(echo $phases | tr ' ' ,)" --scale 0.1 --freq 4999 --runs 2 \
		--max-phase-seconds 0 --out "$work/$name" -q >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	[ $rc -eq 0 ] || fail "--runs 2 ($name) exited $rc"
	node "$e2e_dir/validate.js" "$out/npm/node_modules" doc/report.schema.json \
		"$work/$name/report.json" || fail "$name: report.json does not validate"
	check_runs "$work/$name.out" "$work/$name" 2 "$phases"
}
runs up1 --netmux "$game/bin/netmux" --game "$game"
runs up2 --netmux "$game/bin/netmux" --game "$game"
runs deb --netmux "$netmux_a"
grep -q '^  version  MUX 2\.14\.' "$work/up1.out" || fail "the 2.14 run names no MUX 2.14"
grep -q '^  version  MUX 2\.12\.' "$work/deb.out" || fail "the 2.12 run names no MUX 2.12"
# (named: 95% of the object's samples, a few hundred here: one unnamed sample is 0.4-1%)
fail_files=
for r in up1 up2; do
	node "$e2e_dir/check_artifacts.js" asked "$work/$r" "$(echo $phases | tr ' ' ,)" stacks=95 \
		named=engine.so:95 named=libmux.so:95 || fail "$r: the asked phases"
done
node "$e2e_dir/check_artifacts.js" asked "$work/deb" "$(echo $phases | tr ' ' ,)" stacks=95 \
	named=netmux:95 || fail "deb: the asked phases"
echo "3 runs of --runs 2: $(($(date +%s) - t0)) s"

# Functions only engine.so defines (not netmux nor libmux.so), in either build.
defined "$game/bin/engine.so" >"$work/fns.engine.all"
defined "$game/bin/netmux" "$game/bin/libmux.so" "$netmux_a" >"$work/fns.other"
comm -23 "$work/fns.engine.all" "$work/fns.other" >"$work/fns.engine"
[ -s "$work/fns.engine" ] || fail "nm read no function of engine.so"
# Functions 2.14's objects define and 2.12's netmux does not (the engine's new code, ganl's
# network engine, SQLite): 2.12 against 2.14 moves them from nothing to their share.
defined "$game/bin/engine.so" "$game/bin/netmux" "$game/bin/libmux.so" >"$work/fns.b.all"
defined "$netmux_a" >"$work/fns.a"
comm -23 "$work/fns.b.all" "$work/fns.a" >"$work/fns.new"
[ -s "$work/fns.new" ] || fail "nm read no function that only 2.14 defines"

fail_files="$work/d14.txt $work/d12.txt"
check_diff "$work/up1" "$work/up2" "$work/d14" "$work/fns.engine"
head -1 "$work/d14.txt" | grep -q 'MUX 2\.14\..*MUX 2\.14\.' ||
	fail "the 2.14 diff's header names no 2.14"
check_diff "$work/deb" "$work/up1" "$work/d12" "$work/fns.new"
head -1 "$work/d12.txt" | grep -q 'old .*MUX 2\.12\..* -> new .*MUX 2\.14\.' ||
	fail "the 2.12 vs 2.14 diff's header does not name 2.12 as old and 2.14 as new"
"$muxbpf" diff "$work/up1" "$work/up1" >"$work/self.txt" ||
	fail "diff of a 2.14 run against itself exited $?"
tail -1 "$work/self.txt" | grep -q "no change beyond noise" || fail "the self diff shows changes"
sed -n '/^phase /,$p' "$work/d12.txt" | grep -E '^[a-z_]+ +on-CPU|CPU/cmd' | head -6

check_clean upstream_runs "$progs_before" || fail "left behind"
echo "e2e upstream_runs: --runs 2 on 2.14 twice and on 2.12, diff 2.14/2.14 and 2.12/2.14:" \
	"$(($(date +%s) - t0)) s"
