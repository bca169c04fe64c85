#!/bin/sh
# report.html in a real browser, as root on the default target: headless Chromium (driven by
# puppeteer-core from npm into BUILD/npm, never committed) loads each page from file:// with the
# network cut off and checks it as a person would use it (tests/e2e/check_html.js): no console
# error, a section per phase, a click zooms a flame graph, a header click reorders a table, the
# view switch, the numbers equal the JSON's (the --by command cards' too).  Pages: a run, a
# stripped target's run (DSO+offset names, the STRIPPED line), diff of two runs and muxbpf ab
# (red and blue frames).  Screenshots are kept in BUILD/test-artifacts/.  Exit 77 = skipped (not
# root, no BTF).
set -u
out=${1:-build}
muxbpf=$out/muxbpf
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.inc"
art=$out/test-artifacts
npm_dir=$out/npm
tmp=$(mktemp -d /tmp/muxbpf-html.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

need_root_bpf
fail() { echo "FAIL: $*"; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 not installed (make deps)"; }
need chromium; need node; need npm
mkdir -p "$art"
art=$(cd "$art" && pwd)
export CHROMIUM=$(command -v chromium)

# puppeteer-core drives the machine's chromium (it downloads no browser of its own)
if [ ! -f "$npm_dir/node_modules/puppeteer-core/package.json" ]; then
	mkdir -p "$npm_dir"
	npm install --silent --no-audit --no-fund --prefix "$npm_dir" puppeteer-core@23 \
		>"$tmp/npm.log" 2>&1 || { cat "$tmp/npm.log"; fail "npm install puppeteer-core"; }
fi
check() { node "$here/check_html.js" "$npm_dir" "$@"; }

# offline by construction: no element or style that fetches anything.  The page's text is the
# game's (function names, command texts, paths: a game may well say "url(" or "http://"), so
# the checks look at markup and style only: the embedded JSON and the flame graphs escape "<",
# so no text can open a tag, and style lives in <style>.  check_html.js then loads the page
# with every request that is not the page itself refused and reported.
static_check() { # $1 = page
	tags='<(link|img|iframe|embed|object|source|audio|video|base)[[:space:]>/]'
	tags="$tags|<script[^>]*[[:space:]]src="
	n=$(grep -Eio "($tags)[^>]{0,60}" "$1" | head -1)
	[ -z "$n" ] || fail "$1 has an element that fetches: $n"
	css=$(perl -0777 -ne 'print "$1\n" while /<style[^>]*>(.*?)<\/style>/gis' "$1")
	n=$(printf '%s' "$css" | grep -Eo '.{0,30}(url\(|@import).{0,30}' | head -1)
	[ -z "$n" ] || fail "$1 has style that fetches: $n"
	n=$(grep -Eo '<[^>]*(src|href|action)=["'"'"']?https?://[^"'"'"' >]*' "$1" | head -3)
	[ -z "$n" ] || fail "$1 names outside addresses: $n"
}

run() { # $1 = out dir, then muxbpf's arguments
	d=$1
	shift
	"$muxbpf" --full "$@" --out "$d" >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "muxbpf $* exited $?"; }
	[ -s "$d/report.html" ] || fail "$d/report.html missing"
	static_check "$d/report.html"
}

# --- a run of every phase ------------------------------------------------------------------------
d1=$tmp/one
run "$d1" --phase all --scale 0.1 --idle-seconds 1 --freq 4999 --by function,command --exact-commands
check run "$d1" "$art/report-html" || fail "the run's page"
echo "  report.html: $(stat -c %s "$d1/report.html") bytes (scale 0.1, 4999 Hz)"

# --- a stripped copy of the default target -------------------------------------------------------
src=$out/tinymux/fp/mux2.12/src
[ -x "$src/netmux" ] || skip "no default target (make netmux)"
mkdir -p "$tmp/bin"
chmod 755 "$tmp" "$tmp/bin"
strip --strip-all -o "$tmp/bin/netmux" "$src/netmux" || fail "strip"
for f in libmux.so slave stubslave; do ln -s "$(realpath "$src/$f")" "$tmp/bin/$f"; done
ds=$tmp/stripped
run "$ds" --netmux "$tmp/bin/netmux" --phase softcode_list --scale 0.2 --freq 4999
grep -q 'STRIPPED, no debuginfo' "$tmp/out" || fail "the stripped copy is not reported STRIPPED"
check run "$ds" "$art/report-html-stripped" stripped || fail "the stripped target's page"

# --- diff of two runs: verdicts first, red and blue frames ---------------------------------------
d2=$tmp/two
run "$d2" --phase attrwrite,softcode_list,dispatch --scale 0.1 --freq 4999 --runs 2 -q --max-phase-seconds 0
d3=$tmp/three
run "$d3" --phase attrwrite,softcode_list,dispatch --scale 0.2 --freq 4999 --runs 2 -q --max-phase-seconds 0
"$muxbpf" diff "$d2" "$d3" --out "$tmp/diff" -q >"$tmp/diff.out"
rc=$?
[ $rc -le 1 ] || fail "muxbpf diff exited $rc"
[ -s "$tmp/diff/report.html" ] && [ -s "$tmp/diff/diff.json" ] || fail "diff --out wrote no page"
static_check "$tmp/diff/report.html"
check diff "$tmp/diff" "$art/report-html-diff" || fail "the diff page"

# --- muxbpf ab: verdicts first, the ratio's interval per phase, red and blue frames ---------------
# A spins 20 us in every write (once per command), B 40 us in every modf (once per command in
# softcode_arith): B's shim frames under modf grow (red), A's under write shrink in B (blue)
shim=$(cd "$out/tests" && pwd)/shim_spin.so
[ -f "$shim" ] || fail "no $shim (make tests-build)"
mkdir -p "$tmp/abtmp"
chmod 1777 "$tmp/abtmp"
TMPDIR=$tmp/abtmp "$muxbpf" ab -q --phase softcode_arith --scale 0.1 --rounds 8 --freq 1999 \
	--env-a LD_PRELOAD="$shim" --env-a MUXBPF_SHIM_FN=write --env-a MUXBPF_SHIM_SPIN_US=20 \
	--env-b LD_PRELOAD="$shim" --env-b MUXBPF_SHIM_FN=modf --env-b MUXBPF_SHIM_SPIN_US=40 \
	--out "$tmp/ab" "$src/netmux" "$src/netmux" >"$tmp/ab.out" 2>&1
rc=$?
[ $rc -le 1 ] || { cat "$tmp/ab.out"; fail "muxbpf ab exited $rc"; }
[ -s "$tmp/ab/report.html" ] || fail "ab --out wrote no page"
static_check "$tmp/ab/report.html"
check ab "$tmp/ab" "$art/report-html-ab" || fail "the A/B page"

echo "html: the pages load offline in Chromium and show the JSON's numbers"
