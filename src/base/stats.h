/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The statistics every figure's interval comes from: one module, pure (no I/O, no globals),
 * unit-tested in tests/test_stats.c.  95% two-sided intervals throughout.
 *
 * Comparing two builds (muxbpf ab) or two sets of runs (muxbpf diff): medians and best-of-N,
 * the Wilcoxon signed-rank test on paired rounds, Mann-Whitney for unpaired runs, percentile
 * bootstrap intervals (a seeded generator: the same input gives the same interval), the
 * smallest detectable difference and the faster/slower/same verdict built from them.
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
#include <stddef.h>
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
/* part as a percentage of whole; 0 when whole is not above 0. */
double stats_pct(double part, double whole);
/* Is the interval wider than the value itself (the figure could be noise)? */
bool stats_ci_wide(const struct stats_ci *ci);
/* A share's interval as the tables print it: "+-1.2", its half-width in points, "?" after it
 * when it is wider than the share.  Returns buf. */
const char *stats_ci_pts(char *buf, size_t size, const struct stats_ci *ci);

/* 97.5% quantile of Student's t with df degrees of freedom (df >= 1); 1.96 for large df. */
double stats_t975(uint64_t df);

/* Share k/n as a fraction with its Wilson score interval (n = 0: invalid, [0, 1]). */
void stats_share(uint64_t k, uint64_t n, struct stats_ci *out);

/*
 * The ratio sum(num) / sum(den) over r rounds, with the interval from the spread of the rounds
 * (linearized: residuals num_i - R den_i), t with r - 1 degrees of freedom.  r < 2: invalid.
 */
void stats_ratio_rounds(const double *num, const double *den, int r, struct stats_ci *out);

/* A quantity that cannot be negative (CPU time per command): the interval's lower end stops at 0
 * (two rounds give t = 12.7, and their interval often reaches below it). */
void stats_ci_nonneg(struct stats_ci *ci);

/*
 * How much wider a set of rows' intervals are than Wilson's: sqrt(sum wide_half^2 / sum
 * wilson_half^2) over the n rows (the pooled ratio of variances' square root, a design effect
 * as a width factor), at least 1; 1 for n = 0 or no Wilson width.  It carries what a phase's
 * batches say about the correlation of its samples to figures that have no batches of their own.
 */
double stats_design_factor(const double *wide_half, const double *wilson_half, int n);

/* A share's interval widened by factor (>= 1) about its value, each side scaled, kept in
 * [0, 1]; factor <= 1 leaves it as it is. */
void stats_share_widen(struct stats_ci *ci, double factor);

/*
 * A share of a total measured on a random sample of its units (each unit taken with chance p,
 * independently: Poisson sampling), the call-site table's case: the sampled units in the share
 * add up to x_s (k of them), their squares to q_s; all sampled units to x and q.  The share
 * x_s / x with the normal 95% interval of the linearized ratio estimator.  Invalid for x <= 0
 * or k = 0.
 */
void stats_share_sampled(double x_s, double q_s, uint64_t k, double x, double q, double p,
			 struct stats_ci *out);
/* The variance of that share (0 where there is none). */
double stats_share_sampled_var(double x_s, double q_s, double x, double q, double p);
/* Mean of x[0..n-1] with its t interval (n < 2: invalid). */
void stats_mean(const double *x, int n, struct stats_ci *out);

/* P(X >= x) for X chi-square with df degrees of freedom (df > 0; 1 for x <= 0). */
double stats_chi2_sf(double x, double df);

/*
 * Pearson's chi-square test of homogeneity on a rows x cols table of counts (row-major): do the
 * columns (rounds) share the same proportions over the rows?  Needs rows, cols >= 2 and every
 * row and column sum above 0.  Fills *chi2, *df and *p; 0 or -EINVAL.
 */
int stats_chi2_homogeneity(const uint64_t *table, int rows, int cols, double *chi2, int *df,
			   double *p);

/* ---- A/B comparisons ---- */

/* Median of n values (NAN for n = 0).  v is not modified. */
double stats_median(const double *v, size_t n);
/* Smallest of n values (NAN for n = 0). */
double stats_min(const double *v, size_t n);
/* The q-quantile (0..1) of n sorted values, linear between order statistics. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);

/*
 * Two-sided p-value of the Wilcoxon signed-rank test that the differences d[0..n) are
 * symmetric about 0.  Zero differences are dropped (Wilcoxon's convention), tied magnitudes get
 * their average rank.  Exact (the distribution of the rank sum by enumeration) up to 30 non-zero
 * differences without ties, the normal approximation with tie and continuity corrections
 * otherwise.  1 when no difference is non-zero.
 */
double stats_wilcoxon_p(const double *d, size_t n);

/* A small deterministic generator (splitmix64) for the bootstrap. */
uint64_t stats_rand(uint64_t *state);

/*
 * Percentile bootstrap over n pairs: iters resamples of the pair indices with replacement, the
 * statistic fn(a, b, idx, n, ctx) of each (NAN results are skipped), the (1-conf)/2 and
 * (1+conf)/2 quantiles into *lo and *hi.  0, or -EINVAL (n = 0) / -ENOMEM.
 */
typedef double (*stats_fn)(const double *a, const double *b, const size_t *idx, size_t n,
			   void *ctx);
int stats_bootstrap(const double *a, const double *b, size_t n, stats_fn fn, void *ctx,
		    int iters, double conf, uint64_t seed, double *lo, double *hi);

/* Statistics for the bootstrap: the median of b[i]/a[i], and the difference of pooled rates
 * sum(b)/sum(wb) - sum(a)/sum(wa) (ctx: struct stats_weights, the per-pair denominators). */
double stats_fn_median_ratio(const double *a, const double *b, const size_t *idx, size_t n,
			     void *ctx);
struct stats_weights {
	const double *wa, *wb;
};
double stats_fn_pooled_diff(const double *a, const double *b, const size_t *idx, size_t n,
			    void *ctx);

enum stats_verdict { STATS_SAME = 0, STATS_FASTER, STATS_SLOWER };

/*
 * The default significance level of a verdict: 0.01, not 0.05.  A run judges every phase, and
 * at 0.05 an A/A run of seven phases calls one of them different every fourth run or so; the
 * exact signed-rank test reaches 0.01 from 8 paired rounds on.
 */
#define STATS_ALPHA 0.01
/* "same", "faster", "slower". */
const char *stats_verdict_name(enum stats_verdict v);

/*
 * B against A over n paired rounds (a[i], b[i]: a cost per unit of work in round i, lower is
 * better).  A verdict other than same needs all three: the interval excludes 1, p < alpha, and
 * the ratio is at least min_effect away from 1 (a floor against differences that are real but
 * too small to matter or to reproduce, such as two processes' memory layouts).
 */
struct stats_ab_opts {
	double alpha;      /* default STATS_ALPHA */
	double conf;       /* interval coverage, default 0.95 */
	double min_effect; /* 0: default 0.03 (3%); negative: none */
	int iters;         /* bootstrap resamples, default 4000 */
	uint64_t seed;     /* default 1 */
};

struct stats_ab {
	size_t n;
	double a_median, b_median, a_best, b_best;
	double ratio;          /* median of the paired ratios b[i]/a[i] */
	double ci_low, ci_high; /* bootstrap interval of that median */
	double p;              /* Wilcoxon signed-rank on b[i] - a[i] */
	double best_ratio;     /* b_best / a_best */
	/*
	 * The smallest difference (a fraction: 0.02 = 2%) this run could have called: the larger of
	 * min_effect, the half-width of the interval, and, for a test at alpha with 80% power,
	 * (z(1-alpha/2) + z(0.8)) times the spread of the log ratios over sqrt(n) — and 1 (never)
	 * when n is too small for the exact signed-rank test to reach alpha at all.
	 */
	double mdd;
	enum stats_verdict verdict;
};

/* Fill out from n pairs (n >= 1).  0, or -EINVAL / -ENOMEM. */
int stats_ab_compare(const double *a, const double *b, size_t n, const struct stats_ab_opts *o,
		     struct stats_ab *out);

/*
 * B against A from independent samples (whole runs of separate processes, muxbpf diff of two
 * --runs reports): ratio = median(b) / median(a), the interval by resampling each side on its
 * own, p from the two-sided Mann-Whitney U test (exact for small samples without ties), mdd
 * and verdict as above (mdd 1 when the sizes cannot reach p < alpha: 3 runs against 3 never
 * can).  best_ratio = min(b) / min(a).  0, or -EINVAL / -ENOMEM.
 */
int stats_ab_compare_unpaired(const double *a, size_t na, const double *b, size_t nb,
			      const struct stats_ab_opts *o, struct stats_ab *out);
/* Two-sided Mann-Whitney U p-value of samples a and b. */
double stats_mannwhitney_p(const double *a, size_t na, const double *b, size_t nb);
/* The median of n values and its percentile bootstrap interval.  0 or -EINVAL / -ENOMEM. */
int stats_median_ci(const double *v, size_t n, const struct stats_ab_opts *o, double *median,
		    double *lo, double *hi);

/* A difference of pooled rates with its interval (function and syscall deltas). */
struct stats_delta {
	double a, b;        /* sum(a)/sum(wa), sum(b)/sum(wb) */
	double delta;       /* b - a */
	double lo, hi;      /* bootstrap interval of delta over the pairs */
};
int stats_delta_compare(const double *a, const double *b, const double *wa, const double *wb,
			size_t n, const struct stats_ab_opts *o, struct stats_delta *out);

#endif /* MUXBPF_STATS_H */
