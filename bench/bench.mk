# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Benchmarks: bench/*.c are programs linked with the loader objects; bench/*.sh are scripts.
# `make bench` builds everything and runs bench/run.sh, which runs them all and prints ratios.
# They measure; they never pass or fail on a number (these machines are shared and noisy).

BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(OUTPUT)/bench/%,$(BENCH_SRCS))

.PHONY: bench bench-build
bench-build: $(BENCH_BINS)

bench: all netmux netmux-nofp bench-build
	$(Q)bench/run.sh $(OUTPUT)

$(OUTPUT)/bench:
	$(Q)mkdir -p $@

$(OUTPUT)/bench/%: bench/%.c $(LIB_OBJS) | $(OUTPUT)/bench
	$(call msg,BENCH,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LIB_OBJS) $(LDLIBS) -o $@

-include $(wildcard $(OUTPUT)/bench/*.d)
