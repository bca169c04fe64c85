#!/bin/sh
# Regenerate vmlinux/ARCH/vmlinux.h from a Debian kernel package's BTF, without booting it:
#   scripts/gen-vmlinux.sh arm64 linux-image-6.1.0-57-arm64
# The package is fetched with apt-get download (for a foreign ARCH, after
# `dpkg --add-architecture ARCH && apt-get update`), unpacked into a temporary folder, and the
# BTF blob is cut out of the kernel image: arm64's vmlinuz is an uncompressed Image, so the blob
# (magic 0xeb9f, version 1, a 24-byte header whose type and string sections follow each other)
# lies in it as is.  bpftool then prints it as C.  CO-RE relocates field offsets at load time,
# so one header serves every kernel of the architecture.
set -eu
arch=${1:?usage: gen-vmlinux.sh ARCH PACKAGE}
pkg=${2:?usage: gen-vmlinux.sh ARCH PACKAGE}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "$pkg:$arch" >/dev/null 2>&1) ||
	{ echo "gen-vmlinux: cannot download $pkg:$arch (dpkg --add-architecture $arch; apt-get update)" >&2; exit 1; }
dpkg -x "$tmp"/*.deb "$tmp/x"
image=$(ls "$tmp"/x/boot/vmlinuz-* | head -n 1)
python3 - "$image" "$tmp/vmlinux.btf" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
at = 0
while True:
    at = data.find(b'\x9f\xeb\x01\x00', at)
    if at < 0:
        sys.exit('gen-vmlinux: no BTF blob in %s (a compressed image? only uncompressed images are read)' % sys.argv[1])
    hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from('<5I', data, at + 4)
    if hdr_len == 24 and type_off == 0 and str_off == type_len and str_len > 4096:
        open(sys.argv[2], 'wb').write(data[at:at + hdr_len + str_off + str_len])
        break
    at += 1
PY
mkdir -p "$top/vmlinux/$arch"
bpftool btf dump file "$tmp/vmlinux.btf" format c >"$top/vmlinux/$arch/vmlinux.h"
echo "gen-vmlinux: vmlinux/$arch/vmlinux.h from $pkg ($(wc -l <"$top/vmlinux/$arch/vmlinux.h") lines)"
