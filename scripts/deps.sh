#!/bin/sh
# Install the Debian packages the build, the default target and the tests need.  Idempotent:
# when everything is installed it does nothing (and needs no root).
set -eu
pkgs="clang llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev pkg-config make gcc g++
      binutils patch bzip2 xz-utils ca-certificates debian-archive-keyring
      tinymux libcmocka-dev procps iproute2 linux-perf strace"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'sudo make deps')" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
