// The softcode views' checks on one report.json (tests/e2e/softcode.sh).
//   node check_softcode.js REPORT.json TOLERANCE_PCT [attach]
// Window "mixed" runs $slow, $ufn, $fast interleaved, COUNT each; windows "slow", "ufn", "fast"
// run each alone.  --by command must order mixed's rows slow > ufn > fast, and their CPU per
// command must be within TOLERANCE of each one's alone window: its exact on-CPU / its count.
// --by softcode must show HeavyObj's FN_HEAVY under SoftObj's $ufn, named.
'use strict';
const fs = require('fs');
const r = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const tol = Number(process.argv[3]) / 100;
const errors = [];
const sc = r.softcode;
if (!sc || !sc.available) {
	console.log(`FAIL: softcode views unavailable: ${sc ? sc.why : 'no softcode section'}`);
	process.exit(1);
}
const phase = (name) => r.phases.find((p) => p.name === name);
const scphase = (name) => sc.phases.find((p) => p.name === name);
const row = (name, label) => (scphase(name).commands || []).find((c) => c.command.startsWith(label + ' '));
const out = [];
let prev = Infinity;
for (const cmd of ['slow', 'ufn', 'fast']) {
	const m = row('mixed', '$' + cmd);
	const alone = phase(cmd);
	const a = row(cmd, '$' + cmd);
	if (!m || !alone || !a) {
		errors.push(`no $${cmd} row in the mixed or the ${cmd} window`);
		continue;
	}
	if (m.runs !== a.runs)
		errors.push(`$${cmd}: ${m.runs} runs in mixed, ${a.runs} alone`);
	const per = m.cpu_ns / m.runs;
	const truth = alone.oncpu_ns / a.runs;
	const d = (per - truth) / truth;
	out.push(`$${cmd} ${(per / 1e3).toFixed(1)} us/cmd mixed vs ${(truth / 1e3).toFixed(1)} alone (${(100 * d).toFixed(1)}%)`);
	if (Math.abs(d) > tol)
		errors.push(`$${cmd}: ${(per / 1e3).toFixed(1)} us per command in mixed, ${(truth / 1e3).toFixed(1)} alone (${(100 * d).toFixed(1)}%, more than ${100 * tol}%)`);
	if (per >= prev)
		errors.push(`$${cmd} is not cheaper than the command before it in slow > ufn > fast`);
	prev = per;
}
const paths = scphase('mixed').softcode.map((p) => p.path);
if (!paths.some((p) => /^SoftObj\(#\d+\)\/CMD_UFN > HeavyObj\(#\d+\)\/FN_HEAVY$/.test(p)))
	errors.push(`no "SoftObj(#N)/CMD_UFN > HeavyObj(#M)/FN_HEAVY" in mixed's softcode paths: ${JSON.stringify(paths)}`);
console.log(out.join('; '));
for (const e of errors)
	console.log(`FAIL: ${e}`);
process.exit(errors.length ? 1 : 0);
