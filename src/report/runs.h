/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --runs N: N whole runs merged into one report.  The phase table shows each column's median
 * over the runs; function tables and ledgers sum every run; per phase the min / median / max
 * and spread (max - min) / median of server CPU and wall time say how noisy the numbers are.
 */
#ifndef MUXBPF_RUNS_H
#define MUXBPF_RUNS_H

#include <stdio.h>
#include "report/report.h"

#define RUNS_MAX 100

struct run_stat {
	double min, median, max;
	double spread; /* (max - min) / median, 0 when the median is 0 */
};

struct runs_phase {
	unsigned int id;
	int n; /* runs that measured the phase */
	double oncpu_ns[RUNS_MAX], wall_s[RUNS_MAX], usr_ns[RUNS_MAX], sys_ns[RUNS_MAX];
	double commands[RUNS_MAX], rate[RUNS_MAX];
	struct run_stat oncpu, wall, usr, sys, cmd_rate;
};

struct runs_summary {
	int nruns;
	int nphases;
	struct runs_phase phases[MUXBPF_MAX_PHASES]; /* in report order */
};

/* Statistics of n values (the array is reordered). */
struct run_stat run_stat_of(double *v, int n);
/*
 * Merge n reports (same phases, same order) into out, which owns everything it points to
 * except the strings of the header (taken from in[n - 1]).  rs gets the per-run numbers.
 * 0 or -ENOMEM / -EINVAL (the runs measured different phases).
 */
int runs_merge(struct report *out, const struct report *in, int n, struct runs_summary *rs);
/* The spread table printed after the report. */
void runs_print(FILE *f, const struct runs_summary *rs);
/* The summary row of a phase id, or NULL. */
const struct runs_phase *runs_phase_of(const struct runs_summary *rs, unsigned int id);

#endif /* MUXBPF_RUNS_H */
