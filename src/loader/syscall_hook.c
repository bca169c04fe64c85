// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ledger's syscall hook, chosen by a probe: a two-instruction fentry program on
 * x64_sys_call, loaded and attached for a moment.  Kernels 6.1.85+ and 6.9-6.14 allow it;
 * 6.15+ cannot trace x64_sys_call (there the tracepoints run: the per-syscall functions' fentry
 * or kprobe.multi cost more per call, doc/kernels.md), and some kernels refuse fentry
 * altogether (EPERM).  The probe is fentry only: an fexit is never attached and detached for
 * nothing (a call that never returns through x64_sys_call, exit_group, would keep its
 * trampoline image referenced).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "loader/syscall_hook.h"

int syscall_hook_parse(const char *s)
{
	if (!strcmp(s, "auto"))
		return SYSCALL_HOOK_AUTO;
	if (!strcmp(s, "fentry"))
		return SYSCALL_HOOK_FENTRY;
	if (!strcmp(s, "tracepoint"))
		return SYSCALL_HOOK_TRACEPOINT;
	return -1;
}

const char *syscall_hook_name(int hook)
{
	return hook == SYSCALL_HOOK_FENTRY ? "fentry"
	       : hook == SYSCALL_HOOK_TRACEPOINT ? "tracepoint"
						  : "auto";
}

const char *syscall_hook_where(int hook)
{
	return hook == SYSCALL_HOOK_FENTRY ? "fentry/fexit on x64_sys_call"
					   : "the sys_enter/sys_exit tracepoints";
}

static const char *err_name(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "?";
}

/* 0 when fentry on x64_sys_call loads and attaches here; else -1 with why set. */
static int probe_fentry(char *why, size_t n)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *btf = btf__load_vmlinux_btf();
	int id, fd, link;

	if (!btf) {
		snprintf(why, n, "no kernel BTF (%s)", err_name(errno));
		return -1;
	}
	id = btf__find_by_name_kind(btf, "x64_sys_call", BTF_KIND_FUNC);
	btf__free(btf);
	if (id < 0) {
		snprintf(why, n, "this kernel has no x64_sys_call");
		return -1;
	}
	lo.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "mb_hook_probe", "GPL", insns, 2, &lo);
	if (fd < 0) {
		snprintf(why, n, "fentry refused (%s) by this kernel", err_name(errno));
		return -1;
	}
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		snprintf(why, n, "fentry on x64_sys_call loads but does not attach (%s)",
			 err_name(errno));
		close(fd);
		return -1;
	}
	close(link);
	close(fd);
	return 0;
}

/* Whether the ELF file at path is 32-bit (ia32: its syscalls enter through ia32_sys_call). */
static bool elf32(const char *path)
{
	unsigned char id[EI_NIDENT];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool r;

	if (fd < 0)
		return false;
	r = read(fd, id, sizeof(id)) == sizeof(id) && !memcmp(id, ELFMAG, SELFMAG) &&
	    id[EI_CLASS] == ELFCLASS32;
	close(fd);
	return r;
}

int syscall_hook_choose(int want, pid_t pid, const char *exe, struct syscall_hook_info *out)
{
	char path[64], why[128];

	out->hook = SYSCALL_HOOK_TRACEPOINT;
	if (want == SYSCALL_HOOK_TRACEPOINT) {
		snprintf(out->why, sizeof(out->why), "tracepoint: asked for (--syscall-hook)");
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (elf32(exe ? exe : path)) {
		snprintf(why, sizeof(why), "32-bit target (its syscalls do not pass x64_sys_call)");
	} else if (!probe_fentry(why, sizeof(why))) {
		out->hook = SYSCALL_HOOK_FENTRY;
		snprintf(out->why, sizeof(out->why), "fentry: x64_sys_call traceable%s",
			 want == SYSCALL_HOOK_FENTRY ? " (--syscall-hook)" : "");
		return 0;
	}
	if (want == SYSCALL_HOOK_FENTRY) {
		snprintf(out->why, sizeof(out->why), "%s", why);
		return -1;
	}
	snprintf(out->why, sizeof(out->why), "tracepoint: %s", why);
	return 0;
}
