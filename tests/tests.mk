# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Test programs: tests/test_*.c are cmocka suites linked with every loader object but main.o;
# tests/targets/*.c are ground-truth targets with known behaviour (frame pointers, symbols);
# tests/fixtures/fixtures.mk builds the symbolizer's fixture binaries.

TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(patsubst tests/%.c,$(OUTPUT)/tests/%,$(TEST_SRCS))
TARGET_SRCS := $(wildcard tests/targets/*.c)
TARGET_BINS := $(patsubst tests/targets/%.c,$(OUTPUT)/tests/targets/%,$(TARGET_SRCS))
TARGET_CFLAGS := -O2 -g -fno-omit-frame-pointer -Wall -Wextra

FIXTURES :=
-include tests/fixtures/fixtures.mk

.PHONY: tests-build
tests-build: $(TEST_BINS) $(TARGET_BINS) $(FIXTURES)

$(OUTPUT)/tests/targets:
	$(Q)mkdir -p $@

# Helpers the e2e scripts and benchmarks run (not suites): a game and a driver outside muxbpf.
HELPER_BINS := $(patsubst tests/%.c,$(OUTPUT)/tests/%,$(wildcard tests/helper_*.c))
tests-build: $(HELPER_BINS)

$(OUTPUT)/tests/helper_%: tests/helper_%.c $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,HELPER,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LIB_OBJS) $(LDLIBS) -o $@

$(OUTPUT)/tests/test_%: tests/test_%.c $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LIB_OBJS) $(LDLIBS) -lcmocka -o $@

$(OUTPUT)/tests/targets/%: tests/targets/%.c | $(OUTPUT)/tests/targets
	$(call msg,TARGET,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -MMD -MP $< -o $@ -lpthread

# The same synthetic target without frame pointers, from gcc and clang (noipa is gcc-only), the
# ground truth of CFI unwinding.
NOFP_TARGETS := $(OUTPUT)/tests/targets/synth_nofp $(OUTPUT)/tests/targets/synth_nofp_clang
tests-build: $(NOFP_TARGETS)

$(OUTPUT)/tests/targets/synth_nofp: tests/targets/synth.c | $(OUTPUT)/tests/targets
	$(call msg,TARGET,$@)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra $< -o $@

$(OUTPUT)/tests/targets/synth_nofp_clang: tests/targets/synth.c | $(OUTPUT)/tests/targets
	$(call msg,TARGET,$@)
	$(Q)$(CLANG_CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -Dnoipa=noinline $< -o $@

# AArch64: the same target with return addresses signed (pointer authentication, pac-ret) and
# BTI, as distributions that build with -mbranch-protection=standard ship them.
ifeq ($(ARCH),arm64)
NOFP_TARGETS += $(OUTPUT)/tests/targets/synth_pac
tests-build: $(OUTPUT)/tests/targets/synth_pac
$(OUTPUT)/tests/targets/synth_pac: tests/targets/synth.c | $(OUTPUT)/tests/targets
	$(call msg,TARGET,$@)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -mbranch-protection=standard -Wall -Wextra $< -o $@
endif

# Call chains across a shared library, without frame pointers (tests/targets/chain/): each
# compiler builds its own executable and library, found at run time through $ORIGIN.
CHAIN_FLAGS := -O2 -g -fomit-frame-pointer -Wall -Wextra
tests-build: $(OUTPUT)/tests/targets/chain_gcc $(OUTPUT)/tests/targets/chain_clang

$(OUTPUT)/tests/targets/libchain_%.so: tests/targets/chain/lib.c tests/targets/chain/chain.h \
		| $(OUTPUT)/tests/targets
	$(call msg,TARGET,$@)
	$(Q)$(if $(filter clang,$*),$(CLANG_CC),$(CC)) $(CHAIN_FLAGS) -fPIC -shared $< -o $@

$(OUTPUT)/tests/targets/chain_%: tests/targets/chain/main.c tests/targets/chain/chain.h \
		$(OUTPUT)/tests/targets/libchain_%.so
	$(call msg,TARGET,$@)
	$(Q)$(if $(filter clang,$*),$(CLANG_CC),$(CC)) $(CHAIN_FLAGS) $< -L$(OUTPUT)/tests/targets \
		-lchain_$* -Wl,-rpath,'$$ORIGIN' -o $@

-include $(wildcard $(OUTPUT)/tests/*.d $(OUTPUT)/tests/targets/*.d)

# The LD_PRELOAD shim of muxbpf ab's known-slowdown test (tests/shim/spin.c).
tests-build: $(OUTPUT)/tests/shim_spin.so

$(OUTPUT)/tests/shim_spin.so: tests/shim/spin.c | $(OUTPUT)/tests
	$(call msg,SHIM,$@)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer -Wall -Wextra -fPIC -shared $< -ldl -o $@

# The injected failure of the random period's ioctl (tests/shim/period_fail.c, period.sh).
tests-build: $(OUTPUT)/tests/shim_period_fail.so

$(OUTPUT)/tests/shim_period_fail.so: tests/shim/period_fail.c | $(OUTPUT)/tests
	$(call msg,SHIM,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -fPIC -shared $< -ldl -o $@
