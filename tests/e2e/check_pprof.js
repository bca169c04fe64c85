// pprof's inline chains against muxbpf's own views, for tests/e2e/artifacts.sh:
//   node check_pprof.js DIR PHASE TOP NOINLINES RAW
// TOP, NOINLINES: `go tool pprof -top` and `-noinlines -top` of DIR/profile.pb.gz (every node
// shown, sample_index=samples, focused on PHASE); RAW: `go tool pprof -raw` of it.  pprof reads
// the same samples as report.json, so the counts agree exactly (no tolerance: nothing is
// sampled twice):
//   - RAW: a location holds an inline chain in its lines, innermost first; a sample's locations'
//     lines, one after the other, are its stack as muxbpf's PHASE.folded has it, and some
//     location has more than one line (the default target inlines: a chain written as a
//     location per frame has none);
//   - TOP (inlined functions as rows of their own, as muxbpf lists them): each function's flat
//     count is its self count in report.json's function view;
//   - NOINLINES: each function's flat count is muxbpf's function view with inlines folded: the
//     samples whose leaf location's last line (the function that holds the address) it is.
// TOP and NOINLINES shorten names (no argument lists, templates, clone suffixes): compared so.
'use strict';
const fs = require('fs');
const path = require('path');
const [dir, phase, topFile, noinlFile, rawFile] = process.argv.slice(2);
const die = (msg) => { console.error('FAIL: ' + msg); process.exit(1); };
const add = (m, k, v) => m.set(k, (m.get(k) || 0) + v);

function short(name) {
	let s = name.replace(/ \((partial-)?inline\)$/, '').replace(/ \[clone [^\]]*\]/g, '');
	for (let prev = ''; prev !== s;) {
		prev = s;
		s = s.replace(/\([^()]*\)/g, '').replace(/<[^<>]*>/g, '');
	}
	return s.replace(/\s+/g, ' ').trim();
}

// "flat flat% sum% cum cum% NAME" rows: {short name: flat}
function pprofTop(file) {
	const flat = new Map();
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		const m = line.match(/^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(.*)$/);
		if (m)
			add(flat, short(m[2]), Number(m[1]));
	}
	return flat;
}

// -raw: {locations: id -> [full names, innermost first], samples: [{count, ids, phase}]}
function pprofRaw(file) {
	const locs = new Map(), samples = [];
	const name = (short_, full) => full || short_;
	let sec = null, last = null;
	for (const l of fs.readFileSync(file, 'utf8').split('\n')) {
		if (l === 'Samples:' || l === 'Locations' || l === 'Mappings') {
			sec = l;
			continue;
		}
		if (sec === 'Samples:') {
			let m = l.match(/^\s*(\d+)\s+\d+: ([\d ]+)$/);
			if (m)
				samples.push({ count: Number(m[1]), ids: m[2].trim().split(/\s+/).map(Number) });
			else if ((m = l.match(/phase:\[(\w+)\]/)) && samples.length)
				samples[samples.length - 1].phase = m[1];
		} else if (sec === 'Locations') {
			// "ID: ADDR M=N NAME FILE:LINE s=0(FULL NAME)", then a line per outer function
			let m = l.match(/^\s*(\d+): 0x[0-9a-f]+(?: M=\d+)? (.*?)(?: \S*:\d+)? s=\d+(?:\((.*)\))?$/);
			if (m) {
				last = Number(m[1]);
				locs.set(last, [name(m[2], m[3])]);
			} else if ((m = l.match(/^\s+(.*?)(?: \S*:\d+)? s=\d+(?:\((.*)\))?$/)) && last)
				locs.get(last).push(name(m[1], m[2]));
		}
	}
	return { locs, samples };
}

const rep = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
const p = rep.phases.find((q) => q.name === phase) || die(`no phase ${phase} in report.json`);
const own = new Map();
for (const r of p.functions.rows)
	add(own, short(r.name), r.self);
const raw = pprofRaw(rawFile);

// 1. the chains: pprof's stacks, lines expanded, are muxbpf's folded stacks
const want = new Map(), got = new Map(), folded = new Map();
for (const line of fs.readFileSync(path.join(dir, `${phase}.folded`), 'utf8').split('\n')) {
	const m = line.match(/^(.*) (\d+)$/);
	if (m)
		add(want, m[1], Number(m[2]));
}
let chains = 0, inlined = 0, total = 0;
for (const l of raw.locs.values())
	chains += l.length > 1;
for (const s of raw.samples.filter((q) => q.phase === phase && q.count > 0)) {
	const frames = s.ids.flatMap((id) => raw.locs.get(id) || die(`no location ${id}`));
	const leaf = raw.locs.get(s.ids[0]);
	add(got, frames.slice().reverse().join(';'), s.count);
	add(folded, short(leaf[leaf.length - 1]), s.count);
	inlined += leaf.length > 1 ? s.count : 0;
	total += s.count;
}
for (const k of new Set([...want.keys(), ...got.keys()]))
	if ((want.get(k) || 0) !== (got.get(k) || 0))
		die(`${phase}: stack ${k.slice(-200)}: pprof ${got.get(k) || 0}, muxbpf ${want.get(k) || 0}`);
if (!chains)
	die('no location holds an inline chain: inlined frames were written as locations of their own');

// 2. -top against the report's rows; 3. -noinlines against them with inlines folded
for (const [file, flag, truth, what] of [[topFile, '-top', own, "muxbpf's function view"],
	[noinlFile, '-noinlines -top', folded, "muxbpf's view with inlines folded"]]) {
	const flat = pprofTop(file);
	for (const n of new Set([...truth.keys(), ...flat.keys()]))
		if ((truth.get(n) || 0) !== (flat.get(n) || 0))
			die(`${phase}: ${n}: pprof ${flag} ${flat.get(n) || 0} samples, ${what} ` +
			    `${truth.get(n) || 0}`);
}
console.log(`${phase}: ${total} samples; ${chains} of the profile's locations hold an ` +
	`inline chain; pprof -top = muxbpf's ${own.size} function rows; -noinlines = ` +
	`${folded.size} rows, ${inlined} samples at an inlined leaf folded into the function that ` +
	'holds it');
