/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The statistics every figure's interval comes from: one module, pure (no I/O, no globals),
 * unit-tested in tests/test_stats.c.  95% two-sided intervals throughout.
 *
 * Which interval for what:
 * - a share of samples (self%, total%) from one window: stats_share(), the Wilson score
 *   interval.  It assumes independent samples, which the random sampling period (jitter.c)
 *   makes close to true; it is the floor of what a share can be known to.
 * - a share or a mean from several rounds (or batches, or runs) of the same work:
 *   stats_ratio_rounds() and stats_mean(), Student t on the between-round spread.  This holds
 *   for samples correlated within a round (lock step, bursts of identical commands), because
 *   the rounds are the independent units.
 */
#ifndef MUXBPF_STATS_H
#define MUXBPF_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* An estimate and its 95% interval [lo, hi]; n = the units it rests on (samples or rounds). */
struct stats_ci {
	double value;
	double lo, hi;
	uint64_t n;
	bool valid; /* false: too little data for an interval (lo/hi are the whole range) */
};

/* Half the width of the interval (the "±" figure). */
double stats_ci_half(const struct stats_ci *ci);
/* Is the interval wider than the value itself (the figure could be noise)? */
bool stats_ci_wide(const struct stats_ci *ci);

/* 97.5% quantile of Student's t with df degrees of freedom (df >= 1); 1.96 for large df. */
double stats_t975(uint64_t df);

/* Share k/n as a fraction with its Wilson score interval (n = 0: invalid, [0, 1]). */
void stats_share(uint64_t k, uint64_t n, struct stats_ci *out);

/*
 * The ratio sum(num) / sum(den) over r rounds, with the interval from the spread of the rounds
 * (linearized: residuals num_i - R den_i), t with r - 1 degrees of freedom.  r < 2: invalid.
 */
void stats_ratio_rounds(const double *num, const double *den, int r, struct stats_ci *out);

/* Mean of x[0..n-1] with its t interval (n < 2: invalid). */
void stats_mean(const double *x, int n, struct stats_ci *out);

#endif /* MUXBPF_STATS_H */
