#!/bin/sh
# muxbpf against perf on the same netmux in the same run: `perf record -e cpu-clock:u -F 9973
# -k CLOCK_MONOTONIC -p PID` is attached to the netmux muxbpf starts, both sample at once, and
# perf's samples are split into muxbpf's phases by report.json's window_ns.  For each busy phase,
# muxbpf's top-10 self rows against perf's share of the same symbol, with muxbpf's 95% interval
# and the distance in points.  perf names the symbol that holds the address; muxbpf names an
# inlined function as a row of its own.  For this comparison muxbpf's rows are folded into perf's
# view: from profile.pb.gz (`go tool pprof -raw`), each sample's leaf is the function that holds
# its address (the last line of the leaf location, whose lines are its inline chain).  The
# interval of a folded row: Wilson at the phase's samples, widened by the phase's design factor
# (report.json rounds.design_factor, as the flame graphs' tooltips).  Without go,
# the report's own rows (inlined functions unfolded, "-" where perf has no twin).  Names are
# compared without arguments, clone suffixes and glibc's alias prefixes (perf's
# __GI___libc_write is muxbpf's write).  perf's own binomial error at ~10x the samples is small
# beside ours.
#   bench/vs_perf.sh BUILD_DIR [SCALE] [RUNS]           (root, perf on PATH; default 1 1)
# PERF_FREQ=N: perf's frequency (default 9973); on a loaded machine perf loses samples when its
# own process cannot keep up, and each phase's line of rates shows it.  PHASES=a,b: the phases
# (default the four repeatable busy ones); MUXBPF_ARGS: more options for muxbpf (--fixed-period).
set -u
out=${1:-build}
scale=${2:-1}
runs=${3:-1}
pfreq=${PERF_FREQ:-9973}
muxbpf=$out/muxbpf
. "$(dirname "$0")/common.inc"
command -v perf >/dev/null || { echo "skip: no perf"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 0; }
work=$(mktemp -d /tmp/muxbpf-vsperf.XXXXXX)
chmod 755 "$work" # netmux runs as the muxbpf user: it must reach its game directory
mkdir -p "$work/tmp" && chmod 1777 "$work/tmp"
trap 'rm -rf "$work"' EXIT
phases=${PHASES:-attrread,dispatch,softcode_arith,softcode_list}

echo "# muxbpf (997 Hz${MUXBPF_ARGS:+ $MUXBPF_ARGS}) vs perf record -e cpu-clock:u -F $pfreq, same netmux, same run"
machine_facts
echo "# --phase $phases --scale $scale; the machine is shared: other work ran beside it"
for r in $(seq 1 "$runs"); do
	d=$work/run$r
	mkdir -p "$d"
	TMPDIR=$work/tmp "$muxbpf" --full ${MUXBPF_ARGS:-} --phase "$phases" --scale "$scale" --out "$d" >"$d/out" 2>"$d/err" &
	mb=$!
	pid=
	for i in $(seq 1 2400); do
		pid=$(pgrep -P $mb -x netmux | head -1)
		[ -n "$pid" ] && break
		kill -0 $mb 2>/dev/null || break
		sleep 0.05
	done
	[ -n "$pid" ] || { echo "run $r: no netmux seen"; wait $mb; continue; }
	perf record -q -e cpu-clock:u -F "$pfreq" -k CLOCK_MONOTONIC -p "$pid" -o "$d/perf.data" \
		>/dev/null 2>"$d/perf.err" &
	pp=$!
	wait $mb
	kill -INT $pp 2>/dev/null
	wait $pp
	perf script -i "$d/perf.data" -F time,ip,sym 2>/dev/null >"$d/perf.txt"
	perf report -i "$d/perf.data" --stats 2>/dev/null | grep -i "LOST" | sed "s/^/perf: /" | head -3
	grep -o "sampling period re-drawn.*" "$d/err" | sed "s/^/muxbpf: /"
	: >"$d/pprof.txt"
	command -v go >/dev/null && go tool pprof -raw "$d/profile.pb.gz" >"$d/pprof.txt" 2>/dev/null
	echo
	echo "## run $r"
	python3 - "$d/report.json" "$d/perf.txt" "$d/pprof.txt" "$pfreq" <<'EOF'
import json, sys, re, math
rep = json.load(open(sys.argv[1]))

def folded_leaves(path):
    """{phase: {physical leaf function: samples}} from `go tool pprof -raw`."""
    lines = open(path).read().split('\n')
    loc, out, sec, cur = {}, {}, None, None
    for l in lines:
        if l in ('Samples:', 'Locations', 'Mappings'):
            sec = l
            continue
        if sec == 'Locations':
            # "ID: ADDR M=N NAME FILE:LINE s=0(FULL NAME)"; [sys] frames have no mapping
            m = re.match(r'\s*(\d+): (0x[0-9a-f]+)(?: M=\d+)? (.*?)(?: \S*:\d+)?'
                         r' s=\d+(?:\((.*)\))?$', l)
            if m:
                last = int(m.group(1))
                loc[last] = (m.group(2), m.group(4) or m.group(3))
                continue
            # a line of its own under a location: the next function out in its inline
            # chain; the last one is the function that holds the address
            m = re.match(r'\s+(.*?)(?: \S*:\d+)? s=\d+(?:\((.*)\))?$', l)
            if m and loc:
                loc[last] = (loc[last][0], m.group(2) or m.group(1))
    for l in lines:
        if l == 'Samples:':
            sec = 'S'
            continue
        if l == 'Locations':
            break
        if sec != 'S':
            continue
        m = re.match(r'\s*(\d+)\s+\d+: ([\d ]+)$', l)
        if m:
            cur = (int(m.group(1)), [int(x) for x in m.group(2).split()])
            continue
        m = re.search(r'phase:\[(\w+)\]', l)
        if m and cur and cur[0] > 0 and 'syscall:' not in l:
            ids = cur[1]
            # the leaf location holds its inline chain; a leading run of locations at one
            # address (profiles from before chains were one location) is one chain too
            k = 0
            while (k + 1 < len(ids) and loc[ids[k + 1]][0] == loc[ids[0]][0]
                   and ids[k + 1] != ids[k]):
                k += 1
            ph = out.setdefault(m.group(1), {})
            name = loc[ids[k]][1]
            ph[name] = ph.get(name, 0) + cur[0]
            cur = None
    return out

def wilson(k, n, z=1.959964):
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h

folded = folded_leaves(sys.argv[3]) if open(sys.argv[3]).read() else {}
samples = []
for line in open(sys.argv[2]):
    m = re.match(r'\s*(\d+\.\d+):\s+[0-9a-f]+\s+(.*)$', line)
    if m:
        samples.append((float(m.group(1)), m.group(2).strip()))
def base(name):
    # without arguments and clone suffixes, and without glibc's alias prefixes: perf names a
    # libc syscall wrapper by a local symbol (__GI___libc_write, __setitimer, __select) where
    # muxbpf names the exported alias at the same address (write, setitimer, select)
    name = re.sub(r'(\(| \[clone).*$', '', name).strip()
    return re.sub(r'^(__GI_)?_*(libc_)?', '', name)
worst = []
for ph in rep['phases']:
    w = ph.get('window_ns')
    if not ph.get('measured') or not w:
        continue
    lo, hi = w[0] / 1e9, w[1] / 1e9
    inside = [s for t, s in samples if lo <= t <= hi]
    n = len(inside)
    counts = {}
    for s in inside:
        counts[base(s)] = counts.get(base(s), 0) + 1
    f = ph['functions']
    fl = folded.get(ph['name'])
    rows = f['rows'][:10]
    view = "report rows, inlined functions unfolded"
    if fl:
        tot = sum(fl.values())
        df = max(1.0, (ph.get('rounds') or {}).get('design_factor') or 1.0)
        rows = []
        for name, k in sorted(fl.items(), key=lambda x: -x[1])[:10]:
            a, b = wilson(k, tot)
            p = 100.0 * k / tot
            ci = [max(0, p - df * (p - 100 * a)), min(100, p + df * (100 * b - p))]
            rows.append({'name': name, 'self_pct': p, 'self_ci_pct': ci})
        view = f"inlined frames folded into their caller, design factor {df:.2f}"
    print(f"{ph['name']}: muxbpf {f['samples']} samples, perf {n} samples ({view})")
    # both samplers' rates per second of netmux's on-CPU time (exact, the time ledger): user-only
    # samples of a cpu-clock event, so each should be its frequency times the user share at most
    cpu = (ph.get('oncpu_ns') or 0) / 1e9
    if cpu > 0:
        print(f"  per on-CPU s: muxbpf {f['samples'] / cpu:.0f} ({rep.get('freq_hz')} Hz),"
              f" perf {n / cpu:.0f} ({sys.argv[4]} Hz); user share of on-CPU"
              f" {100.0 * (ph.get('usr_ns') or 0) / 1e9 / cpu:.1f}%")
    print(f"  {'muxbpf%':>8} {'95% ci':>13} {'perf%':>7} {'dist':>6}  function")
    for row in rows:
        lo_ci, hi_ci = row['self_ci_pct']
        pc = counts.get(base(row['name']))
        if n and pc is not None:
            pp = 100.0 * pc / n
            d = row['self_pct'] - pp
            worst.append(abs(d))
            inside_ci = lo_ci <= pp <= hi_ci
            print(f"  {row['self_pct']:7.2f}% [{lo_ci:5.1f},{hi_ci:5.1f}] {pp:6.2f}% {d:+6.2f}"
                  f"{' ' if inside_ci else '*'} {row['name'][:70]}")
        else:
            print(f"  {row['self_pct']:7.2f}% [{lo_ci:5.1f},{hi_ci:5.1f}] {'-':>7} {'':>6}  {row['name'][:70]}")
if worst:
    worst.sort()
    print(f"distance over {len(worst)} rows: median {worst[len(worst)//2]:.2f}, max {worst[-1]:.2f} points"
          " (* = perf's share outside muxbpf's 95% interval)")
EOF
done
