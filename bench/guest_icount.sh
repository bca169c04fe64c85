#!/bin/sh
# Instructions per syscall, counted in the kernel matrix's Debian guests (TCG), where time is
# emulated but instructions are not: bench/storm.c's configurations (bare, the tracepoint and
# fentry floors, the default ledger on each hook, ...) for a target and a bystander, each batch
# of calls one window of the icount_window QEMU plugin (bench/qemu/icount_window.c) in a guest
# with one vCPU.
#   bench/guest_icount.sh [BUILD_DIR [SERIES...]]     (SERIES: 6.1 by default)
# Two boots per kernel, each holding /tmp/muxbpf-bpf.lock while it runs (~2-3 min): the storm
# (MUXBPF_ICOUNT_CALLS calls per batch, default 50000, MUXBPF_ICOUNT_ROUNDS rounds, default 2),
# then bench/overhead.c on netmux's dispatch and softcode_arith commands under bare, sampler and
# the tracepoint and fentry floors and ledgers (one block of one window per configuration and
# round, MUXBPF_ICOUNT_OVERHEAD_ROUNDS, default 1, at --scale MUXBPF_ICOUNT_SCALE, default 0.1).
# MUXBPF_ICOUNT_WHAT="storm overhead" by default.  Needs root and `make bench-build qemu-plugin`.
# MUXBPF_ICOUNT_HIST=1: the storm's instructions per call by kernel function as well (the plugin's
# hist=, a callback per block: a slower boot), for the bystander under bare and the two floors,
# and for the target under bare and the two ledgers.
# Prints per configuration and process: instructions per call (each round), the instructions
# added to bare's, and the looper's CPU ns per call as the guest's clock read it (emulated: no
# measure of hardware).  Measures only: never passes or fails on a number.
set -u
# inside the guest (run by tests/kernels/guest.sh): what the guest kernel mitigates (its
# return thunks and retpolines are instructions in every count), then the storm
# --guest storm OUT ROUNDS CALLS, --guest overhead OUT ROUNDS SCALE
if [ "${1:-}" = --guest ]; then
	echo "icount guest: cmdline: $(cat /proc/cmdline)"
	grep . /sys/devices/system/cpu/vulnerabilities/* 2>/dev/null | sed 's|.*/|icount guest: |'
	if [ "$2" = storm ]; then
		# the kernel's symbols, for MUXBPF_ICOUNT_HIST's per-function table
		cat /proc/kallsyms >/kresults/kallsyms
		"$3/bench/storm" "$4" "$5" icount
	else
		# netmux per command: the configurations that differ in the syscall hook only
		cd /tmp && "$3/bench/overhead" --icount --rounds "$4" --scale "$5" --freq 1 \
			--block-ms 1 --phases dispatch,softcode_arith \
			--configs sampler,floor,floor-fentry,default,default-tp
	fi
	echo "$2 rc=$?"
	exit 0
fi
out=${1:-build}
shift 2>/dev/null
series=${*:-6.1}
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
calls=${MUXBPF_ICOUNT_CALLS:-50000}
rounds=${MUXBPF_ICOUNT_ROUNDS:-2}
orounds=${MUXBPF_ICOUNT_OVERHEAD_ROUNDS:-1}
scale=${MUXBPF_ICOUNT_SCALE:-0.1}
plugin=$out/qemu/icount_window.so
if [ "$(id -u)" != 0 ]; then
	echo "guest_icount: skip: needs root (the kernel matrix's guests)"
	exit 0
fi
for f in "$plugin" "$out/bench/storm" "$out/bench/overhead"; do
	[ -f "$f" ] && continue
	echo "guest_icount: skip: $f not built (make bench-build qemu-plugin)"
	exit 0
done
# by_function RES CALLS PROCESS C1 C2 C3: PROCESS's (bystander or target) instructions per call by
# kernel function (that of the block's start address; below the kernel's text: "(user)") under
# the storm's configurations C1 (the reference: bare), C2 and C3, the mean of the rounds, the
# functions whose count differs from C1's by 1 or more
by_function() {
	grep ' [tT] ' "$1/kallsyms" | sort >"$1/kallsyms.text"
	awk -v calls="$2" -v proc="$3" -v c1="$4" -v c2="$5" -v c3="$6" '
		FILENAME ~ /kallsyms.text$/ { a[++n] = $1; nm[n] = $3; next }
		FILENAME ~ /log$/ {
			if ($0 !~ /^icount window [0-9]+: /) next
			split($0, f, /[:|]/); sub(/^icount window /, "", f[1]); sub(/^ /, "", f[2])
			if (f[3] != proc) next
			if (f[2] == c1) col[f[1]] = 1
			if (f[2] == c2) col[f[1]] = 2
			if (f[2] == c3) col[f[1]] = 3
			if (f[1] in col) rounds[col[f[1]]]++
			next
		}
		($1 in col) { s = sym(sprintf("%16s", $2)); v[s, col[$1]] += $3 / calls / rounds[col[$1]]
			      seen[s] = 1 }
		function sym(k,  lo, hi, mid) {
			gsub(/ /, "0", k)
			if (k < a[1]) return "(user)"
			# the module area: JITed programs and trampolines (loaded after kallsyms was read)
			if (k >= "ffffffffc0000000") return "(module_area:bpf,trampolines)"
			lo = 1; hi = n
			while (lo < hi) {
				mid = int((lo + hi + 1) / 2)
				if (a[mid] <= k) lo = mid; else hi = mid - 1
			}
			return nm[lo]
		}
		END {
			for (s in seen) {
				d2 = v[s, 2] - v[s, 1]; d3 = v[s, 3] - v[s, 1]
				if (d2 >= 1 || d2 <= -1 || d3 >= 1 || d3 <= -1)
					printf "%-36s %10.1f %10.1f %12.1f\n", s, v[s, 1], v[s, 2], v[s, 3]
			}
		}' "$1/kallsyms.text" "$1/log" "$1/plugin.hist" | sort -k4 -n -r |
		{ printf "%-36s %10s %10s %12s\n" "$3 insns/call by function" "$4" "$5" "$6"; cat; }
}

for s in $series; do
	for what in ${MUXBPF_ICOUNT_WHAT:-storm overhead}; do
		start=$(date +%s)
		case $what in
		storm) cmd="sh $repo/bench/guest_icount.sh --guest storm $out $rounds $calls" ;;
		*) cmd="sh $repo/bench/guest_icount.sh --guest overhead $out $orounds $scale" ;;
		esac
		flock /tmp/muxbpf-bpf.lock env MUXBPF_GUEST_SMP=1 MUXBPF_GUEST_PLUGIN="$plugin" \
			MUXBPF_GUEST_PLUGIN_HIST="${MUXBPF_ICOUNT_HIST:-}" \
			MUXBPF_GUEST_ONLY=none MUXBPF_GUEST_BENCH="$cmd" \
			sh "$repo/tests/kernels/run.sh" "$out" "$s"
		res=$out/kernels/$s
		echo "== kernel $s: $(sed -n 's/^guest: //p' "$res/log" | head -1), one vCPU, guest" \
			"run $(($(date +%s) - start)) s; $what"
		# join the guest's "icount window N: A|B|UNITS|TIME" with the plugin's "window N: I".
		# The storm's A|B: configuration|process; overhead's: phase|configuration.  Reference:
		# bare.
		awk -F'|' '
			FNR == NR { if ($0 ~ /^window [0-9]+: /) {
					split($0, w, /[: ]+/); ins[w[2]] = w[3] }
				    next }
			/^icount window [0-9]+: / {
				sub(/^icount window /, ""); n = $0; sub(/:.*/, "", n)
				sub(/^[0-9]+: /, "", $1)
				k = $1 "|" $2
				if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
				v[k] = v[k] sprintf(" %.1f", ins[n] / $3); last[k] = ins[n] / $3
				t[k] = t[k] sprintf(" %.1f", $4)
			}
			function ref(k,  p) {
				split(k, p, "|")
				return p[2] ~ /^(target|bystander)$/ ? "bare|" p[2] : p[1] "|bare"
			}
			END {
				printf "%-36s %-22s %12s %s\n", "configuration|process (phase|config)",
				       "insns per call/command", "+insns", "emulated ns/call, us/command"
				for (i = 1; i <= nk; i++) {
					k = order[i]
					printf "%-36s %-22s %+12.1f %s\n", k, v[k],
					       last[k] - last[ref(k)], t[k]
				}
			}' "$res/plugin.out" "$res/log"
		grep -E '^(storm|overhead) rc=' "$res/log"
		grep '^attach: ' "$res/log"
		cp "$res/log" "$res/icount-$what.log" && cp "$res/plugin.out" "$res/icount-$what.plugin"
		grep -E '^(total: |icount_window)' "$res/plugin.out"
		sed -n 's/^icount \(hook\|guest\): /  /p' "$res/log" | sort -u
		if [ "$what" = storm ] && [ -s "$res/plugin.hist" ]; then
			by_function "$res" "$calls" bystander bare "tgid filter tp_btf" \
				"tgid filter fentry"
			by_function "$res" "$calls" target bare "default, tracepoint" \
				"default (auto hook)"
		fi
	done
done
