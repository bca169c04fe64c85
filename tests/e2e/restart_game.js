// A client for tests/e2e/softcode.sh's reload check: as the wizard on PORT, COUNT commands
// (think [iter(lnum(50),mul(##,2))]) in window "before" (marked through muxbpf's control socket
// with helper_live ctl), then @restart (netmux execs itself and loads engine.so again), then
// COUNT more in window "after".  node restart_game.js PORT COUNT HELPER CONTROL
'use strict';
const net = require('net');
const { execFileSync } = require('child_process');
const [, , port, count, helper, ctl] = process.argv;
const mark = (...a) => execFileSync(helper, ['ctl', ctl, ...a]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let buf = '';
const sock = net.connect(Number(port), '127.0.0.1');
sock.on('data', (d) => { buf += d.toString('latin1'); });
async function until(word) {
	for (let i = 0; i < 600 && !buf.includes(word); i++)
		await sleep(50);
	if (!buf.includes(word))
		throw new Error(`no ${word} from the game`);
	buf = '';
}
async function burst(tag) {
	for (let i = 0; i < Number(count); i++)
		sock.write('think [iter(lnum(50),mul(##,2))]\n');
	sock.write(`@pemit me=DONE${tag}\n`);
	await until(`DONE${tag}`);
}
(async () => {
	await sleep(700);
	sock.write('connect wizard potrzebie\n');
	sock.write('@pemit me=IN\n');
	await until('IN');
	mark('phase', 'before');
	await burst('A');
	mark('end');
	// a server that just started refuses @restart for a few seconds: try again
	for (let i = 0; i < 20; i++) {
		buf = '';
		sock.write('@restart\n');
		await sleep(1000);
		if (!/just started/.test(buf))
			break;
	}
	await sleep(2000);
	sock.write('@pemit me=BACK\n');
	await until('BACK');
	mark('phase', 'after');
	await burst('B');
	mark('end');
	sock.end();
})().catch((e) => { console.error(e.message); process.exit(1); });
