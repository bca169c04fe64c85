#!/bin/sh
# The QEMU plugin API header (qemu-plugin.h) for the installed qemu-system-x86, from Debian's
# qemu source package; QEMU's source is never part of this repository.
#   bench/qemu/plugin-header.sh CACHE_DIR      prints the directory that holds qemu-plugin.h
# The source package is fetched once into CACHE_DIR (only its original tarball is read, only the
# header extracted) with a private deb-src list for the machine's Debian release, so the
# machine's apt configuration needs no deb-src line.  On failure: one line on stderr, exit 1.
set -u
cache=${1:?usage: plugin-header.sh CACHE_DIR}
die() {
	echo "qemu plugin header: $*" >&2
	exit 1
}
ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed (make deps)"
upver=${ver#*:}
upver=${upver%%-*}
# the header's directory, once extracted, is named in this file
known=$cache/plugin-include.$upver
[ -f "$known" ] && [ -f "$(cat "$known")/qemu-plugin.h" ] && cat "$known" && exit 0
mkdir -p "$cache" || die "cannot create $cache"
tarball=$(ls "$cache"/qemu_"$upver".orig.tar.* 2>/dev/null | head -1)
if [ -z "$tarball" ]; then
	rel=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[ -n "$rel" ] || die "no VERSION_CODENAME in /etc/os-release: not a Debian release"
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	d=$cache/apt
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	cat >"$d/sources.list" <<-SRC
	deb-src [signed-by=$key] http://deb.debian.org/debian $rel main
	deb-src [signed-by=$key] http://deb.debian.org/debian $rel-updates main
	deb-src [signed-by=$key] http://deb.debian.org/debian-security $rel-security main
	SRC
	apt="-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=/dev/null"
	apt="$apt -o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o Debug::NoLocking=1"
	# shellcheck disable=SC2086
	apt-get -qq $apt update >"$d/update.log" 2>&1 ||
		die "apt-get update of Debian's deb-src lists failed (archive unreachable?): see $d/update.log"
	# shellcheck disable=SC2086
	(cd "$cache" && apt-get -qq $apt source --download-only "qemu=$ver" >"$d/source.log" 2>&1) ||
		die "apt-get source qemu=$ver failed: see $d/source.log"
	tarball=$(ls "$cache"/qemu_"$upver".orig.tar.* 2>/dev/null | head -1)
	[ -n "$tarball" ] || die "no qemu_$upver.orig.tar.* in $cache after apt-get source"
fi
top=$(tar -tf "$tarball" | head -1 | cut -d/ -f1)
(cd "$cache" && tar -xf "$tarball" "$top/include/qemu/qemu-plugin.h") ||
	die "no include/qemu/qemu-plugin.h in $tarball"
echo "$cache/$top/include/qemu" >"$known" && cat "$known"
