#!/bin/sh
# Without root: run --help and the man page (doc/muxbpf.8) list the same options; muxbpf --help
# (by task, at most 60 lines) and README.md name only options that some --help lists and the
# man page explains; the man page renders without warnings; make install honours PREFIX and
# DESTDIR; the progress line shows on a terminal (script(1) gives one) and never in a pipe or
# with --quiet.
set -u
out=${1:-build}
muxbpf=$out/muxbpf
. "$(dirname "$0")/lib.inc"
tmp=$(mktemp -d /tmp/muxbpf-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# option names: "--long" and "-x" at the start of a usage entry
opts() {
	grep -E '^  -' | sed 's/^  //' | grep -oE '(^|, )--?[a-zA-Z][a-z-]*' | sed 's/^, //' | sort -u
}
longs() { grep -oE -- '--[a-z][a-z-]*[a-z]' | sort -u; }
for c in run attach ab gate diff; do
	"$muxbpf" $c --help >"$tmp/help.$c" || fail "muxbpf $c --help exited $?"
done
cmp -s "$tmp/help.run" "$tmp/help.attach" || fail "run --help and attach --help differ"
opts <"$tmp/help.run" >"$tmp/help.opts"
cat "$tmp"/help.* | longs >"$tmp/all.opts"
# the man page: every .TP entry's first line, \- unescaped (OPTIONS and LIVE OPTIONS: run's)
man_tp() { awk "$1"' prev == ".TP" {print} {prev = $0}' doc/muxbpf.8 | sed 's/\\-/-/g' |
	grep -oE '[ "]--?[a-zA-Z][a-z-]*' | sed 's/^[^-]*//' | sort -u; }
man_tp '/^\.SH DIFF/ {exit}' >"$tmp/man.opts"
man_tp '' | grep -- '^--' >"$tmp/man.all"
[ "$(wc -l <"$tmp/help.opts")" -ge 20 ] ||
	fail "found only $(wc -l <"$tmp/help.opts") options in run --help"
if ! cmp -s "$tmp/help.opts" "$tmp/man.opts"; then
	echo "run --help vs the man page:"
	diff "$tmp/help.opts" "$tmp/man.opts"
	fail "run --help and the man page list different options"
fi
# muxbpf --help: by task, short, naming only options that exist
"$muxbpf" --help >"$tmp/tasks" || fail "--help exited $?"
[ "$(wc -l <"$tmp/tasks")" -le 60 ] ||
	fail "muxbpf --help has $(wc -l <"$tmp/tasks") lines (at most 60)"
for c in run attach ab gate diff; do
	grep -q "muxbpf $c" "$tmp/tasks" || grep -q "COMMAND --help.*$c" "$tmp/tasks" ||
		fail "muxbpf --help does not name $c"
done
# README.md and muxbpf --help: every option they name is some command's and has a man entry
for doc in tasks README.md; do
	f=$tmp/$doc
	[ "$doc" = README.md ] && f=README.md
	longs <"$f" | while read -r o; do
		grep -qx -- "$o" "$tmp/all.opts" || echo "$doc names $o, which no --help lists"
		grep -qx -- "$o" "$tmp/man.all" || echo "$doc names $o, which the man page does not explain"
	done >>"$tmp/unknown"
done
[ -s "$tmp/unknown" ] && { cat "$tmp/unknown"; fail "options named that do not exist"; }
echo "options: run --help and muxbpf(8) list the same $(wc -l <"$tmp/help.opts") options;" \
	"muxbpf --help ($(wc -l <"$tmp/tasks") lines) and README.md name only options of some --help" \
	"with a man entry"

# the man page renders cleanly
groff -man -ww -z doc/muxbpf.8 2>"$tmp/groff" || fail "groff failed"
[ -s "$tmp/groff" ] && { cat "$tmp/groff"; fail "the man page has roff warnings"; }

# make install into a staging directory
make --no-print-directory -s install OUTPUT="$out" DESTDIR="$tmp/stage" PREFIX=/opt/mb >/dev/null ||
	fail "make install failed"
for f in sbin/muxbpf share/man/man8/muxbpf.8 share/doc/muxbpf/report.schema.json; do
	[ -f "$tmp/stage/opt/mb/$f" ] || fail "make install did not install $f"
done
[ -x "$tmp/stage/opt/mb/sbin/muxbpf" ] || fail "the installed muxbpf is not executable"
"$tmp/stage/opt/mb/sbin/muxbpf" --version | grep -q '^muxbpf ' || fail "installed muxbpf --version"
echo "install: sbin/muxbpf, man8/muxbpf.8, doc/muxbpf/report.schema.json under DESTDIR/PREFIX"

# the progress line: on a terminal only, never with --quiet (--no-profile: no root needed)
run="$muxbpf --phase create --scale 0.05 --no-profile"
script -qfec "$run" /dev/null >"$tmp/tty" 2>&1 || { cat "$tmp/tty"; fail "muxbpf on a pty exited $?"; }
grep -q 'phase 1/1 create .*/75 cmds' "$tmp/tty" || { cat -v "$tmp/tty" | head; fail "no progress line on a terminal"; }
grep -q "$(printf '\r\033\\[K')phase 1/1 create" "$tmp/tty" || fail "the progress line is not redrawn in place"
script -qfec "$run --quiet" /dev/null >"$tmp/quiet" 2>&1 || fail "muxbpf --quiet exited $?"
grep -q 'phase 1/1' "$tmp/quiet" && fail "a progress line despite --quiet"
$run >"$tmp/pipe" 2>&1 || fail "muxbpf in a pipe exited $?"
grep -q "$(printf '\r')" "$tmp/pipe" && fail "a progress line although stdout is no terminal"
grep -q '^create ' "$tmp/pipe" || fail "no report in a pipe"
echo "progress: shown on a terminal, not with --quiet, not in a pipe"
