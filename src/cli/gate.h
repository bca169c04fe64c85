/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * muxbpf gate: a build's per-phase figures saved as a baseline file (JSON, doc/gate.schema.json,
 * meant to be committed beside a game server's source) and a check that runs the same phases on
 * a build and compares: exit 0 within every phase's threshold, 1 beyond one (with the phases
 * and the functions that moved), 2 on error.
 *
 * The measuring is muxbpf ab's session with one side (ab.h: one_side): fresh games per round,
 * the phases' blocks, the metric (instructions by default: nearly noise-free even on a shared
 * machine) with CPU time beside it.  The comparison is pure (gate_compare) and unit-tested.
 */
#ifndef MUXBPF_GATE_H
#define MUXBPF_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "muxbpf.h"

#define GATE_SCHEMA_VERSION 1
#define GATE_MAX_FNS 200 /* functions kept per phase in the file */
/* Default thresholds: the larger of this floor and 3x the baseline rounds' relative range.
 * Instructions under callgrind: fresh processes' rounds range over 0.4% (A/A, bench/reports/
 * 2026-12-04-instructions.md); CPU time: 46-91% between blocks on a shared machine. */
#define GATE_FLOOR_INSTRUCTIONS 0.01
#define GATE_FLOOR_TIME 0.10

struct gate_fn {
	char *name;
	double self, total; /* per command, in the metric's function unit */
};

struct gate_phase {
	char name[32];
	unsigned long long commands; /* per block */
	double per_cmd;              /* the metric per command: median over the rounds */
	double rounds[64];
	int nrounds;
	double noise;     /* (max - min) / median over the rounds */
	double threshold; /* relative: 0.01 = 1% */
	double cpu_us;    /* CPU per command beside it (median) */
	struct gate_fn *fns; /* by self, largest first */
	size_t nfns;
};

struct gate_baseline {
	char metric[16];  /* "instructions" or "time" */
	char source[16];  /* instructions: "pmu" or "callgrind"; time: "runtime" */
	char fn_unit[16]; /* "instructions" or "us" */
	char netmux[512];
	char version[256];
	char created[32];
	double scale;
	int rounds;
	struct gate_phase phases[MUXBPF_PHASE__COUNT];
	int nphases;
};

/* One phase's outcome of a check. */
struct gate_moved_fn {
	const char *name;
	double base_self, new_self, base_total, new_total;
};

struct gate_result {
	const char *phase;
	double base, now, change, threshold; /* change: now / base - 1 */
	bool moved;
	struct gate_moved_fn fns[16]; /* the largest self changes (callers whose own cost did not move left out) */
	int nfns;
};

/* The default threshold of rounds[0..n) (the floor of the metric, or 3x their range). */
double gate_default_threshold(const double *rounds, int n, bool instructions, double *noise);
/* Compare one phase: fills out (fns borrow the names of base and now).  Pure. */
void gate_compare(const struct gate_phase *base, const struct gate_phase *now,
		  struct gate_result *out);

int gate_write(FILE *f, const struct gate_baseline *b);
/* Read a baseline file.  0, or -errno / -EINVAL (one error line printed). */
int gate_read(const char *path, struct gate_baseline *b);
void gate_baseline_free(struct gate_baseline *b);

/* The subcommand: argv[0] is "gate". */
int gate_main(int argc, char **argv);

#endif /* MUXBPF_GATE_H */
