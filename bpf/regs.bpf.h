/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The target architecture's integer argument registers, read by uprobes that sit on a call
 * instruction or at a function's entry (libbpf 1.1's PT_REGS_PARMn stops at 5).  MB_ARG(ctx, n)
 * is argument n (1-based) while it is in a register: x86-64 SysV passes 6 there (rdi, rsi, rdx,
 * rcx, r8, r9), AAPCS64 8 (x0-x7).  At the call instruction, before the call pushes anything
 * (x86-64) or writes the link register (arm64), later arguments are on the stack, 8 bytes each
 * from sp up: MB_STACK_ARG_OFF(n) is argument n's offset from sp.  Include after vmlinux.h.
 */
#ifndef MUXBPF_REGS_BPF_H
#define MUXBPF_REGS_BPF_H

#if defined(__TARGET_ARCH_x86)
#define MB_ARG_REGS 6
#define MB_ARG_1(r) ((r)->di)
#define MB_ARG_2(r) ((r)->si)
#define MB_ARG_3(r) ((r)->dx)
#define MB_ARG_4(r) ((r)->cx)
#define MB_ARG_5(r) ((r)->r8)
#define MB_ARG_6(r) ((r)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define MB_ARG_REGS 8
#define MB_ARG_1(r) ((r)->regs[0])
#define MB_ARG_2(r) ((r)->regs[1])
#define MB_ARG_3(r) ((r)->regs[2])
#define MB_ARG_4(r) ((r)->regs[3])
#define MB_ARG_5(r) ((r)->regs[4])
#define MB_ARG_6(r) ((r)->regs[5])
#define MB_ARG_7(r) ((r)->regs[6])
#define MB_ARG_8(r) ((r)->regs[7])
#else
#error "bpf/regs.bpf.h: define __TARGET_ARCH_x86 or __TARGET_ARCH_arm64"
#endif

#define MB_ARG(r, n) MB_ARG_##n(r)
#define MB_STACK_ARG_OFF(n) (8 * ((n) - MB_ARG_REGS - 1))

#endif /* MUXBPF_REGS_BPF_H */
