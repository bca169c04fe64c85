#!/bin/sh
# The test and bench pages state what the tree does (no root, no build): the numbers of
# doc/testing.md and bench/README.md that a script's own text decides are read from both and
# compared, and every suite and script the testing page names exists.
#   - badinput.sh's count of bad invocations, against its table's rows;
#   - interrupt.sh's boot delay, against the sleep of its slow-boot wrapper;
#   - bench/README.md's list of the benchmarks that print host steal beside their spreads,
#     against the benchmarks whose source reads it;
#   - every tests/e2e/NAME.sh and test_NAME in doc/testing.md, against tests/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo" || exit 1
. "$here/lib.inc"
bad=0
no() { echo "not ok - $*"; bad=$((bad + 1)); }

# doc/testing.md, its lines joined (a claim may wrap)
doc=$(tr '\n' ' ' <doc/testing.md | tr -s ' ')

rows=$(grep -c '^case_ ' tests/e2e/badinput.sh)
said=$(printf '%s\n' "$doc" | sed -n 's/.*`badinput.sh`: \([0-9]*\) bad invocations.*/\1/p')
[ "$said" = "$rows" ] && echo "ok - badinput.sh: $rows bad invocations" ||
	no "doc/testing.md says ${said:-no number of} bad invocations, badinput.sh has $rows rows"

delay=$(sed -n "s/^printf '#!\/bin\/sh\\\\nsleep \([0-9]*\)\\\\n.*/\1/p" tests/e2e/interrupt.sh)
said=$(printf '%s\n' "$doc" | sed -n 's/.*(a netmux that takes \([0-9]*\) s to start).*/\1/p')
[ -n "$delay" ] && [ "$said" = "$delay" ] && echo "ok - interrupt.sh: a $delay s boot" ||
	no "doc/testing.md says a ${said:-?} s boot, interrupt.sh's wrapper sleeps ${delay:-?} s"

# bench/README.md: "Host steal time (`/proc/stat`) is printed beside the spreads of `a`, ... and `z`"
said=$(tr '\n' ' ' <bench/README.md | tr -s ' ' |
	sed -n 's/.*Host steal time (`\/proc\/stat`) is printed beside the spreads of \([^(]*\)(.*/\1/p' |
	grep -o '`[^`]*`' | tr -d '`' | sort | tr '\n' ' ')
reads=$(grep -li steal bench/*.c bench/*.sh | sed 's|bench/||' | sort | tr '\n' ' ')
[ -n "$said" ] && [ "$said" = "$reads" ] && echo "ok - bench/README.md: steal beside the spreads of $said" ||
	no "bench/README.md says steal is printed by: ${said:-(no list)}; the benchmarks reading it: $reads"

for t in $(grep -o 'tests/e2e/[a-z_]*\.sh\|`test_[a-z_]*`\|tests/test_[a-z_]*\.c' doc/testing.md |
	tr -d '`' | sort -u); do
	case $t in
	tests/*) f=$t ;;
	test_*) f=tests/$t.c
		grep -q "^static void $t(" tests/test_*.c && f=found ;;
	esac
	[ -f "$f" ] || [ "$f" = found ] || no "doc/testing.md names $t, which does not exist"
done
echo "docs: $bad problems"
[ "$bad" -eq 0 ]
