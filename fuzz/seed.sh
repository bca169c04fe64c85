#!/bin/sh
# Seed corpora from real files.  fuzz/seed.sh FUZZ_DIR BUILD_DIR
set -eu
dir=$1 out=$2
mkdir -p "$dir/seed/fuzz_maps" "$dir/seed/fuzz_elf"
# maps: this shell's, init's (as root), and a few live processes'; unreadable ones are skipped.
for p in self 1 $(ls /proc | grep -E '^[0-9]+$' | head -20); do
	cat "/proc/$p/maps" >"$dir/seed/fuzz_maps/$p" 2>/dev/null || rm -f "$dir/seed/fuzz_maps/$p"
	[ -s "$dir/seed/fuzz_maps/$p" ] || rm -f "$dir/seed/fuzz_maps/$p"
done
# ELF: small real binaries (up to 64 KiB, the fuzzers' -max_len): PIE, non-PIE, stripped, C++,
# a separate debug file, shared libraries, gcc and clang without frame pointers, TinyMUX's own.
for f in "$out"/tests/fixtures/fx_* "$out"/tests/fixtures/libfx.so "$out"/tests/targets/synth* \
	 /usr/lib/tinymux/game/bin/slave /usr/lib/tinymux/game/bin/stubslave \
	 /usr/lib/tinymux/game/bin/libmux.so /usr/lib/tinymux/game/bin/sum.so; do
	[ -f "$f" ] || continue
	case $f in *.d) continue ;; esac
	[ "$(wc -c <"$f")" -le 65536 ] || continue
	cp "$f" "$dir/seed/fuzz_elf/$(basename "$f")"
done
# Bare .eh_frame sections: fuzz_cfi wraps an input that is not an ELF file into a template ELF.
for f in "$out"/tests/targets/chain_gcc "$out"/tests/targets/libchain_clang.so \
	 /usr/lib/tinymux/game/bin/stubslave; do
	[ -f "$f" ] || continue
	objcopy -O binary --only-section=.eh_frame "$f" "$dir/seed/fuzz_elf/eh_$(basename "$f")" \
		2>/dev/null || true
done
# callgrind.out: two dumps of true(1) (by line and by instruction), when valgrind is here.
mkdir -p "$dir/seed/fuzz_callgrind"
if command -v valgrind >/dev/null 2>&1; then
	(cd "$dir/seed/fuzz_callgrind" &&
		valgrind -q --tool=callgrind --callgrind-out-file=lines true &&
		valgrind -q --tool=callgrind --dump-instr=yes --callgrind-out-file=instr true) ||
		true
fi
echo "  SEED     $(ls "$dir/seed/fuzz_maps" | wc -l) maps files, $(ls "$dir/seed/fuzz_elf" | wc -l) ELF files, $(ls "$dir/seed/fuzz_callgrind" | wc -l) callgrind.out files"
