/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Plain data collected from the BPF maps.  Everything downstream of collect.c (symbolize, fold,
 * report) works on these structs and never sees the skeleton.
 */
#ifndef MUXBPF_PROFILE_H
#define MUXBPF_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include "muxbpf.h"

/* One {phase, process, thread, stack} counter.  ips are leaf first. */
struct mb_sample {
	uint32_t phase;
	uint32_t pid;
	uint32_t tid;
	int32_t stack_err; /* 0, or -errno from bpf_get_stackid: then nr == 1 (the leaf only) */
	uint32_t nr;
	uint64_t *ips;
	uint64_t count;
};

struct mb_profile {
	struct mb_sample *samples;
	size_t n;
	struct muxbpf_phase_stats stats[MUXBPF_MAX_PHASES]; /* summed over CPUs */
};

void profile__free(struct mb_profile *p);

/* Per-thread runtime (ns) at one moment: live threads from the task iterator plus the final
 * value of threads that exited since the profiler attached. */
struct rt_snapshot {
	struct muxbpf_task_rt *v;
	size_t n;
};

/* On-CPU ns of process pid between two snapshots: per thread, later minus earlier (0 for a
 * thread not yet born at the earlier one). */
uint64_t rt_delta(const struct rt_snapshot *from, const struct rt_snapshot *to, uint32_t pid);
void rt_snapshot__free(struct rt_snapshot *s);

#endif /* MUXBPF_PROFILE_H */
