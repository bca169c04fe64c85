#!/bin/sh
# The ledger closes in every window however long a call spans (root).  Exit 77 = skipped.
# tests/targets/blocked: two threads blocked in one read() each for the whole run, beside two
# threads switching a thousand times a second.  muxbpf attach --interval 0.5 cuts the run into
# windows: every boundary reading and every occupancy check (once a second) falls inside the
# blocked calls.  The windows must tile the run, none closing before its place on the
# interval's grid (a reading comes on time or late, never early; a late one shortens the next
# window).  Each window must close within 1% of its wall, book the blocked reads as off-CPU
# (their wall = the window's, their CPU ~0), and never book more syscall CPU than the kernel's
# on-CPU, but for the time the host stole from the VM around the window (/proc/stat).
# LEDGER_LONG_SECONDS (default 20) sets the length.  --freq 99: the workers'
# 20 us bursts are far below a 997 Hz per-thread period, and the sampler is not under test here.
set -u
out=${1:-build}
. "$(dirname "$0")/lib.inc"
need_root_bpf
muxbpf=$out/muxbpf
blocked=$out/tests/targets/blocked
secs=${LEDGER_LONG_SECONDS:-20}
[ -x "$blocked" ] || { echo "FAIL: build the test targets first"; exit 1; }
e2e_init ledger_long
export TMPDIR=$work/tmp
progs_before=$(mb_progs)
fail() {
	echo "FAIL: $*"
	for f in "$work"/*.out "$work"/*.err; do
		[ -s "$f" ] && { echo "--- $f"; head -60 "$f"; }
	done
	exit 1
}

mkfifo "$work/in"
"$blocked" ${LEDGER_LONG_WORKERS:-40} ${LEDGER_LONG_SLEEP_US:-20000} <"$work/in" >"$work/blocked.out" &
tpid=$!
exec 9>"$work/in"
in_read() { case $(cat /proc/$tpid/task/$tpid/syscall 2>/dev/null) in "0 "*) return 0 ;; esac; return 1; }
wait_until 10 in_read || fail "the target did not block in read()"

# The machine's stolen time (a VM's vCPU waiting for the host), every 20 ms on CLOCK_MONOTONIC
# (windows' window_ns): the kernel's runtime leaves it out (PARAVIRT_TIME_ACCOUNTING) and the
# ledger's clock inside a call does not, so a call on a CPU while the host stole it books more
# syscall CPU than the kernel's on-CPU (README, "Stolen time").
node -e 'const fs = require("fs");
	setInterval(() => process.stdout.write(`${process.hrtime.bigint()} ` +
		`${fs.readFileSync("/proc/stat", "utf8").split(/\s+/)[8]}\n`), 20);' >"$work/steal.log" &
slog=$!
"$muxbpf" attach --full --pid "$tpid" --interval 0.5 --duration "$secs" --freq 99 --out "$work/long" -q \
	>"$work/long.out" 2>"$work/long.err" || { rc=$?; kill "$slog"; fail "muxbpf attach exited $rc"; }
kill "$slog"
wait "$slog" 2>/dev/null
exec 9>&-
wait "$tpid"

grep -q '^    checked every second' "$work/long.out" || fail "no occupancy checks"
cat >"$work/check.js" <<'JS'
const fs = require('fs');
const r = JSON.parse(fs.readFileSync(process.argv[2]));
const secs = Number(process.argv[3]), tick = 1e9 / Number(process.argv[5]);
/* The stolen time the kernel counted around a window (/proc/stat, in USER_HZ ticks, the total
 * truncated: one tick more when it moved), 0 when it did not move. */
const steal = fs.readFileSync(process.argv[4], 'utf8').trim().split('\n').map(l => l.split(' ').map(Number));
const stolen = ([t0, t1]) => {
	const before = steal.filter(([t]) => t <= t0).pop(), after = steal.find(([t]) => t >= t1);
	if (!before || !after) return 0;
	const d = after[1] - before[1];
	return d > 0 ? (d + 1) * tick : 0;
};
let stolenAll = 0;
const w = r.phases.filter(p => p.measured && p.ledger);
let bad = 0, worst = 0, missed = 0, readWall = 0, readCpu = 0;
const no = (msg) => { console.log(msg); bad++; };
/* The windows tile the run: each starts at the reading that closed the one before.  Readings
 * are due on a grid, the first window's opening plus k intervals.  One comes on time or late,
 * never early: a late one makes its window longer and the next one shorter (the grid holds),
 * and one late by more than an interval moves the grid later.  So window k closes at
 * t+(k+1) x interval or later, whatever the load; how late, and how many windows, is the
 * machine's. */
const interval = r.live.interval_s * 1e9, elapsed = r.live.elapsed_s * 1e9;
const tiled = w.reduce((s, p) => s + p.ledger.wall_ns, 0);
if (w.length < 2) no(`${w.length} windows in ${secs} s at --interval ${r.live.interval_s}`);
if (elapsed < 0.95 * secs * 1e9) no(`the run ended after ${(elapsed / 1e9).toFixed(2)} s of ${secs}`);
if (Math.abs(tiled - elapsed) > 0.01 * elapsed)
	no(`the windows cover ${(tiled / 1e9).toFixed(3)} s of the run's ${(elapsed / 1e9).toFixed(3)} s`);
let closed = 0;
const early = w.slice(0, -1).filter((p, k) =>
	(closed += p.ledger.wall_ns) < (k + 1) * interval - 1e6);
if (early.length)
	no(`${early.length} windows closed before their place on the grid, first ${early[0].name}`);
const late = w.filter(p => p.ledger.wall_ns > 1.5 * interval).length;
for (const p of w) {
	const l = p.ledger, rd = l.syscalls.find(s => s.name === 'read');
	worst = Math.max(worst, Math.abs(l.leftover_pct));
	missed += l.switch_in_missed;
	if (Math.abs(l.leftover_pct) > 1)
		no(`${p.name}: leftover ${l.leftover_pct.toFixed(3)}% of ${(l.thread_wall_ns / 1e6).toFixed(1)} ms`);
	const ns = l.syscalls.find(s => s.name === 'clock_nanosleep');
	if (ns && ns.count && ns.cpu_ns / ns.count > 500e3)
		no(`${p.name}: ${(ns.cpu_ns / ns.count / 1e3).toFixed(1)} us of CPU per nanosleep`);
	const st = stolen(p.window_ns);
	stolenAll += st;
	if (l.sys_cpu_ns > l.oncpu_ns * 1.01 + 100e3 + st)
		no(`${p.name}: syscall CPU ${(l.sys_cpu_ns / 1e6).toFixed(2)} ms > on-CPU ${(l.oncpu_ns / 1e6).toFixed(2)} ms` +
			(st ? ` + the ${(st / 1e6).toFixed(0)} ms stolen around it` : ''));
	if (!rd) { no(`${p.name}: no read row`); continue; }
	readWall += rd.wall_ns;
	readCpu += rd.cpu_ns;
	/* two threads sit in read() through the whole window */
	if (Math.abs(rd.wall_ns - 2 * l.wall_ns) > 0.01 * l.wall_ns)
		no(`${p.name}: read wall ${(rd.wall_ns / 1e6).toFixed(2)} ms, window ${(l.wall_ns / 1e6).toFixed(2)} ms x 2 threads`);
}
if (readCpu > 1e6) no(`the blocked reads booked ${(readCpu / 1e6).toFixed(3)} ms of CPU`);
console.log(`${w.length} windows (${late} over 1.5 intervals) tile ${(tiled / 1e9).toFixed(3)} s: worst leftover ${worst.toFixed(3)}%, read wall ${(readWall / 1e9).toFixed(3)} s ` +
	`(CPU ${(readCpu / 1e6).toFixed(3)} ms), ${missed} unreported switch-ins repaired, ` +
	`up to ${(stolenAll / 1e6).toFixed(0)} ms stolen by the host around the windows`);
process.exit(bad ? 1 : 0);
JS
node "$work/check.js" "$work/long/report.json" "$secs" "$work/steal.log" "$(getconf CLK_TCK)" || fail "the ledger did not close in every window"
if [ -d "$out/npm/node_modules/ajv" ]; then
	node "$(dirname "$0")/validate.js" "$out/npm/node_modules" doc/report.schema.json \
		"$work/long/report.json" >/dev/null || fail "report.json does not match the schema"
fi
check_clean ledger_long "$progs_before" || exit 1
echo "ledger_long: ok"
