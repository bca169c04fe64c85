# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# libFuzzer targets for the parsers of files muxbpf did not write (clang -fsanitize=fuzzer,
# address,undefined; UBSan findings abort like crashes):
#   fuzz_maps       /proc/PID/maps text (src/proc/maps.c)
#   fuzz_symbolize  ELF files through the symbolizer (src/symbols/symbolize.c, libelf)
#   fuzz_cfi        ELF images through the CFI compiler (src/symbols/cfi.c, libdw)
#   fuzz_callgrind  callgrind.out files (src/model/callgrind.c)
# Seeds come from real files at build time: this machine's /proc/*/maps, the test fixtures and
# targets, TinyMUX's own binaries.  The growing corpora live in $(OUTPUT)/fuzz/corpus/<target>.
#
#   make fuzz                 build, seed, run every target for FUZZ_SECONDS (default 60) each
#   make fuzz-build           build only
#   make fuzz-replay          run every seed and every fixed finding once (deterministic)
#   FUZZ_JOBS=2 make fuzz     run the targets in parallel; FUZZ_NICE (default 19) applies
# A crash leaves $(OUTPUT)/fuzz/artifacts/<target>/crash-* and makes `make fuzz` fail; once
# fixed, its input goes to fuzz/regress/<target>/ (replayed as a seed on every run).

FUZZ_DIR := $(OUTPUT)/fuzz
FUZZ_TARGETS := fuzz_maps fuzz_symbolize fuzz_cfi fuzz_callgrind
FUZZ_BINS := $(addprefix $(FUZZ_DIR)/,$(FUZZ_TARGETS))
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_NICE ?= 19
FUZZ_SAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -g -O1 -Wall -Wextra -std=gnu11 -D_GNU_SOURCE $(FUZZ_SAN) -Iinclude -Isrc \
	$(shell pkg-config --cflags libelf libdw 2>/dev/null)
FUZZ_LIBS := $(shell pkg-config --libs libelf libdw liblzma 2>/dev/null || echo -lelf -ldw -llzma) -lz -lstdc++

FUZZ_SRC_fuzz_maps := src/proc/maps.c src/base/log.c src/base/grow.c
FUZZ_SRC_fuzz_symbolize := src/symbols/symbolize.c src/symbols/symbolize_inline.c \
	src/symbols/elfread.c src/proc/maps.c src/base/log.c src/base/grow.c
FUZZ_SRC_fuzz_cfi := src/symbols/cfi.c src/symbols/elfread.c src/base/log.c src/base/grow.c
FUZZ_SRC_fuzz_callgrind := src/model/callgrind.c src/base/grow.c

.PHONY: fuzz fuzz-build fuzz-seed fuzz-replay

fuzz-build: $(FUZZ_BINS)

$(FUZZ_DIR):
	$(Q)mkdir -p $@

$(FUZZ_DIR)/fuzz_maps: fuzz/fuzz_maps.c $(FUZZ_SRC_fuzz_maps) | $(FUZZ_DIR)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $^ $(FUZZ_LIBS) -o $@

$(FUZZ_DIR)/fuzz_symbolize: fuzz/fuzz_symbolize.c $(FUZZ_SRC_fuzz_symbolize) | $(FUZZ_DIR)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $^ $(FUZZ_LIBS) -o $@

$(FUZZ_DIR)/fuzz_cfi: fuzz/fuzz_cfi.c $(FUZZ_SRC_fuzz_cfi) | $(FUZZ_DIR)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $^ $(FUZZ_LIBS) -o $@

$(FUZZ_DIR)/fuzz_callgrind: fuzz/fuzz_callgrind.c $(FUZZ_SRC_fuzz_callgrind) | $(FUZZ_DIR)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $^ $(FUZZ_LIBS) -o $@

# Seeds from real files (regenerated every time: cheap, and this machine's maps change).
fuzz-seed: tests-build
	$(Q)fuzz/seed.sh $(FUZZ_DIR) $(OUTPUT)

fuzz: fuzz-build fuzz-seed
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_NICE=$(FUZZ_NICE) \
		fuzz/run.sh $(FUZZ_DIR) $(FUZZ_TARGETS)

# Deterministic: every seed and every input of a fixed finding (fuzz/regress/) through its target
# once, no mutation.  CI runs this; a random fuzzing round can find something new at any time.
fuzz-replay: fuzz-build fuzz-seed
	$(Q)for t in $(FUZZ_TARGETS); do \
		case $$t in fuzz_maps|fuzz_callgrind) seed=$(FUZZ_DIR)/seed/$$t ;; *) seed=$(FUZZ_DIR)/seed/fuzz_elf ;; esac; \
		reg=fuzz/regress/$$t; [ -d $$reg ] || reg=; \
		$(FUZZ_DIR)/$$t -runs=0 $$seed $$reg >$(FUZZ_DIR)/$$t.replay.log 2>&1 || \
			{ tail -20 $(FUZZ_DIR)/$$t.replay.log; echo "fuzz-replay: $$t failed"; exit 1; }; \
		echo "fuzz-replay: $$t: $$(find $$seed $$reg -type f 2>/dev/null | wc -l) inputs, no finding"; \
	done
