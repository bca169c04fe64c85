#!/bin/sh
# After the run: how long muxbpf takes from the end of the last phase to the printed report and
# to all --out artifacts, what its outputs weigh, and the same for perf on a recording of the
# same workload; how that grows with the work (--scale), with map occupancy and symbolization
# time against the number of distinct stacks.
#
#   bench/posttime.sh BUILD_DIR [SCALES (default "0.1 1"; "0.1 1 10" for the full table)]
#
# An item may carry a sampling frequency and a phase list, SCALE[:HZ[:PHASES]] (e.g.
# "10:9973" for more samples and distinct stacks; "10:997:dispatch,softcode_list" to leave out
# attrwrite and attrread, whose cost per command grows with the object count, so that their
# time grows with the square of the scale: about 4 minutes each at scale 10; dump needs them
# as set-up, so leave it out as well).
#
# Per scale:
#  - muxbpf (default profile) --out DIR -v: its own timing lines (symbolization with the number
#    of distinct stacks and sample keys, then time after the last phase to the session's close,
#    the built report, the printed report and written artifacts), the artifacts' size, map
#    occupancy against --max-stacks / --max-samples, and its BPF time / netmux CPU per phase;
#  - muxbpf --no-profile with perf record -p NETMUX attached right after exec (-g -F 997, then
#    -e task-clock:u --call-graph dwarf,16384 -F 997): perf.data size, perf record's own exit
#    time, and `perf report --stdio` time on it.
# Needs root and perf.  Nothing passes or fails on a number.
set -u
out=${1:-build}
scales=${2:-0.1 1}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
muxbpf=$out/muxbpf
tmp=$(mktemp -d /tmp/muxbpf-posttime.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
ms_since() { echo "$1 $(now)" | awk '{printf "%.0f", ($2-$1)*1000}'; }

# perf record on netmux during a --no-profile run; prints "size_bytes record_exit_ms report_ms"
perf_run() {
	scale=$1
	phases=$2
	shift 2
	"$muxbpf" --no-profile --scale "$scale" --phase "$phases" --idle-seconds 1 -q >/dev/null 2>&1 &
	m=$!
	p=
	while [ -z "$p" ] && kill -0 "$m" 2>/dev/null; do
		p=$(pgrep -P "$m" -x netmux)
		[ -z "$p" ] && sleep 0.002
	done
	perf record -q "$@" -F 997 -p "$p" -o "$tmp/perf.data" >/dev/null 2>&1 &
	pp=$!
	wait "$m"
	t0=$(now)
	wait "$pp"
	rec_ms=$(ms_since "$t0")
	t0=$(now)
	perf report -i "$tmp/perf.data" --stdio >"$tmp/perf.report" 2>/dev/null
	rep_ms=$(ms_since "$t0")
	echo "$(stat -c %s "$tmp/perf.data") $rec_ms $rep_ms $(wc -c <"$tmp/perf.report") $(sed -n 's/^# Samples: \([0-9.]*[KM]*\) .*/\1/p' "$tmp/perf.report" | head -1)"
	rm -f "$tmp/perf.data" "$tmp/perf.report"
}

machine_facts
for item in $scales; do
	scale=$(echo "$item" | cut -d: -f1)
	freq=$(echo "$item" | cut -s -d: -f2)
	freq=${freq:-997}
	phases=$(echo "$item" | cut -s -d: -f3)
	phases=${phases:-all}
	echo
	echo "### scale $scale, $freq Hz, --phase $phases"
	s0=$(steal_now)
	l0=$(load1)
	rm -rf "$tmp/out"
	echo "\$ $muxbpf --scale $scale --freq $freq --phase $phases --idle-seconds 1 -q -v --out DIR"
	"$muxbpf" --full --scale "$scale" --freq "$freq" --phase "$phases" --idle-seconds 1 -q -v --out "$tmp/out" \
		>"$tmp/report.txt" 2>"$tmp/err.txt"
	grep 'timing:' "$tmp/err.txt" | sed 's/^muxbpf: /  muxbpf /'
	grep 'artifacts:' "$tmp/err.txt" | sed 's/^muxbpf: /  muxbpf /; s/ in \/tmp[^,]*,/,/'
	stacks=$(sed -n 's/.*symbolized \([0-9]*\) distinct stacks (\([0-9]*\) sample keys).*/\1 \2/p' \
		"$tmp/err.txt")
	echo "$stacks" | awk '{printf "  map occupancy: %d stacks (of 16384 per depth bucket, %.1f%% of one), %d sample keys (of 65536, %.1f%%)\n", $1, 100*$1/16384, $2, 100*$2/65536}'
	echo "  samples dropped (all phases): $(grep -o 'dropped [0-9]*' "$tmp/report.txt" | awk '{s+=$2} END {print s+0}')"
	echo "  report.txt $(wc -c <"$tmp/report.txt") bytes; --out total $(du -sb "$tmp/out" | cut -f1) bytes ($(ls "$tmp/out" | wc -l) files)"
	echo "  BPF time / netmux CPU per phase (muxbpf's own cost line; runs for other processes included):"
	awk '/^== / {ph = $2; sub(":", "", ph)}
	/^  profiler cost: BPF/ {for (i = 1; i <= NF; i++) if ($i == "=") {printf "    %-16s %s\n", ph, $(i + 1); break}}' \
		"$tmp/report.txt"
	[ "$freq" = 997 ] && for mode in fp dwarf; do
		if [ $mode = fp ]; then
			r=$(perf_run "$scale" "$phases" -g)
			what="perf record -g -F 997 -p NETMUX"
		else
			r=$(perf_run "$scale" "$phases" -e task-clock:u --call-graph dwarf,16384)
			what="perf record -e task-clock:u --call-graph dwarf,16384 -F 997 -p NETMUX"
		fi
		echo "$r" | awk -v w="$what" '{printf "  %s: perf.data %d bytes, perf record exit %d ms after netmux, perf report --stdio %d ms (%d bytes of text), %s samples\n", w, $1, $2, $3, $4, $5}'
	done
	echo "  host steal $(steal_pct "$s0" "$(steal_now)")%, load $l0 -> $(load1)"
done
