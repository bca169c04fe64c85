#!/bin/sh
# Install the Debian packages the build, the default target and the tests need (libpcre2-dev
# and libssl-dev: upstream TinyMUX 2.14, make upstream).  Idempotent:
# when everything is installed it does nothing (and needs no root).
#   scripts/deps.sh          the native build's packages
#   scripts/deps.sh arm64    a cross build's (make ARCH=arm64 deps): the cross compilers, the
#                            :arm64 development packages (Debian multiarch; libcrypt-dev for make
#                            ARCH=arm64 netmux; libbinutils and the rest: the arm64 guest's
#                            addr2line and nm, tests/kernels/run.sh) and qemu-user-static,
#                            which runs the cross-built unit tests, and qemu-system-arm
#                            (qemu-system-aarch64) and busybox-static for make ARCH=arm64
#                            test-kernels (tests/kernels/run.sh fetches busybox-static:arm64
#                            itself, with apt-get download: it cannot share the host's name)
set -eu
# the kernel matrix boots guests of the host's own architecture (tests/kernels/run.sh)
case $(dpkg --print-architecture) in
arm64) qemu_system=qemu-system-arm ;;
*) qemu_system=qemu-system-x86 ;;
esac
pkgs="clang llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev liblzma-dev pkg-config make gcc g++
      binutils patch bzip2 xz-utils ca-certificates debian-archive-keyring
      tinymux libcmocka-dev procps iproute2 linux-perf strace libcap2-bin util-linux passwd
      libprotobuf-c-dev protobuf-c-compiler libjansson-dev golang-go chromium $qemu_system
      busybox-static libpcre2-dev libssl-dev valgrind"
arch=${1:-}
if [ -n "$arch" ]; then
	case $arch in
	arm64) triplet=aarch64-linux-gnu ;;
	*) echo "deps: no cross build for $arch (arm64 only)" >&2; exit 1 ;;
	esac
	pkgs="gcc-$triplet g++-$triplet binutils-$triplet qemu-user-static clang llvm bpftool
	      protobuf-c-compiler pkg-config make qemu-system-arm busybox-static xz-utils"
	for p in libbpf-dev libelf-dev libdw-dev zlib1g-dev liblzma-dev libprotobuf-c-dev \
		libjansson-dev libcmocka-dev libstdc++6 libcrypt-dev libbinutils libctf0 \
		libctf-nobfd0 libgprofng0 libzstd1 binutils-common libc6-dbg; do
		pkgs="$pkgs $p:$arch"
	done
fi
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# The artifact tests validate JSON with npm packages (installed under build/ by the test):
# node and npm from any source will do (Debian's npm conflicts with NodeSource's nodejs).
[ -z "$arch" ] && ! command -v node >/dev/null 2>&1 && missing="$missing nodejs"
[ -z "$arch" ] && ! command -v npm >/dev/null 2>&1 && missing="$missing npm"
# As root, netmux runs as this unprivileged user (muxbpf --netmux-user; README).
if [ -z "$arch" ] && [ "$(id -u)" = 0 ] && ! id muxbpf >/dev/null 2>&1; then
	useradd --system --user-group --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin muxbpf
	echo "deps: created the system user muxbpf (netmux runs as it)"
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
if [ -n "$arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	dpkg --add-architecture "$arch"
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
