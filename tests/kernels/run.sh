#!/bin/sh
# The kernel matrix: boot Debian's own kernels in QEMU (TCG: no KVM needed) and run the BPF
# suites, real muxbpf runs (the default target, upstream 2.14) and tests/e2e/nonroot.sh inside,
# on the host's files.
#   tests/kernels/run.sh BUILD_DIR [SERIES...]      (SERIES: 6.1 6.12 by default; 5.10 and 6.17 too)
# Kernel packages come from the machine's apt sources (`apt-get download` + `dpkg -x`, cached in
# BUILD_DIR/kernels, never installed); the current name of each series is asked of apt-cache,
# because security updates rename them.  The guest sees the host's / read-only over virtio-9p,
# under an overlay with a tmpfs upper layer, and writes its results to BUILD_DIR/kernels/SERIES.
# Exit 0 when every guest passed, 77 when the matrix cannot run here (not root, no qemu, no
# package archive), else 1; with MUXBPF_REQUIRE_BPF set (CI) a skip is a failure (1).  One line
# per kernel: "kernel SERIES (PACKAGE): ... in N s".  tests/e2e/kernels.sh runs it in make test.
# MUXBPF_GUEST_ONLY="test_bpf_ledger ...": only these suites in the guests, and the real runs only
# if named: "run" (the default target), "upstream" (2.14, tests/kernels/upstream.sh; it skips
# where make upstream has not run, and fails then under MUXBPF_REQUIRE_BPF).  A guest boots in
# seconds; the whole set takes minutes under TCG.
# MUXBPF_GUEST_BENCH="build/bench/storm 3 200000": a command run in each guest after the tests,
# its output in the guest's log (BUILD_DIR/kernels/SERIES/log); it does not change the verdict.
# MUXBPF_GUEST_ARCH=x86|arm64: the guests' architecture; by default the build's (its muxbpf's
# ELF machine: build-arm64 of make ARCH=arm64 boots Debian's arm64 kernels under
# qemu-system-aarch64 -M virt, TCG).  A guest of another architecture than the host's gets
# busybox-static of its own architecture as its shell and tools (the host's userland cannot run
# there) and runs only the suites that need no netmux (tests/kernels/guest.sh).
# MUXBPF_GUEST_SMP=1: the guests' vCPUs (2 by default).  MUXBPF_GUEST_PLUGIN=FILE.so: a QEMU
# plugin loaded with out=BUILD_DIR/kernels/SERIES/plugin.out (bench/guest_icount.sh), and with
# MUXBPF_GUEST_PLUGIN_HIST=1 also hist=BUILD_DIR/kernels/SERIES/plugin.hist.
set -u
out=${1:-build}
shift 2>/dev/null
series=${*:-6.1 6.12}
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$out/kernels
# A guest's whole run takes 1-3 minutes under TCG; the cut is for a hung guest only.
guest_timeout=${MUXBPF_GUEST_TIMEOUT:-1200}

. "$repo/tests/e2e/lib.inc"  # skip()
. "$repo/tests/kernels/verdict.inc"
[ "$(id -u)" = 0 ] || skip "needs root (the guest's virtio-9p export and device nodes)"
# the guests' architecture (MUXBPF_GUEST_ARCH, else the build's) and what boots it: the QEMU
# system, the machine, the console, Debian's name for the architecture
host_arch=$(uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
arch=${MUXBPF_GUEST_ARCH:-}
if [ -z "$arch" ]; then
	case $(readelf -h "$out/muxbpf" 2>/dev/null | sed -n 's/^ *Machine: *//p') in
	AArch64) arch=arm64 ;;
	*) arch=x86 ;;
	esac
fi
case $arch in
x86) qemu=qemu-system-x86_64 machine="-cpu max" console=ttyS0 debarch=amd64 triplet=x86_64-linux-gnu
     make_deps="make deps" ;;
# pauth-impdef: QEMU's own pointer-authentication algorithm, much faster under TCG than QARMA
arm64) qemu=qemu-system-aarch64 machine="-M virt -cpu max,pauth-impdef=on" console=ttyAMA0
       debarch=arm64 triplet=aarch64-linux-gnu make_deps="make ARCH=arm64 deps" ;;
*) echo "tests/kernels/run.sh: no guest for the architecture $arch (x86, arm64)"; exit 1 ;;
esac
# a foreign architecture's packages are named PACKAGE:ARCH for apt-get download
pkgarch=
[ "$(dpkg --print-architecture 2>/dev/null)" = "$debarch" ] || pkgarch=:$debarch
for tool in $qemu apt-get apt-cache dpkg busybox xz timeout readelf; do
	command -v "$tool" >/dev/null || skip "$tool missing ($make_deps)"
done
busybox_bin=$(command -v busybox)
# the initramfs has no libc: busybox-static's
readelf -l "$busybox_bin" | grep -q 'program interpreter' && skip "$busybox_bin is not static (busybox-static)"
mkdir -p "$kdir/deb"
# A guest of another architecture: its own busybox-static (apt-get download, dpkg -x; cached),
# the initramfs's /init shell and the tools of its guest.sh (tests/kernels/init)
if [ "$arch" != "$host_arch" ]; then
	if [ ! -x "$kdir/busybox/bin/busybox" ]; then
		(cd "$kdir/deb" && apt-get download "busybox-static$pkgarch" >/dev/null 2>&1) ||
			skip "cannot download busybox-static$pkgarch ($make_deps; is the archive reachable?)"
		rm -rf "$kdir/busybox.tmp" && dpkg -x "$(ls "$kdir"/deb/busybox-static_*.deb | tail -1)" \
			"$kdir/busybox.tmp" && mv "$kdir/busybox.tmp" "$kdir/busybox" || exit 1
	fi
	busybox_bin=$kdir/busybox/bin/busybox
	# and its binutils (addr2line and nm: test_bpf_symbols checks muxbpf's names and lines
	# against them), guest.sh puts them first in its PATH; their libraries are the host's
	# multiarch ones (libbinutils$pkgarch and the rest: make ARCH=$arch deps)
	if [ ! -x "$kdir/binutils/usr/bin/$triplet-addr2line" ]; then
		(cd "$kdir/deb" && apt-get download "binutils-$triplet$pkgarch" >/dev/null 2>&1) ||
			skip "cannot download binutils-$triplet$pkgarch (is the archive reachable?)"
		rm -rf "$kdir/binutils.tmp" && dpkg -x "$(ls "$kdir"/deb/binutils-"$triplet"_*.deb |
			tail -1)" "$kdir/binutils.tmp" && mv "$kdir/binutils.tmp" "$kdir/binutils" || exit 1
	fi
	# and Debian's own tinymux of that architecture (stripped, no frame pointers), for a real run
	# beside the cross-built one's; where it cannot be fetched, that run is skipped, named
	if [ ! -x "$kdir/tinymux/usr/lib/tinymux/game/bin/netmux" ] &&
		(cd "$kdir/deb" && apt-get download "tinymux$pkgarch" >/dev/null 2>&1); then
		rm -rf "$kdir/tinymux.tmp" && dpkg -x "$(ls "$kdir"/deb/tinymux_*.deb | tail -1)" \
			"$kdir/tinymux.tmp" && mv "$kdir/tinymux.tmp" "$kdir/tinymux" || exit 1
	fi
fi

# apt_for SERIES: sets $apt, the apt options for the series' packages: the machine's sources,
# or for a kernel of another Debian release a private source list of that release in $kdir (the
# machine's apt configuration is not touched): 5.10, Debian 11's; 6.17, Debian 13's backports
# (a kernel past 6.15, where x64_sys_call cannot be traced)
apt_for() {
	apt= sec=
	case $1 in
	5.10) rel=bullseye sec="$rel-security" ;;
	6.17) rel=trixie-backports ;;
	*) return 0 ;;
	esac
	d=$kdir/apt-$rel
	apt="-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=/dev/null"
	apt="$apt -o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o Debug::NoLocking=1"
	[ -f "$d/updated" ] && return 0
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	echo "deb [signed-by=$key] http://deb.debian.org/debian $rel main" >"$d/sources.list"
	[ -z "$sec" ] ||
		echo "deb [signed-by=$key] http://deb.debian.org/debian-security $sec main" \
			>>"$d/sources.list"
	# shellcheck disable=SC2086
	apt-get -qq $apt update >"$d/update.log" 2>&1 && : >"$d/updated"
}

# package SERIES: the newest linux-image-SERIES.*-amd64 (or -arm64) the apt sources know (signed,
# generic)
package() {
	re=$(printf '%s' "$1" | sed 's/\./\\./g')
	# shellcheck disable=SC2086
	apt-cache $apt search --names-only "^linux-image-${re}[.-][^ ]*-$debarch\$" 2>/dev/null |
		awk '{print $1}' | grep -Ev -- "-(cloud|rt)-$debarch\$|-unsigned\$|-dbg\$" | sort -V | tail -1
}

# fetch PACKAGE: its extracted tree in $kdir/PACKAGE (downloaded and unpacked once)
fetch() {
	[ -d "$kdir/$1/boot" ] && return 0
	deb=$(ls "$kdir/deb/$1"_*.deb 2>/dev/null | tail -1)
	if [ -z "$deb" ]; then
		# shellcheck disable=SC2086
		(cd "$kdir/deb" && apt-get $apt download "$1$pkgarch" >/dev/null 2>&1) || return 1
		deb=$(ls "$kdir/deb/$1"_*.deb | tail -1)
	fi
	rm -rf "$kdir/$1.tmp" && dpkg -x "$deb" "$kdir/$1.tmp" && mv "$kdir/$1.tmp" "$kdir/$1"
}

# modfile TREE NAME: the module file of NAME ("-" and "_" are one), or nothing if built in
modfile() {
	pat=$(printf '%s' "$2" | sed 's/[-_]/[-_]/g')
	find "$1" -name "$pat.ko" -o -name "$pat.ko.xz" -o -name "$pat.ko.zst" | head -1
}

# add_module TREE STAGE NAME: NAME after everything it depends on, into STAGE/lib/mods (the
# modules' own "depends=" field: no kmod on the host needed), its name appended to modules.order
add_module() {
	grep -qx "$3" "$2/modules.order" 2>/dev/null && return 0
	f=$(modfile "$1" "$3")
	[ -n "$f" ] || return 0 # built in
	case $f in
	*.xz) xz -dc "$f" >"$2/lib/mods/$3.ko" ;;
	*.zst) zstd -qdc "$f" >"$2/lib/mods/$3.ko" ;;
	*) cp "$f" "$2/lib/mods/$3.ko" ;;
	esac
	for dep in $(tr '\0' '\n' <"$2/lib/mods/$3.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
		add_module "$1" "$2" "$dep"
	done
	echo "$3" >>"$2/modules.order"
}

# initramfs PACKAGE: busybox as /init's shell, the modules for virtio-9p and overlay, and /init
initramfs() {
	tree=$kdir/$1
	img=$kdir/$1.initrd
	stage=$kdir/$1.stage
	rm -rf "$stage"
	mkdir -p "$stage/bin" "$stage/lib/mods" "$stage/dev"
	cp "$busybox_bin" "$stage/bin/busybox"
	: >"$stage/modules.order"
	# Debian 13's packages have merged /usr: usr/lib/modules
	mods=$tree/lib/modules
	[ -d "$mods" ] || mods=$tree/usr/lib/modules
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		add_module "$mods" "$stage" "$m"
	done
	cp "$repo/tests/kernels/init" "$stage/init"
	chmod 755 "$stage/init"
	mknod -m 600 "$stage/dev/console" c 5 1
	(cd "$stage" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$img"
	rm -rf "$stage"
}

# prepare SERIES: the kernel package's tree and initramfs; prints the package.  On a skip or a
# failure: the one-line verdict in $kdir/SERIES.line, the status (skip, fail) in .status, and 1.
prepare() {
	s=$1
	line=$kdir/$s.line st=$kdir/$s.status
	apt_for "$s"
	pkg=$(package "$s")
	# no package archive (no apt lists, no network): this kernel cannot be tested here
	if [ -z "$pkg" ]; then
		echo "kernel $s: skip: no linux-image-$s-$debarch package in the apt sources" \
			"(apt-get update? $make_deps?)" >"$line"
		echo skip >"$st"
		return 1
	fi
	if ! fetch "$pkg"; then
		echo "kernel $s: skip: cannot download $pkg (is the package archive reachable?)" >"$line"
		echo skip >"$st"
		return 1
	fi
	if ! initramfs "$pkg"; then
		echo "kernel $s: cannot build its initramfs" >"$line"
		echo fail >"$st"
		return 1
	fi
	echo "$pkg"
}

# qemu_run SERIES PACKAGE: one boot of the kernel, the guest's results in $res, its console in
# $res/console.log; qemu's exit status (124 or 137: the timeout cut it)
qemu_run() {
	rm -rf "$res"
	mkdir -p "$res"
	# what the guest runs: the repository, the build directory and its results directory
	printf 'repo=%s\nout=%s\nseries=%s\nonly="%s"\nbench="%s"\nrequire="%s"\narch=%s\nforeign=%s\n' \
		"$repo" "$out" "$1" "${MUXBPF_GUEST_ONLY:-}" "${MUXBPF_GUEST_BENCH:-}" \
		"${MUXBPF_REQUIRE_BPF:-}" "$arch" "$([ "$arch" = "$host_arch" ] || echo 1)" \
		>"$res/guest.conf"
	# thread=single: with one host thread per vCPU (multi), a vCPU sometimes runs an int3
	# the kernel has already removed from a patched tracepoint site (an Oops in __schedule,
	# seen on 6.12 as muxbpf attached sched_switch); one thread for both vCPUs does not race.
	# --foreground: qemu stays in this script's process group, so a Ctrl-C or a kill of the
	# group that runs the tests stops the guest too (timeout would make a group of its own)
	plugin=
	[ -n "${MUXBPF_GUEST_PLUGIN:-}" ] && plugin="-plugin $MUXBPF_GUEST_PLUGIN,out=$res/plugin.out"
	[ -n "$plugin" ] && [ "${MUXBPF_GUEST_PLUGIN_HIST:-}" = 1 ] && plugin="$plugin,hist=$res/plugin.hist"
	# shellcheck disable=SC2086 # $plugin, $machine: words (no blanks in the paths)
	timeout --foreground -k 10 "$guest_timeout" $qemu -accel tcg,thread=single $machine \
		-smp "${MUXBPF_GUEST_SMP:-2}" -m 4G -kernel "$(ls "$kdir/$2"/boot/vmlinuz-*)" \
		-initrd "$kdir/$2.initrd" \
		-append "console=$console,115200 panic=-1 quiet" -nographic -no-reboot -nic none \
		-serial mon:stdio \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$res",mount_tag=results,security_model=none $plugin \
		</dev/null >"$res/console.log" 2>&1
}

# crash_of CONSOLE: the guest kernel's crash in CONSOLE in one line (its first "Oops:", "BUG:"
# or "Kernel panic" line and the kernel RIP, or on arm64 its pc), nothing when it did not crash
crash_of() {
	c=$(grep -m1 -E 'Oops: |BUG: |Kernel panic - not syncing' "$1" | sed 's/^\[ *[0-9.]*\] //')
	[ -n "$c" ] || return 0
	rip=$(grep -m1 'RIP: 0010:' "$1" | sed 's/.*RIP: 0010://')
	[ -n "$rip" ] || rip=$(grep -m1 -E '(^|\] )pc : ' "$1" | sed 's/.*pc : //')
	echo "$c${rip:+ at $rip}"
}

# boot SERIES PACKAGE: boot the kernel and run the suites in it; the verdict in $kdir/SERIES.line,
# the status (ok, fail) in $kdir/SERIES.status.  A guest whose kernel crashed before it wrote a
# result, outside any BPF program (no bpf_prog_ frame on the console), boots once more: a double
# fault in __kmalloc's cmpxchg16b with garbage flags, in a process no program of ours ran in,
# stopped one 6.12 guest in about sixty here, under TCG on a loaded host.  The crash is named
# in the verdict and its console kept.  A crash in a BPF program, or a second crash, fails, and
# so does any crash, lockdep splat or WARNING from BPF on the console of the boot that counts,
# however the suites ended (verdict.inc).
boot() {
	s=$1 pkg=$2
	line=$kdir/$s.line st=$kdir/$s.status
	res=$kdir/$s
	first_crash=
	rm -f "$kdir/$s.crash.log"
	while :; do
		start=$(date +%s)
		qemu_run "$s" "$pkg"
		qrc=$?
		secs=$(($(date +%s) - start))
		crash=$(crash_of "$res/console.log")
		[ -n "$crash" ] && [ ! -f "$res/rc" ] && [ -z "$first_crash" ] &&
			! grep -q 'bpf_prog_' "$res/console.log" || break
		first_crash=$crash
		cp "$res/console.log" "$kdir/$s.crash.log"
	done
	verdict "$s" "$pkg" "$secs" "$qrc" "$crash" "$res" "$line" "$st"
	[ -n "$first_crash" ] && echo "    booted twice: the first boot's kernel crashed outside BPF:" \
		"$first_crash (console: $kdir/$s.crash.log)" >>"$line"
	return 0
}

# Each guest is one host thread (TCG, thread=single).  With a core for every guest and one for
# the host they boot side by side; on fewer cores one after the other: two guests on a 2-core
# host under load stalled each other's vCPUs long enough to fail timing checks inside (a 6.1
# guest's clock_nanosleep read 55 ms of CPU by the clock against 38 ms by the scheduler).  The
# downloads and initramfs come first, one series at a time (one apt download directory).
fail=0 skipped=0
side_by_side=0
[ "$(nproc)" -gt "$(echo $series | wc -w)" ] && side_by_side=1
for s in $series; do
	rm -f "$kdir/$s.line" "$kdir/$s.status"
	pkg=$(prepare "$s") || continue
	if [ "$side_by_side" = 1 ]; then
		boot "$s" "$pkg" &
	else
		boot "$s" "$pkg"
	fi
done
wait
for s in $series; do
	cat "$kdir/$s.line" 2>/dev/null || echo "kernel $s: no verdict"
	case $(cat "$kdir/$s.status" 2>/dev/null) in
	ok) ;;
	skip) skipped=1 ;;
	*) fail=1 ;;
	esac
done
[ "$fail" = 0 ] || exit 1
[ "$skipped" = 1 ] && skip "a series could not be prepared here"
exit 0
