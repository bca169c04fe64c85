#!/bin/sh
# Do two default runs agree?  Two `muxbpf --phase all` runs of the default target (rounds as
# by default, EXTRA options added), one after the other.  Prints each run's length and rounds
# table, then per busy phase (100 samples or more in both) the top 10 self rows of the first run
# (and any other row in the second's top 10): both shares, both intervals, and whether the
# intervals overlap (the two runs agree within their intervals) and whether the difference is
# within the combined 95% interval sqrt(a^2 + b^2) (which 1 comparison in 20 misses by chance).
#
#   bench/rounds_agree.sh BUILD_DIR [EXTRA muxbpf OPTIONS...]
#
# Needs root.  It measures; it passes or fails on nothing.
set -u
out=${1:-build}
[ $# -ge 1 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
muxbpf=$out/muxbpf
tmp=$(mktemp -d /tmp/muxbpf-rounds-agree.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

machine_facts
for k in 1 2; do
	t0=$(date +%s.%N)
	"$muxbpf" --full --phase all -q --out "$tmp/run$k" "$@" >"$tmp/run$k.txt" 2>"$tmp/run$k.err" ||
		{ echo "run $k failed (exit $?):"; cat "$tmp/run$k.err"; exit 1; }
	echo "run $k: $(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t0}") s (muxbpf --phase all $*), load $(load1)"
	sed -n '/^rounds: /,/^$/p' "$tmp/run$k.txt" | sed '/^$/d; s/^/  /'
done
node -e '
const fs = require("fs");
const [a, b] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
const half = (r) => (r.self_ci_pct[1] - r.self_ci_pct[0]) / 2;
let rows = 0, overlap = 0, within = 0;
for (const pa of a.phases) {
	const pb = b.phases.find((q) => q.name === pa.name);
	if (!pa.measured || !pb || pa.functions.samples < 100 || pb.functions.samples < 100)
		continue;
	const top = (p) => p.functions.rows.filter((r) => r.self > 0).slice(0, 10);
	const names = [...new Set([...top(pa), ...top(pb)].map((r) => r.name))];
	const find = (p, n) => p.functions.rows.find((r) => r.name === n);
	console.log(`\n${pa.name}: ${pa.functions.samples} and ${pb.functions.samples} samples, ` +
		`${pa.rounds ? pa.rounds.count : "-"} and ${pb.rounds ? pb.rounds.count : "-"} rounds`);
	console.log("   run 1 +-      run 2 +-      diff   overlap  in 95%  function");
	for (const n of names) {
		const ra = find(pa, n), rb = find(pb, n);
		const sa = ra ? ra.self_pct : 0, sb = rb ? rb.self_pct : 0;
		const ha = ra ? half(ra) : 0, hb = rb ? half(rb) : 0;
		const d = sb - sa, ov = Math.abs(d) <= ha + hb, w = Math.abs(d) <= Math.hypot(ha, hb);
		rows++;
		overlap += ov;
		within += w;
		console.log(`  ${sa.toFixed(2).padStart(6)} ${ha.toFixed(2).padStart(5)}  ` +
			`${sb.toFixed(2).padStart(6)} ${hb.toFixed(2).padStart(5)}  ${d >= 0 ? "+" : ""}${d.toFixed(2).padStart(6)}` +
			`   ${ov ? "yes" : "NO "}     ${w ? "yes" : "NO "}     ${n.slice(0, 60)}`);
	}
}
console.log(`\n${rows} rows: intervals overlap in ${overlap}, difference within the combined 95% interval in ${within} (${(100 * within / rows).toFixed(1)}%)`);
' "$tmp/run1/report.json" "$tmp/run2/report.json"
