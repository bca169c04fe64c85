#!/bin/sh
# Build upstream TinyMUX (2.14) from its source tarball with the given compiler flags, in a cache
# directory named by the tarball's hash and the flags, and point LINK at it.
#   scripts/build-upstream.sh TARBALL LINK "FLAGS" CACHE_ROOT
# CACHE_ROOT (e.g. /var/cache/muxbpf) outlives the source tree: a one-core build takes ~15
# minutes, a rebuild of the same tarball and flags none.  Where it cannot be written, the build
# goes beside LINK.
# The tarball lacks mux/sqlite/sqlite3.c: it comes from npm's better-sqlite3@11.9.1, which ships
# the same SQLite amalgamation (checked against sqlite3.h's SQLITE_SOURCE_ID) with one cosmetic
# patch of its own, reversed here.  FLAGS reach every C and C++ compile line (lib/'s Makefile
# hard-codes AM_CFLAGS, so it is overridden on the make line too), which the build log is checked
# for.
set -eu
tarball=$1
link=$2
flags=$3
cache=$4
sqlite_pkg=better-sqlite3@11.9.1

[ -f "$tarball" ] || { echo "build-upstream: no tarball at '$tarball'" >&2; exit 1; }
hash=$(sha256sum "$tarball" | cut -c1-64)
key="$hash $flags"
name=tinymux-$(echo "$hash" | cut -c1-12)-$(printf '%s' "$flags" | sha256sum | cut -c1-8)
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=$(dirname "$link")
dir=$cache/$name
mux=$dir/src/mux
if [ -f "$dir/.key" ] && [ "$(cat "$dir/.key")" = "$key" ] && [ -x "$mux/src/netmux" ]; then
	ln -sfn "$dir" "$link"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/src" "$dir/npm"
tar --no-same-owner --no-same-permissions -xJf "$tarball" -C "$dir/src" --strip-components=1

# SQLite's amalgamation from npm (a tarball fetched with npm pack: nothing is installed)
(cd "$dir/npm" && npm pack --silent "$sqlite_pkg" >"$dir/npm.log" 2>&1) ||
	{ cat "$dir/npm.log" >&2; exit 1; }
tar -xzf "$dir"/npm/better-sqlite3-*.tgz -C "$dir/npm" package/deps/sqlite3/sqlite3.c \
	package/deps/patches/1208.patch
cp "$dir/npm/package/deps/sqlite3/sqlite3.c" "$mux/sqlite/sqlite3.c"
# the patch names deps/sqlite3/sqlite3.c: -p3 leaves sqlite3.c, inside mux/sqlite/
patch -s -R -p3 -d "$mux/sqlite" <"$dir/npm/package/deps/patches/1208.patch"
id_h=$(sed -n 's/^#define SQLITE_SOURCE_ID *//p' "$mux/sqlite/sqlite3.h")
id_c=$(sed -n 's/^#define SQLITE_SOURCE_ID *//p' "$mux/sqlite/sqlite3.c" | head -1)
if [ -z "$id_h" ] || [ "$id_h" != "$id_c" ]; then
	echo "build-upstream: $sqlite_pkg's sqlite3.c ($id_c) is not the tarball's sqlite3.h ($id_h)" >&2
	exit 1
fi

chmod -R a+rX "$dir/src"
(cd "$mux" && CFLAGS="$flags" CXXFLAGS="$flags" ./configure >"$dir/configure.log" 2>&1) ||
	{ tail -20 "$dir/configure.log" >&2; exit 1; }
# lib/ compiles its C files with AM_CFLAGS alone (upstream's: -O2 and its warnings): the flags go
# there first, then the whole tree builds as configured, lib/ already up to date
lib_cflags="$flags -Wall -Wextra -Wno-implicit-fallthrough -std=c11"
(cd "$mux" && make -C lib -j"$(nproc)" AM_CFLAGS="$lib_cflags" >"$dir/build.log" 2>&1 &&
	make -j"$(nproc)" >>"$dir/build.log" 2>&1 && make install >>"$dir/build.log" 2>&1) ||
	{ tail -30 "$dir/build.log" >&2; exit 1; }
if ! grep -F -q -- "$flags" "$dir/build.log"; then
	echo "build-upstream: flags '$flags' not found in $dir/build.log" >&2
	exit 1
fi
for f in src/netmux src/slave lib/libmux.so modules/engine/engine.so; do
	[ -x "$mux/$f" ] || [ -f "$mux/$f" ] || { echo "build-upstream: $mux/$f missing" >&2; exit 1; }
done
chmod -R a+rX "$dir/src"
printf '%s' "$key" >"$dir/.key"
ln -sfn "$dir" "$link"
echo "upstream netmux built in $mux/src ($("$mux/src/netmux" -v 2>/dev/null | head -1); $flags)"
