#!/bin/sh
# Does a longer phase make a single run more stable?  The same phases at scale 1 and at a larger
# scale, in separate bare server processes (--no-profile), alternating; per phase the spread of
# netmux's CPU per command over the processes (comparable across scales for phases whose cost
# per command does not depend on the object count: not attrwrite and attrread, which are
# O(objects) per command, nor dump, which needs them as set-up and whose work is the database).
#
#   bench/phase_length.sh BUILD_DIR [RUNS (default 6)] [SCALE2 (default 4)]
#
# Nothing passes or fails on a number.
set -u
out=${1:-build}
runs=${2:-6}
scale2=${3:-4}
extra=
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
muxbpf=$out/muxbpf
tmp=$(mktemp -d /tmp/muxbpf-length.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

machine_facts
lphases=create,dispatch,softcode_arith,softcode_list
s0=$(steal_now)
echo "### phase length: $runs processes at scale 1 and at scale $scale2, alternating (--no-profile --phase $lphases)"
for i in $(seq 1 "$runs"); do
	for s in 1 "$scale2"; do
		# shellcheck disable=SC2086
		"$muxbpf" --full --no-profile --scale "$s" --phase $lphases -q $extra >"$tmp/len.$s.$i.txt" 2>&1
		awk '/^phase +wall s/ {t=1; next} t && NF == 0 {exit} t && $1 != "outside" && $3 > 0 {
			printf "%s %.3f %.1f\n", $1, 1000 * $5 / $3, $5 }' "$tmp/len.$s.$i.txt" >"$tmp/len.$s.$i.rows"
	done
done
printf "  %-16s %-6s %9s %9s %9s %8s  %s\n" phase scale "min us" "median" "max" "spread" "CPU ms per run (median)"
for p in $(echo $lphases | tr , ' '); do
	for s in 1 "$scale2"; do
		st=$(for i in $(seq 1 "$runs"); do awk -v p="$p" '$1==p {print $2}' "$tmp/len.$s.$i.rows"; done | mmm)
		ms=$(for i in $(seq 1 "$runs"); do awk -v p="$p" '$1==p {print $3}' "$tmp/len.$s.$i.rows"; done | mmm | cut -d' ' -f2)
		# shellcheck disable=SC2086
		printf "  %-16s %-6s %9s %9s %9s %8s  %s\n" "$p" "$s" $st "$ms"
	done
done
echo "host steal $(steal_pct "$s0" "$(steal_now)")% over the runs, load $(load1)"
