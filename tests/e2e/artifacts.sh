#!/bin/sh
# The artifacts of --out as root on the default target, read by their real consumers:
# go tool pprof (totals equal muxbpf's; an inline chain is one location, so -noinlines folds it
# as muxbpf's function view folded would: check_pprof.js), headless Chromium (the flame graph
# renders, a scripted click zooms, a screenshot is kept in BUILD/test-artifacts/), speedscope's
# JSON schema and the
# repo's report schema (ajv, from npm into BUILD/npm), folded stacks against the report's
# tables, diff of a run against itself, --runs 3 with spread for every phase.
# Exit 77 = skipped (not root, no BTF).
set -u
out=${1:-build}
muxbpf=$out/muxbpf
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.inc"
art=$out/test-artifacts
npm_dir=$out/npm
tmp=$(mktemp -d /tmp/muxbpf-artifacts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

need_root_bpf
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 not installed (make deps)"; }
need go; need chromium; need node; need npm
mkdir -p "$art"

# test-only JavaScript packages, never committed: speedscope's schema and a validator
if [ ! -f "$npm_dir/node_modules/speedscope/dist/release/file-format-schema.json" ] ||
   [ ! -d "$npm_dir/node_modules/ajv" ]; then
	mkdir -p "$npm_dir"
	npm install --silent --no-audit --no-fund --prefix "$npm_dir" speedscope@1 ajv@8 \
		>"$tmp/npm.log" 2>&1 || { cat "$tmp/npm.log"; fail "npm install speedscope ajv"; }
fi
validate() { node "$here/validate.js" "$npm_dir/node_modules" "$1" "$2"; }

# --- one run -------------------------------------------------------------------------------------
d1=$tmp/one
t0=$(date +%s%N)
"$muxbpf" --full --phase all --scale 0.1 --idle-seconds 1 --freq 4999 --out "$d1" \
	>"$tmp/one.out" 2>"$tmp/one.err" || { cat "$tmp/one.err"; fail "muxbpf --out exited $?"; }
echo "one run with --out: $((($(date +%s%N) - t0) / 1000000)) ms; $(tail -1 "$tmp/one.err")"
cmp -s "$tmp/one.out" "$d1/report.txt" || fail "report.txt differs from what was printed"
for p in boot create attrwrite dump attrread idle dispatch softcode_arith softcode_list outside; do
	[ -f "$d1/$p.folded" ] && [ -s "$d1/$p.svg" ] || fail "$p.folded or $p.svg missing"
done
ls "$d1"/.*.tmp >/dev/null 2>&1 && fail "temporary files left in the output directory"
du -b "$d1"/* | sed 's|'"$d1"'/||' | awk '{printf "  %-22s %8d bytes\n", $2, $1}'

# folded stacks round-trip against the report's function tables
node "$here/check_artifacts.js" folded "$d1" || fail "folded stacks do not match the report"
# the flame graphs' hover texts: self and total with intervals, widened as report.json says
node "$here/check_artifacts.js" tooltips "$d1" || fail "flame graph tooltips disagree with report.json"

# report.json against the repo's schema; the validator must also reject a broken copy
validate doc/report.schema.json "$d1/report.json" || fail "report.json does not validate"
# A syscall booked above 100% of its phase's on-CPU was seen once beside other load, its cause
# not found (README, "Stolen time"): print such rows for the next look, without failing.
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	for (const p of r.phases.filter((q) => q.ledger))
		for (const s of p.ledger.syscalls.filter((y) => y.oncpu_pct > 100))
			console.log(`note: ${p.name}: ${s.name} ${s.oncpu_pct.toFixed(1)}% of on-CPU ` +
				`(${s.cpu_ns} of ${p.oncpu_ns} ns, ${s.count} calls, wall ${s.wall_ns} ns), ` +
				`syscall CPU ${p.ledger.sys_cpu_ns} ns, leftover ${p.ledger.leftover_pct}%, ` +
				`${p.ledger.switch_in_missed} switch-ins repaired, ${p.ledger.sys_inexact} calls inexact`);' \
	"$d1/report.json"
sed 's/"schema_version": 1/"schema_version": "1"/' "$d1/report.json" >"$tmp/broken.json"
validate doc/report.schema.json "$tmp/broken.json" >/dev/null 2>&1 &&
	fail "the schema accepted a report.json with a string schema_version"

# speedscope.json against speedscope's published schema
validate "$npm_dir/node_modules/speedscope/dist/release/file-format-schema.json" \
	"$d1/speedscope.json" || fail "speedscope.json does not validate"

# pprof: go tool pprof's totals equal muxbpf's
export HOME=${HOME:-/root} GOCACHE=${GOCACHE:-$tmp/gocache}
set -- $(node "$here/check_artifacts.js" totals "$d1")
want_samples=$1 want_ms=$2
go tool pprof -top -sample_index=samples "$d1/profile.pb.gz" >"$tmp/pprof.samples" 2>&1 ||
	{ cat "$tmp/pprof.samples"; fail "go tool pprof cannot read profile.pb.gz"; }
got=$(sed -n 's/.* of \([0-9]*\) total.*/\1/p' "$tmp/pprof.samples")
[ "$got" = "$want_samples" ] || fail "pprof total samples $got, muxbpf's $want_samples"
go tool pprof -top -sample_index=cpu -unit=ms "$d1/profile.pb.gz" >"$tmp/pprof.cpu" 2>&1 ||
	fail "go tool pprof -sample_index=cpu failed"
got_ms=$(sed -n 's/.* of \([0-9.]*\)ms total.*/\1/p' "$tmp/pprof.cpu")
awk -v a="$got_ms" -v b="$want_ms" 'BEGIN { d = a - b; exit !(a != "" && d < 0.011 && d > -0.011) }' ||
	fail "pprof cpu total ${got_ms} ms, muxbpf's ${want_ms} ms (user samples x period + syscalls)"
for p in softcode_list attrwrite; do
	want=$(node "$here/check_artifacts.js" phase "$d1" "$p")
	# with every node shown, "accounting for N" is what the focus kept
	got=$(go tool pprof -top -nodefraction=0 -nodecount=1000000 -sample_index=samples \
		-tagfocus="phase=^$p\$" "$d1/profile.pb.gz" 2>&1 |
		sed -n 's/.*accounting for \([0-9]*\), .*/\1/p')
	[ "$got" = "$want" ] || fail "pprof phase=$p: $got samples, muxbpf's $want"
done
grep -q "Build ID: [0-9a-f]\{40\}" "$tmp/pprof.samples" || fail "pprof shows no build-id"
# inline chains: one location each, so -noinlines folds them as muxbpf's view folded would
go tool pprof -raw -sample_index=samples "$d1/profile.pb.gz" >"$tmp/pprof.raw" 2>&1 ||
	fail "go tool pprof -raw failed"
for p in attrread softcode_list; do
	for v in top noinlines; do
		go tool pprof -top $([ $v = noinlines ] && echo -noinlines) -nodefraction=0 \
			-nodecount=1000000 -sample_index=samples -tagfocus="phase=^$p\$" \
			"$d1/profile.pb.gz" >"$tmp/pprof.$p.$v" 2>&1 || fail "go tool pprof -$v failed"
	done
	node "$here/check_pprof.js" "$d1" "$p" "$tmp/pprof.$p.top" "$tmp/pprof.$p.noinlines" \
		"$tmp/pprof.raw" || fail "pprof's inline chains disagree with muxbpf's views"
done
grep -q "\[sys\] " "$tmp/pprof.cpu" || fail "no [sys] kernel frame in pprof's cpu view"
echo "pprof: $want_samples samples and ${got_ms} ms, as muxbpf counts them"

# the flame graph in headless Chromium: it renders, a click (URL fragment) zooms, search matches
chrome() {
	rm -rf "$tmp/chrome"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --no-first-run --user-data-dir="$tmp/chrome" "$@" \
		2>>"$tmp/chrome.log"
}
svg=$(cd "$d1" && pwd)/softcode_list.svg
set -- $(node "$here/check_artifacts.js" pick "$svg")
id=$1 width=$2
chrome --dump-dom "file://$svg" >"$tmp/dom0.html" || fail "chromium could not load the SVG"
grep -q '<g class="f" id="f0"' "$tmp/dom0.html" || fail "the SVG did not render its frames"
grep -q 'data-zoom=' "$tmp/dom0.html" && fail "zoomed without a click"
chrome --dump-dom "file://$svg#click=$id" >"$tmp/dom1.html" || fail "chromium failed on #click"
node "$here/check_artifacts.js" zoomed "$tmp/dom1.html" "$id" || fail "the click did not zoom"
chrome --dump-dom "file://$svg#search=." >"$tmp/dom2.html" || fail "chromium failed on #search"
grep -q 'data-matched="100.00"' "$tmp/dom2.html" || fail "search '.' did not match 100%"
chrome --screenshot="$(pwd)/$art/softcode_list-zoomed.png" --window-size=1200,900 \
	"file://$svg#click=$id" >/dev/null || fail "no screenshot"
[ "$(stat -c %s "$art/softcode_list-zoomed.png")" -gt 10000 ] || fail "the screenshot is empty"
cp "$d1/softcode_list.svg" "$art/"
echo "chromium: rendered, #click=$id (${width} wide) zoomed to full width, search ok;" \
	"screenshot $art/softcode_list-zoomed.png"

# diff of a run against itself
"$muxbpf" diff "$d1" "$d1" >"$tmp/self.diff" || { cat "$tmp/self.diff"; fail "diff against itself exited $?"; }
tail -1 "$tmp/self.diff" | grep -q "no change beyond noise" || fail "self diff shows changes"

# --- --runs 3 ------------------------------------------------------------------------------------
d3=$tmp/three
"$muxbpf" --full --phase all --scale 0.1 --idle-seconds 1 --freq 4999 --runs 3 --max-phase-seconds 0 --out "$d3" -q \
	>"$tmp/three.out" 2>"$tmp/three.err" || { cat "$tmp/three.err"; fail "--runs 3 exited $?"; }
check_runs "$tmp/three.out" "$d3" 3 "boot create attrwrite dump attrread idle dispatch softcode_arith softcode_list"
cat "$tmp/three.out.spread"
validate doc/report.schema.json "$d3/report.json" || fail "--runs report.json does not validate"
node "$here/check_artifacts.js" folded "$d3" || fail "merged folded stacks do not match"
"$muxbpf" diff "$d3" "$d3" >"$tmp/self3.diff" || fail "diff of --runs 3 against itself exited $?"
grep -q "within noise" "$tmp/self3.diff" || fail "no noise verdict with spread"
tail -1 "$tmp/self3.diff" | grep -q "no change beyond noise" || fail "self diff shows changes"
"$muxbpf" diff "$d1" "$d3" --out "$tmp/diff" -q >"$tmp/one3.diff"
rc=$?
[ $rc -le 1 ] || fail "diff one vs three exited $rc"
[ -s "$tmp/diff/softcode_list.diff.svg" ] && [ -s "$tmp/diff/diff.txt" ] ||
	fail "diff --out wrote no differential flame graph"
echo "artifacts: all consumers agree"
