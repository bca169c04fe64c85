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
	int32_t stack_err; /* 0, or -errno from the stack walk (mb_user_stack): then nr == 1 (the leaf) */
	uint32_t nr;
	uint64_t *ips;
	uint64_t count;
};

/* The CFI unwind tables behind the stacks (src/unwind.c). */
struct mb_unwind_summary {
	int valid;          /* 0: never filled (the BPF programs did not load): nothing to report */
	int mode;           /* enum muxbpf_unwind_mode */
	uint32_t tables;    /* CFI tables compiled (one per build-id) */
	uint32_t loaded;    /* of which loaded into the BPF arrays */
	uint32_t procs;     /* processes with a mapping record */
	uint32_t no_cfi;    /* executable mappings without CFI or unreadable */
	uint32_t full;      /* tables that did not fit the arrays */
	uint64_t rows;      /* rows loaded */
	uint64_t infos;     /* distinct rules loaded */
	uint64_t bytes;     /* rows * 8 + rules * 16 + page index entries * 8 */
	uint64_t rows_cap, infos_cap;
	double build_ms;    /* compiling CFI, all tables */
	double build_max_ms; /* the slowest table */
	uint64_t sampler_runs;    /* the sampler's run count and run time (bpf_enable_stats), */
	uint64_t sampler_run_ns;  /* both 0 when the kernel refused run-time statistics */
};

/* One interned user stack (the stack maps' content, by id). */
struct mb_stack {
	uint32_t id;
	uint32_t end; /* enum muxbpf_walk_end */
	uint32_t nr;
	uint64_t *ips; /* leaf first */
};

struct mb_stack_table {
	struct mb_stack *v; /* sorted by id */
	size_t n;
};

const struct mb_stack *stack_table__find(const struct mb_stack_table *t, uint32_t id);
void stack_table__free(struct mb_stack_table *t);

struct mb_profile {
	struct mb_sample *samples;
	size_t n;
	struct muxbpf_phase_stats stats[MUXBPF_MAX_PHASES]; /* summed over CPUs */
	struct mb_unwind_summary unwind;
	struct mb_stack_table stacks; /* every stack, also those of the ledger's call sites */
	uint64_t exits_lost; /* thread exits whose final runtime did not fit the exited map */
	/* the random period (src/jitter.c): redraws the kernel took and refused, and its errno */
	uint64_t period_redraws, period_failed;
	int period_err;
	uint64_t spacing[MUXBPF_SPACING_BUCKETS]; /* one thread's samples' spacing (muxbpf.h) */
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
