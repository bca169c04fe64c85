/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one ABI shared by the BPF programs (bpf/) and the loader (src/).
 *
 * Rules: fixed-width __u32/__u64 fields, explicit padding, a _Static_assert on every struct size,
 * no bool/long/pointers.  Every enum that both halves use lives here and only here.
 */
#ifndef MUXBPF_H
#define MUXBPF_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Deepest user stack the sampler records (bpf_get_stackid's own limit is 127). */
#define MUXBPF_MAX_STACK_DEPTH 127
/* Phase ids are small integers; id 0 means "outside any phase". */
#define MUXBPF_MAX_PHASES 32
/* Default map sizes; the loader may change them between open and load. */
#define MUXBPF_DEFAULT_STACKS 16384
#define MUXBPF_DEFAULT_SAMPLE_KEYS 65536
#define MUXBPF_MAX_THREADS 8192
#define MUXBPF_COMM_LEN 16

/*
 * The netmux phases, in canonical run order.  The names live in src/phases.c.  Other targets
 * (the synthetic test target) use plain ids below MUXBPF_MAX_PHASES.
 */
enum muxbpf_phase {
	MUXBPF_PHASE_NONE = 0,
	MUXBPF_PHASE_BOOT,
	MUXBPF_PHASE_CREATE,
	MUXBPF_PHASE_ATTRWRITE,
	MUXBPF_PHASE_DUMP,
	MUXBPF_PHASE_ATTRREAD,
	MUXBPF_PHASE_IDLE,
	MUXBPF_PHASE_DISPATCH,
	MUXBPF_PHASE_SOFTCODE_ARITH,
	MUXBPF_PHASE_SOFTCODE_LIST,
	MUXBPF_PHASE__COUNT,
};

/* Why a sample taken by the sampler did not get a full stack or was not counted. */
enum muxbpf_drop {
	MUXBPF_DROP_STACK_FAILED = 0, /* bpf_get_stackid() failed: counted as leaf only */
	MUXBPF_DROP_COUNTS_FULL,      /* the samples hash is full: the sample is lost */
	MUXBPF_DROP_PHASE_RANGE,      /* phase id out of range: counted under phase 0 */
	MUXBPF_DROP__COUNT,
};

/*
 * Key of the samples hash: one counter per {phase, process, thread, stack}.  When the stack
 * could not be taken, stack_id holds the negative error and ip the leaf address, so the sample
 * still counts; otherwise ip is 0 (the leaf is the stack's first frame).
 */
struct muxbpf_sample_key {
	__u32 phase;
	__u32 pid; /* tgid */
	__u32 tid;
	__s32 stack_id;
	__u64 ip;
};
_Static_assert(sizeof(struct muxbpf_sample_key) == 24, "muxbpf_sample_key layout");

/* Per-phase sampler accounting (per-CPU array indexed by phase): taken = recorded + lost. */
struct muxbpf_phase_stats {
	__u64 taken;    /* samples the program ran for */
	__u64 recorded; /* samples counted in the samples hash (with or without a stack) */
	__u64 dropped[MUXBPF_DROP__COUNT];
	__u64 __pad;
};
_Static_assert(sizeof(struct muxbpf_phase_stats) == 48, "muxbpf_phase_stats layout");

/*
 * One thread's runtime as the kernel accounts it (task->se.sum_exec_runtime, ns).  The task
 * iterator writes one record per thread of the target; the exit handler keeps the last value of
 * threads that exit, keyed by tid.
 */
struct muxbpf_task_rt {
	__u32 pid; /* tgid */
	__u32 tid;
	__u64 runtime_ns;
	char comm[MUXBPF_COMM_LEN];
};
_Static_assert(sizeof(struct muxbpf_task_rt) == 32, "muxbpf_task_rt layout");

#endif /* MUXBPF_H */
