#!/bin/sh
# End to end as root: muxbpf --phase all --scale 0.1 on the default target.  Checks that every
# phase is reported, busy phases have samples, the softcode phases name netmux's evaluator, the
# repeating phases ran in rounds until precise or the time cap, and nothing is left behind
# (netmux, game directory, BPF programs); the syscall rows have intervals where the phase has
# batches and say "once" where it has none.  Exit 77 = skipped.
set -u
out=${1:-build}
muxbpf=$out/muxbpf
. "$(dirname "$0")/lib.inc"
log=$(mktemp -d /tmp/muxbpf-e2e.XXXXXX)
trap 'rm -rf "$log"' EXIT
# A TMPDIR of this run's own: its game directory and processes are told from those of another
# muxbpf on the machine (mb_leftovers and procs_in look under $work/tmp).
work=$log
mkdir -p "$work/tmp"
chmod 755 "$work"
chmod 1777 "$work/tmp"
export TMPDIR=$work/tmp

need_root_bpf
fail_files="$log/out $log/err" fail_lines=150

progs_before=$(mb_progs)
# At scale 0.1 the phases spend 5-50 ms in user mode: sample at 4999 Hz so that the busy ones
# get tens of samples.
"$muxbpf" --full --phase all --scale 0.1 --idle-seconds 1 --freq 4999 --out "$log/art" >"$log/out" 2>"$log/err"
rc=$?
cat "$log/out"
[ $rc -eq 0 ] || fail "muxbpf exited $rc"

for p in boot create attrwrite dump attrread idle dispatch softcode_arith softcode_list outside; do
	grep -q "^$p " "$log/out" || fail "phase $p missing from the table"
done
# Busy phases (>= 10 ms on CPU) must have samples; column 5 is on-CPU ms, 8 samples.
awk '/^phase /{t=1; next} t && NF==0 {exit} t && $5 >= 10 && $8 == 0 {print $1; bad=1} END{exit bad}' \
	"$log/out" >"$log/empty" || fail "busy phases without samples: $(cat "$log/empty")"
for p in attrwrite attrread dispatch softcode_arith softcode_list; do
	n=$(awk -v p="$p" '$1==p {print $8; exit}' "$log/out")
	[ "${n:-0}" -gt 0 ] || fail "phase $p has no samples"
done
# The softcode phases run in netmux's evaluator: mux_exec is on the stack of most of their
# samples (60% in softcode_arith, 90% in softcode_list here), named, not an address.  Checked on
# the phase's stacks (PHASE.folded), not on the report's top rows, and only where the samples
# support it: at a share of 30%, 40 samples all miss it with a chance of 0.7^40 = 6e-7.  The
# two phases together always have enough at this scale.
evaluator() { # $1 = folded file: "SAMPLES WITH_MUX_EXEC"
	awk '{ n += $NF } /(^|;)mux_exec\(/ { m += $NF } END { print n + 0, m + 0 }' "$1"
}
cat /dev/null >"$log/softcode.folded"
for p in softcode_arith softcode_list; do
	[ -f "$log/art/$p.folded" ] || fail "no $p.folded written"
	cat "$log/art/$p.folded" >>"$log/softcode.folded"
	set -- $(evaluator "$log/art/$p.folded")
	echo "$p: $1 samples, mux_exec on the stack of $2"
	[ "$1" -lt 40 ] || [ "$2" -gt 0 ] || fail "mux_exec on none of the $1 stacks of $p"
done
set -- $(evaluator "$log/softcode.folded")
[ "$1" -ge 40 ] || fail "the softcode phases have only $1 samples together"
[ "$2" -gt 0 ] || fail "mux_exec on none of the softcode phases' $1 stacks"
# The time ledger closes in every measured phase: leftover under 1% of wall.
grep -c '^  ledger (' "$log/out" >"$log/nledgers"
[ "$(cat "$log/nledgers")" -ge 9 ] || fail "expected a ledger for each of the 9 phases"
sed -n 's/^  ledger (.*leftover .* ms (\([-+0-9.]*\)%)$/\1/p' "$log/out" >"$log/leftovers"
awk '{ v = $1 < 0 ? -$1 : $1; if (v >= 1) bad = 1 } END { exit bad }' "$log/leftovers" ||
	fail "a phase's ledger leaves 1% or more of its wall time unexplained: $(tr '\n' ' ' <"$log/leftovers")"
# Kernel time is named by syscall and call site.
grep -Eq '^  +[0-9.]+% +\+-[0-9.]+\?? +write <- .*process_output' "$log/out" ||
	fail "no write call site in process_output named"
# Rounds: the phases whose work repeats ran it in 2 or more rounds and stopped because their
# top 10 rows are within +-1 point (checked against report.json's own intervals) or at the time
# cap (the line says which); their batches add up to the phase; the other phases ran once.
node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const repeats = new Set(["attrread", "dispatch", "softcode_arith", "softcode_list"]);
const bad = [];
// Syscall rows: the share is of the phase on-CPU; a phase with batches gives every row intervals
// that hold its figures, one without says once and gives none.
const near = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
// null: no spread to go by (us/call of a syscall with calls in fewer than 2 batches)
const within = (ci, v) => ci === null || (ci[0] <= v + 1e-9 && v <= ci[1] + 1e-9);
function checkSyscalls(p) {
	const batches = p.rounds.batches >= 2, from = batches ? "batches" : "once";
	for (const y of p.ledger ? p.ledger.syscalls : []) {
		if (y.ci_from !== from)
			bad.push(`${p.name} ${y.name}: ci_from ${y.ci_from}, expected ${from}`);
		else if (!near(y.oncpu_pct, p.oncpu_ns ? 100 * y.cpu_ns / p.oncpu_ns : 0))
			bad.push(`${p.name} ${y.name}: share ${y.oncpu_pct}%, cpu ${y.cpu_ns} of ${p.oncpu_ns} ns`);
		else if (batches && !(within(y.oncpu_ci_pct, y.oncpu_pct) && within(y.us_per_call_ci, y.us_per_call)))
			bad.push(`${p.name} ${y.name}: intervals ${y.oncpu_ci_pct} ${y.us_per_call_ci} miss ${y.oncpu_pct}% ${y.us_per_call} us`);
		else if (!batches && (y.oncpu_ci_pct !== null || y.us_per_call_ci !== null))
			bad.push(`${p.name} ${y.name}: an interval from one window`);
	}
}
for (const p of r.phases) {
	if (!p.measured)
		continue;
	const ro = p.rounds;
	checkSyscalls(p);
	if (!repeats.has(p.name)) {
		if (!ro || ro.count !== 1 || ro.stop !== "once")
			bad.push(`${p.name}: ${ro ? ro.count + " rounds, " + ro.stop : "no rounds"}, expected one`);
		else if (ro.batches && ro.per_batch.reduce((a, b) => a + b.samples, 0) !== p.functions.samples)
			bad.push(`${p.name}: its batches do not add up to its samples`);
		else if (ro.homogeneity !== null)
			bad.push(`${p.name}: a homogeneity test on the batches of one round`);
		continue;
	}
	if (ro.count < 2 || ro.batches < 2)
		bad.push(`${p.name}: ${ro.count} rounds in ${ro.batches} batches`);
	const sum = (k) => ro.per_batch.reduce((a, b) => a + b[k], 0);
	if (sum("samples") !== p.functions.samples || sum("commands") !== p.commands)
		bad.push(`${p.name}: batches hold ${sum("samples")} samples and ${sum("commands")} commands, the phase ${p.functions.samples} and ${p.commands}`);
	let widest = 0;
	for (const row of p.functions.rows.filter((x) => x.self > 0).slice(0, 10))
		widest = Math.max(widest, (row.self_ci_pct[1] - row.self_ci_pct[0]) / 2);
	// the rule judged the last mark; the rows in the report also count the samples after it
	if (Math.abs(widest - ro.top_ci_half_pct) > 1e-9)
		bad.push(`${p.name}: widest top row +-${widest} points, the rounds say +-${ro.top_ci_half_pct}`);
	if (ro.stop === "precise" && !(ro.stop_ci_half_pct <= 1.0000001))
		bad.push(`${p.name}: stopped as precise, but the rule judged a top row +-${ro.stop_ci_half_pct} points`);
	if (ro.stop !== "precise" && ro.stop !== "time cap")
		bad.push(`${p.name}: stopped: ${ro.stop}`);
	console.log(`${p.name}: ${ro.count} rounds in ${ro.batches} batches, ${p.functions.samples} samples, widest top-10 row +-${widest.toFixed(2)} points: ${ro.stop === "precise" ? "within +-1 point" : "time cap hit"}`);
}
if (bad.length) {
	console.log(bad.join("\n"));
	process.exit(1);
}' "$log/art/report.json" >"$log/rounds" 2>&1
rc=$?
cat "$log/rounds"
[ $rc -eq 0 ] || fail "rounds: $(tail -3 "$log/rounds")"
grep -q '^rounds: ' "$log/out" || fail "no rounds table in the report"
grep -q '^  syscalls: share = .*once = exact for this one window' "$log/out" ||
	fail "no phase's syscall table says once"
grep -q '^  syscalls: share = .*spread between [0-9]* batches' "$log/out" ||
	fail "no phase's syscall table has the batches' intervals"
# Nothing left behind.
sleep 0.2
pid=$(sed -n 's/^  pid \([0-9]*\), .*/\1/p' "$log/out")
[ -n "$pid" ] || fail "no netmux pid in the report header"
if kill -0 "$pid" 2>/dev/null || pgrep -g "$pid" >/dev/null; then
	fail "netmux (pid $pid) or a process of its group is still running"
fi
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
i=0
while left=$(mb_leftovers "$progs_before") && [ -n "$left" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -z "$left" ] || fail "BPF programs of this run are still loaded: $(echo $left)"
echo "e2e: all phases present, busy phases sampled, evaluator named, nothing left behind"
