#!/bin/sh
# Where the sampler's time per sample goes.  The sampler is built once per stage, each build
# returning after one more stage without counting the sample (bpf/common.bpf.h,
# MUXBPF_BENCH_STAGE): entry (the sample counted as taken), setup (the walk's maps looked up),
# walk (the stack walked), intern (the stack interned), and the whole sample (counted too).
# Each build runs build/bench/overhead's sampler configuration on the same phases, in rotation
# for ROUNDS rounds so that host noise hits them alike; the kernel's run-time statistics give ns
# per run of mb_sample, and each stage's cost is the difference from the stage before.  The
# order rotates from round to round.
# With BASE (git revisions, or overhead binaries built from them, separated by spaces), each one's
# whole sampler runs in the same rotation: a change's before and after side by side.
# VARIANTS="NAME:DEFINES ..." (DEFINES: -DX=Y for the BPF side, several joined by commas) builds
# the whole sampler once more per variant with those defines (an experiment's #ifndef in bpf/)
# and runs it in the same rotation, paired with the whole sampler like BASE.
# STAGES="0:whole" (a subset of the stage list below) builds and runs only those stages.
# BLOCK_MS (overhead's --block-ms, 400 by default) sets how long each sampler block runs: every
# block starts a fresh profiler, so short blocks weigh first sightings (new stacks, uncached
# rules) more than a run.
#   bench/sampler_stages.sh BUILD_DIR [ROUNDS (default 3)] [PHASES (default dispatch,softcode_arith)]
#                           [BASE]
# Root; the default target built (make netmux).  It measures; it passes or fails on nothing.
set -u
out=${1:-build}
rounds=${2:-3}
phases=${3:-dispatch,softcode_arith}
base=${4:-}
. "$(dirname "$0")/common.inc"
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 0; }
netmux=$(ls "$out"/tinymux/fp/mux*/src/netmux 2>/dev/null | head -1)
[ -x "$netmux" ] || { echo "sampler_stages: no default target under $out/tinymux (make netmux)"; exit 1; }
work=$(mktemp -d /tmp/muxbpf-stages.XXXXXX)
trap 'rm -rf "$work"' EXIT
# seed DIR [LIST]: BUILD_DIR's objects, less the BPF side and every object that embeds the
# skeleton or depends on a file named in LIST (the .d files name BUILD_DIR's targets, so make
# would not see those dependencies under another OUTPUT): only what differs is rebuilt
seed() {
	mkdir -p "$1"
	(cd "$out" && tar -cf - --exclude=./tinymux --exclude=./tests --exclude=./bench \
		--exclude=./test-artifacts --exclude=./npm --exclude=./kernels --exclude=./runs .) |
		tar -xf - -C "$1"
	rm -f "$1"/bpf/*.o "$1"/*.skel.h
	find "$1"/src -name '*.d' | while read -r d; do
		if grep -q 'skel\.h' "$d" || { [ -s "${2:-/dev/null}" ] && grep -qFf "$2" "$d"; }; then
			rm -f "${d%.d}.o"
		fi
	done
}
# build NAME BPF_DEFS: this tree's overhead in $work/bNAME, seeded from BUILD_DIR
build() {
	seed "$work/b$1"
	make -s OUTPUT="$work/b$1" BPF_DEFS="$2" "$work/b$1/bench/overhead" >"$work/make$1.log" 2>&1 ||
		{ tail -20 "$work/make$1.log"; exit 1; }
}
names=${STAGES:-1:entry 2:setup 3:walk 4:intern 0:whole}
for s in $names; do
	build "${s%%:*}" "-DMUXBPF_BENCH_STAGE=${s%%:*}"
done
all=$names
i=0
for v in ${VARIANTS:-}; do
	i=$((i + 1))
	all="$all var$i:${v%%:*}"
	build "var$i" "-DMUXBPF_BENCH_STAGE=0 $(echo "${v#*:}" | tr , ' ')"
done
i=0
for b in $base; do
	i=$((i + 1))
	all="$all base$i:$b"
	if [ -x "$b" ] && [ -f "$b" ]; then
		mkdir -p "$work/bbase$i/bench" && cp "$b" "$work/bbase$i/bench/overhead"
		continue
	fi
	mkdir "$work/src$i"
	git archive "$b" | tar -x -C "$work/src$i" || exit 1
	(cd "$work/src$i" && find src include bpf -type f) | while read -r f; do
		cmp -s "$work/src$i/$f" "$f" || echo "$f"
	done >"$work/changed$i"
	seed "$work/bbase$i" "$work/changed$i"
	make -s -C "$work/src$i" OUTPUT="$work/bbase$i" "$work/bbase$i/bench/overhead" \
		>"$work/makebase$i.log" 2>&1 || { tail -20 "$work/makebase$i.log"; exit 1; }
done
echo "# mb_sample ns per run by stage: $rounds rounds, phases $phases, sampler only, 997 Hz," \
	"blocks of ${BLOCK_MS:-400} ms"
[ -n "$base" ] && echo "# base: the whole sampler of each of $base, in the same rotation"
[ -n "${VARIANTS:-}" ] && echo "# variants: the whole sampler built with ${VARIANTS}, in the same rotation"
machine_facts
echo "# the machine is shared: other work ran beside it"
k=$(echo $all | wc -w)
for r in $(seq 1 "$rounds"); do
	# the order rotates each round: no build always runs first or after the same one
	order=$(echo $all | tr ' ' '\n' | awk -v k="$k" -v r="$r" '{ v[NR] = $0 }
		END { for (i = 0; i < k; i++) print v[(i + r - 1) % k + 1] }')
	for s in $order; do
		n=${s%%:*}
		ns=$("$work/b$n/bench/overhead" --rounds 1 --phases "$phases" --configs sampler \
			--block-ms "${BLOCK_MS:-400}" --netmux "$netmux" 2>&1 | awk '$2 == "mb_sample" { print $4 }')
		echo "$r $n ${ns:-?}" >>"$work/ns"
	done
	echo "# round $r done, load $(load1)"
done
# the median of the rounds per stage, then the stage's own cost: the difference from the last
awk -v names="$all" '
	function median(s,    m, a, b, t, x) {
		m = split(s, x, " ")
		for (a = 1; a <= m; a++)
			for (b = a + 1; b <= m; b++)
				if (x[b] + 0 < x[a] + 0) { t = x[a]; x[a] = x[b]; x[b] = t }
		return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
	}
	{ v[$2] = v[$2] " " $3; r[$1 SUBSEP $2] = $3; nr = $1 > nr ? $1 : nr }
	END {
		k = split(names, st, " ")
		printf "%-8s %10s %12s   %s\n", "stage", "ns/run", "own cost", "rounds"
		prev = 0
		for (i = 1; i <= k; i++) {
			split(st[i], nm, ":")
			med = median(v[nm[1]])
			if (nm[1] ~ /^(base|var)/) {
				# paired: the whole sample of this tree over the base or variant, round by round
				p = ""
				for (j = 1; j <= nr; j++)
					if (r[j, 0] + 0 > 0 && r[j, nm[1]] + 0 > 0)
						p = p " " r[j, 0] / r[j, nm[1]]
				m = split(p, q, " ")
				lo = hi = q[1]
				for (a = 2; a <= m; a++) {
					lo = q[a] + 0 < lo + 0 ? q[a] : lo
					hi = q[a] + 0 > hi + 0 ? q[a] : hi
				}
				printf "%-8s %10.0f %12s  %s;  whole/this paired %.3f [%.3f..%.3f]\n",
					nm[2], med, "(whole)", v[nm[1]], m ? median(p) : 0, lo, hi
				continue
			}
			printf "%-8s %10.0f %+12.0f  %s\n", nm[2], med, med - prev, v[nm[1]]
			prev = med
		}
	}' "$work/ns"
