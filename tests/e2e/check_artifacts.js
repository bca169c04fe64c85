// Checks on a muxbpf --out directory, for tests/e2e/artifacts.sh (node, no packages):
//   node check_artifacts.js folded DIR        every PHASE.folded against report.json's tables
//   node check_artifacts.js totals DIR        "SAMPLES CPU_MS": what pprof must total
//   node check_artifacts.js phase DIR NAME    "SAMPLES": one phase's folded samples
//   node check_artifacts.js spread DIR N      every phase carries the spread of N runs
//   node check_artifacts.js asked DIR PHASES [stacks=PCT] [named=DSO:PCT]...
//                                             each asked phase (comma-separated) measured, ok,
//                                             with samples in every run, no negative figure;
//                                             its stacks complete and DSO's samples named
//   node check_artifacts.js rounds DIR TEXT   the printed rounds table against report.json
//   node check_artifacts.js diff DIFF OLD NEW [FNS]
//                                             DIFF/diff.json against the two reports: finite
//                                             figures and intervals, each function once; FNS
//                                             (names one a line): one of them among the rows
//   node check_artifacts.js tooltips DIR      every frame's hover shares and intervals against
//                                             report.json's design factor
//   node check_artifacts.js pick SVG          a frame id to click: depth >= 2, 5%..90% wide
//   node check_artifacts.js zoomed DOM ID     the dumped DOM shows ID zoomed to full width
'use strict';
const fs = require('fs');
const path = require('path');
const [cmd, a, b, ...rest] = process.argv.slice(2);
const die = (msg) => { console.error('FAIL: ' + msg); process.exit(1); };
const report = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));

function foldedCounts(file) {
	const self = new Map(), total = new Map();
	let sum = 0;
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		if (!line) continue;
		const sp = line.lastIndexOf(' ');
		const n = Number(line.slice(sp + 1)), frames = line.slice(0, sp).split(';');
		if (!Number.isInteger(n) || sp < 1) die(`${file}: bad line '${line}'`);
		sum += n;
		const leaf = frames[frames.length - 1];
		self.set(leaf, (self.get(leaf) || 0) + n);
		for (const f of new Set(frames)) total.set(f, (total.get(f) || 0) + n);
	}
	return { self, total, sum };
}

if (cmd === 'folded') {
	let phases = 0, rows = 0;
	for (const p of report(a).phases) {
		const file = path.join(a, p.name + '.folded');
		if (!fs.existsSync(file)) die(`${file} missing`);
		const c = foldedCounts(file);
		if (c.sum !== p.functions.samples)
			die(`${p.name}: folded counts sum to ${c.sum}, the report has ${p.functions.samples} samples`);
		const named = new Set();
		for (const r of p.functions.rows) {
			named.add(r.name);
			if ((c.self.get(r.name) || 0) !== r.self || (c.total.get(r.name) || 0) !== r.total)
				die(`${p.name}: ${r.name}: folded self/total ${c.self.get(r.name) || 0}/` +
				    `${c.total.get(r.name) || 0}, report ${r.self}/${r.total}`);
			rows++;
		}
		for (const f of c.total.keys())
			if (!named.has(f) && f !== '[no stack]')
				die(`${p.name}: folded frame '${f}' is no row of the report`);
		phases++;
	}
	console.log(`folded: ${phases} phases, ${rows} rows: self and total equal the report's`);
} else if (cmd === 'totals') {
	const r = report(a), period = 1e9 / r.freq_hz;
	let samples = 0, cpu = 0;
	for (const p of r.phases) {
		const c = foldedCounts(path.join(a, p.name + '.folded'));
		samples += c.sum;
		for (const line of fs.readFileSync(path.join(a, p.name + '.folded'), 'utf8').split('\n'))
			if (line) cpu += Math.floor(Number(line.slice(line.lastIndexOf(' ') + 1)) * period + 0.5);
		if (p.ledger) cpu += p.ledger.sys_cpu_ns;
	}
	console.log(`${samples} ${(cpu / 1e6).toFixed(3)}`);
} else if (cmd === 'phase') {
	console.log(foldedCounts(path.join(a, b + '.folded')).sum);
} else if (cmd === 'spread') {
	const r = report(a);
	let runsRows = 0, sysRows = 0;
	if (r.runs !== Number(b)) die(`report.json says runs ${r.runs}, expected ${b}`);
	for (const p of r.phases) {
		if (!p.spread || p.spread.runs !== Number(b) || p.spread.per_run.length !== Number(b))
			die(`${p.name}: no spread of ${b} runs`);
		const s = p.spread.oncpu_ns;
		if (!(s.min <= s.median && s.median <= s.max)) die(`${p.name}: min/median/max out of order`);
		if (p.oncpu_ns !== Math.round(s.median)) die(`${p.name}: the table's on-CPU is not the median`);
		if (!p.measured) continue;
		// the runs are the merged phase's batches: its intervals at least Wilson's
		const ro = p.rounds;
		if (!ro || ro.batches_of !== 'runs' || ro.batches !== Number(b) || ro.per_batch.length !== Number(b))
			die(`${p.name}: rounds ${JSON.stringify(ro && { batches_of: ro.batches_of, batches: ro.batches })}, ` +
			    `expected the ${b} runs as batches`);
		if (ro.per_batch.reduce((t, x) => t + x.samples, 0) !== p.functions.samples)
			die(`${p.name}: the runs' samples do not add up to the merged ${p.functions.samples}`);
		if (p.commands && !ro.cpu_per_cmd_us) die(`${p.name}: no CPU per command interval over the runs`);
		for (const row of p.functions.rows) {
			const [lo, hi] = row.self_ci_pct, n = p.functions.samples, q = row.self / n, z = 1.959963984540054;
			const h = 100 * z * Math.sqrt(q * (1 - q) / n + z * z / (4 * n * n)) / (1 + z * z / n);
			// an interval cut at 0 or 100 is narrower than its half-width says: not compared
			const cut = lo < 1e-9 || hi > 100 - 1e-9;
			const bad = row.self_ci_from === 'rounds' ? hi - lo < 2 * h - 1e-6 : Math.abs((hi - lo) / 2 - h) > 1e-6;
			if (bad && !cut)
				die(`${p.name}: ${row.name}: self interval [${lo}, ${hi}] (${row.self_ci_from}) against Wilson +-${h}`);
			runsRows += row.self_ci_from === 'rounds';
		}
		// each syscall: its CPU over the runs' on-CPU (its ms are means per run), the runs' interval
		const runsNs = p.spread.per_run.reduce((t, x) => t + x.oncpu_ns, 0);
		for (const y of (p.ledger && p.ledger.syscalls) || []) {
			const want = 100 * y.cpu_ns * Number(b) / runsNs;
			if (y.ci_from !== 'batches') die(`${p.name}: syscall ${y.name}: ci_from ${y.ci_from}, expected the runs'`);
			// (a mean per run is rounded to the ns: half a ns per run off the sum)
			if (Math.abs(y.oncpu_pct - want) > 100 * 0.5 * Number(b) / runsNs + 1e-9 * want)
				die(`${p.name}: syscall ${y.name}: share ${y.oncpu_pct}%, its CPU over the runs' ${want}%`);
			const ci = y.oncpu_ci_pct;
			if (ci && !(ci[0] <= y.oncpu_pct + 1e-9 && y.oncpu_pct <= ci[1] + 1e-9))
				die(`${p.name}: syscall ${y.name}: share ${y.oncpu_pct}% outside [${ci}]`);
			sysRows += !!ci;
		}
	}
	console.log(`spread: every phase of ${r.phases.length} has ${b} runs; ${runsRows} self intervals from the runs; ` +
		`${sysRows} syscall shares with the runs' interval`);
} else if (cmd === 'asked') {
	// Figures that may be negative: an interval's lower bound (a t interval over 2 runs can
	// reach below 0), the ledger's leftover and the on-CPU cross-check, signed by definition.
	const signed = new Set(['lo', 'leftover_ns', 'leftover_pct', 'oncpu_vs_schedstat_pct']);
	const r = report(a), runs = r.runs || 1, stacksMin = Number((rest.find((x) => x.startsWith('stacks=')) || 'stacks=0').slice(7));
	const negatives = (v, at, out) => {
		if (typeof v === 'number') {
			if (!Number.isFinite(v) || (v < 0 && !signed.has(at.slice(at.lastIndexOf('.') + 1))))
				out.push(`${at} = ${v}`);
		} else if (Array.isArray(v)) {
			v.forEach((x, i) => negatives(x, `${at}[${i}]`, out));
		} else if (v && typeof v === 'object') {
			for (const k of Object.keys(v)) negatives(v[k], `${at}.${k}`, out);
		}
		return out;
	};
	for (const name of b.split(',')) {
		const p = r.phases.find((x) => x.name === name);
		if (!p || !p.measured || !p.ok) die(`phase ${name}: ${p ? p.error || 'not ok' : 'missing'}`);
		if (!(p.functions && p.functions.samples > 0 && p.functions.rows.length > 0))
			die(`phase ${name}: no samples`);
		if (!(p.oncpu_ns > 0 && p.wall_s > 0)) die(`phase ${name}: on-CPU ${p.oncpu_ns} ns, wall ${p.wall_s} s`);
		const neg = negatives(p, name, []);
		if (neg.length) die(`phase ${name}: negative or not finite: ${neg.slice(0, 5).join(', ')}`);
		// every run has the phase, with samples: the runs are the merged phase's batches
		const per = runs > 1 ? (p.rounds && p.rounds.per_batch) || [] : [{ samples: p.functions.samples }];
		if (per.length !== runs || per.some((x) => !(x.samples > 0)))
			die(`phase ${name}: samples per run ${JSON.stringify(per.map((x) => x.samples))}, ${runs} runs`);
		const w = p.sampler && p.sampler.walks, e = p.sampler && p.sampler.walk_end;
		const full = w ? 100 * (e.outermost + e.zero_end) / w : 0;
		console.log(`${name}: ${p.functions.samples} samples (per run ${per.map((x) => x.samples).join(' ')}),` +
			` stacks complete ${full.toFixed(1)}% of ${w}`);
		// boot dlopens engine.so: its samples before the unwinder has its CFI end early
		if (stacksMin && name !== 'boot' && !(full >= stacksMin))
			die(`phase ${name}: stacks reach the outermost frame in ${full.toFixed(1)}%, under ${stacksMin}%`);
	}
	for (const arg of rest.filter((x) => x.startsWith('named='))) {
		const [dso, min] = arg.slice(6).split(':');
		const d = r.symbols.find((s) => s.dso.endsWith('/' + dso));
		if (!d || !(d.samples > 0)) die(`${dso}: no samples`);
		const named = 100 * d.named / d.samples;
		console.log(`${dso}: ${d.samples} samples, named ${named.toFixed(2)}%`);
		if (!(named >= Number(min))) die(`${dso}: named in ${named.toFixed(2)}% of its samples, under ${min}%`);
	}
} else if (cmd === 'rounds') {
	// "phase rounds runs samples ..." rows of the rounds table over the runs
	const r = report(a), text = fs.readFileSync(b, 'utf8');
	let rows = 0;
	for (const p of r.phases.filter((x) => x.measured && x.rounds)) {
		const m = text.match(new RegExp(`^${p.name} +(\\d+) +(\\d+) +(\\d+) `, 'm'));
		if (!m) die(`${p.name}: no row in the rounds table`);
		const [rounds, runs, samples] = m.slice(1).map(Number);
		if (rounds !== p.rounds.count || runs !== r.runs || runs !== p.rounds.batches ||
		    samples !== p.functions.samples)
			die(`${p.name}: the rounds table says ${rounds} rounds, ${runs} runs, ${samples} samples; ` +
			    `report.json ${p.rounds.count}, ${r.runs} (batches ${p.rounds.batches}), ${p.functions.samples}`);
		rows++;
	}
	if (!rows) die('no phase with rounds');
	console.log(`rounds: ${rows} rows agree with report.json (${r.runs} runs)`);
} else if (cmd === 'diff') {
	const d = JSON.parse(fs.readFileSync(path.join(a, 'diff.json'), 'utf8'));
	const ro = report(b), rn = report(rest[0]);
	const fns = rest[1] ? new Set(fs.readFileSync(rest[1], 'utf8').split('\n').filter(Boolean)) : null;
	const signed = new Set(['change_pct', 'delta_pts']);
	const bad = [], named = new Set();
	const walk = (v, at) => {
		if (typeof v === 'number') {
			if (!Number.isFinite(v) || (v < 0 && !signed.has(at.slice(at.lastIndexOf('.') + 1))))
				bad.push(`${at} = ${v}`);
		} else if (Array.isArray(v)) {
			v.forEach((x, i) => walk(x, `${at}[${i}]`));
		} else if (v && typeof v === 'object') {
			for (const k of Object.keys(v)) walk(v[k], `${at}.${k}`);
		}
	};
	walk(d.phases, 'phases');
	if (bad.length) die(`diff.json: negative or not finite: ${bad.slice(0, 5).join(', ')}`);
	if (d.old.runs !== ro.runs || d.new.runs !== rn.runs) die('diff.json: runs differ from the reports\'');
	for (const po of ro.phases.filter((x) => x.measured)) {
		const pn = rn.phases.find((x) => x.name === po.name && x.measured);
		if (!pn) continue;
		const p = d.phases.find((x) => x.name === po.name);
		if (!p) die(`${po.name}: measured in both reports, not in the diff`);
		const m = p.metrics.find((x) => x.key === 'oncpu_ns');
		if (!m || m.old !== po.oncpu_ns || m.new !== pn.oncpu_ns)
			die(`${po.name}: on-CPU ${m && m.old} -> ${m && m.new}, the reports ${po.oncpu_ns} -> ${pn.oncpu_ns}`);
		const rows = p.functions.rows;
		if (!rows.length) die(`${po.name}: no function rows`);
		const names = rows.map((x) => x.name);
		const twice = names.filter((x, i) => names.indexOf(x) !== i);
		if (twice.length) die(`${po.name}: listed twice: ${twice[0]}`);
		for (const x of rows) {
			if (!(x.delta_ci_half_pts > 0)) die(`${po.name}: ${x.name}: interval +-${x.delta_ci_half_pts}`);
			if (fns && fns.has(x.name)) named.add(x.name);
		}
		const c = p.runs_cpu_per_cmd;
		if (ro.runs > 1 && rn.runs > 1 && (!c || !(0 < c.ci_low && c.ci_low <= c.ratio && c.ratio <= c.ci_high)))
			die(`${po.name}: CPU per command over the runs ${JSON.stringify(c)}`);
		console.log(`${po.name}: ${rows.length} functions, CPU/cmd new/old ${c ? c.ratio.toFixed(3) +
			` [${c.ci_low.toFixed(3)}, ${c.ci_high.toFixed(3)}]` : '-'}`);
	}
	if (fns && !named.size) die(`no function of ${rest[1]} among the diff's rows`);
	if (fns) console.log(`named from ${path.basename(rest[1])}: ${[...named].slice(0, 3).join('; ')}` +
		`${named.size > 3 ? ` and ${named.size - 3} more` : ''}`);
} else if (cmd === 'tooltips') {
	// Wilson's interval as stats.c computes it, widened about the share by the phase's factor
	const half = (k, n, f) => {
		const z = 1.959963984540054, p = k / n, d = 1 + z * z / n;
		const c = (p + z * z / (2 * n)) / d, h = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
		let lo = Math.max(0, c - h), hi = Math.min(1, c + h);
		if (f > 1) {
			lo = Math.max(0, p - (p - lo) * f);
			hi = Math.min(1, p + (hi - p) * f);
		}
		return { half: 100 * (hi - lo) / 2, wide: hi - lo > p };
	};
	// a frame's value is printed to 0.1 and rounded to a whole count for Wilson (kernel time
	// adds sample-equivalents): either neighbour of the printed value may be the count
	const matches = (v, n, f, want, mark) => [Math.floor(v), Math.ceil(v)].some((k) => {
		const h = half(k, n, f);
		return Math.abs(want - h.half) <= 0.006 && (mark === '?') === h.wide;
	});
	// the self count behind a printed self share: any whole count (or a count of samples and
	// sample-equivalents, rounded) that prints as that share
	const selfMatches = (s, total, want, f, mark) => {
		const lo = Math.max(0, Math.floor((s - 0.005) * total / 100 - 0.5));
		const hi = Math.ceil((s + 0.005) * total / 100 + 0.5);
		for (let k = lo; k <= hi; k++) {
			if (Math.abs(100 * k / total - s) > 0.005 + 50 / total + 1e-9) continue;
			const h = half(k, Math.round(total), f);
			if (Math.abs(want - h.half) <= 0.006 && (mark === '?') === h.wide) return true;
		}
		return false;
	};
	const re = /<title>[^<]*? \(([\d.]+) samples, self ([\d.]+)% \+-([\d.]+)(\??), total ([\d.]+)% \+-([\d.]+)(\??)[,)]/g;
	let frames = 0, widened = 0, marked = 0, marked_total = 0;
	for (const p of report(a).phases) {
		const file = path.join(a, p.name + '.svg');
		if (!fs.existsSync(file)) continue;
		const svg = fs.readFileSync(file, 'utf8');
		const total = Number(/data-total="([\d.]+)"/.exec(svg)[1]);
		const f = p.rounds && p.rounds.design_factor !== null ? p.rounds.design_factor : 1;
		if (f < 1) die(`${p.name}: design factor ${f} below 1`);
		if (!svg.includes(f > 1 ? `Wilson x${f.toFixed(2)}` : 'shares +- 95%: Wilson'))
			die(`${p.name}: the subtitle does not name the intervals' source (factor ${f})`);
		let m, n = 0;
		while ((m = re.exec(svg))) {
			const v = Number(m[1]), all = Math.round(total);
			if (Math.abs(Number(m[5]) - 100 * v / total) > 0.006 + 5 / total)
				die(`${p.name}: total ${m[5]}% for ${v} of ${total}`);
			if (!matches(v, all, f, Number(m[6]), m[7]))
				die(`${p.name}: total ${m[5]}% +-${m[6]}${m[7]} for ${v} of ${all}: not Wilson x${f}`);
			if (Number(m[2]) > Number(m[5]) + 1e-9) die(`${p.name}: self ${m[2]}% above total ${m[5]}%`);
			if (!selfMatches(Number(m[2]), total, Number(m[3]), f, m[4]))
				die(`${p.name}: self ${m[2]}% +-${m[3]}${m[4]} of ${all}: no self count gives that Wilson x${f} interval and mark`);
			marked += m[4] === '?';
			marked_total += m[7] === '?';
			n++;
		}
		if (p.functions.samples && !n) die(`${p.name}: no frame with self and total intervals`);
		frames += n;
		widened += f > 1 ? n : 0;
	}
	if (!frames) die('no tooltips checked');
	console.log(`tooltips: ${frames} frames' self and total intervals, ${widened} widened by their ` +
		`phase's design factor, ${marked} self and ${marked_total} total shares marked ?`);
} else if (cmd === 'pick') {
	const svg = fs.readFileSync(a, 'utf8');
	const re = /<g class="f" id="(f\d+)" data-x="([\d.]+)" data-w="([\d.]+)" data-d="(\d+)"/g;
	let m, best = null;
	while ((m = re.exec(svg))) {
		const w = Number(m[3]), d = Number(m[4]);
		if (d >= 2 && w >= 0.05 && w <= 0.9 && (!best || d > best.d)) best = { id: m[1], w, d };
	}
	if (!best) die(`${a}: no frame to click`);
	console.log(`${best.id} ${best.w}`);
} else if (cmd === 'zoomed') {
	const dom = fs.readFileSync(a, 'utf8');
	if (!dom.includes(`data-zoom="${b}"`)) die(`the root has no data-zoom="${b}"`);
	const g = new RegExp(`<g class="f[^"]*" id="${b}"[^>]*>.*?<rect x="([\\d.]+)" y="\\d+" width="([\\d.]+)"`, 's').exec(dom);
	if (!g) die(`frame ${b} not found in the DOM`);
	if (Number(g[1]) !== 10 || Number(g[2]) !== 1180)
		die(`frame ${b} at x=${g[1]} width=${g[2]} after the click, expected 10 and 1180`);
	const hidden = (dom.match(/class="f hide"/g) || []).length;
	const parents = (dom.match(/class="f parent"/g) || []).length;
	if (!hidden || !parents) die(`zoom hid ${hidden} frames and dimmed ${parents} parents`);
	console.log(`zoomed: ${b} spans the width, ${hidden} frames hidden, ${parents} parents dimmed`);
} else {
	die(`unknown command ${cmd}`);
}
