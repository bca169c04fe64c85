/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The profiler's BPF side for one target process: open and load the skeleton, attach the
 * user-only cpu-clock sampler to the (paused) target with inherit, the exit handler, and the
 * runtime iterator; switch phases; detach everything on free.  Only this module and the
 * collect*.c readers include the skeleton.
 */
#ifndef MUXBPF_PROFILER_H
#define MUXBPF_PROFILER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct profiler_opts {
	pid_t pid;             /* target process (a paused child, or a running process) */
	int freq;              /* sampling frequency, Hz */
	uint32_t max_stacks;   /* stack map entries (0: default) */
	uint32_t max_samples;  /* samples hash entries (0: default) */
	bool enable_on_exec;   /* start sampling at the target's execve (paused child) */
	int unwind;            /* enum muxbpf_unwind_mode (0: frame pointers) */
	const char *exe;       /* what the target will exec: its CFI tables are built up front */
	bool no_ledger;        /* leave out the syscall/scheduler ledger (--no-syscalls) */
	int site_every;        /* walk the call site of 1 syscall in N; 0: default, <0: never */
	bool running;          /* the target runs already: one sampler event per thread */
	bool no_stats;         /* no BPF run-time statistics, not even calibration (--no-bpf-stats) */
	bool bpf_stats;        /* statistics on all through the run, not just calibration (--bpf-stats) */
	bool fixed_period;     /* the kernel's fixed sampling period, no random redraws */
	int syscall_hook;      /* enum syscall_hook (loader/syscall_hook.h): 0 auto */
};

struct profiler;
struct muxbpf_bpf;

/* Load and attach.  NULL with errno set; the reason is printed once. */
struct profiler *profiler__new(const struct profiler_opts *opts);
/* Make the sampler and the ledger count under phase id from now on.  Also a ledger boundary:
 * collect_inflight() then reads the calls in flight as of this call. */
void profiler__set_phase(struct profiler *p, unsigned int phase);
uint32_t profiler__epoch(const struct profiler *p);
unsigned int profiler__phase(const struct profiler *p);
/* The phase before the last profiler__set_phase(). */
unsigned int profiler__prev_phase(const struct profiler *p);
/* The calibration window (calib.h), or NULL without run-time statistics. */
struct calib *profiler__calib(struct profiler *p);
struct muxbpf_run_counts;
/* Phase ph's run counts of the ledger programs (bpf/ledger.bpf.c run_counts) and its sampler
 * runs, summed over the CPUs.  0 or -errno. */
int profiler__run_counts(struct profiler *p, uint32_t ph, struct muxbpf_run_counts *out,
			 uint64_t *samples);
/* Stop sampling (a running target keeps running while the maps are read at the end). */
void profiler__pause(struct profiler *p);
/* Detach every link and free (safe on NULL). */
void profiler__free(struct profiler *p);

/* Is the syscall/scheduler ledger attached? */
bool profiler__has_ledger(const struct profiler *p);
/* The ledger's syscall hook and why it was chosen (the ledger is attached). */
struct syscall_hook_info;
void profiler__syscall_hook(const struct profiler *p, struct syscall_hook_info *out);

/* Threads given a sampler event of their own at attach (running targets; 0 otherwise). */
int profiler__sampler_threads(const struct profiler *p);

/* For the collect*.c readers (the skeleton) and live.c (the unwinder's pace). */
struct muxbpf_bpf *profiler__skel(struct profiler *p);
struct unwinder *profiler__unwinder(struct profiler *p);
/* The random period's redraws and failures and the samples' spacing so far, into out. */
struct mb_profile;
void profiler__period_stats(struct profiler *p, struct mb_profile *out);
int profiler__iter_fd(struct profiler *p);
/* The sampler event of a spawned target; -1 for a running one (one event per thread). */
int profiler__sampler_fd(const struct profiler *p);

#endif /* MUXBPF_PROFILER_H */
