#!/bin/sh
# The softcode views (--by command, --by softcode) as root on the default target (2.12), and 1.
# and 2. again on upstream 2.14 (make upstream; skipped where it is not built):
#  1. a throwaway run (--phase none --control) of a test game (tests/helper_live softcode): $slow
#     (iter(lnum(200),...)), $ufn (u(#N/FN_HEAVY)), $fast (add(100,2)) interleaved 1000 times each
#     in one window, then each alone in its own: --exact-commands orders them slow > ufn > fast,
#     and each command's share of the task clock inside commands agrees with its share of the
#     samples (99.9% interval each, one try: a 0.3% chance of a false failure;
#     tests/e2e/check_softcode.js), FN_HEAVY under $ufn by name in the report, the
#     folded file, the flame graph, pprof (file softcode:#N) and speedscope; report.json valid;
#  2. the same game attached (muxbpf attach --port): names from netmux's memory, views there;
#  3. a stripped netmux without debuginfo: one line says the views are unavailable, the rest
#     of the report is there and muxbpf exits 0.
# Exit 77 = skipped (not root, no BTF).
set -u
out=${1:-build}
muxbpf=$out/muxbpf
helper=$out/tests/helper_live
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.inc"

need_root_bpf
fail() { echo "FAIL: $*"; exit 1; }
command -v node >/dev/null 2>&1 || fail "node not installed (make deps)"
[ -x "$helper" ] || fail "build the test helpers first"
e2e_init softcode
export TMPDIR=$work/tmp
count=${SOFTCODE_COUNT:-1000}

free_port() {
	while :; do
		p=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 30000))
		ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
	done
}

# --- 1. throwaway run ---------------------------------------------------------------------------
run_once() { # $1 = directory, then the target's options (--netmux, --game)
	d1=$1
	shift
	port=$(free_port)
	"$muxbpf" "$@" --full --phase none --control "$d1.ctl" --port "$port" \
		--by function,command,softcode --exact-commands --freq 1999 --out "$d1" -q >"$d1.out" 2>"$d1.err" &
	mpid=$!
	"$helper" softcode "$port" "$d1.ctl" "$count" >"$d1.helper" 2>&1 || {
		cat "$d1.helper"; kill "$mpid"; wait "$mpid"; fail "the softcode game failed"; }
	"$helper" ctl "$d1.ctl" stop >/dev/null || fail "stop was not acknowledged"
	wait "$mpid" || { cat "$d1.err"; fail "muxbpf exited $?"; }
}

# The throwaway run's checks and the attached game's, on one target: $1 = its name (2.12 or
# 2.14), then its options for muxbpf (--netmux, --game; none: the default target).
views_on() {
tgt=$1
shift
d=$work/run-$tgt
run_once "$d" "$@"
node "$here/check_softcode.js" "$d/report.json" >"$d.check" ||
	{ cat "$d.check"; fail "--by command: the task clock and the samples disagree"; }
cat "$d.check"
grep -q 'by command (on-CPU' "$d.out" || fail "no by command table in the text report"
grep -Eq 'SoftObj\(#[0-9]+\)/CMD_UFN > HeavyObj\(#[0-9]+\)/FN_HEAVY' "$d.out" ||
	fail "no FN_HEAVY under CMD_UFN in the text report"
grep -q "^softcode: commands from the exact mode's probes" "$d.out" || fail "no softcode header line"
grep -Eq 'CMD_UFN;.*HeavyObj\(#[0-9]+\)/FN_HEAVY' "$d/mixed.folded" ||
	fail "no FN_HEAVY frame above CMD_UFN in mixed.folded"
grep -q 'HeavyObj(#[0-9]*)/FN_HEAVY' "$d/mixed.svg" || fail "no FN_HEAVY node in mixed.svg"
grep -q 'FN_HEAVY' "$d/speedscope.json" || fail "no FN_HEAVY frame in speedscope.json"
zcat "$d/profile.pb.gz" | grep -aq 'softcode:#' || fail "no softcode:#N file name in pprof"
need_ajv "$out/npm"
node "$here/validate.js" "$out/npm/node_modules" doc/report.schema.json "$d/report.json" ||
	fail "report.json does not match doc/report.schema.json"
attach_on "$tgt" "$@"
echo "views on $tgt: run and attach"
}

# --- 1b. a phase in batches: each command row's intervals from the batches' softcode counts -----
"$muxbpf" --full --phase dispatch --scale 0.1 --max-phase-seconds 4 --by function,command --exact-commands \
	--out "$work/batches" -q >"$work/batches.out" 2>"$work/batches.err" ||
	{ cat "$work/batches.err"; fail "dispatch in batches with --by command: muxbpf exited $?"; }
node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const p = r.phases.find((q) => q.name === "dispatch"), sp = r.softcode.phases.find((q) => q.name === "dispatch");
const bad = (m) => { console.log("FAIL: dispatch: " + m); process.exit(1); };
if (!p.rounds || p.rounds.batches < 2) bad("fewer than 2 batches");
const rows = sp.commands.filter((c) => c.runs > 0);
if (!rows.length) bad("no command row with runs");
for (const c of rows) {
	const us = c.cpu_per_cmd_us;
	if (!us || !(us.lo <= us.value && us.value <= us.hi)) bad(`${c.command}: us/cmd ${JSON.stringify(us)}`);
	if (Math.abs(us.value - c.cpu_ns / 1e3 / c.runs) > 1e-6 * us.value) bad(`${c.command}: us/cmd is not cpu_ns / runs`);
}
const b = rows.filter((c) => c.cpu_per_cmd_us.from === "batches");
if (!b.length) bad("no us/cmd interval from the batches");
console.log(`batches: ${p.rounds.batches}; ` + b.map((c) => `${c.command} ${c.cpu_per_cmd_us.value.toFixed(2)} ` +
	`[${c.cpu_per_cmd_us.lo.toFixed(2)}, ${c.cpu_per_cmd_us.hi.toFixed(2)}] us/cmd, share ` +
	`[${c.share_ci_pct.map((x) => x.toFixed(1)).join(", ")}]% (${c.share_ci_from})`).join("; "));
' "$work/batches/report.json" || fail "--by command: no intervals from the batches"
grep -q 'us/cmd +- the t interval of the exact figure over the batches' "$work/batches.out" ||
	fail "--by command: the text report does not say the intervals come from the batches"
if [ -d "$out/npm/node_modules/ajv" ]; then
	node "$here/validate.js" "$out/npm/node_modules" doc/report.schema.json "$work/batches/report.json" ||
		fail "report.json (batches) does not match doc/report.schema.json"
fi

# --- 2. attach ----------------------------------------------------------------------------------
attach_on() { # $1 = the target's name, then its --netmux and --game (helper_live serve's args)
rm -rf "$work/serve.in" "$work/att" "$work/actl"
: >"$work/serve.out"
mkfifo "$work/serve.in"
if [ $# -ge 5 ]; then set -- "$3" "$5"; else set --; fi
"$helper" serve "$@" <"$work/serve.in" >"$work/serve.out" 2>"$work/serve.err" &
exec 9>"$work/serve.in"
for i in $(seq 100); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
read -r spid sport <"$work/serve.out" || fail "helper_live serve did not start"
"$muxbpf" attach --full --port "$sport" --control "$work/actl" --by command,softcode --freq 1999 --out "$work/att" \
	-q >"$work/att.out" 2>"$work/att.err" &
apid=$!
count=600 "$helper" softcode "$sport" "$work/actl" 600 >"$work/att.helper" 2>&1 ||
	{ cat "$work/att.helper"; fail "the attached game failed"; }
"$helper" ctl "$work/actl" stop >/dev/null || fail "attach: stop was not acknowledged"
wait "$apid" || { cat "$work/att.err"; fail "muxbpf attach exited $?"; }
exec 9>&-
wait
grep -q 'names from netmux.s memory' "$work/att.out" || {
	grep softcode "$work/att.out"; fail "attach: names not from netmux's memory"; }
grep -Eq 'HeavyObj\(#[0-9]+\)/FN_HEAVY' "$work/att.out" || fail "attach: no named FN_HEAVY frame"
grep -Eq 'SoftObj\(#[0-9]+\): @pemit %#=\[strlen\(u\(#' "$work/att.out" || fail "attach: no row for $ufn's action on SoftObj"
grep -Eq '^ +[0-9]+ +[0-9.]+% +\+-[0-9.]+\?? +[0-9.]+ +[0-9.]+ +.*#[0-9]+' "$work/att.out" ||
	fail "attach: no command rows"
# Without the exact mode, a sample whose stack was walked to main with no process_command frame
# is between commands, though netmux left curr_cmd set: the stacks in the folded files (one
# output) and the command rows (another) must agree.  At least those samples are between.
node - "$work/att/report.json" "$work/att" <<'JS' || fail "attach: samples outside process_command counted under a command"
const fs = require('fs');
const [, , file, dir] = process.argv;
const sc = JSON.parse(fs.readFileSync(file, 'utf8')).softcode;
let bad = 0;
for (const p of sc.phases) {
	const f = `${dir}/${p.name}.folded`;
	if (!fs.existsSync(f))
		continue;
	let outside = 0;
	for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
		const frames = line.replace(/ \d+$/, '').split(';');
		if (frames.includes('main') && !frames.some((x) => x.startsWith('process_command(')))
			outside += Number(line.match(/ (\d+)$/)[1]);
	}
	const b = p.commands.find((c) => c.command === '(between commands)');
	const between = b ? b.samples : 0;
	console.log(`${p.name}: ${outside} samples outside process_command, ${between} between commands`);
	if (between < outside)
		bad++;
}
console.log(`stack rule: ${sc.stack_rule_between} samples moved between commands`);
process.exit(bad || !(sc.stack_rule_between >= 0) ? 1 : 0);
JS
echo "attach: views named through netmux's memory; samples outside process_command between commands"
}

# @restart while attached (2.14): netmux execs itself and dlopens engine.so again, at another
# base; mb_sc_load follows it, so the commands after it are read as before.
restart_on() { # $1 = the 2.14 game template
rm -rf "$work/serve.in" "$work/rs" "$work/rctl"
: >"$work/serve.out"
mkfifo "$work/serve.in"
"$helper" serve "$1/bin/netmux" "$1" <"$work/serve.in" >"$work/serve.out" 2>"$work/serve.err" &
exec 9>"$work/serve.in"
for i in $(seq 100); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
read -r spid sport <"$work/serve.out" || fail "restart: helper_live serve did not start"
"$muxbpf" attach --port "$sport" --control "$work/rctl" --by command --freq 1999 \
	--out "$work/rs" -q >"$work/rs.out" 2>"$work/rs.err" &
apid=$!
for i in $(seq 100); do [ -S "$work/rctl" ] && break; sleep 0.1; done
base1=$(awk '/engine\.so$/ { print $1; exit }' "/proc/$spid/maps")
node "$here/restart_game.js" "$sport" 400 "$helper" "$work/rctl" >"$work/rs.game" 2>&1 && cat "$work/rs.game" ||
	{ cat "$work/rs.game"; fail "restart: the game failed"; }
base2=$(awk '/engine\.so$/ { print $1; exit }' "/proc/$spid/maps")
"$helper" ctl "$work/rctl" stop >/dev/null || fail "restart: stop was not acknowledged"
wait "$apid" || { cat "$work/rs.err"; fail "restart: muxbpf attach exited $?"; }
exec 9>&-
wait
node - "$work/rs/report.json" "$base1" "$base2" <<'JS' || fail "restart: the views did not follow @restart"
const [, , file, b1, b2] = process.argv;
const sc = JSON.parse(require('fs').readFileSync(file, 'utf8')).softcode;
const rows = (n) => sc.phases.find((p) => p.name === n).commands;
const think = (n) => (rows(n).find((c) => c.command === 'think') || { samples: 0 }).samples;
const all = (n) => rows(n).reduce((a, c) => a + c.samples, 0);
console.log(`restart: engine.so at ${b1} then ${b2}; loads ${sc.loads}, execs ${sc.execs}; ` +
	`think ${think('before')}/${all('before')} samples before, ${think('after')}/${all('after')} after`);
// the second window's commands are read from the module's new base as the first's were
process.exit(sc.loads >= 1 && sc.execs >= 1 && think('after') >= all('after') / 2 &&
	think('before') >= all('before') / 2 ? 0 : 1);
JS
}

views_on 2.12
# Upstream 2.14 (make upstream): mudstate, process_command and do_ufun live in engine.so, which
# netmux dlopens at start; the views find them there (doc/softcode.md).
game14=$out/upstream/src/mux/game
if [ -x "$game14/bin/netmux" ]; then
	views_on 2.14 --netmux "$game14/bin/netmux" --game "$game14"
	grep -q 'mudstate and the probes in .*/engine\.so' "$work/run-2.14.out" ||
		fail "2.14: the views did not find mudstate in engine.so"
	restart_on "$game14"
else
	skip14="upstream TinyMUX is not built ($game14/bin/netmux; make upstream needs the tarball in ../shared/tinymux/)"
fi

# --- 3. stripped, no debuginfo; then its debuginfo by build-id ----------------------------------
src=$out/tinymux/fp/mux2.12/src
mkdir -p "$work/bin" "$work/debug"
chmod 755 "$work/bin" "$work/debug"
objcopy --only-keep-debug "$src/netmux" "$work/netmux.debug" || fail "objcopy --only-keep-debug"
strip --strip-all -o "$work/bin/netmux" "$src/netmux" || fail "strip"
for f in libmux.so slave stubslave; do ln -s "$(realpath "$src/$f")" "$work/bin/$f"; done
"$muxbpf" --full --netmux "$work/bin/netmux" --phase softcode_list --scale 0.05 --max-phase-seconds 0 \
	--by function,command,softcode >"$work/strip.out" 2>"$work/strip.err" ||
	{ cat "$work/strip.err"; fail "stripped netmux: muxbpf exited $?"; }
n=$(grep -c 'softcode views unavailable' "$work/strip.out")
[ "$n" = 1 ] || fail "stripped netmux: $n lines about the views (expected one)"
grep 'softcode views unavailable' "$work/strip.out"
grep -q '== softcode_list' "$work/strip.out" || fail "stripped netmux: no phase table"
grep -q 'STRIPPED, no debuginfo' "$work/strip.out" || fail "stripped netmux: no symbols line"
id=$(readelf -n "$work/bin/netmux" | sed -n 's/^ *Build ID: *//p')
mkdir -p "$work/debug/.build-id/$(echo "$id" | cut -c1-2)"
mv "$work/netmux.debug" "$work/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
"$muxbpf" --full --netmux "$work/bin/netmux" --phase softcode_list --scale 0.05 --max-phase-seconds 0 --by command \
	--debug-dir "$work/debug" >"$work/dbg.out" 2>"$work/dbg.err" ||
	{ cat "$work/dbg.err"; fail "stripped netmux with --debug-dir: muxbpf exited $?"; }
grep -q '^softcode: commands read from mudstate' "$work/dbg.out" ||
	fail "stripped netmux with --debug-dir: the views are not on"
grep -Eq '^ +[0-9]+ +[0-9.]+% +\+-[0-9.]+\?? +[0-9.]+ +[0-9.]+ +@pemit$' "$work/dbg.out" ||
	fail "stripped netmux with --debug-dir: no @pemit row in softcode_list"
echo "stripped: one line without debuginfo; the views with its debuginfo by build-id"
[ -z "${skip14:-}" ] || skip "2.12 passed; $skip14"
echo "ok"
