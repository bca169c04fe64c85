#!/bin/sh
# README.md works as written:
#  1. (no root) every relative link and image of README.md and doc/*.md names a file that exists;
#     README.md's examples are the three jobs' ("sudo build/muxbpf ..." lines in its code
#     blocks: a throwaway run, ab, attach);
#  2. (root) each example runs as written, on the test game and at a small scale: the paths of
#     --out go to a scratch directory, ab's two builds are the default target twice (A/A),
#     attach's --port is a netmux started outside muxbpf (tests/helper_live serve), its
#     --interval and --duration 1 s and 3 s.  The throwaway run's terminal summary stays short
#     (at most 40 lines per phase section, the page's address after it) and --full prints
#     report.txt byte for byte.
# Exit 77 = skipped (part 2 without root or BTF).
set -u
out=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.inc"
cd "$here/../.." || exit 1
out=$(cd "$out" && pwd)

# ---- 1. links -------------------------------------------------------------------------------
bad=0
for md in README.md doc/*.md; do
	dir=$(dirname "$md")
	for target in $(grep -oE '\]\([^)#: ]+' "$md" | sed 's/^](//' | sort -u); do
		[ -e "$dir/$target" ] && continue
		echo "not ok - $md links to $target, which does not exist"
		bad=$((bad + 1))
	done
done
[ "$bad" -eq 0 ] || fail "$bad broken links"
echo "ok - links of README.md and doc/*.md resolve"
grep -q '!\[.*\](doc/[^)]*\.png)' README.md || fail "README.md shows no picture of the page"

examples=$(awk '/^```/ {c = !c; next} c && /^sudo build\/muxbpf /' README.md)
n=$(printf '%s\n' "$examples" | grep -c .)
[ "$n" -eq 3 ] || fail "README.md has $n examples, expected 3 (run, ab, attach)"
ex_run=$(printf '%s\n' "$examples" | grep -vE '^sudo build/muxbpf (ab|attach) ')
ex_ab=$(printf '%s\n' "$examples" | grep -E '^sudo build/muxbpf ab ')
ex_attach=$(printf '%s\n' "$examples" | grep -E '^sudo build/muxbpf attach ')
[ -n "$ex_run" ] && [ -n "$ex_ab" ] && [ -n "$ex_attach" ] ||
	fail "an example per job: run, ab, attach"

# ---- 2. the examples --------------------------------------------------------------------------
need_root_bpf
helper=$out/tests/helper_live
netmux=$out/tinymux/fp/mux2.12/src/netmux
[ -x "$helper" ] && [ -x "$netmux" ] || fail "build the test helpers and the default target first"
e2e_init readme
export TMPDIR=$work/tmp
fail_files="$work/*.out $work/*.err"
# as written, less sudo, with this build's muxbpf and --out under $work
cmdline() {
	printf '%s\n' "$1" | sed -e 's/^sudo build\/muxbpf //' -e "s|--out runs/|--out $work/|"
}

# the throwaway run
set -- $(cmdline "$ex_run") --scale 0.05 --max-phase-seconds 0
"$out/muxbpf" "$@" >"$work/run.out" 2>"$work/run.err" || fail "muxbpf $* exited $?"
dir=$(printf '%s\n' "$*" | sed -n 's/.*--out \([^ ]*\).*/\1/p')
[ -s "$dir/report.html" ] || fail "no report.html in $dir"
tail -1 "$work/run.err" | grep -q "the page: $dir/report.html" ||
	fail "no page address after the report"
# the longest phase section: from its "== " line to the next one (or the end)
longest=$(awk '/^== / {n++} n {c[n]++}
	END {m = 0; for (i = 1; i <= n; i++) if (c[i] > m) m = c[i]; print m}' "$work/run.out")
[ "$longest" -gt 0 ] && [ "$longest" -le 40 ] ||
	fail "the summary's longest phase section has $longest lines (1 to 40)"
cmp -s "$work/run.out" "$dir/report.txt" && fail "the terminal got report.txt, not a summary"
"$out/muxbpf" --full "$@" >"$work/full.out" 2>"$work/full.err" || fail "muxbpf --full $* exited $?"
cmp -s "$work/full.out" "$dir/report.txt" || fail "--full does not print report.txt"
echo "ok - muxbpf $*: summary ($(wc -l <"$work/run.out") lines, at most $longest per phase)," \
	"--full = report.txt ($(wc -l <"$dir/report.txt") lines)"

# ab: the default target against itself
args=$(cmdline "$ex_ab" | awk '{NF -= 2; print}')
# shellcheck disable=SC2086
"$out/muxbpf" $args --scale 0.02 --rounds 8 "$netmux" "$netmux" >"$work/ab.out" 2>"$work/ab.err"
rc=$?
[ $rc -le 1 ] || fail "muxbpf $args A A exited $rc"
dir=$(printf '%s\n' "$args" | sed -n 's/.*--out \([^ ]*\).*/\1/p')
[ -s "$dir/ab.txt" ] && [ -s "$dir/report.html" ] ||
	fail "ab wrote no ab.txt or report.html in $dir"
echo "ok - muxbpf $args A A (exit $rc)"

# attach: a netmux started outside muxbpf
mkfifo "$work/serve.in"
"$helper" serve <"$work/serve.in" >"$work/serve.out" 2>"$work/serve.err" &
exec 9>"$work/serve.in"
wait_until 20 test -s "$work/serve.out" || fail "the outside netmux did not start"
read -r game_pid port <"$work/serve.out"
args=$(cmdline "$ex_attach" | sed -e "s/--port [0-9]*/--port $port/" \
	-e 's/--interval [0-9.]*/--interval 1/' -e 's/--duration [0-9.]*/--duration 3/')
# shellcheck disable=SC2086
"$out/muxbpf" $args >"$work/attach.out" 2>"$work/attach.err" || fail "muxbpf $args exited $?"
dir=$(printf '%s\n' "$args" | sed -n 's/.*--out \([^ ]*\).*/\1/p')
grep -q '^t+0s ' "$dir/report.txt" || fail "attach: no t+0s window in report.txt"
grep -q "^  attached: " "$dir/report.txt" || fail "attach: report.txt names no attached process"
exec 9>&-
wait
kill -0 "$game_pid" 2>/dev/null && fail "the outside netmux is still running"
echo "ok - muxbpf $args"
echo "readme: links resolve; the three examples run"
