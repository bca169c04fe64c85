#!/bin/sh
# A long idle phase on a live game: muxbpf's memory, CPU and map occupancy over time.
#   bench/long_idle.sh BUILD_DIR [SECONDS [EVERY]]
# SECONDS (default 60, or $LONG_IDLE_SECONDS) of idle with 32 sessions logged in, recorded every
# EVERY seconds (default 10, or $LONG_IDLE_EVERY).  A netmux started outside muxbpf
# (tests/helper_live serve), `muxbpf attach --port` with a control socket, and a client
# (tests/helper_live drive ... idle) that logs the 32 players in and marks the idle window.
# Prints one row per sample and muxbpf's own report lines at the end; measures, never fails on
# a number (needs root and BTF; exits 0 with a note otherwise).
set -u
out=${1:-build}
secs=${2:-${LONG_IDLE_SECONDS:-60}}
every=${3:-${LONG_IDLE_EVERY:-10}}

if [ "$(id -u)" != 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "long_idle: skipped (needs root and BTF)"
	exit 0
fi
work=$(mktemp -d /tmp/muxbpf-long-idle.XXXXXX)
serve_pid= mux_pid= drive_pid=
cleanup() {
	[ -n "$drive_pid" ] && kill "$drive_pid" 2>/dev/null
	[ -n "$mux_pid" ] && kill -INT "$mux_pid" 2>/dev/null && sleep 1
	exec 9>&- 2>/dev/null
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null
	sleep 0.5
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
# copies: a rebuild of the tree during a long run must not replace the binaries in use
cp "$out/muxbpf" "$out/tests/helper_live" "$work/"
mkfifo "$work/serve.in"
"$work/helper_live" serve <"$work/serve.in" >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
exec 9>"$work/serve.in"
i=0
while [ ! -s "$work/serve.out" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
read -r game_pid port <"$work/serve.out" || { echo "long_idle: no game"; cat "$work/serve.err"; exit 0; }

"$work/muxbpf" attach --full --port "$port" --control "$work/ctl" -q >"$work/report.txt" \
	2>"$work/muxbpf.err" &
mux_pid=$!
"$work/helper_live" drive "$port" "$work/ctl" idle 1 "$secs" >"$work/drive.out" 2>&1 &
drive_pid=$!

echo "# long idle: ${secs} s, 32 sessions, netmux pid $game_pid, muxbpf pid $mux_pid, sample every ${every} s"
echo "# t_s: since the idle window opened; cpu: muxbpf, all threads (schedstat); maps: entries"
printf '%6s %9s %10s %9s %8s %8s %8s %8s %8s %8s\n' t_s rss_kb cpu_ms cpu_pct \
	samples ustk16 ustk32 syscalls sites lost
cpu_of() { # schedstat run time of every thread of $1, in ns
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}
field() { # field NAME STATUS_LINE -> the count before the slash
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=\([0-9]*\)\/.*/\1/p"
}
# wait for the window
i=0
while ! "$work/helper_live" ctl "$work/ctl" status 2>/dev/null | grep -q 'phase=idle'; do
	sleep 0.2
	i=$((i + 1))
	[ $i -gt 300 ] && { echo "long_idle: the idle window did not open"; cat "$work/drive.out" "$work/muxbpf.err"; exit 0; }
done
t0=$(date +%s.%N)
c0=$(cpu_of "$mux_pid")
cprev=$c0 tprev=$t0
while kill -0 "$drive_pid" 2>/dev/null; do
	st=$("$work/helper_live" ctl "$work/ctl" status 2>/dev/null) || break
	case $st in *phase=idle*) ;; *) break ;; esac
	now=$(date +%s.%N)
	c=$(cpu_of "$mux_pid")
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/"$mux_pid"/status)
	lost=$(printf '%s\n' "$st" | sed -n 's/.* lost=\([0-9/]*\).*/\1/p')
	printf '%6.0f %9s %10.1f %8.4f%% %8s %8s %8s %8s %8s %8s\n' \
		"$(echo "$now - $t0" | bc)" "$rss" "$(echo "($c - $c0) / 1000000" | bc -l)" \
		"$(echo "if ($now > $tprev) 100 * ($c - $cprev) / 1000000000 / ($now - $tprev) else 0" | bc -l)" \
		"$(field samples "$st")" "$(field ustacks_16 "$st")" "$(field ustacks_32 "$st")" \
		"$(field syscalls "$st")" "$(field sites "$st")" "$lost"
	cprev=$c tprev=$now
	# sleep in small steps: the window may end between samples
	j=0
	while [ $j -lt $((every * 5)) ] && kill -0 "$drive_pid" 2>/dev/null; do
		sleep 0.2
		j=$((j + 1))
	done
done
wait "$drive_pid"
drive_pid=
"$work/helper_live" ctl "$work/ctl" stop >/dev/null
wait "$mux_pid"
mux_pid=
echo "# muxbpf's report (idle window):"
sed -n '/^phase /,/^$/p' "$work/report.txt"
grep -E '^  (ledger \(|profiler cost:|[0-9]+ syscalls with a missing)' "$work/report.txt"
grep -E '^  (muxbpf itself|live phases|boundary)' "$work/report.txt"
sed -n '/^  maps (/,/checked every/p' "$work/report.txt"
cat "$work/drive.out"
