#!/bin/sh
# The idle phase's 32 logins against a server that limits unauthenticated connections per
# address (tests/targets/fake_mux.c with FAKE_MUX_PREAUTH, as TinyMUX 2.13+ does with
# max_preauth_sitecons): paced, one unauthenticated connection at a time, they pass a limit of 1;
# refused connections (FAKE_MUX_REFUSE: the next ones refused whatever the count, as when
# another client of the address holds the slots) are recognised and retried with back-off.
# No root needed (--no-profile).
set -u
out=${1:-build}
out=$(cd "$out" && pwd)
. "$(dirname "$0")/lib.inc"
fake=$out/tests/targets/fake_mux
[ -x "$fake" ] || { echo "FAIL: $fake not built"; exit 1; }
[ -d /usr/share/tinymux/game ] || skip "no game template (make deps)"
e2e_init preauth
export TMPDIR=$work/tmp
cp "$fake" "$work/fake_mux" && chmod 755 "$work/fake_mux"
fail() { echo "FAIL: $*"; sed 's/^/    | /' "$work/out" "$work/err" | head -30; exit 1; }

run() { # muxbpf's idle phase on the fake; stdout, stderr in $work/out, $work/err
	"$out/muxbpf" --full -v --netmux "$work/fake_mux" --no-profile --phase idle --idle-seconds 0.2 \
		>"$work/out" 2>"$work/err" </dev/null
}
FAKE_MUX_PREAUTH=1 run || fail "limit 1: exit $?"
grep -q '^idle ' "$work/out" || fail "limit 1: no idle phase in the report"
grep -q "refused the idle" "$work/err" && fail "limit 1: a paced login was refused"
FAKE_MUX_PREAUTH=2 FAKE_MUX_REFUSE=3 run || fail "3 refusals: exit $?"
grep -q '^idle ' "$work/out" || fail "3 refusals: no idle phase in the report"
n=$(grep -c "netmux refused the idle0 login" "$work/err")
[ "$n" -eq 3 ] || fail "3 refusals: $n retries of idle0 logged, expected 3"
FAKE_MUX_PREAUTH=2 FAKE_MUX_REFUSE=100 run && fail "always refused: exit 0"
grep -q "idle: netmux closed the idle0 login 8 times" "$work/err" ||
	fail "always refused: the error does not say so"
echo "preauth: 32 paced logins under a limit of 1; 3 refusals retried with back-off; a lasting refusal named"
