#!/bin/sh
# How close is the exact mode's probe cost, measured at start, to what the probes cost netmux?
# RUNS throwaway runs of tests/e2e/softcode.sh's game (helper_live softcode: $slow, $ufn, $fast
# interleaved COUNT times each, --exact-commands, --freq 1999).  In the mixed window the samples
# under each command (user mode: they never see a trap) and its task clock inside the command
# less our probes' cost are two measures of the same time.  Per run and over all runs, the
# maximum-likelihood factors a (on segments x command_probes_inside_ns) and b (on u() hits x
# uprobe_hit_ns) that make the samples' shares fit the clock's best, with 95% profile-likelihood
# intervals; and per command the z-score of its samples against the clock at a = b = 1.  A
# factor above 1: netmux's probes cost more than measured (the measurement is a lower bound).
#
#   bench/softcode_fit.sh BUILD_DIR [RUNS (8)] [COUNT (1000)]
#
# Needs root and node.  It measures; it passes or fails on nothing.
set -u
out=${1:-build}
runs=${2:-8}
count=${3:-1000}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
game_tmpdir softcode-fit

machine_facts
reports=
for k in $(seq 1 "$runs"); do
	d=$tmp/run$k
	softcode_game "$out" "$d" "$count" --by command,softcode --exact-commands ||
		{ echo "run $k failed"; exit 1; }
	reports="$reports $d/report.json"
done
echo "$runs runs of $count x 3 commands, load $(load1)"
node - $reports <<'EOF'
const fs = require('fs');
const names = ['$slow', '$ufn', '$fast'];
const runs = process.argv.slice(2).map((f) => {
	const sc = JSON.parse(fs.readFileSync(f, 'utf8')).softcode;
	const p = sc.phases.find((q) => q.name === 'mixed');
	const rows = names.map((l) => p.commands.find((c) => c.command.startsWith(l + ' ')));
	return { sc, rows: rows.map((c) => ({
		raw: c.in_command_ns + c.probe_ns, n: c.samples,
		seg: c.segments * sc.command_probes_inside_ns, hit: c.probe_hits * sc.uprobe_hit_ns })) };
});
// log-likelihood of the samples (multinomial) given the clock's shares at factors a, b
const ll = (set, a, b) => set.reduce((L, { rows }) => {
	const t = rows.map((x) => Math.max(1, x.raw - a * x.seg - b * x.hit));
	const sum = t.reduce((s, x) => s + x, 0);
	return rows.reduce((M, x, i) => M + x.n * Math.log(t[i] / sum), L);
}, 0);
const grid = [];
for (let v = 0; v <= 2.5 + 1e-9; v += 0.02) grid.push(Math.round(v * 100) / 100);
function fit(set) {
	let best = { a: 0, b: 0, l: -Infinity };
	const prof = { a: new Map(), b: new Map() };
	for (const a of grid)
		for (const b of grid) {
			const l = ll(set, a, b);
			if (l > best.l) best = { a, b, l };
			prof.a.set(a, Math.max(prof.a.get(a) ?? -Infinity, l));
			prof.b.set(b, Math.max(prof.b.get(b) ?? -Infinity, l));
		}
	const ci = (m) => { const k = [...m].filter(([, l]) => l > best.l - 1.92).map(([v]) => v);
		return `[${k[0].toFixed(2)}, ${k[k.length - 1].toFixed(2)}]`; };
	return `segments x${best.a.toFixed(2)} ${ci(prof.a)}, u() hits x${best.b.toFixed(2)} ${ci(prof.b)}`;
}
const z = ({ rows }) => {
	const t = rows.map((x) => x.raw - x.seg - x.hit), sum = t.reduce((s, x) => s + x, 0);
	const n = rows.reduce((s, x) => s + x.n, 0);
	return rows.map((x, i) => { const q = t[i] / sum; return (x.n - n * q) / Math.sqrt(n * q * (1 - q)); });
};
console.log('run  hit us  pair us  inside us  samples  z ' + names.join(' / ') + '   fit');
runs.forEach((r, i) => console.log(`${String(i + 1).padStart(3)}  ${(r.sc.uprobe_hit_ns / 1e3).toFixed(2).padStart(6)}` +
	`  ${(r.sc.command_probes_ns / 1e3).toFixed(2).padStart(7)}  ${(r.sc.command_probes_inside_ns / 1e3).toFixed(2).padStart(9)}` +
	`  ${String(r.rows.reduce((s, x) => s + x.n, 0)).padStart(7)}  ${z(r).map((v) => v.toFixed(1).padStart(5)).join(' ')}   ${fit([r])}`));
const zs = runs.map(z);
console.log('z mean: ' + names.map((l, i) => `${l} ${(zs.reduce((s, v) => s + v[i], 0) / zs.length).toFixed(2)}`).join(', ') +
	' (0 when the measured costs are right; about +-1 from run to run)');
console.log('all runs: ' + fit(runs));
EOF
