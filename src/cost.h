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

#define MB_COST_PROGS 24
#define MB_COST_NAME 32

/* One BPF program's counters (bpf_prog_info run_cnt/run_time_ns, cumulative). */
struct mb_prog_cost {
	char name[MB_COST_NAME];
	uint64_t runs, run_ns;
};

/* Everything at one boundary. */
struct mb_cost_reading {
	bool valid;
	int nprogs;
	struct mb_prog_cost progs[MB_COST_PROGS];
	uint64_t self_cpu_ns; /* muxbpf's CPU, all threads (CLOCK_PROCESS_CPUTIME_ID, exact) */
	uint64_t t_ns;        /* CLOCK_MONOTONIC */
};

/* What a phase cost the machine: BPF programs (sampler, ledger, others) and muxbpf itself. */
struct mb_cost {
	bool valid;
	bool stats;          /* run-time statistics were on: the BPF columns mean something */
	uint64_t bpf_ns, bpf_runs;
	uint64_t sampler_ns, sampler_runs;
	uint64_t ledger_ns, ledger_runs; /* sys_enter/exit, sched_*, hrtimer, softirq */
	uint64_t self_cpu_ns;
	uint64_t wall_ns;
};

/* The delta between two readings (programs matched by name). */
void cost_delta(const struct mb_cost_reading *from, const struct mb_cost_reading *to,
		struct mb_cost *out);

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
