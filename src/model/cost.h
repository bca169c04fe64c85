/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The profiler's own cost and its maps' occupancy, as plain data: readings of the BPF programs'
 * run-time statistics and of muxbpf's CPU at each phase boundary (src/collect_live.c takes
 * them), and the occupancy of every hash map over the run (watched periodically).
 */
#ifndef MUXBPF_COST_H
#define MUXBPF_COST_H

#include <stdbool.h>
#include <stdint.h>
#include "muxbpf.h"

#define MB_COST_PROGS 24
#define MB_COST_NAME 32

/* One BPF program's counters (bpf_prog_info run_cnt/run_time_ns, cumulative). */
struct mb_prog_cost {
	char name[MB_COST_NAME];
	uint64_t runs, run_ns;
};

/*
 * ns per run from the calibration window (src/calib.c): the statistics' ns per run split into a
 * target run and an early exit with the programs' own counts and body timings (calib_from()).
 */
struct mb_calib {
	bool valid;
	double run_ns[MUXBPF_PROG__COUNT];  /* one target run, as the statistics count it */
	double exit_ns[MUXBPF_PROG__COUNT]; /* one early exit (an event of another process) */
	double sample_ns;                   /* one sampler run */
	double seconds;                     /* the window's length */
	uint64_t target_runs, exits;        /* what it saw, all ledger programs (target runs: every
					     * full run, interrupts of any task included) */
	uint64_t target_syscalls;           /* netmux's syscalls it timed: few, an idle target */
	/*
	 * What the tracepoints add to a syscall outside the programs (their dispatch, the slow
	 * syscall path): measured at attach on muxbpf's own syscalls, before and after the ledger
	 * attached (profiler.c, measure_floor()); < 0: not measured.
	 */
	double floor_ns;
};

/* Fewer netmux syscalls than this in the window: the report says so (an idle target). */
#define CALIB_THIN_RUNS 1000

/* The statistics and the programs' own counts at one moment, for the calibration. */
struct mb_calib_reading {
	bool valid;
	uint64_t t_ns;
	uint64_t runs[MUXBPF_PROG__COUNT], run_ns[MUXBPF_PROG__COUNT]; /* statistics */
	uint64_t sample_runs, sample_ns;                             /* statistics, mb_sample */
	struct muxbpf_run_counts counts;                             /* all phases */
};

/*
 * ns per target run and per early exit of each ledger program between readings a and b:
 *   statistics' time T = (R + E) e + R (s + 2k)
 * (R target runs, E early exits, s the mean timed body, k the mean clock read: the window adds
 * two clock reads to each target run); a target run is e + s, less one clock read for the
 * programs that read no clock of their own outside the window.  Pure.
 */
void calib_from(const struct mb_calib_reading *a, const struct mb_calib_reading *b,
		struct mb_calib *out);

/* The programs' own counts of one window (the deltas of muxbpf_run_counts) and its samples. */
struct mb_run_delta {
	bool valid;
	struct muxbpf_run_counts c;
	uint64_t samples; /* sampler runs (sample_stats taken) */
};

struct mb_cost;

/* Everything at one boundary. */
struct mb_cost_reading {
	bool valid;
	int nprogs;
	struct mb_prog_cost progs[MB_COST_PROGS];
	uint64_t self_cpu_ns; /* muxbpf's CPU, all threads (CLOCK_PROCESS_CPUTIME_ID, exact) */
	uint64_t t_ns;        /* CLOCK_MONOTONIC */
	bool stats_on; /* run-time statistics held by this run (calibration, --bpf-stats) */
	/* the programs' own counts: the phase that ended here and the one that starts */
	bool counted;
	uint32_t phase_old, phase_new;
	struct muxbpf_run_counts old_counts, new_counts;
	uint64_t old_samples, new_samples;
	struct mb_calib calib; /* as known at this reading (valid once the window is over) */
};

/*
 * The cost estimated from the counts: every program's runs and early exits times its calibrated
 * ns, what the statistics would have read.  in_ctx_ns is the part that ran in the target's own
 * context (its syscalls' programs, its switch-outs, its own wakeups, the interrupt programs that
 * hit it, the sampler): the time the
 * corrected figures remove; in_call_ns the part of it inside the ledger's syscall intervals.
 * With the statistics off (stats_on false) a run costs what the statistics read less what they
 * add to every run, taken as an early exit's reading (the early exit itself is a compare, and
 * part of the tracepoint floor that cost_correct() removes per syscall).
 */
struct mb_cost_est {
	bool valid;
	double bpf_ns, ledger_ns, sampler_ns;
	uint64_t target_runs, exits, samples;
	double bystander_ns;  /* early exits: what other processes paid inside the programs */
	double in_ctx_ns;     /* in the target's context */
	double in_call_ns;    /* of which inside its syscalls, as the ledger times them */
	double call_ns;       /* per syscall, inside the call (sys_enter's work, sys_exit's start) */
	uint64_t calls;       /* syscalls (sys_exit target runs) */
};

void cost_estimate(const struct mb_calib *cal, const struct mb_run_delta *d, bool stats_on,
		   struct mb_cost_est *out);

/*
 * A phase's figures with muxbpf's own time in the target's context removed (an estimate):
 * on-CPU less the programs' in-context time and the tracepoint path of each syscall (calls x
 * floor_ns, outside the ledger's call intervals, so in its user time); syscalls less the part
 * of the programs inside the calls (call_ns each).  Pure.
 */
struct mb_corrected {
	bool valid;
	double oncpu_ns, sys_ns, usr_ns;
	double programs_ns; /* removed: the programs in the target's context */
	double path_ns;     /* removed: calls x floor_ns (0 when the floor was not measured) */
	double floor_ns;    /* per syscall, < 0: not measured */
	double call_ns;     /* removed from each syscall's on-CPU */
};
void cost_correct(uint64_t oncpu_ns, uint64_t sys_ns, uint64_t calls, const struct mb_cost *c,
		  struct mb_corrected *out);
/* One syscall row's on-CPU, corrected: cpu_ns less count x call_ns (at least 0). */
double cost_correct_call(const struct mb_corrected *k, uint64_t cpu_ns, uint64_t count);

/* What a phase cost the machine: BPF programs (sampler, ledger, others) and muxbpf itself. */
struct mb_cost {
	bool valid;
	bool stats;          /* run-time statistics were on: the BPF columns mean something */
	bool stats_part;     /* on in part of the window only (it overlapped the calibration) */
	uint64_t bpf_ns, bpf_runs;
	uint64_t sampler_ns, sampler_runs;
	uint64_t ledger_ns, ledger_runs; /* sys_enter/exit, sched_*, hrtimer, softirq */
	uint64_t self_cpu_ns;
	uint64_t wall_ns;
	struct mb_run_delta counts; /* the programs' own counts in the window */
	struct mb_cost_est est;     /* the cost from the counts and the calibration */
	struct mb_calib calib;
};

/* The delta between two readings (programs matched by name; counts by phase), and the
 * estimate with cal (NULL or not valid: the calibration as known at the reading to). */
void cost_delta(const struct mb_cost_reading *from, const struct mb_cost_reading *to,
		const struct mb_calib *cal, struct mb_cost *out);

/* One hash map over the run. */
struct mb_map_occ {
	char name[MB_COST_NAME];
	uint32_t id;
	uint32_t max_entries;
	int64_t elements; /* at the last check */
	int64_t peak;     /* the most seen at any check */
	bool warned;      /* the "nearly full" line was printed */
};

#define MB_MAX_WATCHED 24
/* Occupancy above this share of a map warns at once. */
#define MB_MAP_WARN_PCT 90.0

struct mb_maps_occ {
	int n;
	struct mb_map_occ v[MB_MAX_WATCHED];
	bool kernel_count;   /* counts from the kernel's element counters (else walked keys) */
	uint64_t checks;     /* periodic checks done */
	uint64_t check_ns;   /* CPU time they took, in all */
	/* what had to be dropped because a map was full, over the run */
	uint64_t samples_lost;     /* samples hash full: the sample is lost */
	uint64_t stacks_full;      /* stack map full: recorded as the leaf alone */
	uint64_t ledger_lost;      /* ledger entries */
	uint64_t exits_lost;       /* thread exits missing from the runtime accounting */
};

/* A session with phases marked from outside (attach, --control, --interval), for the report. */
struct mb_live_info {
	bool valid;
	bool attached;         /* muxbpf attach: the target was running before muxbpf */
	char how[160];         /* how the target was found: "--port 4201: pid 123" */
	char comm[16];
	double target_age_s;   /* how long the target had run when muxbpf attached */
	int sampler_threads;   /* per-thread sampler events opened at attach */
	int threads_seen;      /* distinct threads in the runtime readings */
	char control[256];     /* the control channel, "" for none */
	double interval_s;     /* --interval, 0 for none */
	double duration_s;     /* --duration, 0 for none */
	int readings;          /* boundary readings taken */
	int readings_busy;     /* of which with a target thread on a CPU (runtime up to a tick old) */
	char stop_reason[96];  /* what ended the run */
	double elapsed_s;      /* from attach to the end */
	uint64_t self_cpu_ns;  /* muxbpf's CPU over the same time */
	uint64_t rss_kb, rss_peak_kb; /* muxbpf's resident memory at the end, and its peak */
	struct mb_maps_occ occ;
	bool occ_valid;
};

#endif /* MUXBPF_COST_H */
