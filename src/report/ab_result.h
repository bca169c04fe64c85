/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * muxbpf ab A B: two netmux builds up at once, each phase's work run in blocks that alternate
 * between them (A B in even rounds, B A in odd ones), both profiled by this muxbpf with the same
 * settings.  Per phase: CPU per command of each build from the kernel's exact runtime, the B/A
 * ratio with its bootstrap interval over the paired rounds, the Wilcoxon signed-rank p-value,
 * the smallest detectable difference, a verdict; per function and per syscall the difference in
 * µs per command with its interval; a differential flame graph.
 *
 * What the session produces is plain data (struct ab_result, here): the text table, ab.json
 * (doc/ab.schema.json) and the HTML report are all written from it (output/out_ab.h); the
 * session itself is cli/ab.h's.
 */
#ifndef MUXBPF_AB_RESULT_H
#define MUXBPF_AB_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include "muxbpf.h"
#include "base/stats.h"
#include "loader/icount.h"

#define AB_SCHEMA_VERSION 1
#define AB_MAX_ROUNDS 60
#define AB_MAX_ENV 32
#define AB_DEFAULT_ROUNDS 10
/* The verdict floor of instructions: paired A/A rounds under callgrind differ by 0.1% or less
 * (bench/reports/2026-12-04-instructions.md), so 0.5% is several times the noise. */
#define AB_INSTR_MIN_EFFECT 0.005

enum { AB_A = 0, AB_B = 1 };

struct ab_opts {
	const char *netmux[2];
	const char *game[2];           /* game templates (NULL: the default) */
	const char *env[2][AB_MAX_ENV]; /* VAR=VALUE for each build's netmux */
	int nenv[2];
	unsigned int phases[MUXBPF_PHASE__COUNT]; /* in the order they run */
	int nphases;
	double scale;
	int freq;
	int rounds;
	int top;             /* rows per table in the text (default 10) */
	const char *out_dir; /* NULL: no files */
	bool quiet;
	const char *netmux_user;
	bool instructions;             /* --metric instructions: the verdict on instructions */
	enum icount_source isrc;       /* their source (ICOUNT_AUTO: probed) */
	bool one_side;                 /* the gate: only A runs (no comparison) */
	bool metric_given, scale_given; /* on the command line (the gate's defaults differ) */
};

/* One build's block in one round. */
struct ab_block {
	double cpu_ns;   /* netmux's on-CPU time in the block (exact runtime, all threads) */
	uint64_t cmds;   /* commands of the block */
	double wall_s;
	uint64_t samples; /* user samples recorded in the block */
	double instructions; /* user-mode instructions retired (--metric instructions) */
};

/* A function's difference, µs of CPU per command (user samples x period / commands), or with
 * callgrind instructions per command (ab_result.fns_instr). */
enum { AB_ONLY_NONE = 0, AB_ONLY_A, AB_ONLY_B };

struct ab_fn {
	char *name;
	int only_in; /* AB_ONLY_A/B: defined in that build's objects only (its delta is all its) */
	struct stats_delta self, total;
};

/* A syscall's difference: on-CPU µs per command (exact, the time ledger), calls per command. */
struct ab_sys {
	const char *name;
	struct stats_delta cpu, calls;
};

struct ab_phase {
	unsigned int phase;
	int rounds;
	struct ab_block a[AB_MAX_ROUNDS], b[AB_MAX_ROUNDS];
	bool b_first[AB_MAX_ROUNDS]; /* the order of the round's blocks */
	double a_us[AB_MAX_ROUNDS], b_us[AB_MAX_ROUNDS]; /* CPU per command, µs */
	double a_ins[AB_MAX_ROUNDS], b_ins[AB_MAX_ROUNDS]; /* instructions per command */
	struct stats_ab cmp;      /* the verdict's metric: a_ins, b_ins or a_us, b_us */
	struct stats_ab cmp_time; /* with --metric instructions: on a_us, b_us, beside it */
	struct ab_fn *fns;  /* sorted by |self delta|, then |total delta| */
	size_t nfns;
	struct ab_sys *sys; /* sorted by |cpu delta| */
	size_t nsys;
};

struct ab_result {
	const struct ab_opts *o;
	char version[2][256];
	int pid[2];
	struct ab_phase phases[MUXBPF_PHASE__COUNT];
	int nphases;
	double wall_s;
	double period_ns; /* one user sample */
	bool ledger;      /* per-syscall deltas available */
	enum icount_source isrc; /* --metric instructions: the source used */
	char isrc_why[256];      /* and why */
	bool fns_instr;          /* function deltas in instructions (callgrind's dumps) */
};

#endif /* MUXBPF_AB_RESULT_H */
