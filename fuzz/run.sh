#!/bin/sh
# Run libFuzzer targets for FUZZ_SECONDS each (FUZZ_JOBS at a time, at nice FUZZ_NICE).
#   fuzz/run.sh FUZZ_DIR TARGET...
# Prints one line per target (executions, corpus size, crashes) and a total; exits 1 when any
# target found a crash (its input is in FUZZ_DIR/artifacts/TARGET/).
set -u
dir=$1
shift
secs=${FUZZ_SECONDS:-60} jobs=${FUZZ_JOBS:-1} nice=${FUZZ_NICE:-19}
run_one() {
	t=$1
	case $t in fuzz_maps | fuzz_callgrind) seed=$dir/seed/$t ;; *) seed=$dir/seed/fuzz_elf ;; esac
	mkdir -p "$dir/corpus/$t" "$dir/artifacts/$t"
	# fuzz/regress/TARGET: inputs of fixed findings, replayed first as seeds
	regress=$(dirname "$0")/regress/$t
	[ -d "$regress" ] || regress=
	nice -n "$nice" "$dir/$t" -max_total_time="$secs" -max_len=65536 -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t/" \
		"$dir/corpus/$t" "$seed" $regress >"$dir/$t.log" 2>&1
	echo $? >"$dir/$t.rc"
}
running=0
for t in "$@"; do
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
total=0 bad=0
for t in "$@"; do
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$t.log" | tail -1)
	crashes=$(ls "$dir/artifacts/$t" 2>/dev/null | grep -cE '^(crash|leak|timeout|oom)-') || true
	corpus=$(ls "$dir/corpus/$t" | wc -l)
	rc=$(cat "$dir/$t.rc")
	printf '  %-16s %12s executions, corpus %6s, %s findings (exit %s)\n' "$t" "${execs:-0}" \
		"$corpus" "$crashes" "$rc"
	total=$((total + ${execs:-0}))
	if [ "$crashes" -gt 0 ] || [ "$rc" -ne 0 ]; then
		bad=1
		tail -30 "$dir/$t.log" | sed 's/^/    | /'
	fi
done
echo "fuzz: $total executions in total"
exit $bad
