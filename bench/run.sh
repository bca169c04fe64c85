#!/bin/sh
# Run every benchmark: the programs built from bench/*.c, then the bench/*.sh scripts.
#   bench/run.sh BUILD_DIR
# Each prints its own table; nothing here passes or fails on a number.
set -u
out=${1:-build}
echo "# muxbpf benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# kernel $(uname -r), $(nproc) CPUs, $(systemd-detect-virt 2>/dev/null || echo unknown-virt)"
for b in "$out"/bench/*; do
	case $b in *.d) continue ;; esac
	[ -x "$b" ] || continue
	echo
	echo "## $(basename "$b")"
	"$b"
done
for s in bench/*.sh; do
	[ -f "$s" ] || continue
	[ "$s" = bench/run.sh ] && continue
	echo
	echo "## $(basename "$s" .sh)"
	sh "$s" "$out"
done
