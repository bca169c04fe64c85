// Checks on muxbpf ab's --out directory, for tests/e2e/ab.sh (node, no packages):
//   node check_ab.js same AB_JSON                     every phase judged same
//   node check_ab.js phase AB_JSON NAME VERDICT       one phase's verdict
//   node check_ab.js slower AB_JSON SHIM_OUT SYSCALL PHASE..
//                                                     the known slowdown in B: slower, the
//                                                     rounds' B - A within 20% of the shim's
//                                                     spin per call x SYSCALL's calls per
//                                                     command, plus B's syscalls' extra CPU
//                                                     (the ledger), the spin first in the self
//                                                     deltas
//   node check_ab.js svg DOM NAME red|blue            a dumped differential graph: NAME's frames
//                                                     in that colour, and every frame in the
//                                                     shade its printed B - A gives
'use strict';
const fs = require('fs');
const [cmd, a, ...rest] = process.argv.slice(2);
const die = (msg) => { console.error('FAIL: ' + msg); process.exit(1); };
const load = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const phase = (j, name) => j.phases.find((p) => p.name === name) || die(`no phase ${name}`);
const row = (p) => `${p.name}: ${p.verdict}, B/A ${p.ratio.toFixed(3)} ` +
	`[${p.ci_low.toFixed(3)}, ${p.ci_high.toFixed(3)}], p ${p.p.toPrecision(2)}`;

if (cmd === 'same') {
	const j = load(a);
	const bad = j.phases.filter((p) => p.verdict !== 'same');
	for (const p of bad) console.error(row(p));
	// not a failure by itself: ab.sh gives such a phase one more run (same_again) and says FAIL
	if (bad.length) {
		console.error(`${bad.length} of ${j.phases.length} phases judged different`);
		process.exit(1);
	}
	console.log(`same: all ${j.phases.length} phases`);
} else if (cmd === 'phase') {
	const p = phase(load(a), rest[0]);
	console.log(row(p));
	if (p.verdict !== rest[1]) die(`${rest[0]} judged ${p.verdict}, expected ${rest[1]}`);
} else if (cmd === 'slower') {
	const j = load(a);
	let calls = 0, ns = 0;
	for (const line of fs.readFileSync(rest[0], 'utf8').split('\n')) {
		const m = /calls (\d+) spin_ns (\d+)/.exec(line);
		if (m) { calls += Number(m[1]); ns += Number(m[2]); }
	}
	if (!calls) die(`${rest[0]}: the shim counted no calls`);
	const perCall = ns / calls / 1e3;
	const median = (v) => {
		const o = [...v].sort((x, y) => x - y), n = o.length;
		return n % 2 ? o[(n - 1) / 2] : (o[n / 2 - 1] + o[n / 2]) / 2;
	};
	for (const name of rest.slice(2)) {
		const p = phase(j, name);
		const w = p.syscalls.find((s) => s.name === rest[1]) || die(`${name}: no ${rest[1]} syscall`);
		const injected = perCall * w.calls.b; // µs of CPU per command the spins took
		/*
		 * The spins also cost B kernel CPU the shim cannot see: its two thread-clock reads'
		 * outer halves, and each reply's write() waking a driver that has gone to sleep in the
		 * 100 µs (1-20 µs a command, more on a busy machine).  The ledger books every syscall's
		 * CPU exactly (test_bpf_ledger checks it against targets' own clocks), so the truth is
		 * the spin plus B - A over all syscalls.  The measure is the median of the paired
		 * rounds' B - A in µs a command, not ratio - 1 against A's median: A's rounds are the
		 * noisy denominator (26-67 µs a command beside a CPU hog), B - A is not.
		 */
		const sys = p.syscalls.reduce((t, s) => t + s.cpu_us.delta, 0);
		const want = injected + sys;
		const got = median(p.b.rounds_us.map((b, i) => b - p.a.rounds_us[i]));
		const top = p.functions[0] ? p.functions[0].name : '(none)';
		console.log(`${row(p)}; A ${p.a.cpu_per_cmd_us.toFixed(2)} us/cmd, B - A ` +
			`${got.toFixed(2)} us/cmd (median of the paired rounds), injected ` +
			`${injected.toFixed(2)} (${perCall.toFixed(2)} us x ${w.calls.b.toFixed(3)} ` +
			`${rest[1]} calls) + syscalls ${sys >= 0 ? '+' : ''}${sys.toFixed(2)} = ` +
			`${want.toFixed(2)} us/cmd (${(100 * got / want).toFixed(0)}%); top self delta ` +
			`${top} ${p.functions[0] ? p.functions[0].self_us.delta.toFixed(2) : ''} us/cmd`);
		if (p.verdict !== 'slower') die(`${name} judged ${p.verdict}`);
		const rounds = [...p.a.rounds_us, ...p.b.rounds_us];
		if (p.a.rounds_us.length !== p.b.rounds_us.length || !rounds.every(Number.isFinite) ||
		    !Number.isFinite(want))
			die(`${name}: no B - A from rounds ${p.a.rounds_us} and ${p.b.rounds_us}`);
		if (Math.abs(got - want) > 0.2 * want)
			die(`${name}: B - A off the injected cost by more than 20%`);
		if (!/shim_spin/.test(top)) die(`${name}: the top self delta is ${top}, not shim_spin`);
	}
} else if (cmd === 'svg') {
	const dom = fs.readFileSync(a, 'utf8');
	const re = /<g class="f[^"]*" id="(f\d+)"[^>]*data-n="([^"]*)"[^>]*><title>[^<]*\(B ([-\d.]+) [^,]*, A ([-\d.]+):[^<]*<\/title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"/g;
	let m, root = null, frames = 0, named = 0, wrong = [];
	while ((m = re.exec(dom))) {
		const [, id, name, bv, av, r, g, b] = m;
		const d = Number(bv) - Number(av);
		const red = Number(r) === 255 && Number(g) === Number(b);
		const blue = Number(b) === 255 && Number(r) === Number(g);
		if (root === null) root = Number(bv) || 1;
		frames++;
		if (name === rest[0]) {
			named++;
			if (rest[1] === 'red' ? !(red && Number(g) < 255) : !(blue && Number(r) < 255))
				wrong.push(`${id} ${name}: rgb(${r},${g},${b}), B - A ${d}`);
		}
		// out_svg.c: 10% of the root's value is full colour (channel 45), nothing is white (255).
		// The title prints B and A to 3 decimals, so d is known to +-0.001: the channel must lie
		// between the shades of d - 0.001 and d + 0.001 (and one more for the int cut).
		const shade = (x) => 255 - Math.trunc(Math.min(1, (10 * Math.max(0, x)) / root) * 210);
		const c = d >= 0 ? Number(g) : Number(r), ad = Math.abs(d);
		const hue = Math.abs(d) <= 0.001 || (d > 0 ? red : blue);
		if (!hue || c < shade(ad + 0.001) - 1 || c > shade(ad - 0.001) + 1)
			wrong.push(`${id} ${name}: rgb(${r},${g},${b}) for B - A = ${d.toFixed(3)} ` +
				`(root ${root}: channel ${shade(ad + 0.001)}..${shade(ad - 0.001)})`);
	}
	if (!frames) die(`${a}: no frames rendered`);
	if (!named) die(`${a}: no frame named ${rest[0]}`);
	if (wrong.length) die(`${a}: colours off their numbers:\n  ${wrong.slice(0, 10).join('\n  ')}`);
	console.log(`svg: ${frames} frames coloured by B - A, ${named} ${rest[0]} frames ${rest[1]}`);
} else {
	die(`unknown command ${cmd}`);
}
