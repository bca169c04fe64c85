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

# The QEMU plugin that counts guest instructions between markers (bench/qemu/icount_window.c),
# for bench/guest_icount.sh.  Its API header comes from Debian's qemu source package, fetched
# once into QEMU_SRC_CACHE (bench/qemu/plugin-header.sh); not part of `make all`.
QEMU_SRC_CACHE ?= /var/cache/muxbpf/qemu-src
QEMU_PLUGIN := $(OUTPUT)/qemu/icount_window.so
.PHONY: qemu-plugin
qemu-plugin: $(QEMU_PLUGIN)

$(QEMU_PLUGIN): bench/qemu/icount_window.c bench/qemu/icount_mark.h bench/qemu/plugin-header.sh
	$(call msg,PLUGIN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)inc=$$(bench/qemu/plugin-header.sh $(QEMU_SRC_CACHE)) && \
		$(CC) -O2 -g -Wall -Wextra -fPIC -shared -I"$$inc" $< -o $@
