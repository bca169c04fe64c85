#!/bin/sh
# Stability of netmux's CPU per phase between server processes, and where the variation comes
# from.
#
#   bench/stability.sh BUILD_DIR [RUNS (default 6)] [EXTRA muxbpf OPTIONS...]
#
# 1. `muxbpf --runs 3` at the default scale: the spread muxbpf itself prints (profiled).
# 2. RUNS separate bare server processes (--no-profile) in each condition, the conditions
#    interleaved run by run so that host noise hits them alike:
#      plain     as muxbpf runs it
#      aslr-off  setarch -R (no address-space randomisation: the same heap/stack/library layout
#                in every process)
#      pinned    the driver (muxbpf) on CPU 0, netmux moved to CPU 1 right after its exec
#    per phase: min / median / max / spread of netmux's CPU, with host steal and load per run.
# Nothing passes or fails on a number.  Needs root (the profiled runs).
set -u
out=${1:-build}
runs=${2:-6}
[ $# -ge 2 ] && shift 2 || shift $#
extra="$*"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.inc"
muxbpf=$out/muxbpf
phases=create,attrwrite,dump,attrread,dispatch,softcode_arith,softcode_list
conds=${STABILITY_CONDS:-plain aslr-off pinned}
tmp=$(mktemp -d /tmp/muxbpf-stability.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

machine_facts
echo
echo "### muxbpf --runs 3 (profiled, default scale, --idle-seconds 2) $extra"
s0=$(steal_now)
echo "\$ $muxbpf --runs 3 --idle-seconds 2 -q $extra"
# shellcheck disable=SC2086
"$muxbpf" --full --runs 3 --idle-seconds 2 -q $extra >"$tmp/runs3.txt" 2>&1
sed -n '/^== spread/,/^$/p' "$tmp/runs3.txt"
echo "host steal $(steal_pct "$s0" "$(steal_now)")%, load $(load1)"

echo
echo "### $runs bare server processes per condition, interleaved (--no-profile --phase $phases) $extra"
for i in $(seq 1 "$runs"); do
	for cond in $conds; do
		s0=$(steal_now)
		l0=$(load1)
		case $cond in
		plain) pre= ;;
		aslr-off) pre="setarch -R" ;;
		pinned) pre="taskset -c 0" ;;
		esac
		# shellcheck disable=SC2086
		$pre "$muxbpf" --full --no-profile --phase $phases -q $extra >"$tmp/$cond.$i.txt" 2>&1 &
		m=$!
		if [ $cond = pinned ]; then
			p=
			while [ -z "$p" ] && kill -0 "$m" 2>/dev/null; do
				p=$(pgrep -P "$m" -x netmux) || sleep 0.002
			done
			[ -n "$p" ] && taskset -pc 1 "$p" >/dev/null
		fi
		wait "$m"
		echo "$cond run $i: steal $(steal_pct "$s0" "$(steal_now)")%, load $l0" >>"$tmp/host.txt"
		oncpu_rows <"$tmp/$cond.$i.txt" >"$tmp/$cond.$i.rows"
	done
done
for cond in $conds; do
	echo
	echo "$cond: netmux CPU ms per phase over $runs processes"
	printf "  %-16s %9s %9s %9s %8s   %s\n" phase min median max spread "values in run order"
	for p in $(echo $phases | tr , ' '); do
		vals=$(for i in $(seq 1 "$runs"); do awk -v p="$p" '$1==p {print $2}' "$tmp/$cond.$i.rows"; done)
		stats=$(echo "$vals" | mmm)
		printf "  %-16s %9s %9s %9s %8s   %s\n" "$p" $stats "$(echo $vals)"
	done
done
echo
cat "$tmp/host.txt"

# 3. The same bare blocks repeated inside one server process, in several processes: if each
#    process's best block agrees with the others' while single runs spread, the variation is
#    noise over time (host, neighbours), not a property of the process (layout, state).
nproc_between=${STABILITY_PROCS:-3}
echo
echo "### within one process vs between processes: $nproc_between processes, each 8 bare blocks per phase"
echo "\$ $out/bench/overhead --configs bare --rounds 8   (x$nproc_between)"
for k in $(seq 1 "$nproc_between"); do
	s0=$(steal_now)
	l0=$(load1)
	"$out/bench/overhead" --configs bare --rounds 8 >"$tmp/within.$k" 2>/dev/null
	echo "process $k: steal $(steal_pct "$s0" "$(steal_now)")%, load $l0" >>"$tmp/host2.txt"
done
printf "  %-16s %-8s %9s %9s %9s %8s\n" phase process "min us" "median" "max" "noise"
for p in attrwrite attrread dispatch softcode_arith softcode_list; do
	for k in $(seq 1 "$nproc_between"); do
		awk -v p="$p" -v k="$k" '$1 == p":" {t=1; next} t && $1 == "bare" {
			printf "  %-16s %-8s %9s %9s %9s %7.1f%%\n", p, k, $2, $3, $4, 100*($4-$2)/$3; exit }' \
			"$tmp/within.$k"
	done
	mins=$(for k in $(seq 1 "$nproc_between"); do
		awk -v p="$p" '$1 == p":" {t=1; next} t && $1 == "bare" {print $2; exit}' "$tmp/within.$k"
	done | mmm)
	echo "$mins" | awk -v p="$p" '{printf "  %-16s best blocks of the processes: %s .. %s us, spread %s\n", p, $1, $3, $4}'
done
cat "$tmp/host2.txt"

