#!/bin/sh
# How far the default softcode view (mudstate.curr_cmd read at each sample, no probes) is from
# the exact mode's (the command its process_command probes opened).  RUNS pairs of runs of
# tests/e2e/softcode.sh's game (helper_live softcode: $slow, $ufn, $fast interleaved COUNT times
# each, --freq 1999), one with --exact-commands and one without.  Per run, in the mixed window:
# the samples under each command and between commands, and how many samples have no
# process_command frame on their stack (from mixed.folded).  In the exact mode those are the
# samples between commands.  In the default mode curr_cmd still names a command for most of
# them (netmux leaves it set after a queued action); the stack rule (src/report/softcode_stacks.c)
# counts them between commands all the same.  Without it they counted under that command: a
# fixed amount per command run, which inflated the cheap commands' shares.
#
#   bench/softcode_lag.sh BUILD_DIR [RUNS (3)] [COUNT (1000)]
#
# Needs root and node.  It measures; it passes or fails on nothing.
set -u
out=${1:-build}
runs=${2:-3}
count=${3:-1000}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
game_tmpdir softcode-lag

one() { # $1 = directory, $2... = muxbpf's options
	d=$1
	shift
	softcode_game "$out" "$d" "$count" --by function,command "$@" || exit 1
	# samples of the mixed window with no process_command frame on their stack
	awk '!/process_command\(/ { n += $NF } END { print n + 0 }' "$d/mixed.folded" >"$d.outside"
}

machine_facts
echo "$runs pairs of runs of $count x 3 commands, load $(load1)"
for k in $(seq 1 "$runs"); do
	one "$tmp/exact$k" --exact-commands
	one "$tmp/plain$k"
	for m in exact plain; do
		node - "$tmp/$m$k/report.json" "$m" "$k" "$(cat "$tmp/$m$k.outside")" <<'JS'
const [, , file, mode, k, outside] = process.argv;
const sc = JSON.parse(require('fs').readFileSync(file, 'utf8')).softcode;
const p = sc.phases.find((q) => q.name === 'mixed');
const total = p.commands.reduce((s, c) => s + c.samples, 0);
const three = ['$slow', '$ufn', '$fast'].map((l) => p.commands.find((c) => c.command.startsWith(l + ' ')));
const n3 = three.reduce((s, c) => s + (c ? c.samples : 0), 0);
const between = p.commands.filter((c) => c.command.startsWith('(between')).reduce((s, c) => s + c.samples, 0);
const shares = three.map((c, i) => `${['$slow', '$ufn', '$fast'][i]} ${c ? (100 * c.samples / n3).toFixed(1) : '-'}%`);
console.log(`run ${k} ${mode.padEnd(5)}: ${total} samples, ${between} between commands, ${outside} with no ` +
	`process_command frame (${(100 * outside / total).toFixed(1)}%); of the three commands' samples: ${shares.join(', ')}`);
JS
	done
done
