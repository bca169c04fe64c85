#!/bin/sh
# make install gives a working muxbpf: installed into a DESTDIR, then moved elsewhere (so
# neither the build tree nor the install path is where it runs from), the binary finds its own
# copy of the default target, profiles it with file:line, and needs no --netmux.  Exit 77 =
# skipped (no root/BPF, or no default target built).
set -u
out=${1:-build}
out=$(cd "$out" && pwd)
. "$(dirname "$0")/lib.inc"
need_root_bpf
[ -x "$out/tinymux/fp/mux2.12/src/netmux" ] || skip "no default target (make netmux)"
e2e_init install
export TMPDIR=$work/tmp
fail() { echo "FAIL: $*"; sed 's/^/    | /' "$work/out" "$work/err" 2>/dev/null | head -30; exit 1; }

make --no-print-directory -s OUTPUT="$out" DESTDIR="$work/dest" PREFIX=/usr/local install \
	>"$work/out" 2>"$work/err" || fail "make install"
for f in sbin/muxbpf lib/muxbpf/netmux/netmux lib/muxbpf/netmux/libmux.so \
	lib/muxbpf/netmux/stubslave lib/muxbpf/netmux/slave share/man/man8/muxbpf.8; do
	[ -e "$work/dest/usr/local/$f" ] || fail "make install did not install $f"
done
# somewhere else entirely: the binary must find the target beside itself, not by a fixed path
mv "$work/dest/usr/local" "$work/moved"
chmod -R go+rX "$work/moved"
bin=$work/moved/sbin/muxbpf
# softcode_arith at 4999 Hz: tens of samples, nine in ten of them in netmux's own code (create's
# 2 samples at 997 Hz could both land in libc, and then there was no netmux line to check)
"$bin" --full --phase softcode_arith --scale 0.1 --freq 4999 --max-phase-seconds 0 >"$work/out" \
	2>"$work/err" </dev/null || fail "exit $?"
want="muxbpf: $work/moved/lib/muxbpf/netmux/netmux"
[ "$(head -1 "$work/out")" = "$want" ] || fail "first line '$(head -1 "$work/out")', expected '$want'"
grep -q '^softcode_arith ' "$work/out" || fail "no softcode_arith phase in the report"
grep -Eq '^  netmux +[0-9.]+% +named +[0-9.]+%, file:line +[1-9]' "$work/out" ||
	fail "no file:line for netmux's frames"
"$bin" run --help 2>&1 | grep -q "make install's copy" || fail "run --help does not say where the default is"
echo "install: make install DESTDIR, moved: muxbpf runs its own copy of netmux ($want)"
