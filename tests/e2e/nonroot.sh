#!/bin/sh
# Without root: an ordinary user (created here: muxbpf-ci) runs a copy of muxbpf given only
# CAP_BPF and CAP_PERFMON (setcap ...=ep).  The run must work end to end (samples, ledger, exit
# 0, nothing left behind).  Then the proof that both are needed on this kernel: with either one
# missing, muxbpf names it (its preflight check), and with that check skipped
# (MUXBPF_SKIP_CAP_CHECK=1) the kernel itself refuses.  Where perf_event_paranoid is above 2
# (Debian's kernels), first the refusal with its advice, then the run once it is followed.
# Exit 77 = skipped.
set -u
out=${1:-build}
out=$(cd "$out" && pwd)
. "$(dirname "$0")/lib.inc"
need_root_bpf
for tool in setcap setpriv useradd; do
	command -v "$tool" >/dev/null || skip "$tool missing (make deps)"
done
e2e_init nonroot
export TMPDIR=$work/tmp
user=muxbpf-ci
# Its group alone may be there: the kernel matrix's guest reads the host's /etc through a cache,
# and once saw the group that a test run beside it had just created on the host but not the
# user ("useradd: group muxbpf-ci exists").
if ! id "$user" >/dev/null 2>&1; then
	group=
	getent group "$user" >/dev/null 2>&1 && group="-g $user"
	# shellcheck disable=SC2086 # $group: none, or an option and its value
	useradd --system --no-create-home --shell /usr/sbin/nologin $group "$user" ||
		{ echo "FAIL: cannot create user $user"; exit 1; }
fi
fail=0
bad() { echo "FAIL ($1): $2"; sed 's/^/    | /' "$work/out" "$work/err" | head -30; fail=1; }

# as_user CAPS ARGS...: a copy of muxbpf with file capabilities CAPS ("" for none), run as $user
as_user() {
	caps=$1
	shift
	bin=$work/muxbpf-${caps:-none}
	cp "$out/muxbpf" "$bin"
	chmod 755 "$bin"
	[ -z "$caps" ] || setcap "$caps=ep" "$bin" || { echo "FAIL: setcap $caps"; exit 1; }
	setpriv --reuid="$user" --regid="$user" --init-groups --inh-caps=-all \
		env TMPDIR="$TMPDIR" ${skip_check:+MUXBPF_SKIP_CAP_CHECK=1} "$bin" --full "$@" \
		>"$work/out" 2>"$work/err" </dev/null
}

skip_check=
before=$(mb_progs)

# A distribution's perf_event_paranoid above 2 (Debian's default, 3): CAP_PERFMON does not
# override it.  The refusal gives the fix in one line; with CAP_SYS_ADMIN added it works; then
# the advice is followed (the sysctl, put back on exit: only where the level is above 2, i.e.
# in the kernel matrix's Debian guests or a machine of that kind) and the run below must work.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -gt 2 ]; then
	as_user cap_bpf,cap_perfmon --phase create --scale 0.1
	rc=$?
	[ "$rc" -eq 1 ] || bad "paranoid $paranoid" "exit $rc, expected 1"
	grep -q "perf_event_open refused.*run 'sysctl kernel.perf_event_paranoid=2' as root" \
		"$work/err" || bad "paranoid $paranoid" "the error does not give the sysctl"
	[ "$(wc -l <"$work/err")" -eq 1 ] || bad "paranoid $paranoid" "more than one line"
	check_clean "paranoid $paranoid" "$before" || fail=1
	echo "ok - perf_event_paranoid $paranoid, CAP_BPF+CAP_PERFMON: '$(cat "$work/err")'"
	as_user cap_bpf,cap_perfmon,cap_sys_admin --phase create --scale 0.1
	rc=$?
	[ "$rc" -eq 0 ] || bad "paranoid $paranoid, CAP_SYS_ADMIN added" "exit $rc"
	check_clean "paranoid $paranoid, CAP_SYS_ADMIN added" "$before" || fail=1
	echo "ok - perf_event_paranoid $paranoid, CAP_BPF+CAP_PERFMON+CAP_SYS_ADMIN: exit $rc"
	trap 'echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid' EXIT
	sysctl -qw kernel.perf_event_paranoid=2 || { echo "FAIL: sysctl"; exit 1; }
	echo "following the advice: sysctl kernel.perf_event_paranoid=2"
fi

as_user cap_bpf,cap_perfmon --phase create,softcode_list --scale 0.1 --freq 4999
rc=$?
[ "$rc" -eq 0 ] || bad "CAP_BPF+CAP_PERFMON" "exit $rc"
n=$(awk '$1 == "softcode_list" {print $8; exit}' "$work/out")
[ "${n:-0}" -gt 0 ] || bad "CAP_BPF+CAP_PERFMON" "no samples in softcode_list"
grep -q '^  ledger ' "$work/out" || bad "CAP_BPF+CAP_PERFMON" "no ledger"
check_clean "CAP_BPF+CAP_PERFMON" "$before" || fail=1
[ "$fail" -eq 0 ] && echo "ok - as $user with CAP_BPF and CAP_PERFMON only: $n samples in softcode_list"

# check_refused CAPS MISSING: named by muxbpf, and refused by the kernel without the check
check_refused() {
	as_user "$1" --phase create --scale 0.1
	rc=$?
	[ "$rc" -eq 1 ] || bad "with '$1'" "exit $rc, expected 1"
	grep -q "missing $2:" "$work/err" || bad "with '$1'" "the error does not name $2"
	[ "$(wc -l <"$work/err")" -eq 1 ] || bad "with '$1'" "more than one line"
	check_clean "with '$1'" "$before" || fail=1
	first=$(head -1 "$work/err")
	skip_check=1
	as_user "$1" --phase create --scale 0.1
	rc=$?
	[ "$rc" -eq 1 ] || bad "with '$1', no check" "exit $rc, expected 1"
	grep -Eq "(refused|failed to load).*Operation not permitted: missing $2" "$work/err" ||
		bad "with '$1', no check" "the kernel did not refuse"
	check_clean "with '$1', no check" "$before" || fail=1
	skip_check=
	echo "ok - without $2: '$first'; the kernel: '$(head -1 "$work/err")'"
}
check_refused cap_bpf CAP_PERFMON
check_refused cap_perfmon CAP_BPF
check_refused "" "CAP_BPF, CAP_PERFMON"
exit "$fail"
