#!/bin/sh
# Without root: --help, the man page (doc/muxbpf.8) and README.md list the same options; the
# man page renders without warnings; make install honours PREFIX and DESTDIR; the progress line
# shows on a terminal (script(1) gives one) and never in a pipe or with --quiet.
set -u
out=${1:-build}
muxbpf=$out/muxbpf
. "$(dirname "$0")/lib.inc"
tmp=$(mktemp -d /tmp/muxbpf-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# option names: "--long" and "-x" at the start of a usage entry
"$muxbpf" --help >"$tmp/help" || fail "--help exited $?"
grep -E '^  -' "$tmp/help" | sed 's/^  //' | grep -oE '(^|, )--?[a-zA-Z][a-z-]*' | sed 's/^, //' |
	sort -u >"$tmp/help.opts"
# the man page: every .TP entry's first line, \- unescaped
awk '/^\.SH DIFF/ {exit} prev == ".TP" {print} {prev = $0}' doc/muxbpf.8 | sed 's/\\-/-/g' |
	grep -oE '[ "]--?[a-zA-Z][a-z-]*' | sed 's/^[^-]*//' | sort -u >"$tmp/man.opts"
# README: the code block under "## Options"
awk '/^## Options/ {s = 1; next} s && /^```/ {n++; if (n == 2) exit; next} s && n == 1' README.md |
	grep -E '^  -' | sed 's/^  //' | grep -oE '(^|, )--?[a-zA-Z][a-z-]*' | sed 's/^, //' | sort -u >"$tmp/readme.opts"
[ "$(wc -l <"$tmp/help.opts")" -ge 20 ] || fail "found only $(wc -l <"$tmp/help.opts") options in --help"
for doc in man readme; do
	if ! cmp -s "$tmp/help.opts" "$tmp/$doc.opts"; then
		echo "--help vs $doc:"
		diff "$tmp/help.opts" "$tmp/$doc.opts"
		fail "--help and the $doc list different options"
	fi
done
echo "options: --help, muxbpf(8) and README list the same $(wc -l <"$tmp/help.opts") options"

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
