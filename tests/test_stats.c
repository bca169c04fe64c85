// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The statistics module on numbers with known answers (no root): Student t quantiles, the
 * Wilson interval against published values, the between-round ratio interval against a hand
 * computation, and coverage: intervals from simulated binomial rounds hold the truth ~95% of
 * the time.  The random period's pure helpers (jitter.c) are checked here too.  For muxbpf ab
 * and diff: medians and quantiles, the exact and approximate Wilcoxon signed-rank p-values,
 * the bootstrap's determinism and coverage, verdicts on shifted and unshifted samples, and the
 * false-positive rate of the verdict over many simulated A/A runs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>
#include "base/jitter.h"
#include "base/stats.h"

#define NEAR(a, b, eps)                                                                            \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (fabs(a_ - b_) > (eps))                                                         \
			fail_msg("%s = %.6f, expected %.6f +- %g", #a, a_, b_, (double)(eps));     \
	} while (0)

/* The one percentage helper the writers share: 0 for an empty or negative whole. */
static void test_pct(void **state)
{
	(void)state;
	assert_true(stats_pct(1, 4) == 25.0);
	assert_true(stats_pct(8, 11) == 100.0 * 8 / 11);
	assert_true(stats_pct(-3, 12) == -25.0);
	assert_true(stats_pct(5, 0) == 0);
	assert_true(stats_pct(5, -1) == 0);
}

static void test_t975(void **state)
{
	(void)state;
	NEAR(stats_t975(1), 12.706, 1e-3);
	NEAR(stats_t975(4), 2.776, 1e-3);
	NEAR(stats_t975(30), 2.042, 1e-3);
	NEAR(stats_t975(40), 2.021, 2e-3);
	NEAR(stats_t975(120), 1.980, 2e-3);
	NEAR(stats_t975(100000), 1.960, 1e-3);
	assert_true(isinf(stats_t975(0)));
}

static void test_wilson(void **state)
{
	struct stats_ci ci;

	(void)state;
	/* Newcombe (1998), table I: 81/263 -> 0.2553 .. 0.3662 */
	stats_share(81, 263, &ci);
	assert_true(ci.valid);
	NEAR(ci.value, 81.0 / 263, 1e-9);
	NEAR(ci.lo, 0.2553, 1e-4);
	NEAR(ci.hi, 0.3662, 1e-4);
	/* 0 of 10 -> 0 .. 0.2775; 10 of 10 -> 0.7225 .. 1 */
	stats_share(0, 10, &ci);
	NEAR(ci.lo, 0, 1e-9);
	NEAR(ci.hi, 0.2775, 1e-4);
	assert_true(stats_ci_wide(&ci));
	stats_share(10, 10, &ci);
	NEAR(ci.lo, 0.7225, 1e-4);
	NEAR(ci.hi, 1, 1e-9);
	/* and exactly: the interval holds its value at both ends for every n (0 of 3 gave lo a
	 * rounding above 0, 10 of 10 hi a rounding below 1) */
	for (uint64_t n = 1; n <= 2000; n++) {
		stats_share(0, n, &ci);
		assert_true(ci.lo <= ci.value);
		stats_share(n, n, &ci);
		assert_true(ci.hi >= ci.value);
	}
	/* a 70% share of 1000 samples: +-2.8 points */
	stats_share(700, 1000, &ci);
	NEAR(stats_ci_half(&ci), 0.0284, 5e-4);
	assert_false(stats_ci_wide(&ci));
	stats_share(0, 0, &ci);
	assert_false(ci.valid);
	assert_true(stats_ci_wide(&ci));
}

static void test_ratio_rounds(void **state)
{
	/* shares 0.30, 0.25, 0.35 of 100, 200, 100 samples: R = 0.2875 */
	const double num[] = { 30, 50, 35 }, den[] = { 100, 200, 100 };
	struct stats_ci ci;
	double ss = 0, se;

	(void)state;
	stats_ratio_rounds(num, den, 3, &ci);
	assert_true(ci.valid);
	NEAR(ci.value, 115.0 / 400, 1e-12);
	for (int i = 0; i < 3; i++)
		ss += pow(num[i] - ci.value * den[i], 2);
	se = sqrt(ss / 2 / 3) / (400.0 / 3);
	NEAR(ci.hi - ci.value, 4.303 * se, 1e-9);
	NEAR(ci.value - ci.lo, 4.303 * se, 1e-9);
	stats_ratio_rounds(num, den, 1, &ci);
	assert_false(ci.valid);
	NEAR(ci.value, 0.3, 1e-12);
}

/* Two rounds of 1 and 0 per unit: t(1) = 12.706 puts the lower end at -5.85; CPU per command
 * stops at 0, the upper end stays. */
static void test_ci_nonneg(void **state)
{
	const double num[] = { 1, 0 }, den[] = { 1, 1 };
	struct stats_ci ci;

	(void)state;
	stats_ratio_rounds(num, den, 2, &ci);
	assert_true(ci.lo < 0);
	stats_ci_nonneg(&ci);
	NEAR(ci.lo, 0, 1e-12);
	NEAR(ci.hi, 0.5 + 12.706 * 0.5, 1e-3);
	assert_true(ci.valid);
	ci.lo = 0.25;
	stats_ci_nonneg(&ci);
	NEAR(ci.lo, 0.25, 1e-12);
}

static void test_mean(void **state)
{
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct stats_ci ci;

	(void)state;
	stats_mean(x, 8, &ci);
	NEAR(ci.value, 5, 1e-12);
	/* s = 2.138, se = 0.7559, t(7) = 2.365 */
	NEAR(stats_ci_half(&ci), 2.365 * sqrt(32.0 / 7 / 8), 1e-3);
	stats_mean(x, 1, &ci);
	assert_false(ci.valid);
}

/* A fixed-seed generator for the coverage check. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717ull) >> 11) / (double)(1ull << 53);
}

/* 2000 experiments of 8 rounds of 50 Bernoulli(0.2) samples: both intervals cover ~95%. */
static void test_coverage(void **state)
{
	int cover_rounds = 0, cover_wilson = 0, trials = 2000;

	(void)state;
	for (int t = 0; t < trials; t++) {
		double num[8], den[8];
		uint64_t k = 0;
		struct stats_ci ci;

		for (int r = 0; r < 8; r++) {
			num[r] = 0;
			den[r] = 50;
			for (int i = 0; i < 50; i++)
				num[r] += uniform() < 0.2;
			k += (uint64_t)num[r];
		}
		stats_ratio_rounds(num, den, 8, &ci);
		cover_rounds += ci.lo <= 0.2 && 0.2 <= ci.hi;
		stats_share(k, 400, &ci);
		cover_wilson += ci.lo <= 0.2 && 0.2 <= ci.hi;
	}
	print_message("coverage of 95%% intervals: rounds %.1f%%, Wilson %.1f%%\n",
		      100.0 * cover_rounds / trials, 100.0 * cover_wilson / trials);
	/* 2000 trials: the binomial error of a 95% coverage is 0.5 points */
	assert_true(cover_rounds >= 0.925 * trials && cover_rounds <= 0.975 * trials);
	assert_true(cover_wilson >= 0.925 * trials && cover_wilson <= 0.975 * trials);
}

/*
 * The call-site share's interval (stats_share_sampled): one case by hand, then its coverage.  A
 * population of 16000 calls, a fifth of them at one site, with CPU times of a long tail (an
 * exponential times a lognormal-ish factor), sampled 1 in 32 at random 2000 times: the 95%
 * interval of the site's share of the CPU holds the population's share in ~95% of them.
 */
static void test_share_sampled(void **state)
{
	enum { CALLS = 16000, TRIALS = 2000 };
	static double cpu[CALLS];
	double truth_s = 0, truth = 0;
	int cover = 0;
	struct stats_ci ci;

	(void)state;
	/* r = 0.3; v = 0.5 (0.49 * 500 + 0.09 * 1500) / 100^2 = 0.019 */
	stats_share_sampled(30, 500, 3, 100, 2000, 0.5, &ci);
	assert_true(ci.valid);
	assert_true(fabs(ci.value - 0.3) < 1e-12);
	assert_true(fabs(ci.lo - (0.3 - 1.959964 * sqrt(0.019))) < 1e-5);
	assert_true(fabs(ci.hi - (0.3 + 1.959964 * sqrt(0.019))) < 1e-5);
	/* nothing sampled, or no total: no interval */
	stats_share_sampled(0, 0, 0, 100, 2000, 0.5, &ci);
	assert_false(ci.valid);
	stats_share_sampled(1, 1, 1, 0, 0, 0.5, &ci);
	assert_false(ci.valid);

	for (int i = 0; i < CALLS; i++) {
		cpu[i] = -log(1 - uniform()) * (i % 5 ? 200 : 300) * exp(uniform() * 2);
		truth += cpu[i];
		truth_s += i % 5 ? 0 : cpu[i];
	}
	for (int t = 0; t < TRIALS; t++) {
		double xs = 0, qs = 0, x = 0, q = 0;
		uint64_t k = 0;

		for (int i = 0; i < CALLS; i++) {
			if (uniform() >= 1.0 / 32)
				continue;
			x += cpu[i];
			q += cpu[i] * cpu[i];
			if (i % 5 == 0) {
				xs += cpu[i];
				qs += cpu[i] * cpu[i];
				k++;
			}
		}
		stats_share_sampled(xs, qs, k, x, q, 1.0 / 32, &ci);
		cover += ci.valid && ci.lo <= truth_s / truth && truth_s / truth <= ci.hi;
	}
	print_message("site share %.3f: 95%% intervals of 1-in-32 samples cover it %.1f%%\n",
		      truth_s / truth, 100.0 * cover / TRIALS);
	/* 2000 trials: the binomial error of a 95% coverage is 0.5 points */
	assert_true(cover >= 0.925 * TRIALS && cover <= 0.975 * TRIALS);
}

/* The random period keeps the mean rate: periods average the mean less the loss per period. */
static void test_jitter_period(void **state)
{
	double sum = 0;
	int n = 10000;

	(void)state;
	for (int i = 0; i < n; i++)
		sum += (double)jitter_period_ns(1000, (i + 0.5) / n, 0, 16);
	NEAR(sum / n, 1e6, 1);
	NEAR((double)jitter_period_ns(1000, 0, 0, 16), 0.5e6, 1);
	NEAR((double)jitter_period_ns(1000, 0.999999, 0, 16), 1.5e6, 5);
	/* 160 µs lost per redraw every 16 periods: 10 µs shorter on average */
	NEAR((double)jitter_period_ns(1000, 0.5, 160000, 16), 0.99e6, 1);
	assert_int_equal(jitter_period_ns(1000000, 0, 0, 16), 10000);
}

/* ---- A/B comparisons ---- */

static void test_median(void **state)
{
	double v[] = { 5, 1, 4, 2, 3 }, w[] = { 4, 1, 3, 2 }, s[] = { 1, 2, 3, 4 };

	(void)state;
	assert_float_equal(stats_median(v, 5), 3, 1e-12);
	assert_float_equal(stats_median(w, 4), 2.5, 1e-12);
	assert_float_equal(v[0], 5, 0); /* not sorted in place */
	assert_float_equal(stats_min(v, 5), 1, 0);
	assert_true(isnan(stats_median(v, 0)));
	assert_float_equal(stats_quantile_sorted(s, 4, 0), 1, 1e-12);
	assert_float_equal(stats_quantile_sorted(s, 4, 1), 4, 1e-12);
	assert_float_equal(stats_quantile_sorted(s, 4, 0.5), 2.5, 1e-12);
	assert_float_equal(stats_quantile_sorted(s, 4, 1.0 / 3), 2, 1e-12);
}

static void test_wilcoxon(void **state)
{
	double six[] = { 1, 2, 3, 4, 5, 6 }, five[] = { 1, 2, 3, 4, -5 };
	double zeros[] = { 0, 0, 0 }, mixed[] = { 0, 1, 2, 3, 4, -5 };
	double ties[40];

	(void)state;
	/* all six positive: W+ = 21, the single most extreme of 64 sign patterns, both tails */
	assert_float_equal(stats_wilcoxon_p(six, 6), 2.0 / 64, 1e-12);
	/* W+ = 10 of 15: P(W+ >= 10) = P(W+ <= 5) = 10/32 */
	assert_float_equal(stats_wilcoxon_p(five, 5), 2 * 10.0 / 32, 1e-12);
	/* a zero difference is dropped: the same as five */
	assert_float_equal(stats_wilcoxon_p(mixed, 6), 2 * 10.0 / 32, 1e-12);
	assert_float_equal(stats_wilcoxon_p(zeros, 3), 1, 0);
	/* symmetric signs: no evidence */
	for (int i = 0; i < 40; i++)
		ties[i] = (i % 2 ? 1 : -1) * (1 + i / 2);
	assert_true(stats_wilcoxon_p(ties, 40) > 0.5);
	/* identical differences (a deterministic measure): exact with ties, 2 of 2^8 patterns */
	for (int i = 0; i < 8; i++)
		ties[i] = 7;
	assert_float_equal(stats_wilcoxon_p(ties, 8), 2.0 / 256, 1e-12);
	/* |1, 1, 2, -2|: doubled midranks 3, 3, 7, 7, W2+ = 13; P(W2+ >= 13) = 6/16 */
	ties[0] = 1, ties[1] = 1, ties[2] = 2, ties[3] = -2;
	assert_float_equal(stats_wilcoxon_p(ties, 4), 2 * 6.0 / 16, 1e-12);
	/* 40 positive tied differences: the normal approximation, far below 0.001 */
	for (int i = 0; i < 40; i++)
		ties[i] = 1 + i % 4;
	assert_true(stats_wilcoxon_p(ties, 40) < 1e-6);
}

static void test_bootstrap(void **state)
{
	double a[12], b[12], lo1, hi1, lo2, hi2, med;
	uint64_t st = 7;

	(void)state;
	for (int i = 0; i < 12; i++) {
		a[i] = 10 + (stats_rand(&st) % 100) / 100.0;
		b[i] = a[i] * 1.1 + (stats_rand(&st) % 100) / 1000.0;
	}
	assert_int_equal(stats_bootstrap(a, b, 12, stats_fn_median_ratio, NULL, 2000, 0.95, 3,
					 &lo1, &hi1), 0);
	assert_int_equal(stats_bootstrap(a, b, 12, stats_fn_median_ratio, NULL, 2000, 0.95, 3,
					 &lo2, &hi2), 0);
	assert_float_equal(lo1, lo2, 0);
	assert_float_equal(hi1, hi2, 0);
	med = stats_fn_median_ratio(a, b, NULL, 12, NULL);
	assert_true(lo1 <= med && med <= hi1);
	assert_true(lo1 > 1.09 && hi1 < 1.12);
	assert_int_equal(stats_bootstrap(a, b, 0, stats_fn_median_ratio, NULL, 10, 0.95, 3, &lo1,
					 &hi1), -22);
}

/* Lognormal-ish noise of about sd around 1: the product of uniform factors. */
static double noise(uint64_t *st, double sd)
{
	double u = 0;

	for (int k = 0; k < 12; k++)
		u += (stats_rand(st) >> 11) * (1.0 / 9007199254740992.0);
	return exp((u - 6) * sd);
}

static void test_verdicts(void **state)
{
	double a[12], b[12];
	struct stats_ab r;
	uint64_t st = 11;

	(void)state;
	for (int i = 0; i < 12; i++) {
		double drift = 1 + 0.2 * (i % 3); /* the host's state moves both builds */

		a[i] = 100 * drift * noise(&st, 0.01);
		b[i] = 100 * drift * noise(&st, 0.01) * 1.10;
	}
	assert_int_equal(stats_ab_compare(a, b, 12, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_SLOWER);
	assert_float_equal(r.ratio, 1.10, 0.02);
	assert_true(r.ci_low > 1.05 && r.ci_high < 1.15);
	assert_true(r.p < 0.001);
	assert_true(r.mdd < 0.1);
	assert_string_equal(stats_verdict_name(r.verdict), "slower");
	assert_int_equal(stats_ab_compare(b, a, 12, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_FASTER);
	/* five rounds can never reach p < 0.01 with the exact test: same, and mdd says so */
	assert_int_equal(stats_ab_compare(a, b, 5, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_SAME);
	assert_float_equal(r.mdd, 1, 0);
	/* a real 1% difference is under the 3% floor */
	for (int i = 0; i < 12; i++)
		b[i] = a[i] * 1.01;
	assert_int_equal(stats_ab_compare(a, b, 12, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_SAME);
	{
		struct stats_ab_opts o = { .min_effect = -1 };

		assert_int_equal(stats_ab_compare(a, b, 12, &o, &r), 0);
		assert_int_equal(r.verdict, STATS_SLOWER);
	}
}

/* Simulated A/A runs: the verdict is wrong at most 5% of the time, even with no floor. */
static void test_false_positives(void **state)
{
	struct stats_ab_opts o = { .min_effect = -1, .iters = 400 };
	int wrong = 0, runs = 1000;
	uint64_t st = 99;

	(void)state;
	for (int k = 0; k < runs; k++) {
		double a[12], b[12];
		struct stats_ab r;

		for (int i = 0; i < 12; i++) {
			double drift = noise(&st, 0.1);

			a[i] = 50 * drift * noise(&st, 0.03);
			b[i] = 50 * drift * noise(&st, 0.03);
		}
		o.seed = k + 1;
		assert_int_equal(stats_ab_compare(a, b, 12, &o, &r), 0);
		wrong += r.verdict != STATS_SAME;
	}
	print_message("simulated A/A: %d of %d verdicts not same\n", wrong, runs);
	assert_true(wrong <= runs * 5 / 100);
}

static void test_delta(void **state)
{
	double a[] = { 10, 12, 11, 10 }, b[] = { 20, 22, 21, 20 };
	double wa[] = { 10, 10, 10, 10 }, wb[] = { 10, 10, 10, 10 };
	struct stats_delta d;

	(void)state;
	assert_int_equal(stats_delta_compare(a, b, wa, wb, 4, NULL, &d), 0);
	assert_float_equal(d.a, 43.0 / 40, 1e-12);
	assert_float_equal(d.b, 83.0 / 40, 1e-12);
	assert_float_equal(d.delta, 1, 1e-12);
	assert_true(d.lo <= 1 && d.hi >= 1 && d.lo > 0.9 && d.hi < 1.1);
}

static void test_unpaired(void **state)
{
	double a[] = { 10, 11, 12 }, b[] = { 13, 14, 15 }, c[8], d[8], m, lo, hi;
	struct stats_ab r;

	(void)state;
	/* complete separation of 3 and 3: the most extreme of C(6,3) = 20 arrangements */
	assert_float_equal(stats_mannwhitney_p(a, 3, b, 3), 2.0 / 20, 1e-12);
	assert_float_equal(stats_mannwhitney_p(b, 3, a, 3), 2.0 / 20, 1e-12);
	assert_int_equal(stats_ab_compare_unpaired(a, 3, b, 3, NULL, &r), 0);
	assert_float_equal(r.ratio, 14.0 / 11, 1e-12);
	assert_int_equal(r.verdict, STATS_SAME); /* 3 runs against 3 cannot reach p < 0.01 */
	assert_float_equal(r.mdd, 1, 0);
	for (int i = 0; i < 8; i++) {
		c[i] = 100 + i;
		d[i] = 120 + i;
	}
	assert_int_equal(stats_ab_compare_unpaired(c, 8, d, 8, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_SLOWER);
	assert_true(r.p < 0.001 && r.ci_low > 1.1 && r.ci_high < 1.3 && r.mdd < 0.2);
	assert_int_equal(stats_median_ci(c, 8, NULL, &m, &lo, &hi), 0);
	assert_float_equal(m, 103.5, 1e-12);
	assert_true(lo >= 100 && lo <= m && hi >= m && hi <= 107);
}

/* The design factor on known half-widths, and a Wilson interval widened by it. */
static void test_design_factor(void **state)
{
	const double wide[] = { 0.02, 0.03 }, wilson[] = { 0.01, 0.01 }, narrow[] = { 0.005, 0.01 };
	struct stats_ci ci, w;

	(void)state;
	/* sqrt((4 + 9) / (1 + 1)) */
	NEAR(stats_design_factor(wide, wilson, 2), sqrt(6.5), 1e-12);
	/* no wider than Wilson, no rows, no Wilson width: 1 */
	NEAR(stats_design_factor(narrow, wilson, 2), 1, 1e-12);
	NEAR(stats_design_factor(wilson, wilson, 2), 1, 1e-12);
	NEAR(stats_design_factor(wide, wilson, 0), 1, 1e-12);
	NEAR(stats_design_factor(wide, (const double[]){ 0, 0 }, 2), 1, 1e-12);
	/* 20 of 100 (Wilson 0.1334 .. 0.2888) widened twice: each side doubled */
	stats_share(20, 100, &w);
	ci = w;
	stats_share_widen(&ci, 2);
	NEAR(ci.value, 0.2, 1e-12);
	NEAR(ci.lo, 0.2 - 2 * (0.2 - w.lo), 1e-12);
	NEAR(ci.hi, 0.2 + 2 * (w.hi - 0.2), 1e-12);
	NEAR(stats_ci_half(&ci), 2 * stats_ci_half(&w), 1e-12);
	/* kept in [0, 1]; a factor of 1 or less changes nothing */
	stats_share(1, 100, &ci);
	stats_share_widen(&ci, 5);
	NEAR(ci.lo, 0, 1e-12);
	assert_true(stats_ci_wide(&ci));
	stats_share(99, 100, &ci);
	stats_share_widen(&ci, 5);
	NEAR(ci.hi, 1, 1e-12);
	ci = w;
	stats_share_widen(&ci, 0.5);
	NEAR(ci.lo, w.lo, 1e-12);
	NEAR(ci.hi, w.hi, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pct), cmocka_unit_test(test_t975),	      cmocka_unit_test(test_wilson),
		cmocka_unit_test(test_design_factor),
		cmocka_unit_test(test_ratio_rounds),
		cmocka_unit_test(test_ci_nonneg), cmocka_unit_test(test_mean),
		cmocka_unit_test(test_coverage),      cmocka_unit_test(test_jitter_period),
		cmocka_unit_test(test_share_sampled),
		cmocka_unit_test(test_median),	      cmocka_unit_test(test_wilcoxon),
		cmocka_unit_test(test_bootstrap),     cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_false_positives), cmocka_unit_test(test_delta),
		cmocka_unit_test(test_unpaired),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
