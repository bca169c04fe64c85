/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which pair of programs books the ledger's syscalls: fentry/fexit on the 64-bit syscall
 * dispatcher x64_sys_call where the kernel lets it be traced (a trampoline on that one function:
 * other processes' syscalls pay a call and a compare), else the sys_enter/sys_exit tracepoints
 * (every thread of the machine takes the slow syscall path while they are registered).  Chosen
 * at start by loading and attaching a two-instruction fentry program (syscall_hook_choose()).
 */
#ifndef MUXBPF_SYSCALL_HOOK_H
#define MUXBPF_SYSCALL_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum syscall_hook {
	SYSCALL_HOOK_AUTO = 0, /* fentry where it loads and attaches, else the tracepoints */
	SYSCALL_HOOK_FENTRY,
	SYSCALL_HOOK_TRACEPOINT,
};

/* The hook that ran and why, for the report ("fentry: x64_sys_call traceable"). */
struct syscall_hook_info {
	int hook; /* enum syscall_hook: FENTRY or TRACEPOINT once chosen */
	char why[160];
	/* what another process's syscall pays while the hook is attached (hook and early exits),
	 * measured at attach on muxbpf's own syscalls; < 0: not measured */
	double bystander_ns;
};

/* "auto", "fentry", "tracepoint" -> enum syscall_hook; -1 for anything else. */
int syscall_hook_parse(const char *s);
/* "auto", "fentry" or "tracepoint". */
const char *syscall_hook_name(int hook);
/* What the hook's programs are attached to, in words ("fentry/fexit on x64_sys_call"). */
const char *syscall_hook_where(int hook);

/*
 * Pick the hook for target pid (exe: what a paused child will exec, or NULL: /proc/PID/exe).
 * want AUTO: fentry if the probe loads and attaches and the target is a 64-bit process, else
 * the tracepoints; want FENTRY where the probe fails (or the target is 32-bit): -1 with
 * out->why saying why; want TRACEPOINT: the tracepoints.  0 otherwise.
 */
int syscall_hook_choose(int want, pid_t pid, const char *exe, struct syscall_hook_info *out);

#endif /* MUXBPF_SYSCALL_HOOK_H */
