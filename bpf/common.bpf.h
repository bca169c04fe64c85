/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the BPF objects share once `bpftool gen object` links them into one skeleton: the globals
 * and functions one file defines and others use (as libbpf-tools keeps maps.bpf.h).  Include
 * after vmlinux.h and muxbpf.h.
 */
#ifndef MUXBPF_COMMON_BPF_H
#define MUXBPF_COMMON_BPF_H

/* sample.bpf.c: the phase the loader is running, written through the mmapped .bss. */
extern volatile __u32 phase;
/* runtime.bpf.c: the target's tgid, set between open and load. */
extern const volatile __u32 targ_tgid;
/* unwind.bpf.c: walk the user stack (fp or CFI, --unwind) and intern it; its id, or -errno
 * (MUXBPF_STACK_FULL when the stack map of its depth is full); *fresh = 1 when this call stored
 * the stack (an id no sample was counted under yet). */
extern int mb_user_stack(__u64 ip, __u64 sp, __u64 bp, struct muxbpf_phase_stats *st,
			 __u32 *fresh);
/* unwind.bpf.c, AArch64: the interrupted x30 for the next mb_user_stack() on this CPU (a leaf's
 * return address); MB_USER_LR(x) calls it there and is nothing on x86-64. */
#if defined(__TARGET_ARCH_arm64)
extern int mb_user_lr(__u64 lr);
#define MB_USER_LR(x) mb_user_lr(x)
#else
#define MB_USER_LR(x) ((void)0)
#endif

/*
 * bench/sampler_stages.sh only: build with BPF_DEFS=-DMUXBPF_BENCH_STAGE=N to make the sampler
 * return after stage N, so that the kernel's run-time statistics time each stage by difference.
 * A stage build returns without counting the sample: each stage's figure holds its own work only.
 * 0 (every real build): the whole sample.
 */
#ifndef MUXBPF_BENCH_STAGE
#define MUXBPF_BENCH_STAGE 0
#endif
#define MUXBPF_STAGE_ENTRY 1 /* the sample counted as taken */
#define MUXBPF_STAGE_SETUP 2 /* the walk's state set up (its maps looked up) */
#define MUXBPF_STAGE_WALK 3  /* the stack walked, not interned */
#define MUXBPF_STAGE_INTERN 4 /* the stack interned, the sample not counted */

#endif /* MUXBPF_COMMON_BPF_H */
