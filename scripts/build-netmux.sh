#!/bin/sh
# Build netmux 2.12 from Debian's tinymux source package into DIR with the given compiler flags.
#   scripts/build-netmux.sh DIR "FLAGS"
# The source comes through a private apt source list (the system's apt configuration is not
# touched); Debian's patches are applied; FLAGS reach every compile line through OPTIM (configure
# ignores CXXFLAGS from the environment), which the build log is checked for.
#   scripts/build-netmux.sh DIR "FLAGS" HOST
# cross-builds it for the GNU triplet HOST (make ARCH=arm64 netmux: aarch64-linux-gnu) with
# HOST-gcc and HOST-g++ against Debian's multiarch :arm64 libraries (scripts/deps.sh arm64).
set -eu
dir=$1
flags=$2
host=${3:-}
src=$dir/mux2.12/src

if [ -x "$src/netmux" ] && [ -f "$dir/.flags" ] && [ "$(cat "$dir/.flags")" = "$flags" ]; then
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/apt/lists/partial" "$dir/dl"
cat >"$dir/apt/sources.list" <<SRC
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
SRC
apt_opts="-o Dir::Etc::SourceList=$dir/apt/sources.list -o Dir::Etc::SourceParts=/dev/null"
apt_opts="$apt_opts -o Dir::State::Lists=$dir/apt/lists -o Debug::NoLocking=1"
# shellcheck disable=SC2086
apt-get -qq $apt_opts update >"$dir/apt.log" 2>&1 || { cat "$dir/apt.log" >&2; exit 1; }
# shellcheck disable=SC2086
(cd "$dir/dl" && apt-get -qq $apt_opts source --download-only tinymux) >>"$dir/apt.log" 2>&1 ||
	{ cat "$dir/apt.log" >&2; exit 1; }
# --no-same-owner/permissions: the tarball's owner and 0750 directories would keep the
# unprivileged netmux user (muxbpf as root drops to it) from running the binary.
tar --no-same-owner --no-same-permissions -xjf "$dir"/dl/tinymux_*.orig.tar.bz2 -C "$dir"
tar --no-same-owner --no-same-permissions -xJf "$dir"/dl/tinymux_*.debian.tar.xz -C "$dir"
chmod -R a+rX "$dir/mux2.12"
for p in $(cat "$dir/debian/patches/series"); do
	patch -s -d "$dir/mux2.12" -p1 <"$dir/debian/patches/$p"
done
conf="--enable-stubslave"
if [ -n "$host" ]; then
	# Nine of configure's checks only run a test program (pread/pwrite, SIGCHLD, IEEE floating
	# point format and infinities, negative quotients, unaligned short, int, long and long long
	# access) and, cross compiling, stop with "cannot run test program" or assume the worst (no
	# IEEE format: slower paths; floor division: undefined references at link).  None has a
	# cache variable: netmux-cross-configure.patch gives each one, mux_cv_* = yes when the
	# program succeeds, set here to the native x86-64 build's answers (its autoconf.h and the
	# cross build's are the same).  Eight of the programs, built for aarch64 and run under
	# qemu-aarch64-static, succeed: the same answers.  The SIGCHLD one fails in the native
	# configure (SIGNAL_SIGCHLD_BRAINDAMAGE), so no here too.  fork and vfork: the cache
	# variables autoconf has.
	patch -s -d "$dir/mux2.12" -p1 <"$(dirname "$0")/netmux-cross-configure.patch"
	conf="$conf --host=$host CC=$host-gcc CXX=$host-g++
	      mux_cv_pwrite_works=yes mux_cv_sigchld_test_passes=no mux_cv_ieee_fp_format=yes
	      mux_cv_ieee_fp_snan=yes mux_cv_int_division_truncates=yes
	      mux_cv_can_unalign_short=yes mux_cv_can_unalign_int=yes mux_cv_can_unalign_long=yes
	      mux_cv_can_unalign_long_long=yes ac_cv_func_fork_works=yes ac_cv_func_vfork_works=yes"
fi
# shellcheck disable=SC2086
(cd "$src" && ./configure $conf >"$dir/configure.log" 2>&1) ||
	{ tail -20 "$dir/configure.log" >&2; exit 1; }
(cd "$src" && make -j"$(nproc)" OPTIM="$flags" >"$dir/build.log" 2>&1) ||
	{ tail -30 "$dir/build.log" >&2; exit 1; }
# The flags must have reached the compile lines.
if ! grep -F -q -- "$flags" "$dir/build.log"; then
	echo "build-netmux: flags '$flags' not found in $dir/build.log" >&2
	exit 1
fi
for f in netmux libmux.so stubslave slave; do
	[ -x "$src/$f" ] || { echo "build-netmux: $src/$f missing" >&2; exit 1; }
done
if [ -n "$host" ]; then
	# the result is the target's (configure's CXX reached the link)
	want=$(case $host in aarch64-*) echo AArch64 ;; x86_64-*) echo X86-64 ;; *) echo "$host" ;; esac)
	for f in netmux libmux.so stubslave slave; do
		LC_ALL=C readelf -h "$src/$f" | grep -q "Machine:.*$want" ||
			{ echo "build-netmux: $src/$f is not $want" >&2; exit 1; }
	done
fi
printf '%s' "$flags" >"$dir/.flags"
echo "netmux built in $src ($flags${host:+, for $host})"
