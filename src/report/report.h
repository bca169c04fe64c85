/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The assembled report, plain data for every writer (out_text.c, out_json.c, ...): its rows,
 * the figures computed once from them (report_figures) and the checks on it (report.c). */
#ifndef MUXBPF_REPORT_H
#define MUXBPF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "model/cost.h"
#include "fold/fold.h"
#include "model/ledger.h"
#include "muxbpf.h"
#include "fold/rounds.h"
#include "base/stats.h"
#include "report/softcode_rows.h"
#include "loader/syscall_hook.h"

struct sc_rows;
struct sprof;

/* One batch of rounds of a phase whose work repeats (src/rounds.h): the statistics' unit. */
struct report_round {
	unsigned int rounds; /* rounds in the batch */
	double wall_s;	   /* from the window's start or the previous batch's end */
	uint64_t commands; /* commands answered in the batch */
	uint64_t oncpu_ns; /* netmux's exact on-CPU time in the batch */
	uint64_t samples;  /* netmux's user samples in the batch */
};

/* How a syscall row's share of on-CPU and us/call are known (report_sys_ci). */
enum report_sys_from {
	REPORT_SYS_NONE = 0, /* a merged report of one run, or no ledger */
	REPORT_SYS_ONCE,     /* one window without batches: exact for it, with no interval */
	REPORT_SYS_BATCHES,  /* the t interval from the spread between the phase's batches */
};

/* A syscall row's share of the phase's on-CPU (fraction) and wall us per call. */
struct report_sys_ci {
	struct stats_ci share, us_per_call;
};

/* A syscall row's on-CPU less muxbpf's part in each call (cost_correct_call), and per call. */
struct report_sys_corrected {
	double cpu_ns, us_per_call;
};

/* How a phase ran in rounds, and the intervals the rounds give. */
struct report_rounds {
	unsigned int n; /* rounds answered in full (1 for a phase whose work does not repeat) */
	int stop;	/* enum round_stop */
	unsigned int batches; /* batches of rounds (ROUNDS_BATCH_S); 0 with fewer than 2 */
	bool runs;	      /* --runs: the batches are the runs (n: their rounds summed) */
	bool repeats;	      /* the phase's work repeats (driver_phase_repeats): rounds possible */
	struct report_round *v; /* per batch when there are 2 or more (else NULL) */
	/* per row of fold.by[b] ([0] self, [1] total): the interval printed, the wider of the
	 * Wilson and the between-round one; NULL when n < 2 (Wilson alone) */
	struct stats_ci *ci[FOLD_BY__COUNT][2];
	bool *from_rounds[FOLD_BY__COUNT][2]; /* the rounds' interval was the wider */
	double top_half;	     /* the widest top-row self interval (fraction; judged_by's) */
	enum fold_by judged_by;	     /* the view judged: the rule's, by function when it has no
				      * rows (rounds_judged_view) */
	bool stop_judged;	     /* the stopping rule judged a batch's top rows */
	double stop_half;	     /* top_half as the rule last judged it, at the last mark */
	struct stats_ci cpu_per_cmd; /* ns of on-CPU per command, t interval over the rounds */
	/* the batches' intervals over Wilson's for the top rows (rounds_design_factor): what the
	 * figures without batches of their own widen Wilson by; 0 without batches */
	double design;
	/* --by command: the phase's command rows at each batch's end (cumulative, sc_command_rows;
	 * the last the report's own), nsc of them; NULL without every batch's softcode counts */
	struct sc_rows *sc_cum;
	int nsc;
	struct rounds_homog homog;   /* do the rounds agree (chi-square)? */
	struct report_sys_ci *sys;   /* per row of ledger.sys, from the batches (else NULL) */
	bool sys_once;		     /* a window the driver ran without batches: one window */
};

/*
 * A softcode row's figures and intervals, as the text report and report.json print them.
 * Command rows: us_per_cmd, exact mode's cpu_ns per command started in us (0 without runs);
 * est_ms and est_half_ms, the phase's on-CPU times the share and times its interval's half
 * (the default mode's estimate, in ms).  share: of the
 * phase's command-thread samples; the batches' where the phase's command rows have them
 * (sc_row_batches_ci: the row's own spread), else Wilson widened by the phase's design factor.
 * us (command rows): ns per command, the t interval over the batches where the row ran in them,
 * else the samples' interval of the exact figure (sc_cpu_per_cmd_ci); invalid without runs.
 */
struct report_sc_ci {
	struct stats_ci share, us;
	bool share_batches; /* the batches widened the share's (design factor or their spread) */
	bool us_batches;    /* us: the t interval over the batches, not the samples' */
	double us_per_cmd, est_ms, est_half_ms;
};

struct flame;

struct report_phase {
	unsigned int id;
	bool measured;         /* a window the driver ran (false for "outside") */
	bool ok;
	char error[256];
	double wall_s;
	uint64_t t_begin_ns, t_end_ns; /* CLOCK_MONOTONIC of the boundary readings (0: none) */
	uint64_t commands;
	uint64_t oncpu_ns;     /* from task->se.sum_exec_runtime (BPF) */
	uint64_t schedstat_ns; /* /proc/PID/task/ * /schedstat over the same window, as a check */
	uint64_t usr_ns;       /* /proc/PID/stat utime delta (tick-granular) */
	uint64_t sys_ns;       /* /proc/PID/stat stime delta (tick-granular) */
	struct muxbpf_phase_stats stats;
	uint64_t other_pid_samples; /* samples in child processes (stubslave, slave) */
	struct fold_table fold;
	bool partial;          /* cut short by a signal: the numbers cover the part that ran */
	bool has_ledger;
	struct phase_ledger ledger;
	char **site_labels;    /* ledger.sites[i]'s user call site, "a <- b <- c" (may be NULL) */
	uint64_t proc_usr_ns, proc_sys_ns; /* /proc ticks, kept for the cross-check */
	struct mb_cost cost;   /* the profiler's own cost in the window (BPF, muxbpf's CPU) */
	struct report_rounds rounds;
	/* --by command and softcode: the phase's rows by command label and by softcode path,
	 * computed once for every writer (report_figures); empty when the views are off */
	struct sc_rows sc_commands, sc_paths;
	/* their figures and intervals, one per row of sc_commands and sc_paths (NULL without
	 * rows); the probe cost the command rows' exact times leave out (their probe_ns summed) */
	struct report_sc_ci *sc_command_ci, *sc_path_ci;
	uint64_t sc_probe_ns;
	/* The intervals every writer prints, computed once from the rows above (report_figures):
	 * per row of fold.by[b], self [0] and total [1] (report_share_ci); per row of ledger.sys
	 * (report_sys_ci, all known as sys_from); per row of ledger.sites (report_site_ci). */
	struct stats_ci *share_ci[FOLD_BY__COUNT][2];
	struct report_sys_ci *sys_ci;
	enum report_sys_from sys_from;
	struct stats_ci *site_ci;
	/* the rows of ledger.sites by site_ci's share, largest first (ties in the table's order;
	 * the split can order sites other than their walked calls' CPU does), NULL without sites;
	 * the walked calls summed over the sites and the walks' own us each (0 without walks) */
	size_t *site_order;
	uint64_t site_walks;
	double site_walk_us;
	/* The phase's figures less muxbpf's own time in netmux's context (cost_correct(), from
	 * the ledger's on-CPU, syscall CPU and calls), an estimate computed once (report_figures):
	 * valid only with the ledger and a calibrated cost; sys_corrected per row of ledger.sys
	 * (NULL unless corrected.valid). */
	struct mb_corrected corrected;
	struct report_sys_corrected *sys_corrected;
	/* computed once (report_figures): commands per second of wall (0 without wall); on-CPU
	 * against schedstat in percent, signed (0 without schedstat); the stack walks' mean
	 * frames (0 without walks) */
	double cmd_per_s, check_pct, frames_per_walk;
	/* the profiler's cost line (report_figures): the BPF ns shown (the run-time statistics'
	 * when they were on, else the estimate), the estimate against the statistics in percent
	 * (0 without statistics' time) and the bystanders' ns per early exit (0 without exits) */
	double cost_bpf_ns, cost_est_vs_stats_pct, bystander_ns_each;
	/* report_figures: the batch design factor (report_design_factor), the samples dropped
	 * (report_dropped) and those recorded whole (taken less dropped), and the ledger's
	 * off-CPU time (in syscalls and after preemption in user mode) */
	double design_factor;
	uint64_t dropped, recorded_whole, off_cpu_ns;
	/* the flame graph of the phase's stacks (the report's stacks), its figures with
	 * design_factor: report_flames() (flame.h), for PHASE.svg and the page alike; NULL
	 * before it, and for a phase without stacks */
	struct flame *flame;
};

struct sc_data;

/* One problem (error: report_check counts it) or warning of a report, as one line. */
struct report_issue {
	bool error;
	char *msg;
};

struct report {
	const char *target;  /* netmux path */
	const char *version; /* @version reply */
	int pid, port;
	double scale;
	int freq;
	int top;             /* rows per phase table */
	double max_phase_seconds; /* --max-phase-seconds (0: one round) */
	enum fold_by rule_by; /* the view whose top rows the rounds' precision rule reads */
	bool profiled;       /* false with --no-profile */
	bool ledger;         /* the syscall/scheduler ledger was on */
	const struct syscall_hook_info *hook; /* the ledger's syscall hook, or NULL */
	unsigned int site_every; /* call sites taken for 1 syscall in N, at random */
	double max_drop_pct; /* --max-drop-pct: a phase dropping more is an error; < 0: warn only */
	const char *stopped; /* why the run stopped early (interrupted, netmux died), or NULL */
	uint64_t exits_lost; /* thread exits missing from the runtime accounting */
	/* the random period's redraws the kernel took and refused (errno of the last refusal) */
	uint64_t period_redraws, period_failed;
	int period_err;
	unsigned int by;     /* FOLD_VIEW() mask: the tables printed per phase (--by) */
	unsigned int folded; /* the views folded: --by, and with --out all (report.html shows them) */
	double min_pct;      /* rows below this self% are not listed (--min-pct) */
	const char *const *debug_dirs; /* --debug-dir, searched before /usr/lib/debug */
	int ndebug_dirs;
	struct fold_table symbols; /* leaf DSOs over every phase: names and lines, and why not */
	struct symbolizer *sym; /* owns the strings the fold tables point to (dso, info) */
	const struct mb_unwind_summary *unwind; /* stack walking mode and CFI tables, or NULL */
	const struct mb_live_info *live; /* attach / phases marked from outside, or NULL */
	/* the symbolized stacks of every phase (and, with --runs, of every run) that the
	 * artifacts draw: folded, SVG, pprof, speedscope, the page.  NULL without --out or with
	 * --no-profile.  Not owned: the caller's sprof outlives the report */
	const struct sprof *stacks;
	/* --by command, softcode (softcode_data.h), or NULL: build_report's points to sc_own */
	const struct sc_data *softcode;
	/* the run's softcode data with the report's own counts, after the default mode's stack
	 * rule (softcode_stacks.h); its other arrays are the run's.  Freed by report_free() (NULL
	 * in a merged report: it reads the last run's) */
	struct sc_data *sc_own;
	/* the softcode probes' cost over the run (report_figures): the u() probes' hits x hit_ns
	 * and the exact mode's command probes, a pair per command, x ends.pair_ns; meaningful
	 * where hit_ns and pair_ns were measured (>= 0) */
	double sc_ufun_probes_ns, sc_cmd_probes_ns;
	struct report_phase phases[MUXBPF_MAX_PHASES];
	int nphases;         /* measured phases in run order, then "outside" */
	double check_max_diff_pct; /* report_max_check_diff, computed once (report_figures) */
	/* the sampler's ns per sample from the BPF run-time statistics (0 without runs) */
	double sampler_ns_per_sample;
	/* live: the map occupancy checks' us each (0 without checks or a live session) */
	double live_check_us;
	/* report_issues' lines, computed once (report_figures): report.json's "warnings" */
	struct report_issue *issues;
	int nissues;
};

/*
 * The 95% interval a share of a phase's table is printed with: row i of view by, self or
 * total.  The rounds' interval where the phase has one (report_rounds.ci), else Wilson.
 */
void report_share_ci(const struct report_phase *p, enum fold_by by, size_t i, bool total,
		     struct stats_ci *out);

/*
 * Row i of a phase's syscalls: its share of the phase's on-CPU and its us per call, with their
 * intervals where the phase has batches (else invalid, lo = hi = the value), and how they are
 * known.
 */
enum report_sys_from report_sys_ci(const struct report_phase *p, size_t i,
				   struct report_sys_ci *out);

/*
 * Row i of a phase's call sites: its share of the phase's syscall CPU, its syscall's exact
 * share split among the syscall's sites by their walked calls, with the interval of that random
 * sample of 1 call in site_every (stats_share_sampled()); invalid without walks.
 */
void report_site_ci(const struct report *r, const struct report_phase *p, size_t i,
		    struct stats_ci *out);

/* The phase's batch design factor (report_rounds.design), 1 without batches. */
double report_design_factor(const struct report_phase *p);

/*
 * The lock-step warning of phase p (its rounds disagree far beyond their binomial intervals,
 * rounds_homogeneity) into buf, for the text report and the warnings alike; false (buf empty)
 * when its rounds agree.
 */
bool report_lockstep_text(const struct report_phase *p, char *buf, size_t size);
/*
 * The 95% interval of a share k/n of the phase's samples outside its fold tables (a flame
 * graph's frame, a --by command row): Wilson widened by the phase's design factor.  Returns
 * whether the batches widened it.
 */
bool report_sampled_ci(const struct report_phase *p, uint64_t k, uint64_t n,
		       struct stats_ci *out);

/* Samples expected from a phase's user time below which zero samples are plausible. */
#define REPORT_BUSY_MIN_SAMPLES 20
/* Dropped samples (lost, or recorded without their stack) above this share of a phase warn. */
#define REPORT_DROP_WARN_PCT 1.0

/* A phase's samples dropped by any reason (enum muxbpf_drop), and as a share of those taken. */
uint64_t report_dropped(const struct muxbpf_phase_stats *st);
double report_drop_pct(const struct muxbpf_phase_stats *st);

/* The largest |on-CPU - schedstat| over the measured phases, in percent. */
double report_max_check_diff(const struct report *r);
/*
 * The figures every writer prints, computed once from the report's rows and rounds, so that
 * the writers only format: each phase's softcode rows (sc_commands, sc_paths, when the views
 * ran) with their figures and intervals, its rows' share intervals, its syscalls' and call
 * sites' (and the sites' order), its figures corrected for muxbpf's cost, its rates and cost
 * line; the run's softcode probe cost and sampler cost; the on-CPU check and the issues
 * (report_issues).  build_report and runs_merge end with it; a report filled by hand calls it
 * before it is written.  0 or -ENOMEM (report_free() frees what it made either way).
 */
int report_figures(struct report *r);
/* Free what report_figures() made (report_free() does it; for a report filled by hand). */
void report_figures_free(struct report *r);
/* Print one loud error line per problem (a failed phase, a busy phase with no samples).
 * Returns the number of problems. */
int report_check(const struct report *r);
/* The same problems and warnings, each as one line through fn (error: a problem report_check
 * counts); report.json's "warnings" and report.html list them.  Returns the problems. */
typedef void (*report_issue_fn)(void *ctx, bool error, const char *msg);
int report_issues(const struct report *r, report_issue_fn fn, void *ctx);

#endif /* MUXBPF_REPORT_H */
