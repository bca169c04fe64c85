/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-phase time ledger: wall = on-CPU (user + syscalls) + off-CPU inside syscalls +
 * preempted in user mode (+ leftover, which should be ~0), with syscalls by name and by user
 * call site, wakeups by waker, context switches, runqueue wait and page faults.  Pure: built
 * from plain data collected from the maps and the boundary readings.
 */
#ifndef MUXBPF_LEDGER_H
#define MUXBPF_LEDGER_H

#include <stddef.h>
#include <stdint.h>
#include "muxbpf.h"
#include "model/profile.h"

/* The ledger's BPF programs (bpf/ledger.bpf.c), by name: attached, left unloaded with
 * --no-syscalls, and costed as one group. */
#define LEDGER_NPROGS 8
extern const char *const ledger_progs[LEDGER_NPROGS];
_Static_assert(LEDGER_NPROGS == MUXBPF_PROG__COUNT, "ledger_progs in muxbpf_prog_slot order");
/* The syscall slots' programs in fentry mode (fentry/fexit on x64_sys_call), in slot order. */
extern const char *const ledger_fentry_progs[2];
/* The muxbpf_prog_slot of a ledger program named name, in either mode; -1: not one. */
int ledger_prog_slot(const char *name);

/* The ledger maps as collected at the end of a run. */
struct mb_ledger_data {
	struct { struct muxbpf_sys_key k; struct muxbpf_sys_val v; } *sys;
	size_t nsys;
	struct { struct muxbpf_site_key k; struct muxbpf_site_val v; } *sites;
	size_t nsites;
	struct { struct muxbpf_wake_key k; struct muxbpf_wake_val v; } *wakes;
	size_t nwakes;
	struct { struct muxbpf_thread_key k; struct muxbpf_thread_val v; } *threads;
	size_t nthreads;
	uint64_t lost[MUXBPF_MAX_PHASES]; /* ledger entries dropped because a map was full */
	uint64_t lost_by[MUXBPF_MAX_PHASES][MUXBPF_LMAP__COUNT]; /* the same by map */
};
void ledger_data__free(struct mb_ledger_data *d);

/* Syscalls in flight at one moment (thread_state entries with nr >= 0). */
struct mb_inflight {
	struct { uint32_t k; uint32_t __pad; struct muxbpf_thread_state v; } *v; /* k = tid */
	size_t n;
};
void inflight__free(struct mb_inflight *f);

/* One boundary: time, per-thread counters, calls in flight — all read while the target sleeps. */
struct mb_boundary {
	uint64_t t_ns; /* CLOCK_MONOTONIC */
	const struct rt_snapshot *rt;
	const struct mb_inflight *inflight;
};

struct ledger_sys_row {
	uint32_t nr;
	uint64_t count, cpu_ns, wall_ns, inexact;
	uint64_t stolen_ns; /* stolen inside the calls, out of cpu_ns (muxbpf_sys_val) */
};

struct ledger_site_row {
	uint32_t nr;
	int32_t stack_id;
	uint64_t count, cpu_ns, wall_ns;
	uint64_t cpu_sq;  /* sum of (cpu_ns >> 4)^2 over the calls (struct muxbpf_site_val) */
	uint64_t walk_ns; /* the stack walks' own time */
};

struct ledger_wake_row {
	uint32_t kind; /* enum muxbpf_waker */
	uint32_t pid;    /* the first waker process of this name */
	uint32_t pids;   /* processes of this name that woke the target (counted per map key) */
	uint32_t detail; /* softirq vector */
	char comm[MUXBPF_COMM_LEN];
	uint64_t count;
};

struct phase_ledger {
	uint64_t wall_ns;        /* the window */
	uint32_t threads;        /* threads seen in the window */
	uint64_t thread_wall_ns; /* wall summed over those threads */
	uint64_t oncpu_ns;       /* exact: sum_exec_runtime deltas */
	uint64_t sys_cpu_ns;     /* on-CPU inside syscalls */
	uint64_t site_cpu_ns;    /* on-CPU of the calls whose call site was taken (a sample) */
	uint64_t site_walk_ns;   /* the call-site walks' own time, after those calls' exits */
	uint64_t user_ns;        /* on-CPU - sys_cpu - site_walk: user code, page faults,
				    interrupts in user mode */
	uint64_t sys_wall_ns;    /* wall inside syscalls */
	uint64_t sys_stolen_ns;  /* stolen inside syscalls (part of stolen_ns, not of sys_cpu_ns) */
	uint64_t sys_off_ns;     /* off-CPU inside syscalls (blocked or waiting for a CPU) */
	uint64_t preempt_user_ns; /* off-CPU after preemption in user mode */
	int64_t switch_path_ns;  /* context-switch path outside the runtime accounting (>= 0) */
	uint64_t stolen_ns;      /* on a CPU, left out of the runtime: the host's steal, IRQ time */
	/* runtime the kernel counted before the switch-in the tracepoints saw (from a wakeup's
	 * clock update): in oncpu_ns and, by the tracepoints, off the CPU too */
	uint64_t rt_before_in_ns;
	int64_t leftover_ns;     /* thread_wall - oncpu - sys_off - preempt_user - switch_path
				    - stolen + rt_before_in */
	uint64_t run_delay_ns;   /* exact runqueue wait (sched_info) */
	uint64_t sys_count, sys_inexact;
	uint64_t switch_in_missed; /* switch-ins the kernel did not report, repaired */
	uint64_t nvcsw, nivcsw, min_flt, maj_flt, pcount;
	uint64_t wakeups;
	uint64_t lost;
	uint64_t lost_by[MUXBPF_LMAP__COUNT]; /* by map (enum muxbpf_ledger_map) */
	struct ledger_sys_row *sys;     /* sorted by cpu_ns, then wall_ns, descending */
	size_t nsys;
	struct ledger_site_row *sites;  /* sorted by cpu_ns descending */
	size_t nsites;
	struct ledger_wake_row *wakes;  /* sorted by count descending */
	size_t nwakes;
};

/* Build the ledger of one window of phase `phase` of process pid.  0 or -ENOMEM. */
int ledger_build(const struct mb_ledger_data *d, unsigned int phase, uint32_t pid,
		 const struct mb_boundary *from, const struct mb_boundary *to,
		 struct phase_ledger *out);
void phase_ledger__free(struct phase_ledger *l);
/* A site row's sum of squared CPU in ns^2 (the map keeps (cpu_ns >> 4)^2: 16 ns units). */
double ledger_site_cpu_sq(const struct ledger_site_row *s);
/* Syscall nr's walked calls over all its sites: their CPU in ns and squared CPU in ns^2. */
void ledger_site_sums(const struct phase_ledger *l, uint32_t nr, double *cpu, double *cpu_sq);
/* Syscall name from the table generated from the kernel headers ("syscall_N" beyond it). */
const char *syscall_name(uint32_t nr);
const char *waker_name(uint32_t kind);
/* Softirq vector name ("net_rx", "timer", ...). */
const char *softirq_name(uint32_t vec);

#endif /* MUXBPF_LEDGER_H */
