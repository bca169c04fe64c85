// report.html in headless Chromium (puppeteer-core from BUILD/npm, the machine's chromium):
//   node check_html.js NPM_DIR run  DIR SHOT_PREFIX [stripped]   DIR/report.html against DIR/report.json
//   node check_html.js NPM_DIR diff DIR SHOT_PREFIX               DIR/report.html against DIR/diff.json
//   node check_html.js NPM_DIR ab   DIR SHOT_PREFIX               DIR/report.html against DIR/ab.json
// Loads the page from file:// with the network cut off, and fails on a console error, a page
// error or any request that is not file://.  Then, as a person would: every phase has its
// section, a click on a frame zooms its flame graph, a search matches, a click on a header
// reorders a table, the view switch changes the rows, and the numbers shown equal the JSON's.
// Screenshots go to SHOT_PREFIX-top.png and SHOT_PREFIX-phase.png.  Prints the load time.
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const [npmDir, kind, dir, shot, flag] = process.argv.slice(2);
const puppeteer = require(path.join(path.resolve(npmDir), 'node_modules', 'puppeteer-core'));
class Fail extends Error {}
const die = (msg) => { throw new Fail(msg); }; // main() closes the browser, then exits 1
const readJson = (f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));

// A number as the page shows it ("1.23", "-", "12") equals v to the digits shown.
function same(text, v) {
	if (v === null || v === undefined) return text === '-';
	const d = (text.split('.')[1] || '').length, x = Number(text);
	return Number.isFinite(x) && Math.abs(x - v) <= 0.5 * Math.pow(10, -d) + 1e-9 * Math.abs(v);
}

async function main() {
	const page_path = path.resolve(dir, 'report.html');
	const size = fs.statSync(page_path).size;
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'muxbpf-chrome-'));
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true, userDataDir: profile,
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', '--no-first-run'],
	});
	const problems = [];
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1440, height: 1000 });
		await page.setRequestInterception(true);
		page.on('request', (req) => {
			const u = req.url();
			if (u.startsWith('file://') || u.startsWith('data:') || u.startsWith('about:')) req.continue();
			else { problems.push('request to ' + u); req.abort(); }
		});
		page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
		page.on('pageerror', (e) => problems.push('page error: ' + e.message));
		const t0 = Date.now();
		await page.goto('file://' + page_path, { waitUntil: 'load', timeout: 60000 });
		await page.waitForSelector('body[data-ready]', { timeout: 30000 });
		const loadMs = Date.now() - t0;
		if (kind === 'run') await checkRun(page);
		else if (kind === 'diff') await checkDiff(page);
		else if (kind === 'ab') await checkAb(page);
		else die('unknown kind ' + kind);
		if (problems.length) die(problems.join('; '));
		console.log(`html ${kind}: ${(size / 1024).toFixed(0)} KiB, loaded and rendered in ${loadMs} ms; ` +
			`screenshots ${shot}-top.png, ${shot}-phase.png`);
	} finally {
		await browser.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

async function screenshots(page, section) {
	// as a reader first sees it: the search cleared, the graph unzoomed
	for (const b of await page.$$(section + ' .tools button:nth-of-type(n+2)')) await b.click();
	await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
	await page.screenshot({ path: shot + '-top.png' });
	const sec = await page.$(section);
	await sec.evaluate((e) => e.scrollIntoView({ behavior: 'instant' }));
	await page.screenshot({ path: shot + '-phase.png' });
}

// Click a frame (the deepest that is 1%..99% wide: a small A/B run's graph can have no frame
// between 5% and 90% below depth 2) of the graph in sel; it must then span the width.
async function zoomOne(page, sel) {
	const id = await page.$eval(sel + ' svg.flame', (svg) => {
		let best = null;
		for (const g of svg.querySelectorAll('g.f')) {
			const w = +g.dataset.w, d = +g.dataset.d;
			if (d >= 1 && w >= 0.01 && w <= 0.99 && (!best || d > best.d)) best = { id: g.id, d };
		}
		return best && best.id;
	});
	if (!id) die(`${sel}: no frame to click`);
	const g = await page.$(`${sel} [id="${id}"] rect`);
	await g.evaluate((e) => e.scrollIntoView({ block: 'center' }));
	await g.click();
	const z = await page.$eval(sel + ' svg.flame', (svg, id) => {
		const r = svg.querySelector(`[id="${id}"] rect`);
		return { zoom: svg.getAttribute('data-zoom'), x: r.getAttribute('x'), w: r.getAttribute('width'),
			hidden: svg.querySelectorAll('g.f.hide').length, parents: svg.querySelectorAll('g.f.parent').length };
	}, id);
	if (z.zoom !== id || Number(z.x) !== 10 || Number(z.w) !== 1180 || !z.hidden)
		die(`${sel}: the click on ${id} did not zoom: ${JSON.stringify(z)}`);
	return id;
}

async function searchAll(page, sel) {
	await page.$eval(sel + ' .tools input', (i) => { i.value = ''; });
	await page.type(sel + ' .tools input', '.');
	await page.keyboard.press('Enter');
	const m = await page.$eval(sel + ' svg.flame', (s) => s.getAttribute('data-matched'));
	if (m !== '100.00') die(`${sel}: search '.' matched ${m}, not 100.00`);
}

// Click the header labelled label of the table sel; the first column's order must change.
async function sortChanges(page, sel, label) {
	const col = (t) => Array.from(t.tBodies[0].rows).map((r) => r.cells[r.cells.length - 1].textContent).join('\n');
	const before = await page.$eval(sel, col);
	const th = await page.evaluateHandle((sel, label) =>
		Array.from(document.querySelector(sel).tHead.rows[0].cells).find((c) => c.textContent === label), sel, label);
	if (!th.asElement()) die(`${sel}: no header ${label}`);
	await th.asElement().evaluate((e) => e.scrollIntoView({ block: 'center' }));
	await th.asElement().click();
	const after = await page.$eval(sel, col);
	if (before === after) die(`${sel}: sorting by ${label} did not change the order`);
	const sorted = await page.$eval(sel, (t) => t.getAttribute('data-sorted'));
	return sorted;
}

// Rows of a table: { name: text of the last non-numeric cell, cells: [{ text, v }] }.
const tableRows = (page, sel) => page.$eval(sel, (t) => Array.from(t.tBodies[0].rows).map((r) =>
	Array.from(r.cells).map((c) => ({ text: c.textContent, v: c.dataset.v === undefined ? null : Number(c.dataset.v) }))));

// --by command: every phase's command card shows report.json's rows, with their intervals and,
// in exact mode, cmds and us/cmd with theirs.  Returns the numbers checked (0 without the view).
async function checkCommands(page, r) {
	const sc = r.softcode;
	if (!sc || !sc.available) return 0;
	const range = (c, d) => (c ? `${c[0].toFixed(d)}\u2013${c[1].toFixed(d)}` : '-');
	let checked = 0, cards = 0;
	for (const ph of sc.phases.filter((q) => q.commands.length)) {
		const p = r.phases.find((q) => q.id === ph.id);
		const sel = `section[data-phase="${p.name}"] table.cmds`;
		const rows = await tableRows(page, sel);
		if (rows.length !== ph.commands.length) die(`${p.name}: ${rows.length} command rows, report.json ${ph.commands.length}`);
		rows.forEach((c, i) => {
			const x = ph.commands[i], u = x.cpu_per_cmd_us, name = c[c.length - 1].text;
			let bad = name !== x.command || !same(c[0].text, x.share_pct) || c[1].text !== range(x.share_ci_pct, 1) ||
				c[2].v !== x.samples;
			if (sc.exact)
				bad = bad || c[3].v !== x.runs || !same(c[4].text, u ? u.value : null) ||
					c[5].text !== (u ? range([u.lo, u.hi], 2) : '-');
			if (bad) die(`${p.name} command row ${i}: page ${c.map((y) => y.text).join(' | ')}, report.json ${JSON.stringify(x)}`);
			checked += sc.exact ? 7 : 4;
		});
		cards++;
	}
	if (!cards) die('report.json has the softcode views but no phase has command rows');
	console.log(`html run: ${cards} command cards, ${checked} numbers equal report.json's`);
	return checked;
}

async function checkRun(page) {
	const r = readJson('report.json');
	// every phase has its section
	const secs = await page.$$eval('section.phase', (s) => s.map((e) => e.dataset.phase));
	const want = r.phases.map((p) => p.name);
	if (r.profiled && secs.join() !== want.join()) die(`sections ${secs} != phases ${want}`);
	// the phase table's numbers are report.json's
	const rows = await tableRows(page, 'table.phases');
	if (rows.length !== r.phases.length) die(`phase table has ${rows.length} rows`);
	const cols = [['wall s', (p) => p.wall_s], ['cmds', (p) => (p.measured && p.commands ? p.commands : null)],
		['cmd/s', (p) => p.cmd_per_s], ['on-CPU ms', (p) => p.oncpu_ns / 1e6], ['usr ms', (p) => (p.usr_ns === null ? null : p.usr_ns / 1e6)],
		['sys ms', (p) => (p.sys_ns === null ? null : p.sys_ns / 1e6)], ['samples', (p) => p.samples],
		['wakeups', (p) => (p.ledger ? p.ledger.wakeups : null)], ['rounds', (p) => (p.rounds ? p.rounds.count : null)]];
	const heads = await page.$eval('table.phases', (t) => Array.from(t.tHead.rows[0].cells).map((c) => c.textContent));
	let checked = 0;
	for (const row of rows) {
		const p = r.phases.find((q) => q.name === row[0].text);
		if (!p) die(`phase table row ${row[0].text} is no phase of report.json`);
		for (const [label, get] of cols) {
			const c = row[heads.indexOf(label)];
			if (!same(c.text, get(p))) die(`${p.name} ${label}: page ${c.text}, report.json ${get(p)}`);
			checked++;
		}
	}
	// the busiest phase: functions (shares and their 95% intervals), syscalls, balance vs report.json
	const busy = r.phases.filter((p) => p.functions.rows.length > 1 && p.ledger && p.ledger.syscalls.length > 1)
		.sort((a, b) => b.samples - a.samples)[0];
	if (!busy) die('no phase with functions and syscalls to check');
	const sel = `section[data-phase="${busy.name}"]`;
	const fn = await tableRows(page, sel + ' table.fn');
	if (fn.length !== busy.functions.rows.length) die(`${busy.name}: ${fn.length} function rows, report.json ${busy.functions.rows.length}`);
	fn.forEach((c, i) => {
		const w = busy.functions.rows[i];
		const ci = (r) => `${r[0].toFixed(1)}\u2013${r[1].toFixed(1)}`;
		if (c[6].text !== w.name || c[4].v !== w.self || c[5].v !== w.total || !same(c[0].text, w.self_pct) || !same(c[2].text, w.total_pct) ||
		    c[1].text !== ci(w.self_ci_pct) || c[3].text !== ci(w.total_ci_pct))
			die(`${busy.name} function row ${i}: page ${c.map((x) => x.text).join(' | ')}, report.json ${JSON.stringify(w)}`);
		checked += 9;
	});
	const sys = await tableRows(page, sel + ' table.sys');
	sys.forEach((c, i) => {
		const y = busy.ledger.syscalls[i];
		const ci = (r, d) => y.ci_from !== 'batches' ? y.ci_from === 'once' ? 'once' : '-' : r ? `${r[0].toFixed(d)}\u2013${r[1].toFixed(d)}` : '?';
		if (c[0].text !== y.name || c[1].v !== y.count || c[2].v !== y.cpu_ns || !same(c[2].text, y.cpu_ns / 1e6) || !same(c[3].text, y.wall_ns / 1e6) ||
		    !same(c[4].text, y.oncpu_pct) || c[5].text !== ci(y.oncpu_ci_pct, 2) || !same(c[6].text, y.us_per_call) ||
		    c[7].text !== ci(y.us_per_call_ci, 1))
			die(`${busy.name} syscall row ${i}: page ${c.map((x) => x.text).join(' | ')}, report.json ${JSON.stringify(y)}`);
		checked += 8;
	});
	checked += await checkCommands(page, r);
	const bar = await page.$$eval(sel + ' .balance div', (d) => d.map((e) => Number(e.dataset.ns)));
	const l = busy.ledger;
	// the bar shows the runtime before switch-in once (in on-CPU), so off-CPU in syscalls less it
	const off = Math.max(0, l.sys_off_ns - l.rt_before_in_ns);
	if (bar[0] !== l.user_ns || bar[1] !== l.sys_cpu_ns || bar[2] !== off || bar[3] !== l.preempt_user_ns ||
	    bar[5] !== l.stolen_ns)
		die(`${busy.name}: balance bar ${bar}, report.json ${l.user_ns} ${l.sys_cpu_ns} ${l.sys_off_ns} - ${l.rt_before_in_ns} ${l.preempt_user_ns} (stolen ${l.stolen_ns})`);
	// the view switch: another view's rows replace the function rows
	const other = Object.keys(busy.functions.views).find((k) => busy.functions.views[k].length > 1);
	if (other) {
		await page.click(`${sel} .seg button[data-view="${other}"]`);
		const v = await tableRows(page, sel + ' table.fn');
		if (v.length !== busy.functions.views[other].length || v[0][6].text !== busy.functions.views[other][0].name)
			die(`${busy.name}: the ${other} view shows ${v.length} rows led by ${v[0] && v[0][6].text}`);
		await page.click(`${sel} .seg button[data-view="function"]`);
	} else if (flag !== 'stripped') {
		die(`${busy.name}: report.json has no other view to switch to`);
	}
	// sorting: by name, then by self again
	const s1 = await sortChanges(page, sel + ' table.fn', 'function');
	const s2 = await sortChanges(page, sel + ' table.fn', 'self %');
	// flame graph: a click zooms, a search matches everything
	const id = await zoomOne(page, sel);
	await searchAll(page, sel);
	if (flag === 'stripped') {
		const s = await page.$eval('table.syms', (t) => t.textContent);
		if (!/STRIPPED, no debuginfo/.test(s)) die('the symbols table has no STRIPPED line');
		const names = busy.functions.rows.map((x) => x.name).join('\n');
		if (!/\[netmux\+0x[0-9a-f]+\]/.test(names)) die('no DSO+offset names in report.json');
		const shown = await page.$eval(sel + ' table.fn', (t) => t.textContent);
		if (!/\[netmux\+0x[0-9a-f]+\]/.test(shown)) die('the page shows no DSO+offset names');
		const frames = await page.$eval(sel + ' svg.flame', (s) => Array.from(s.querySelectorAll('g.f')).map((g) => g.dataset.n).join('\n'));
		if (!/\[netmux\+0x[0-9a-f]+\]/.test(frames)) die('the flame graph has no DSO+offset frames');
	}
	await screenshots(page, sel);
	console.log(`html run: ${secs.length} phase sections; ${checked} numbers equal report.json's; ` +
		`${busy.name}: sorted (${s1}, then ${s2}), #${id} zoomed, search '.' 100%${other ? ', view ' + other : ''}` +
		(flag === 'stripped' ? '; STRIPPED line and DSO+offset names' : ''));
}

// Red (grew) and blue (shrank) frames of the differential graph in sel.
async function redBlue(page, sel) {
	const fills = await page.$eval(sel + ' svg.flame', (s) => Array.from(s.querySelectorAll('g.f rect')).map((r) => r.getAttribute('fill')));
	const red = fills.filter((f) => /^rgb\(255,(\d+),\1\)$/.test(f) && Number(f.split(',')[1]) < 250).length;
	const blue = fills.filter((f) => /^rgb\((\d+),\1,255\)$/.test(f) && Number(f.slice(4).split(',')[0]) < 250).length;
	return { red, blue };
}

async function checkDiff(page) {
	const d = readJson('diff.json');
	const verdict = await page.$eval('.verdicts', (e) => e.textContent);
	const want = d.beyond ? `${d.beyond} change${d.beyond === 1 ? '' : 's'} beyond noise` : 'no change beyond noise';
	if (!verdict.includes(want)) die(`the verdict card says '${verdict}', diff.json ${want}`);
	const first = await page.$eval('main', (m) => m.firstElementChild.classList.contains('verdicts'));
	if (!first) die('the verdicts are not first');
	const phases = d.phases.filter((p) => !p.only_in);
	const secs = await page.$$eval('section.phase', (s) => s.map((e) => e.dataset.phase));
	if (secs.join() !== phases.map((p) => p.name).join()) die(`sections ${secs} != diff.json's phases`);
	let checked = 0, graphs = 0, red = 0, blue = 0, zoomed = null, sorted = null;
	for (const p of phases) {
		const sel = `section[data-phase="${p.name}"]`;
		const rows = await tableRows(page, sel + ' table.metrics');
		if (rows.length !== p.metrics.length) die(`${p.name}: ${rows.length} metric rows, diff.json ${p.metrics.length}`);
		rows.forEach((c, i) => {
			const m = p.metrics[i];
			if (c[0].text !== m.label || !same(c[1].text, m.old * m.scale) || !same(c[2].text, m.new * m.scale) ||
			    (m.change_pct !== null && !same(c[3].text, m.change_pct)) || c[5].text !== m.verdict)
				die(`${p.name} ${m.label}: page ${c.map((x) => x.text).join(' | ')}, diff.json ${JSON.stringify(m)}`);
			checked += 4;
		});
		if (p.functions && p.functions.rows.length) {
			const fr = await tableRows(page, sel + ' table.deltas');
			fr.forEach((c, i) => {
				const x = p.functions.rows[i];
				const lead = (t) => t.split(' ')[0];
				if (c[6].text !== x.name || !same(c[0].text, x.delta_pts) || !same(c[1].text, x.delta_ci_half_pts) ||
				    !same(lead(c[2].text), x.old_pct) || !same(lead(c[3].text), x.new_pct) || !same(c[4].text, x.sigma_pts) ||
				    !c[2].text.endsWith('\u00b1' + x.old_ci_half_pts.toFixed(1)) || !c[3].text.endsWith('\u00b1' + x.new_ci_half_pts.toFixed(1)))
					die(`${p.name} delta row ${i}: page ${c.map((y) => y.text).join(' | ')}, diff.json ${JSON.stringify(x)}`);
				checked += 7;
			});
			if (!sorted && fr.length > 2) {
				sorted = p.name + ': ' + await sortChanges(page, sel + ' table.deltas', 'function');
				sorted += ', then ' + await sortChanges(page, sel + ' table.deltas', 'delta pts');
			}
		}
		if (p.syscalls && p.syscalls.length) {
			const sr = await tableRows(page, sel + ' table.sysdiff');
			if (sr.length !== p.syscalls.length) die(`${p.name}: ${sr.length} syscall rows, diff.json ${p.syscalls.length}`);
			sr.forEach((c, i) => {
				const x = p.syscalls[i];
				const half = (h) => h === null ? ' (no interval)' : ' \u00b1' + h.toFixed(2);
				if (c[0].text !== x.name || !same(c[2].text.split(' ')[0], x.old) || !same(c[3].text.split(' ')[0], x.new) ||
				    !c[2].text.endsWith(half(x.old_ci_half)) || !c[3].text.endsWith(half(x.new_ci_half)) || c[4].text !== (x.beyond ? '*' : ''))
					die(`${p.name} syscall row ${i}: page ${c.map((y) => y.text).join(' | ')}, diff.json ${JSON.stringify(x)}`);
				checked += 5;
			});
		}
		if (await page.$(sel + ' svg.flame')) {
			graphs++;
			const rb = await redBlue(page, sel);
			red += rb.red;
			blue += rb.blue;
			if (!zoomed && rb.red && rb.blue) { zoomed = p.name; await zoomOne(page, sel); await searchAll(page, sel); }
		}
	}
	if (!graphs) die('no differential flame graph on the page');
	if (!red || !blue) die(`the differential graphs have ${red} red and ${blue} blue frames`);
	if (!zoomed) die('no graph with both red and blue frames to zoom');
	if (!sorted) die('no function delta table to sort');
	await screenshots(page, `section[data-phase="${zoomed}"]`);
	console.log(`html diff: verdict first ('${want}'), ${secs.length} phase sections, ${checked} numbers equal diff.json's, ` +
		`${graphs} differential graphs (${red} red, ${blue} blue frames), ${zoomed} zoomed, sorted ${sorted}`);
}

async function checkAb(page) {
	const d = readJson('ab.json');
	const first = await page.$eval('main', (m) => m.firstElementChild.classList.contains('verdicts'));
	if (!first) die('the verdicts are not first');
	const secs = await page.$$eval('section.phase', (s) => s.map((e) => e.dataset.phase));
	if (secs.join() !== d.phases.map((p) => p.name).join()) die(`sections ${secs} != ab.json's phases`);
	// the verdict table: one row per phase, as ab.json has it
	const vt = await tableRows(page, 'table.abverdicts');
	if (vt.length !== d.phases.length) die(`${vt.length} verdict rows, ab.json ${d.phases.length} phases`);
	let checked = 0;
	vt.forEach((c, i) => {
		const p = d.phases[i];
		const civ = `[${p.ci_low.toFixed(3)}, ${p.ci_high.toFixed(3)}]`;
		if (c[0].text !== p.name || c[1].text !== p.verdict || !same(c[2].text, p.ratio) || c[3].text !== civ ||
		    !same(c[6].text, p.a.cpu_per_cmd_us) || !same(c[7].text, p.b.cpu_per_cmd_us) || c[8].v !== p.commands_per_block)
			die(`verdict row ${p.name}: page ${c.map((x) => x.text).join(' | ')}, ab.json ratio ${p.ratio} [${p.ci_low}, ${p.ci_high}] ${p.verdict}`);
		checked += 7;
	});
	const ticks = await page.$$eval('.forest .frow .pt', (e) => e.length);
	if (ticks !== d.phases.length) die(`the interval plot has ${ticks} ratios`);
	let red = 0, blue = 0, zoomed = null, sorted = null;
	for (const p of d.phases) {
		const sel = `section[data-phase="${p.name}"]`;
		const fr = await tableRows(page, sel + ' table.abfn');
		if (fr.length !== p.functions.length) die(`${p.name}: ${fr.length} function rows, ab.json ${p.functions.length}`);
		fr.forEach((c, i) => {
			const x = p.functions[i];
			const only = x.only_in ? 'only in ' + x.only_in.toUpperCase() : '';
			if (c[5].text !== x.name || !same(c[0].text, x.self_us.delta) || !same(c[2].text, x.total_us.delta) ||
			    c[4].text !== only)
				die(`${p.name} function row ${i}: page ${c.map((y) => y.text).join(' | ')}, ab.json ${JSON.stringify(x)}`);
			checked += 2;
		});
		const sr = p.syscalls.length ? await tableRows(page, sel + ' table.absys') : [];
		sr.forEach((c, i) => {
			const y = p.syscalls[i];
			if (c[4].text !== y.name || !same(c[0].text, y.cpu_us.delta) || !same(c[2].text, y.calls.a) || !same(c[3].text, y.calls.b))
				die(`${p.name} syscall row ${i}: page ${c.map((z) => z.text).join(' | ')}, ab.json ${JSON.stringify(y)}`);
			checked += 3;
		});
		if (!sorted && fr.length > 2)
			sorted = p.name + ': ' + await sortChanges(page, sel + ' table.abfn', 'function') + ', then ' +
				await sortChanges(page, sel + ' table.abfn', 'self');
		if (await page.$(sel + ' svg.flame')) {
			const rb = await redBlue(page, sel);
			red += rb.red;
			blue += rb.blue;
			if (!zoomed && rb.red && rb.blue) { zoomed = p.name; await zoomOne(page, sel); await searchAll(page, sel); }
		} else die(`${p.name}: no differential flame graph`);
	}
	if (!red || !blue) die(`the differential graphs have ${red} red and ${blue} blue frames`);
	if (!zoomed) die('no graph with both red and blue frames to zoom');
	if (!sorted) die('no function delta table to sort');
	await screenshots(page, `section[data-phase="${zoomed}"]`);
	console.log(`html ab: verdicts first (${d.phases.map((p) => p.name + ' ' + p.verdict).join(', ')}), ` +
		`${secs.length} phase sections, ${checked} numbers equal ab.json's, ${red} red and ${blue} blue frames, ` +
		`${zoomed} zoomed, sorted ${sorted}`);
}

main().catch((e) => { console.error('FAIL: ' + (e instanceof Fail ? e.message : e.stack || String(e))); process.exit(1); });
