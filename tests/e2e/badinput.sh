#!/bin/sh
# Bad invocations, table-driven: each must fail with one clear error line (checked against a
# pattern), the expected exit code, no crash, and nothing left behind (no game directory, no
# process).  Rows that start netmux need root (they run with --no-profile: no BPF needed); without
# root the others run, and the script skips (fails if one of them failed): it passes only when
# every row ran.
set -u
out=${1:-build}
out=$(cd "$out" && pwd)
muxbpf=$out/muxbpf
. "$(dirname "$0")/lib.inc"
e2e_init badinput
export TMPDIR=$work/tmp
root=no
[ "$(id -u)" = 0 ] && root=yes

# Fixtures: a template without its database, a non-executable file, a busy port, a fake server.
mkdir -p "$work/nodb/data" "$work/nodb/text"
touch "$work/nodb/alias.conf" "$work/nodb/compat.conf"
printf 'not a program\n' >"$work/notexec"
chmod 644 "$work/notexec"
fake=$out/tests/targets/fake_mux
[ -x "$fake" ] || { echo "FAIL: $fake not built"; exit 1; }
cp "$fake" "$work/fake_mux" && chmod 755 "$work/fake_mux"
# a listener on a loopback port: nc may be missing, so the fake server itself
busy_port=$((20000 + $$ % 20000))
mkdir -p "$work/busy"
printf 'port %d\n' "$busy_port" >"$work/busy/netmux.conf"
(cd "$work/busy" && exec "$work/fake_mux" -c netmux.conf) 2>/dev/null &
busy_pid=$!
trap 'kill $busy_pid 2>/dev/null; e2e_cleanup' EXIT
wait_until 5 sh -c "ss -ltnH 'sport = :$busy_port' | grep -q LISTEN" ||
	{ echo "FAIL: the busy-port listener did not start"; exit 1; }

fail=0 n=0 skipped=0
# case NAME EXPECTED_RC PATTERN NEEDS_ROOT ARGS...
case_() {
	name=$1 want_rc=$2 pattern=$3 needs=$4
	shift 4
	n=$((n + 1))
	if [ "$needs" = root ] && [ "$root" = no ]; then
		skipped=$((skipped + 1))
		echo "not run - $name (needs root)"
		return
	fi
	before=$(mb_progs)
	"$muxbpf" "$@" >"$work/stdout" 2>"$work/stderr" </dev/null
	rc=$?
	first=$(head -1 "$work/stderr")
	lines=$(grep -c '^muxbpf: ' "$work/stderr")
	why=
	[ "$rc" -eq "$want_rc" ] || why="exit $rc, expected $want_rc"
	[ "$rc" -lt 128 ] || why="crashed (exit $rc)"
	printf '%s\n' "$first" | grep -Eq -- "$pattern" || why="${why:+$why; }first line does not match /$pattern/"
	[ "$lines" -eq 1 ] || why="${why:+$why; }$lines muxbpf: lines on stderr, expected 1"
	[ -s "$work/stdout" ] && why="${why:+$why; }a report on stdout"
	if ! check_clean "$name" "$before" >"$work/clean"; then
		why="${why:+$why; }$(cat "$work/clean")"
	fi
	if [ -n "$why" ]; then
		fail=$((fail + 1))
		echo "not ok - $name: $why"
		sed 's/^/    | /' "$work/stderr" | head -10
	else
		echo "ok - $name: $first"
	fi
}

case_ "unknown option" 2 "unknown option '--bogus'" any --bogus
case_ "unexpected argument" 2 "unexpected argument 'extra'" any extra
case_ "option without its value" 2 "option '--freq' needs a value" any --freq
case_ "unknown phase lists the valid ones" 2 \
	"unknown phase 'bogus' \(valid: all,boot,create,attrwrite,dump,attrread,idle,dispatch" \
	any --phase create,bogus
case_ "empty phase list" 2 "unknown phase|no phase|empty" any --phase ""
case_ "zero scale" 2 "invalid --scale '0'" any --scale 0
case_ "both statistics options" 2 "choose --bpf-stats or --no-bpf-stats" any --bpf-stats --no-bpf-stats
case_ "negative scale" 2 "invalid --scale '-1'" any --scale -1
case_ "scale not a number" 2 "invalid --scale 'abc'" any --scale abc
case_ "frequency 0" 2 "invalid --freq '0' \(expected a whole number from 1 to 100000\)" any --freq 0
case_ "frequency above 100000" 2 "invalid --freq '100001'" any --freq 100001
case_ "negative idle seconds" 2 "invalid --idle-seconds '-1'" any --idle-seconds -1
case_ "top 0" 2 "invalid --top '0'" any --top 0
case_ "unknown unwind mode" 2 "invalid --unwind 'bogus' \(expected fp, dwarf or auto\)" any --unwind bogus
case_ "drop percentage above 100" 2 "invalid --max-drop-pct '101'" any --max-drop-pct 101
case_ "port out of range" 2 "invalid --port '70000'" any --port 70000
case_ "missing netmux" 1 "netmux binary /nonexistent/netmux is missing or not executable: No such file" \
	any --netmux /nonexistent/netmux --no-profile
case_ "netmux not executable" 1 "netmux binary .*/notexec is missing or not executable: Permission denied" \
	any --netmux "$work/notexec" --no-profile
case_ "template without its database" 1 "game template .*/nodb has no data/netmux.db" \
	any --game "$work/nodb" --no-profile
case_ "missing template" 1 "game template /nonexistent/game has no data/netmux.db" \
	any --game /nonexistent/game --no-profile
case_ "port in use" 1 "port $busy_port on 127.0.0.1 is not available: already in use" \
	any --port "$busy_port" --no-profile
case_ "unknown netmux user" 1 "unknown netmux user 'no-such-user-x'" root \
	--netmux-user no-such-user-x --no-profile
case_ "netmux rejects the wizard login" 1 \
	"failed to log in to netmux on port [0-9]+: .*(different password|login)" root \
	--netmux "$work/fake_mux" --no-profile --phase create
export FAKE_MUX_ANY=1
case_ "netmux listening beyond loopback" 1 \
	"netmux listens on port [0-9]+ on a non-loopback address" root \
	--netmux "$work/fake_mux" --no-profile --phase create
unset FAKE_MUX_ANY
case_ "unwritable --out directory" 1 "/proc/1/nope|--out|output" any \
	--out /proc/1/nope/out --no-profile --phase create
echo "badinput: $n cases, $fail failed, $skipped not run (need root)"
[ "$fail" -eq 0 ] || exit 1
# a pass means every row ran: rows left out make the whole script a skip
[ "$skipped" -eq 0 ] || skip "$skipped of $n rows need root"
exit 0
