// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A QEMU TCG plugin: the guest instructions executed between two marker instructions, one line
 * per window.  Every translated block adds its instruction count to one counter, inline (no
 * call out of the generated code); the markers are `nopl` instructions with a displacement of
 * their own (bench/qemu/icount_mark.h), recognised by their bytes when a block is translated,
 * and only they call back into the plugin.  Meant for a guest with one vCPU (-smp 1): the
 * counter is then every instruction the guest ran, its kernel's included, in program order.
 *
 *   qemu-system-x86_64 -smp 1 ... -plugin FILE.so,out=PATH[,hist=PATH2]
 *
 * Prints "window N: INSNS" to PATH (stderr without out=) at each close marker, N from 1.  With
 * hist=, also the window's instructions per translated block's start address, one line
 * "N ADDRESS INSNS" each, to PATH2 (a callback per block executed: slower).  A block's count
 * is added when the block starts, so a window's figure is off by the few instructions that
 * follow each marker in its block: the same in every window of a program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>
#include "icount_mark.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const unsigned char mark_open[] = { ICOUNT_MARK_BYTES(ICOUNT_OPEN) };
static const unsigned char mark_close[] = { ICOUNT_MARK_BYTES(ICOUNT_CLOSE) };

static uint64_t insns;   /* every instruction executed, all vCPUs (meant: one) */
static uint64_t opened;  /* insns at the last open marker */
static unsigned long windows;
static FILE *out, *hist;
static bool open_now;

/* hist=: instructions per block start address inside the open window (open addressing) */
#define HIST_SLOTS (1 << 18)
static struct {
	uint64_t vaddr, insns;
} slot[HIST_SLOTS];

static void on_block(unsigned int vcpu, void *udata)
{
	/* udata: the start address above 10 bits (sign-extended back: canonical addresses), the
	 * block's instructions (at most 512 in QEMU) in them */
	uint64_t vaddr = (uint64_t)((int64_t)((uintptr_t)udata) >> 10), n = (uintptr_t)udata & 1023;
	size_t i = (vaddr * 0x9e3779b97f4a7c15ull) >> 46;

	(void)vcpu;
	if (!open_now)
		return;
	for (size_t k = 0; k < HIST_SLOTS; k++, i = (i + 1) & (HIST_SLOTS - 1))
		if (!slot[i].insns || slot[i].vaddr == vaddr) {
			slot[i].vaddr = vaddr;
			slot[i].insns += n;
			return;
		}
}

static void hist_flush(void)
{
	for (size_t i = 0; i < HIST_SLOTS; i++) {
		if (slot[i].insns)
			fprintf(hist, "%lu %llx %llu\n", windows, (unsigned long long)slot[i].vaddr,
				(unsigned long long)slot[i].insns);
		slot[i].vaddr = slot[i].insns = 0;
	}
	fflush(hist);
}

static void on_open(unsigned int vcpu, void *udata)
{
	(void)vcpu, (void)udata;
	opened = insns;
	open_now = true;
}

static void on_close(unsigned int vcpu, void *udata)
{
	(void)vcpu, (void)udata;
	fprintf(out, "window %lu: %llu\n", ++windows, (unsigned long long)(insns - opened));
	fflush(out);
	open_now = false;
	if (hist)
		hist_flush();
}

static bool is_mark(struct qemu_plugin_insn *insn, const unsigned char *mark)
{
	return qemu_plugin_insn_size(insn) == ICOUNT_MARK_LEN &&
	       !memcmp(qemu_plugin_insn_data(insn), mark, ICOUNT_MARK_LEN);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, n);
	if (hist)
		qemu_plugin_register_vcpu_tb_exec_cb(
			tb, on_block, QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)(qemu_plugin_tb_vaddr(tb) << 10 | (n & 1023)));
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (is_mark(insn, mark_open))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_open,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		else if (is_mark(insn, mark_close))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_close,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	fprintf(out, "total: %llu instructions, %lu windows\n", (unsigned long long)insns, windows);
	fflush(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	out = stderr;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "arg=", 4)) /* the older -plugin syntax */
			a += 4;
		if (!strncmp(a, "hist=", 5) && (hist = fopen(a + 5, "w")))
			continue;
		if (strncmp(a, "out=", 4) || !(out = fopen(a + 4, "w"))) {
			fprintf(stderr, "icount_window: bad argument or cannot write: %s\n", argv[i]);
			return -1;
		}
	}
	if (info->system_emulation && info->system.smp_vcpus != 1)
		fprintf(stderr, "icount_window: %d vCPUs: windows count every vCPU's instructions\n",
			info->system.smp_vcpus);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
