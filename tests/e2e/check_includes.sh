#!/bin/sh
# scripts/check-includes.sh catches what it is there for (no root, no build): in a copy of the
# tree it passes, then with planted violations it fails and names each one: an include against
# the folder order, an include without its folder, a file outside the folders, a function
# declared in another .c's header, and a circle between two modules of one folder.
#   tests/e2e/check_includes.sh [BUILD_DIR]   (the build directory is not used)
set -u
repo=$(pwd)
fail() { echo "check_includes: $*" >&2; exit 1; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

cp -a "$repo/src" "$repo/bpf" "$repo/include" "$work/" || fail "cannot copy the tree"
sh "$repo/scripts/check-includes.sh" "$work" > "$work/clean.out" 2>&1 ||
	fail "the tree as it is fails: $(cat "$work/clean.out")"

# against the order: a base/ file includes a cli/ header
printf '#include "cli/pipeline.h"\n' >> "$work/src/base/log.c"
# without its folder
printf '#include "stats.h"\n' >> "$work/src/base/json.c"
# outside the folders
printf 'int stray(void);\n' > "$work/src/stray.h"
# another .c's function declared in log.h
printf 'struct jv *json_parse_file(const char *path, char *err, size_t errsz);\n' \
	>> "$work/src/base/log.h"
# a circle: json.h includes stats.h, and now stats.h includes json.h
sed -i '0,/^#include/s//#include "base\/json.h"\n#include/' "$work/src/base/stats.h"

sh "$repo/scripts/check-includes.sh" "$work" > "$work/planted.out" 2>&1
rc=$?
cat "$work/planted.out"
[ $rc -eq 1 ] || fail "planted violations: exit $rc, not 1"
expect() { # $1 = what the output must say, $2 = which violation
	grep -qF "$1" "$work/planted.out" || fail "the $2 was not named (no \"$1\")"
}
expect "src/base/log.c includes cli/pipeline.h: against the order" "include against the order"
expect "src/base/json.c includes \"stats.h\" without its folder" "include without its folder"
expect "src/stray.h: outside the stage folders" "file outside the folders"
expect "src/base/log.h declares json_parse_file, defined in src/base/json.c" \
	"function in another .c's header"
expect "include circle" "circle"
sed -n '/include circle/,$p' "$work/planted.out" | grep -q "^  src/base/stats$" ||
	fail "the circle json <-> stats was not named"
[ "$(grep -c . "$work/planted.out")" -ge 6 ] || fail "fewer lines than violations"
echo "check_includes: the tree passes; each planted violation fails it, named"
