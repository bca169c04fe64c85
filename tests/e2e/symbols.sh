#!/bin/sh
# Names for every frame, end to end as root (exit 77 = skipped):
#  1. the default target (-O2 -g): >= 99% of the samples in netmux have a file:line in busy
#     phases, the srcfile view of softcode_list is led by netmux's own source files (the first
#     row, and half the self time at least; the evaluator and function files among the first),
#     --min-pct cuts rows;
#  2. Debian's stripped netmux without debuginfo: one "STRIPPED, no debuginfo" line, frames
#     named by DSO+offset;
#  3. a stripped copy of the default target: STRIPPED without debuginfo, and named with
#     file:line once its debug file is placed by build-id under --debug-dir.
set -u
out=${1:-build}
muxbpf=$out/muxbpf
debian=/usr/lib/tinymux/game/bin/netmux
. "$(dirname "$0")/lib.inc"
tmp=$(mktemp -d /tmp/muxbpf-e2e-sym.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

need_root_bpf
fail_files="$tmp/out $tmp/err"
run() { "$muxbpf" --full --max-phase-seconds 0 "$@" >"$tmp/out" 2>"$tmp/err" || fail "muxbpf $* exited $?"; }
# the rows of one view of one phase: "self% total% label" (the +- interval columns left out)
view() { # $1 phase, $2 view title
	sed -n "/^== $1:/,/^== /p" "$tmp/out" | awk -v t="$2" '
		$1 == "self%" { on = (substr($0, index($0, $5)) == t); next }
		on && $1 ~ /%$/ { l = substr($0, index($0, $5)); print $1, $3, l; next }
		{ on = 0 }'
}

# 1. the default target
run --phase attrwrite,softcode_list --scale 0.5 --freq 4999 --by function,srcfile,line,dso \
	--min-pct 0.5
for p in attrwrite softcode_list; do
	line=$(grep "^== $p:" "$tmp/out")
	share=$(echo "$line" | sed -n 's/.*(in netmux: \([0-9.]*\)% of \([0-9]*\)).*/\1 \2/p')
	[ -n "$share" ] || fail "$p: no share of netmux samples with file:line"
	echo "$share" | awk '{ exit !($2 < 200 || $1 >= 99) }' ||
		fail "$p: only $share (percent, samples) of netmux samples have a file:line"
done
view softcode_list "source file" >"$tmp/srcfile"
[ -s "$tmp/srcfile" ] || fail "softcode_list has no source file view"
# led by: the first row is netmux's, and netmux's files hold most of the self time.  (The first
# four rows once had to be netmux's: beside a CPU hog glibc's write.c came fourth at 2.9%, a
# row's place among the small ones is the draw's.)
awk 'NR == 1 && $3 !~ /^[a-z_]+\.(cpp|h)$/ { bad = 1 }
	$3 ~ /^[a-z_]+\.(cpp|h)$/ { own += $1 }
	END { exit bad || own < 50 }' "$tmp/srcfile" ||
	fail "softcode_list's srcfile view is not led by netmux's sources: $(head -4 "$tmp/srcfile")"
head -6 "$tmp/srcfile" | grep -Eq ' (eval|functions|funmath|mathutil|strtod)\.cpp$' ||
	fail "no evaluator/function source file among the first rows: $(head -6 "$tmp/srcfile")"
view softcode_list "source line" | head -1 | grep -Eq '\.cpp:[0-9]+ ' ||
	fail "the line view has no file:line rows"
for t in function "source file" "source line" dso; do
	view attrwrite "$t" | awk '{ sub(/%/, "", $1); if ($1 + 0 < 0.5) bad = 1 } END { exit bad }' ||
		fail "--min-pct 0.5: a row below 0.5% in the $t view"
done
grep -q '^  netmux  *[0-9.]*%  named 100.0%' "$tmp/out" || fail "netmux not fully named"

# 2. Debian's stripped netmux
if [ -x "$debian" ]; then
	run --netmux "$debian" --phase softcode_list --scale 0.2 --freq 4999
	n=$(grep -c 'STRIPPED, no debuginfo' "$tmp/out")
	[ "$n" = 1 ] || fail "Debian's netmux: $n 'STRIPPED, no debuginfo' lines, want 1"
	grep -q '^  netmux .*STRIPPED, no debuginfo (looked for build-id' "$tmp/out" ||
		fail "the STRIPPED line does not name netmux and what was looked for"
	view softcode_list function | head -3 | grep -q '\[netmux+0x[0-9a-f]*\]' ||
		fail "Debian's netmux frames are not named by DSO+offset"
	grep -q 'unnamed leaves: [0-9.]*% netmux (stripped, no debuginfo)' "$tmp/out" ||
		fail "the unnamed share of netmux is not stated"
fi

# 3. a stripped copy of the default target, then its debug file by build-id
src=$out/tinymux/fp/mux2.12/src
[ -x "$src/netmux" ] || skip "no default target (make netmux)"
mkdir -p "$tmp/bin" "$tmp/debug"
chmod 755 "$tmp" "$tmp/bin" "$tmp/debug"
objcopy --only-keep-debug "$src/netmux" "$tmp/netmux.debug" || fail "objcopy --only-keep-debug"
strip --strip-all -o "$tmp/bin/netmux" "$src/netmux" || fail "strip"
for f in libmux.so slave stubslave; do ln -s "$(realpath "$src/$f")" "$tmp/bin/$f"; done
id=$(readelf -n "$tmp/bin/netmux" | sed -n 's/^ *Build ID: *//p')
[ -n "$id" ] || fail "the default target has no build-id"
mkdir -p "$tmp/debug/.build-id/$(echo "$id" | cut -c1-2)"
mv "$tmp/netmux.debug" "$tmp/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
run --netmux "$tmp/bin/netmux" --phase softcode_list --scale 0.2 --freq 4999 --by srcfile
grep -q '^  netmux .*STRIPPED, no debuginfo' "$tmp/out" || fail "stripped copy: not reported as stripped"
run --netmux "$tmp/bin/netmux" --phase softcode_list --scale 0.2 --freq 4999 --by srcfile \
	--debug-dir "$tmp/debug"
# every name the debug file has: a leaf left unnamed must be one no symbol covers (a PLT stub,
# "no symbol"), not one the stripping hid; how many land in a stub is luck (1 of 1317 once)
grep -q '^  netmux .*names from debuginfo, lines from DWARF' "$tmp/out" ||
	fail "stripped copy with --debug-dir: names and lines not from the debug file"
! grep -q 'unnamed leaves:.* netmux (stripped' "$tmp/out" ||
	fail "stripped copy with --debug-dir: leaves left unnamed as stripped"
view softcode_list "source file" | head -6 | grep -Eq ' (eval|functions|funmath|mathutil|strtod)\.cpp$' ||
	fail "stripped copy with --debug-dir: no netmux source file in the srcfile view"
echo "e2e symbols: file:line on the default target, Debian's stripped netmux by DSO+offset, debuginfo by build-id under --debug-dir"
