#!/bin/sh
# The idle soak: bench/long_idle.sh for SECONDS (default 3600) with 32 sessions, then the idle
# window's balance must close (|leftover| <= 1% of the threads' wall) and the syscall CPU must
# not exceed the kernel's on-CPU.  A report of an idle hour once booked 149 s of blocked select()
# as CPU (a switch-in the kernel did not report); this is the check that it does not return.
#   bench/soak.sh BUILD_DIR [SECONDS [EVERY]]    exit 0: closed, 1: did not close
set -u
out=${1:-build}
secs=${2:-3600}
every=${3:-300}
log=$(mktemp /tmp/muxbpf-soak.XXXXXX)
sh "$(dirname "$0")/long_idle.sh" "$out" "$secs" "$every" | tee "$log"
case $(cat "$log") in *skipped*) rm -f "$log"; exit 0 ;; esac
# "  ledger (N threads): wall W ms = on-CPU C (user U + syscalls S + call-site walks K) + ...
# leftover +L ms (+P%)"
set -- $(sed -n 's/^  ledger ([0-9]* threads\{0,1\}): .* on-CPU \([0-9.]*\) (user [0-9.]* + syscalls \([0-9.]*\)[^)]*).* leftover \([-+0-9.]*\) ms (\([-+0-9.]*\)%).*/\1 \2 \3 \4/p' "$log" | head -1)
rm -f "$log"
[ $# -eq 4 ] || { echo "soak: no ledger line in the report"; exit 1; }
echo "soak: on-CPU $1 ms, syscalls $2 ms, leftover $3 ms ($4%)"
awk -v oncpu="$1" -v sys="$2" -v pct="$4" 'BEGIN {
	p = pct < 0 ? -pct : pct
	if (p > 1) { print "soak: the balance did not close"; exit 1 }
	if (sys + 0 > oncpu * 1.01 + 0.1) { print "soak: syscall CPU exceeds on-CPU"; exit 1 }
	print "soak: closed"
}'
