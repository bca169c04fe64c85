#!/bin/sh
# Where the sampler's time per sample goes.  The sampler is built four times, each returning
# after one more stage (bpf/common.bpf.h, MUXBPF_BENCH_STAGE): entry (the sample counted as
# taken), setup (the walk's maps looked up), walk (the stack walked, not interned), and the whole
# sample (interned and counted).  Each build runs build/bench/overhead's sampler configuration
# on the same phases, in rotation for ROUNDS rounds so that host noise hits them alike; the
# kernel's run-time statistics give ns per run of mb_sample, and each stage's cost is the
# difference from the stage before.  (The stages before the whole sample count the sample under
# its pc, a key new to the map almost every time: the counting's cost moves between stages, so
# read "walk" and "intern + count" together where they matter.)
#   bench/sampler_stages.sh BUILD_DIR [ROUNDS (default 3)] [PHASES (default dispatch,softcode_arith)]
# Root; the default target built (make netmux).  It measures; it passes or fails on nothing.
set -u
out=${1:-build}
rounds=${2:-3}
phases=${3:-dispatch,softcode_arith}
. "$(dirname "$0")/common.inc"
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 0; }
netmux=$(ls "$out"/tinymux/fp/mux*/src/netmux 2>/dev/null | head -1)
[ -x "$netmux" ] || { echo "sampler_stages: no default target under $out/tinymux (make netmux)"; exit 1; }
work=$(mktemp -d /tmp/muxbpf-stages.XXXXXX)
trap 'rm -rf "$work"' EXIT
names="1:entry 2:setup 3:walk 0:whole"
for s in $names; do
	n=${s%%:*}
	make -s OUTPUT="$work/b$n" BPF_DEFS=-DMUXBPF_BENCH_STAGE=$n "$work/b$n/bench/overhead" \
		>"$work/make$n.log" 2>&1 || { tail -20 "$work/make$n.log"; exit 1; }
done
echo "# mb_sample ns per run by stage: $rounds rounds, phases $phases, sampler only, 997 Hz"
machine_facts
echo "# the machine is shared: other work ran beside it"
for r in $(seq 1 "$rounds"); do
	for s in $names; do
		n=${s%%:*}
		ns=$("$work/b$n/bench/overhead" --rounds 1 --phases "$phases" --configs sampler \
			--netmux "$netmux" 2>&1 | awk '$2 == "mb_sample" { print $4 }')
		echo "$r $n ${ns:-?}" >>"$work/ns"
	done
done
# the median of the rounds per stage, then the stage's own cost: the difference from the last
awk -v names="$names" '
	{ v[$2] = v[$2] " " $3 }
	END {
		k = split(names, st, " ")
		printf "%-8s %10s %12s   %s\n", "stage", "ns/run", "own cost", "rounds"
		prev = 0
		for (i = 1; i <= k; i++) {
			split(st[i], nm, ":")
			m = split(v[nm[1]], x, " ")
			for (a = 1; a <= m; a++)
				for (b = a + 1; b <= m; b++)
					if (x[b] + 0 < x[a] + 0) { t = x[a]; x[a] = x[b]; x[b] = t }
			med = m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
			printf "%-8s %10.0f %+12.0f  %s\n", nm[2], med, med - prev, v[nm[1]]
			prev = med
		}
	}' "$work/ns"
