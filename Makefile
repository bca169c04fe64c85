# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# muxbpf build: clang -target bpf -> bpftool gen object -> bpftool gen skeleton -> cc, out of
# tree in $(OUTPUT).  Header dependencies are tracked with -MMD -MP for BPF and C objects alike.
#
#   make            build muxbpf and the test programs
#   make deps       install the Debian packages everything needs (idempotent)
#   make netmux     build the default target (netmux 2.12 from Debian's source, frame pointers)
#   make upstream   build upstream TinyMUX 2.14 from ../shared/tinymux/ (a second test target)
#   make run        deps + build + default target + `muxbpf --phase all --out build/runs/DATE`
#   make test       deps + build + default target + every test, then the kernel matrix
#   make test-kernels  the kernel matrix alone (KERNELS="6.1 6.12" by default; 5.10 if fetchable)
#   make test-asan  every unit test again under ASan + UBSan (in $(OUTPUT)-asan)
#   make ARCH=arm64 [deps|all|test-emulated|test-kernels]  cross build in build-arm64 (Debian
#                   multiarch), its unit tests under qemu-aarch64-static, its BPF suites in
#                   Debian's arm64 kernel under qemu-system-aarch64
#   make fuzz       libFuzzer targets for maps, ELF and CFI parsing, FUZZ_SECONDS each
#   make install    muxbpf, its default target, muxbpf(8) and the report schema into
#                   $(DESTDIR)$(PREFIX)
#   V=1             show the commands

CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
HOST_ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
ARCH := $(HOST_ARCH)

# Cross build (`make ARCH=arm64` on x86-64): its own $(OUTPUT) (build-arm64), the cross gcc
# and binutils (CROSS=aarch64-linux-gnu-), clang --target for the clang-built test targets, and
# the Debian multiarch :arm64 development packages through pkg-config (`make ARCH=arm64 deps`
# installs them).  BPF objects are built for the target's __TARGET_ARCH against its vmlinux.h;
# bpftool gen skeleton is architecture-neutral.
MULTIARCH_x86 := x86_64-linux-gnu
MULTIARCH_arm64 := aarch64-linux-gnu
ifneq ($(ARCH),$(HOST_ARCH))
CROSS ?= $(MULTIARCH_$(ARCH))-
OUTPUT ?= build-$(ARCH)
ifeq ($(origin CC),default)
CC := $(CROSS)gcc
endif
ifeq ($(origin CXX),default)
CXX := $(CROSS)g++
endif
CLANG_CC := $(CLANG) --target=$(MULTIARCH_$(ARCH))
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/$(MULTIARCH_$(ARCH))/pkgconfig:/usr/share/pkgconfig \
	pkg-config
FX_STRIP := $(CROSS)strip
FX_OBJCOPY := $(CROSS)objcopy
FX_READELF := $(CROSS)readelf
FX_NM := $(CROSS)nm
endif
OUTPUT ?= build
CLANG_CC ?= $(CLANG)
PKG_CONFIG ?= pkg-config

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

VMLINUX := vmlinux/$(ARCH)/vmlinux.h
# Objects that need an optional kernel feature (a kfunc of a newer kernel) get a skeleton of
# their own, loaded only where a probe says they work: libbpf resolves every kfunc extern of an
# object at load, autoload or not, and on 6.1 that walks module BTFs (CAP_SYS_ADMIN only).
BPF_OPTIONAL := mapcount
BPF_SRCS := $(filter-out $(BPF_OPTIONAL:%=bpf/%.bpf.c),$(wildcard bpf/*.bpf.c))
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_LINKED := $(OUTPUT)/bpf/muxbpf.bpf.o
SKEL := $(OUTPUT)/muxbpf.skel.h
OPT_SKELS := $(BPF_OPTIONAL:%=$(OUTPUT)/%.skel.h)

SRCS := $(wildcard src/*/*.c)
OBJS := $(patsubst src/%.c,$(OUTPUT)/src/%.o,$(SRCS)) $(OUTPUT)/src/profile.pb-c.o \
	$(OUTPUT)/src/assets.o
LIB_OBJS := $(filter-out $(OUTPUT)/src/cli/main.o,$(OBJS))

# The embedded default target (see scripts/build-netmux.sh).
NETMUX_DIR := $(abspath $(OUTPUT))/tinymux
NETMUX_FP := $(NETMUX_DIR)/fp/mux2.12/src/netmux
NETMUX_NOFP := $(NETMUX_DIR)/nofp/mux2.12/src/netmux
NETMUX_FP_FLAGS := -O2 -g -fno-omit-frame-pointer
NETMUX_NOFP_FLAGS := -O2 -g
# a cross build's netmux is the target's (configure --host; scripts/build-netmux.sh)
NETMUX_HOST := $(if $(CROSS),$(MULTIARCH_$(ARCH)))
GAME_TEMPLATE := /usr/share/tinymux/game

PKGS := libbpf libelf libdw zlib liblzma libprotobuf-c jansson
CFLAGS ?= -g -O2
override CFLAGS += -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -MMD -MP \
	-Iinclude -Isrc -I$(OUTPUT) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) \
	-DMUXBPF_DEFAULT_NETMUX='"$(NETMUX_FP)"' -DMUXBPF_DEFAULT_TEMPLATE='"$(GAME_TEMPLATE)"'
LDLIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || \
	echo -lbpf -lelf -ldw -lz -llzma -lprotobuf-c -ljansson) -lstdc++ -lm
BPF_CFLAGS := -g -O2 -Wall -target bpf -D__TARGET_ARCH_$(ARCH) -MMD -MP \
	-Iinclude -Ivmlinux/$(ARCH) $(BPF_DEFS)

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all clean deps netmux netmux-nofp upstream run test test-kernels test-asan test-emulated \
	test-arm64 check-tests install

all: $(OUTPUT)/muxbpf tests-build

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/src $(OUTPUT)/tests:
	$(Q)mkdir -p $@

# --- BPF: one object per concern, linked into one skeleton ------------------------------------
$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BPF_LINKED): $(BPF_OBJS)
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(SKEL): $(BPF_LINKED)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name muxbpf_bpf > $@

$(OUTPUT)/bpf/%.linked.o: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OPT_SKELS): $(OUTPUT)/%.skel.h: $(OUTPUT)/bpf/%.linked.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# --- userspace ---------------------------------------------------------------------------------
# Syscall names come from the kernel's UAPI headers, generated at build time.
SYSCALL_NAMES := $(OUTPUT)/syscall_names.h
$(SYSCALL_NAMES): scripts/gen-syscalls.sh | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)scripts/gen-syscalls.sh $(if $(CROSS),"$(CC)") > $@

# The generated headers are built first (order-only); an object that includes one depends on it
# through its .d file (-MMD), so a BPF edit rebuilds profiler.o and the collectors, not every
# object.
$(OUTPUT)/src/%.o: src/%.c | $(SKEL) $(OPT_SKELS) $(SYSCALL_NAMES) $(OUTPUT)/src
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/muxbpf: $(OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# pprof's profile.proto (proto/), compiled by protoc-c (Debian's protobuf-c-compiler).
PB_C := $(OUTPUT)/profile.pb-c.c
$(OUTPUT)/profile.pb-c.h: $(PB_C)
$(PB_C): proto/profile.proto | $(OUTPUT)
	$(call msg,PROTOC,$@)
	$(Q)protoc-c --c_out=$(OUTPUT) --proto_path=proto $<

$(OUTPUT)/src/profile.pb-c.o: $(PB_C) | $(OUTPUT)/src
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/src/output/out_pprof.o: $(OUTPUT)/profile.pb-c.h

# The viewer's and report.html's CSS and JavaScript, embedded as strings (src/output/assets.h).
ASSETS := $(wildcard src/output/assets/*.css src/output/assets/*.js)
ASSETS_C := $(OUTPUT)/assets.c
$(ASSETS_C): scripts/gen-assets.sh $(ASSETS) | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)scripts/gen-assets.sh $(ASSETS) > $@

$(OUTPUT)/src/assets.o: $(ASSETS_C) src/output/assets.h | $(OUTPUT)/src
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

include tests/tests.mk
include bench/bench.mk
include fuzz/fuzz.mk

# --- default target ----------------------------------------------------------------------------
netmux: $(NETMUX_FP)
netmux-nofp: $(NETMUX_NOFP)

$(NETMUX_FP):
	$(call msg,NETMUX,$@)
	$(Q)scripts/build-netmux.sh $(NETMUX_DIR)/fp "$(NETMUX_FP_FLAGS)" $(NETMUX_HOST)

$(NETMUX_NOFP):
	$(call msg,NETMUX,$@)
	$(Q)scripts/build-netmux.sh $(NETMUX_DIR)/nofp "$(NETMUX_NOFP_FLAGS)" $(NETMUX_HOST)

# --- upstream TinyMUX (2.14), a second test target ------------------------------------------------
# Built from the source tarball in ../shared/tinymux/ (UPSTREAM_TARBALL=PATH names another) with
# the default target's flags, in a cache outside the tree keyed by the tarball's hash and the
# flags (UPSTREAM_CACHE), linked from $(OUTPUT)/upstream; the tests that run it skip where it is
# not built.  Without a tarball `make upstream` fails and `make test` goes on without it.
UPSTREAM_TARBALL ?= $(firstword $(wildcard ../shared/tinymux/tinymux-*.tar.xz))
UPSTREAM_CACHE ?= /var/cache/muxbpf
UPSTREAM_LINK := $(OUTPUT)/upstream
upstream: | $(OUTPUT)
	$(call msg,UPSTREAM,$(UPSTREAM_LINK) <- $(UPSTREAM_TARBALL))
	$(Q)scripts/build-upstream.sh "$(UPSTREAM_TARBALL)" $(UPSTREAM_LINK) "$(NETMUX_FP_FLAGS)" \
		$(UPSTREAM_CACHE)

# --- install (PREFIX, DESTDIR) --------------------------------------------------------------------
# The default target goes in lib/muxbpf/netmux/ (netmux, libmux.so, stubslave, slave, with their
# debug info: the report's file:line comes from it); the installed muxbpf looks there first.
PREFIX ?= /usr/local
NETMUX_BIN_DIR := $(dir $(NETMUX_FP))
NETMUX_FILES := $(addprefix $(NETMUX_BIN_DIR),netmux libmux.so stubslave slave)
install: $(OUTPUT)/muxbpf $(NETMUX_FP)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/share/doc/muxbpf $(DESTDIR)$(PREFIX)/lib/muxbpf/netmux
	$(Q)install -m 0755 $(OUTPUT)/muxbpf $(DESTDIR)$(PREFIX)/sbin/muxbpf
	$(Q)install -m 0755 $(NETMUX_FILES) $(DESTDIR)$(PREFIX)/lib/muxbpf/netmux/
	$(Q)install -m 0644 doc/muxbpf.8 $(DESTDIR)$(PREFIX)/share/man/man8/muxbpf.8
	$(Q)install -m 0644 doc/report.schema.json doc/ab.schema.json doc/gate.schema.json $(DESTDIR)$(PREFIX)/share/doc/muxbpf/

# --- the README's two commands -----------------------------------------------------------------
deps:
	$(Q)scripts/deps.sh $(if $(CROSS),$(ARCH))

# Each run's artifacts in a dated directory of their own; the last line names the page.
RUN_DIR ?= $(OUTPUT)/runs/$(shell date +%Y-%m-%d-%H%M%S)
run: deps
	$(Q)$(MAKE) --no-print-directory all netmux
	$(Q)$(OUTPUT)/muxbpf --phase all --out $(RUN_DIR); rc=$$?; \
	if [ -f $(RUN_DIR)/report.html ]; then \
		echo "report page: file://$(abspath $(RUN_DIR))/report.html (open it in a browser)"; \
	fi; exit $$rc

test: deps
	$(Q)$(MAKE) --no-print-directory all netmux netmux-nofp
	$(Q)if [ -n "$(UPSTREAM_TARBALL)" ]; then $(MAKE) --no-print-directory upstream; \
	else echo "upstream: no tarball in ../shared/tinymux/: its tests will skip"; fi
	$(Q)tests/run.sh $(OUTPUT)

# The kernel matrix alone: Debian's 6.1 and 6.12 booted in QEMU (TCG), the BPF suites, a real
# run and tests/e2e/nonroot.sh inside (tests/kernels/run.sh; exit 77, a skip, where it cannot
# run).  `make test` runs it too, as tests/e2e/kernels.sh; this target picks KERNELS (5.10).
# make ARCH=arm64 test-kernels: the cross build's BPF suites in Debian's arm64 6.1 under
# qemu-system-aarch64 (TCG); test_bpf_symbols and the real run there need make ARCH=arm64 netmux
# (they skip, named, where it is not built; nonroot skips there: no setcap in busybox).
KERNELS_arm64 := 6.1
test-kernels:
	$(Q)tests/kernels/run.sh $(OUTPUT) $(or $(KERNELS),$(KERNELS_$(ARCH))) || [ $$? -eq 77 ]

# The whole arm64 set, from an x86-64 host: the cross build with both netmux builds, then every
# BPF suite, test_bpf_symbols and a real run on each build in Debian's arm64 6.1 (make test runs a
# reduced set: tests/e2e/arm64.sh).
test-arm64:
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 deps
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 all netmux netmux-nofp
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 test-kernels

# A cross build's cmocka suites under user-mode emulation (qemu-user-static), those that need no
# BPF and no native process of the target's architecture (tests/run.sh, MUXBPF_RUNNER).
QEMU_arm64 := qemu-aarch64-static
test-emulated: all
	$(Q)$(if $(CROSS),,echo "test-emulated: for a cross build (make ARCH=arm64 test-emulated)"; exit 1)
	$(Q)MUXBPF_TESTS=suites MUXBPF_RUNNER=$(QEMU_$(ARCH)) tests/run.sh $(OUTPUT)

# Every cmocka suite again, built with AddressSanitizer and UndefinedBehaviorSanitizer (a finding
# aborts the suite: a failure), in $(OUTPUT)-asan; the default target is the plain build's.
ASAN_OUTPUT := $(OUTPUT)-asan
ASAN_CFLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
test-asan: deps
	$(Q)$(MAKE) --no-print-directory all netmux netmux-nofp
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(ASAN_OUTPUT) NETMUX_DIR=$(NETMUX_DIR) \
		CFLAGS="$(ASAN_CFLAGS)" LDFLAGS="-fsanitize=address,undefined" all
	$(Q)MUXBPF_TESTS=suites ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 tests/run.sh $(ASAN_OUTPUT)

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(filter-out $(OUTPUT)/tinymux,$(wildcard $(OUTPUT)/*))

-include $(wildcard $(OUTPUT)/bpf/*.d $(OUTPUT)/src/*.d $(OUTPUT)/src/*/*.d $(OUTPUT)/tests/*.d)
