// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The syscall tracepoints' floor, for the benchmarks that need it (storm.c, overhead.c): the
 * cheapest programs that can sit on sys_enter/sys_exit.  Whatever the ledger does, a thread
 * on the machine pays at least this while any syscall tracepoint is attached.
 */
#ifndef MUXBPF_BENCH_FLOOR_H
#define MUXBPF_BENCH_FLOOR_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* The tgid filter both floors run: one compare against tgid, then return 0. */
#define FLOOR_FILTER(tgid)                                                                    \
	{                                                                                     \
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_current_pid_tgid },         \
		{ .code = BPF_ALU64 | BPF_RSH | BPF_K, .dst_reg = BPF_REG_0, .imm = 32 },     \
		{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = BPF_REG_0, .off = 1,          \
		  .imm = (int)(tgid) },                                                        \
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },      \
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },      \
		{ .code = BPF_JMP | BPF_EXIT },                                               \
	}

/*
 * The floor programs, as instructions: nothing to compile.  filter: the tgid compare every
 * ledger program starts with (bpf_get_current_pid_tgid() >> 32 against a constant).
 */
static inline int load_floor(bool btf, bool filter, const char *tp, __u32 tgid)
{
	struct bpf_insn empty[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_insn filt[] = FLOOR_FILTER(tgid);
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	char name[64];
	int fd, lfd;

	if (btf) {
		struct btf *vm = btf__load_vmlinux_btf();
		int id;

		if (!vm)
			return -1;
		snprintf(name, sizeof(name), "btf_trace_%s", tp);
		id = btf__find_by_name_kind(vm, name, BTF_KIND_TYPEDEF);
		btf__free(vm);
		if (id < 0)
			return -1;
		o.expected_attach_type = BPF_TRACE_RAW_TP;
		o.attach_btf_id = id;
	}
	fd = bpf_prog_load(btf ? BPF_PROG_TYPE_TRACING : BPF_PROG_TYPE_RAW_TRACEPOINT, "mb_floor",
			   "GPL", filter ? filt : empty,
			   filter ? sizeof(filt) / sizeof(filt[0]) : 2, &o);
	if (fd < 0)
		return -1;
	lfd = bpf_raw_tracepoint_open(btf ? NULL : tp, fd);
	close(fd); /* the link holds the program */
	return lfd;
}

/*
 * The same tgid filter as fentry (or fexit) on the kernel function FUNC: the 64-bit syscall
 * dispatcher x64_sys_call (the fentry hook's floor, src/loader/syscall_hook.c), or one
 * syscall's own function __x64_sys_NAME (what 6.15+ kernels, whose dispatcher is not
 * traceable, leave to hook).  A link fd, or -1 where the kernel refuses.
 */
static inline int load_fentry_floor(bool fexit, const char *func, __u32 tgid)
{
	struct bpf_insn filt[] = FLOOR_FILTER(tgid);
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY);
	struct btf *vm = btf__load_vmlinux_btf();
	int fd, lfd, id;

	if (!vm)
		return -1;
	id = btf__find_by_name_kind(vm, func, BTF_KIND_FUNC);
	btf__free(vm);
	if (id < 0)
		return -1;
	o.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "mb_floor", "GPL", filt,
			   sizeof(filt) / sizeof(filt[0]), &o);
	if (fd < 0)
		return -1;
	lfd = bpf_raw_tracepoint_open(NULL, fd);
	close(fd);
	return lfd;
}

/*
 * The same tgid filter as one kprobe.multi link (or its return probes) on the N functions at
 * ADDRS: one program for every per-syscall function at once (bench/sysfn.h lists them).  A link
 * fd, or -1 where the kernel refuses (no kprobes, no fprobe, a function ftrace cannot hook).
 */
static inline int load_kmulti_floor(bool ret, const unsigned long *addrs, size_t n, __u32 tgid)
{
	struct bpf_insn filt[] = FLOOR_FILTER(tgid);
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.addrs = addrs,
		    .kprobe_multi.cnt = (__u32)n,
		    .kprobe_multi.flags = ret ? BPF_F_KPROBE_MULTI_RETURN : 0);
	int fd, lfd;

	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "mb_floor", "GPL", filt,
			   sizeof(filt) / sizeof(filt[0]), &o);
	if (fd < 0)
		return -1;
	lfd = bpf_link_create(fd, 0, BPF_TRACE_KPROBE_MULTI, &lo);
	close(fd);
	return lfd;
}

#endif
