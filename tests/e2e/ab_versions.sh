#!/bin/sh
# muxbpf ab across versions, as root: Debian's TinyMUX 2.12 (the default target) as A against
# upstream 2.14 (make upstream: its engine in engine.so, dlopened at start) as B, dispatch at a
# small scale.  Checks that the text header, ab.json and the ab page name each side's version
# (2.12 for A, 2.14 for B, as each netmux answered @version); that the verdict's fields are
# there with an interval around the ratio; and that a function one build only defines is marked
# so, against nm's reading of each build's objects and the libraries they load: every function
# marked "only in B" is defined by none of A's and by one of B's, functions engine.so defines
# and A's netmux does not are among them, and a function both define (process_command: in
# netmux in 2.12, in engine.so in 2.14) is not marked.  Exit 77 = skipped (not root, no BTF,
# no 2.14 build).
set -u
out=${1:-build}
muxbpf=$out/muxbpf
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.inc"
npm_dir=$out/npm
netmux_a=$out/tinymux/fp/mux2.12/src/netmux
game_b=$out/upstream/src/mux/game
need_root_bpf
[ -x "$game_b/bin/netmux" ] || skip "upstream TinyMUX is not built ($game_b/bin/netmux; make" \
	"upstream needs the tarball in ../shared/tinymux/)"
e2e_init ab_versions
export TMPDIR=$work/tmp
fail() { echo "FAIL: $*"; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 not installed (make deps)"; }
need chromium; need node; need npm; need nm
[ -x "$netmux_a" ] || fail "no default target (make netmux)"
if [ ! -d "$npm_dir/node_modules/ajv" ]; then
	mkdir -p "$npm_dir"
	npm install --silent --no-audit --no-fund --prefix "$npm_dir" ajv@8 >"$work/npm.log" 2>&1 ||
		{ cat "$work/npm.log"; fail "npm install ajv"; }
fi
progs_before=$(mb_progs)

t0=$(date +%s)
"$muxbpf" ab -q --phase dispatch --scale 0.1 --rounds 8 --freq 1999 --game-b "$game_b" \
	--out "$work/ab" "$netmux_a" "$game_b/bin/netmux" >"$work/ab.txt" 2>"$work/ab.err"
rc=$?
head -32 "$work/ab.txt"
[ $rc -le 1 ] || { cat "$work/ab.err"; fail "muxbpf ab 2.12 vs 2.14 exited $rc"; }
echo "ab 2.12 vs 2.14: $(($(date +%s) - t0)) s"
node "$here/validate.js" "$npm_dir/node_modules" doc/ab.schema.json "$work/ab/ab.json" ||
	fail "ab.json does not validate"

# The header: each side's path and its version on the line after it.
sed -n 2p "$work/ab.txt" | grep -q '^ *MUX 2\.12\.' || fail "the header names no 2.12 for A"
sed -n 4p "$work/ab.txt" | grep -q '^ *MUX 2\.14\.' || fail "the header names no 2.14 for B"

# The functions each build's objects define, by nm: A's netmux, B's netmux, engine.so,
# libmux.so and the modules, and on each side the shared libraries they load (ldd): the two
# builds link different ones (2.14 links libpcre2, libssl and libcrypto; 2.12 does not), and a
# function of such a library is one build's only.
libs() { ldd "$@" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u; }
defined "$netmux_a" $(libs "$netmux_a") >"$work/fns.a"
defined "$game_b/bin/netmux" "$game_b"/bin/*.so $(libs "$game_b/bin/netmux" "$game_b"/bin/*.so) \
	>"$work/fns.b"
defined "$game_b/bin/engine.so" >"$work/fns.engine"
[ -s "$work/fns.a" ] && [ -s "$work/fns.engine" ] || fail "nm read no functions"

node -e '
const fs = require("fs");
const j = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
const set = (f) => new Set(fs.readFileSync(f, "utf8").split("\n").filter(Boolean));
const fa = set(process.argv[2]), fb = set(process.argv[3]), eng = set(process.argv[4]);
const txt = fs.readFileSync(process.argv[5], "utf8");
const bad = [];
if (!/^MUX 2\.12\./.test(j.a.version)) bad.push(`a.version ${j.a.version}`);
if (!/^MUX 2\.14\./.test(j.b.version)) bad.push(`b.version ${j.b.version}`);
const p = j.phases.find((x) => x.name === "dispatch");
if (!p) {
	console.log("no dispatch phase in ab.json");
	process.exit(1);
}
for (const k of ["ratio", "ci_low", "ci_high", "p", "mdd"])
	if (typeof p[k] !== "number" || !isFinite(p[k])) bad.push(`dispatch: ${k} ${p[k]}`);
if (!(p.ci_low <= p.ratio && p.ratio <= p.ci_high))
	bad.push(`dispatch: B/A ${p.ratio} outside its interval [${p.ci_low}, ${p.ci_high}]`);
if (!["faster", "slower", "same"].includes(p.verdict)) bad.push(`verdict ${p.verdict}`);
if (!(p.a.cpu_per_cmd_us > 0 && p.b.cpu_per_cmd_us > 0)) bad.push("no CPU per command");
const onlyB = p.functions.filter((f) => f.only_in === "b");
const onlyA = p.functions.filter((f) => f.only_in === "a");
for (const f of onlyB) {
	if (fa.has(f.name)) bad.push(`${f.name}: marked only in B, nm finds it in A\u0027s netmux`);
	if (!fb.has(f.name)) bad.push(`${f.name}: marked only in B, nm finds it in none of B\u0027s`);
	if (f.self_us.a !== 0 || f.total_us.a !== 0)
		bad.push(`${f.name}: only in B, yet A has ${f.total_us.a} us of it`);
	// the text (its top rows) marks the same rows
	if (txt.split("\n").some((l) => l.endsWith("]  " + f.name)))
		bad.push(`${f.name}: in ab.txt without its mark`);
}
// the text prints the top rows only: where one of those is only in B, the mark is there
const rows = txt.split("\n");
const printedB = onlyB.some((f) => rows.some((l) => l.endsWith(" " + f.name)));
if (printedB && !txt.includes("[only in B] "))
	bad.push("ab.txt prints a function only in B and marks none");
for (const f of onlyA)
	if (fb.has(f.name) || !fa.has(f.name))
		bad.push(`${f.name}: marked only in A, nm disagrees`);
const engOnly = onlyB.filter((f) => eng.has(f.name));
if (!engOnly.length) bad.push("no function of engine.so (and not of 2.12) marked only in B");
// sampled in both builds, defined in both (2.12 netmux, 2.14 engine.so): not marked
for (const f of p.functions)
	if (fa.has(f.name) && fb.has(f.name) && f.only_in)
		bad.push(`${f.name}: defined in both, marked only in ${f.only_in}`);
const both = p.functions.filter((f) => fa.has(f.name) && eng.has(f.name));
if (!both.length) bad.push("no function of both builds (2.12 netmux, 2.14 engine.so) in the rows");
const ci = `[${p.ci_low.toFixed(3)}, ${p.ci_high.toFixed(3)}]`;
console.log(`dispatch: B/A ${p.ratio.toFixed(3)} ${ci}, ` +
	`p ${p.p.toPrecision(2)}, ${p.verdict}; ${onlyB.length} functions only in B ` +
	`(${engOnly.length} of engine.so, e.g. ${engOnly.slice(0, 2).map((f) => f.name).join("; ")}), ` +
	`${onlyA.length} only in A, ${both.length} in both`);
if (bad.length) {
	console.log(bad.join("\n"));
	process.exit(1);
}' "$work/ab/ab.json" "$work/fns.a" "$work/fns.b" "$work/fns.engine" "$work/ab.txt" ||
	fail "versions or one-sided functions"

# The page: both versions in its header, the one-sided functions marked in its table.
rm -rf "$work/chrome"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --no-first-run --user-data-dir="$work/chrome" \
	--dump-dom "file://$work/ab/report.html" >"$work/dom.html" 2>"$work/chrome.log" ||
	fail "chromium could not load the ab page"
# (rendered in the header under each side's path, not only in the page's embedded ab.json)
grep -q '<br>MUX 2\.12\.' "$work/dom.html" || fail "the ab page names no 2.12"
grep -q '<br>MUX 2\.14\.' "$work/dom.html" || fail "the ab page names no 2.14"
grep -q '>only in B<' "$work/dom.html" || fail "the ab page marks no function only in B"

left=$(mb_leftovers "$progs_before")
[ -z "$left" ] || { sleep 3; left=$(mb_leftovers "$progs_before"); }
[ -z "$left" ] || fail "BPF programs left loaded: $left"
[ -z "$(procs_in "$work/tmp")" ] || fail "processes left behind"
echo "ab_versions: each side's version named, one-sided functions marked as nm reads them"
