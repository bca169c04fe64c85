// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A phase in rounds, the pure stages (no root): the chi-square tail and homogeneity test against
 * published and hand-computed values, the interval a share is printed with (the wider of Wilson and
 * the rounds' spread) and its coverage on simulated rounds whose share moves between rounds (where
 * Wilson alone misses the truth), the stopping rule on tables with known intervals, and the
 * homogeneity test's false alarms on independent rounds and its detection of rounds that disagree.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fold/rounds.h"
#include "base/stats.h"

#define NEAR(a, b, eps)                                                                            \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (fabs(a_ - b_) > (eps))                                                         \
			fail_msg("%s = %.6f, expected %.6f +- %g", #a, a_, b_, (double)(eps));     \
	} while (0)

static uint64_t rng = 0x2545f4914f6cdd1dull;

static double uniform(void)
{
	return (stats_rand(&rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* Binomial(n, p) by n draws. */
static uint64_t binomial(uint64_t n, double p)
{
	uint64_t k = 0;

	for (uint64_t i = 0; i < n; i++)
		k += uniform() < p;
	return k;
}

static void test_chi2_sf(void **state)
{
	(void)state;
	/* the 95% points of chi-square with 1, 2, 10 df (published tables) */
	NEAR(stats_chi2_sf(3.841459, 1), 0.05, 1e-6);
	NEAR(stats_chi2_sf(5.991465, 2), 0.05, 1e-6);
	NEAR(stats_chi2_sf(18.307038, 10), 0.05, 1e-6);
	/* 2 df: the tail is exp(-x/2) */
	NEAR(stats_chi2_sf(2, 2), exp(-1), 1e-9);
	NEAR(stats_chi2_sf(30, 2), exp(-15), 1e-12);
	/* the 99.9% point with 50 df, and the median region of 100 df */
	NEAR(stats_chi2_sf(86.661, 50), 0.001, 2e-5);
	NEAR(stats_chi2_sf(99.334, 100), 0.5, 1e-3);
	assert_true(stats_chi2_sf(0, 3) == 1);
}

static void test_chi2_homogeneity(void **state)
{
	/* by hand: N 100, rows 30 70, columns 40 60, expected 12 18 28 42 */
	const uint64_t t[] = { 10, 20, 30, 40 };
	const uint64_t same[] = { 10, 20, 30, 20, 40, 60 };
	const uint64_t empty_row[] = { 0, 0, 5, 7 };
	double chi2, p;
	int df;

	(void)state;
	assert_int_equal(stats_chi2_homogeneity(t, 2, 2, &chi2, &df, &p), 0);
	NEAR(chi2, 4.0 / 12 + 4.0 / 18 + 4.0 / 28 + 4.0 / 42, 1e-9);
	assert_int_equal(df, 1);
	NEAR(p, stats_chi2_sf(chi2, 1), 1e-12);
	/* columns in the same proportions: nothing to explain */
	assert_int_equal(stats_chi2_homogeneity(same, 2, 3, &chi2, &df, &p), 0);
	NEAR(chi2, 0, 1e-12);
	assert_int_equal(df, 2);
	NEAR(p, 1, 1e-12);
	assert_int_equal(stats_chi2_homogeneity(empty_row, 2, 2, &chi2, &df, &p), -EINVAL);
	assert_int_equal(stats_chi2_homogeneity(t, 1, 4, &chi2, &df, &p), -EINVAL);
}

/* Rounds that agree exactly: the spread between them is 0, so Wilson is the wider. */
static void test_share_ci_agreeing_rounds(void **state)
{
	const uint64_t k[] = { 20, 20, 20, 20 }, n[] = { 100, 100, 100, 100 };
	struct stats_ci ci, wilson;
	bool from;

	(void)state;
	rounds_share_ci(k, n, 4, &ci, &from);
	stats_share(80, 400, &wilson);
	assert_false(from);
	NEAR(ci.lo, wilson.lo, 1e-12);
	NEAR(ci.hi, wilson.hi, 1e-12);
	/* one round: Wilson, whatever it is */
	rounds_share_ci(k, n, 1, &ci, &from);
	assert_false(from);
	stats_share(20, 100, &wilson);
	NEAR(stats_ci_half(&ci), stats_ci_half(&wilson), 1e-12);
}

/* Rounds far apart: the rounds' interval, centred on the pooled share, t with 1 df. */
static void test_share_ci_disagreeing_rounds(void **state)
{
	const uint64_t k[] = { 10, 90 }, n[] = { 100, 100 };
	struct stats_ci ci;
	bool from;

	(void)state;
	rounds_share_ci(k, n, 2, &ci, &from);
	assert_true(from);
	NEAR(ci.value, 0.5, 1e-12);
	/* residuals -40, +40: se = sqrt(3200 / 1 / 2) / 100 = 0.4, times t(1) 12.706: [0, 1] */
	NEAR(ci.lo, 0, 1e-12);
	NEAR(ci.hi, 1, 1e-12);
	assert_true(stats_ci_wide(&ci));
}

/*
 * Coverage on correlated samples: each of 10 rounds of 400 samples has its own share, 0.2 +- 0.08
 * (uniform), as lock step or bursty work would give.  The printed interval must hold the truth ~95%
 * of the time; Wilson alone, which takes the 4000 samples as independent, must not.
 */
static void test_share_ci_coverage(void **state)
{
	int trials = 1500, cover = 0, cover_wilson = 0;

	(void)state;
	for (int t = 0; t < trials; t++) {
		uint64_t k[10], n[10], sk = 0;
		struct stats_ci ci;

		for (int r = 0; r < 10; r++) {
			n[r] = 400;
			k[r] = binomial(n[r], 0.2 + 0.16 * (uniform() - 0.5));
			sk += k[r];
		}
		rounds_share_ci(k, n, 10, &ci, NULL);
		cover += ci.lo <= 0.2 && 0.2 <= ci.hi;
		stats_share(sk, 4000, &ci);
		cover_wilson += ci.lo <= 0.2 && 0.2 <= ci.hi;
	}
	print_message("coverage on correlated rounds: printed %.1f%%, Wilson alone %.1f%%\n",
		      100.0 * cover / trials, 100.0 * cover_wilson / trials);
	/* 1500 trials: the binomial error of a 95% coverage is 0.6 points */
	assert_true(cover >= 0.93 * trials);
	assert_true(cover_wilson <= 0.85 * trials);
}

/* Cumulative tables from per-round self counts of nrows rows (total = self). */
struct tables {
	struct fold_table t[ROUNDS_MAX];
	const struct fold_table *cum[ROUNDS_MAX];
	int r;
};

static char *const row_names[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l" };

static uint64_t prev_self(const struct fold_table *prev, const char *name)
{
	for (size_t i = 0; prev && i < prev->by[FOLD_BY_FUNCTION].n; i++)
		if (!strcmp(prev->by[FOLD_BY_FUNCTION].rows[i].name, name))
			return prev->by[FOLD_BY_FUNCTION].rows[i].self;
	return 0;
}

static void tables_add_round(struct tables *ts, const uint64_t *self, int nrows)
{
	struct fold_table *t = &ts->t[ts->r];
	const struct fold_table *prev = ts->r ? &ts->t[ts->r - 1] : NULL;
	struct fold_view *v = &t->by[FOLD_BY_FUNCTION];

	memset(t, 0, sizeof(*t));
	v->rows = calloc(nrows, sizeof(*v->rows));
	assert_non_null(v->rows);
	v->n = nrows;
	t->samples = prev ? prev->samples : 0;
	for (int i = 0; i < nrows; i++) {
		v->rows[i].name = row_names[i];
		v->rows[i].self = prev_self(prev, row_names[i]) + self[i];
		v->rows[i].total = v->rows[i].self;
		t->samples += self[i];
	}
	/* the report's order: self descending */
	qsort(v->rows, v->n, sizeof(*v->rows), fold_row_cmp);
	ts->cum[ts->r] = t;
	ts->r++;
}

static void tables_free(struct tables *ts)
{
	for (int j = 0; j < ts->r; j++)
		free(ts->t[j].by[FOLD_BY_FUNCTION].rows);
	ts->r = 0;
}

/* Rounds of a multinomial over shares p[0..nrows) (summing to 1), n samples each. */
static void multinomial_round(struct tables *ts, const double *p, int nrows, uint64_t n)
{
	uint64_t self[12] = { 0 };

	for (uint64_t s = 0; s < n; s++) {
		double u = uniform(), c = 0;
		int i = 0;

		for (; i < nrows - 1; i++) {
			c += p[i];
			if (u < c)
				break;
		}
		self[i]++;
	}
	tables_add_round(ts, self, nrows);
}

static const struct round_rule rule = { .by = FOLD_BY_FUNCTION, .top = ROUNDS_TOP,
					.half = 0.01, .min_rounds = ROUNDS_MIN,
					.max_rounds = ROUNDS_MAX, .cap_s = 20 };

static void test_decide(void **state)
{
	const uint64_t big[] = { 6000, 3000, 1000 }, small[] = { 60, 30, 10 };
	const uint64_t b2[] = { 3000, 6000, 1000 };
	struct tables ts = { 0 };

	(void)state;
	/* one round of 10,000: Wilson is within +-1 point, but a spread needs two */
	tables_add_round(&ts, big, 3);
	assert_int_equal(rounds_decide(ts.cum, 1, &rule, 1.0, 1), 0);
	/* two that agree: +-0.68 points for the 60% row from 20,000 samples */
	tables_add_round(&ts, big, 3);
	assert_int_equal(rounds_decide(ts.cum, 2, &rule, 2.0, 2), ROUND_STOP_PRECISE);
	assert_true(rounds_top_half(ts.cum, 2, FOLD_BY_FUNCTION, ROUNDS_TOP) < 0.01);
	tables_free(&ts);
	/* two large rounds that disagree (60/30 then 30/60): the spread keeps it going */
	tables_add_round(&ts, big, 3);
	tables_add_round(&ts, b2, 3);
	assert_int_equal(rounds_decide(ts.cum, 2, &rule, 2.0, 2), 0);
	/* 45% pooled, +-190 points from the spread with 1 df: clipped to [0, 1] */
	NEAR(rounds_top_half(ts.cum, 2, FOLD_BY_FUNCTION, ROUNDS_TOP), 0.5, 1e-12);
	tables_free(&ts);
	/* 200 samples: far from +-1 point */
	tables_add_round(&ts, small, 3);
	tables_add_round(&ts, small, 3);
	assert_int_equal(rounds_decide(ts.cum, 2, &rule, 2.0, 2), 0);
	/* the cap: 2 rounds in 13.5 s, a third would end at 20.25 s */
	assert_int_equal(rounds_decide(ts.cum, 2, &rule, 13.5, 2), ROUND_STOP_CAP);
	assert_int_equal(rounds_decide(ts.cum, 2, &rule, 13.0, 2), 0);
	/* no batch ended at this round: only the cap applies */
	assert_int_equal(rounds_decide(NULL, 0, &rule, 19.0, 5), ROUND_STOP_CAP);
	assert_int_equal(rounds_decide(NULL, 0, &rule, 5.0, 5), 0);
	tables_free(&ts);
	/* the limit on batches */
	for (int j = 0; j < ROUNDS_MAX; j++)
		tables_add_round(&ts, small, 3);
	assert_int_equal(rounds_decide(ts.cum, ROUNDS_MAX, &rule, 10.0, ROUNDS_MAX),
			 ROUND_STOP_LIMIT);
	tables_free(&ts);
}

/*
 * The rule's view has no rows (the tables here fold by function only, as a line view of objects
 * without DWARF would be empty): the rule judges the function view instead, never the empty
 * view, whose widest interval is "none" (1), not 0 (which read as precise at once).
 */
static void test_decide_empty_view(void **state)
{
	const uint64_t big[] = { 6000, 3000, 1000 }, small[] = { 60, 30, 10 };
	const struct round_rule by_line = { .by = FOLD_BY_LINE, .top = ROUNDS_TOP, .half = 0.01,
					    .min_rounds = ROUNDS_MIN, .max_rounds = ROUNDS_MAX,
					    .cap_s = 20 };
	struct tables ts = { 0 };

	(void)state;
	/* --by command,softcode: no C++ view asked for, the function view; else the first */
	assert_int_equal(rounds_rule_view(FOLD_VIEWS_SOFTCODE), FOLD_BY_FUNCTION);
	assert_int_equal(rounds_rule_view(FOLD_VIEW_COMMAND | FOLD_VIEW(FOLD_BY_DSO) |
					  FOLD_VIEW(FOLD_BY_LINE)),
			 FOLD_BY_LINE);
	/* 200 samples a round: the empty line view must not stop it as precise */
	tables_add_round(&ts, small, 3);
	tables_add_round(&ts, small, 3);
	assert_int_equal(rounds_judged_view(ts.cum[1], FOLD_BY_LINE), FOLD_BY_FUNCTION);
	assert_int_equal(rounds_judged_view(ts.cum[1], FOLD_BY_FUNCTION), FOLD_BY_FUNCTION);
	NEAR(rounds_top_half(ts.cum, 2, FOLD_BY_LINE, ROUNDS_TOP), 1, 0);
	assert_true(rounds_top_half(ts.cum, 2, FOLD_BY_FUNCTION, ROUNDS_TOP) > 0.01);
	assert_int_equal(rounds_decide(ts.cum, 2, &by_line, 2.0, 2), 0);
	tables_free(&ts);
	/* 10,000 a round that agree: precise by the function view, as by_function decides */
	tables_add_round(&ts, big, 3);
	tables_add_round(&ts, big, 3);
	assert_int_equal(rounds_decide(ts.cum, 2, &by_line, 2.0, 2), ROUND_STOP_PRECISE);
	assert_int_equal(rounds_decide(ts.cum, 2, &rule, 2.0, 2), ROUND_STOP_PRECISE);
	tables_free(&ts);
}

/*
 * The design factor from a phase's batches: 1 when they agree (Wilson is the wider for every
 * row); far above 1 when the top rows swing between batches (60/30/10, then 30/60/10), where the
 * batches' interval must be wider than Wilson's: by hand, +-27.6 points against +-1.5 for the
 * two rows at 45%, so about 16 over the three rows.
 */
static void test_design_factor(void **state)
{
	const uint64_t r1[] = { 600, 300, 100 }, r2[] = { 300, 600, 100 };
	struct tables ts = { 0 };
	struct stats_ci ci[3], w;
	double wide = 0, wilson = 0;

	(void)state;
	tables_add_round(&ts, r1, 3);
	tables_add_round(&ts, r1, 3);
	assert_int_equal(rounds_rows_ci(ts.cum, 2, FOLD_BY_FUNCTION, false, ci, NULL), 0);
	NEAR(rounds_design_factor(&ts.t[1].by[FOLD_BY_FUNCTION], ts.t[1].samples, ci, ROUNDS_TOP),
	     1, 1e-12);
	/* no batch intervals: 1 */
	NEAR(rounds_design_factor(&ts.t[1].by[FOLD_BY_FUNCTION], ts.t[1].samples, NULL,
				  ROUNDS_TOP), 1, 1e-12);
	tables_free(&ts);
	for (int j = 0; j < 4; j++)
		tables_add_round(&ts, j % 2 ? r2 : r1, 3);
	assert_int_equal(rounds_rows_ci(ts.cum, 4, FOLD_BY_FUNCTION, false, ci, NULL), 0);
	/* residuals +-150 of 1000: se sqrt(90000 / 3 / 4) / 1000, times t(3) 3.182 */
	NEAR(stats_ci_half(&ci[0]), stats_t975(3) * sqrt(7500) / 1000, 1e-9);
	stats_share(1800, 4000, &w);
	assert_true(stats_ci_half(&ci[0]) > 10 * stats_ci_half(&w));
	for (int i = 0; i < 3; i++) {
		const struct fold_row *row = &ts.t[3].by[FOLD_BY_FUNCTION].rows[i];

		stats_share(row->self, 4000, &w);
		wide += stats_ci_half(&ci[i]) * stats_ci_half(&ci[i]);
		wilson += stats_ci_half(&w) * stats_ci_half(&w);
	}
	NEAR(rounds_design_factor(&ts.t[3].by[FOLD_BY_FUNCTION], 4000, ci, ROUNDS_TOP),
	     sqrt(wide / wilson), 1e-9);
	assert_true(rounds_design_factor(&ts.t[3].by[FOLD_BY_FUNCTION], 4000, ci, ROUNDS_TOP) > 15);
	/* the top row alone */
	stats_share(1800, 4000, &w);
	NEAR(rounds_design_factor(&ts.t[3].by[FOLD_BY_FUNCTION], 4000, ci, 1),
	     stats_ci_half(&ci[0]) / stats_ci_half(&w), 1e-9);
	tables_free(&ts);
}

/* Row counts per round come back from the cumulative tables, also for a row that appears late. */
static void test_row_counts(void **state)
{
	const uint64_t r1[] = { 5, 0 }, r2[] = { 7, 3 };
	struct tables ts = { 0 };
	uint64_t k[2], n[2];

	(void)state;
	tables_add_round(&ts, r1, 2);
	tables_add_round(&ts, r2, 2);
	rounds_row_counts(ts.cum, 2, FOLD_BY_FUNCTION, "b", false, k, n);
	assert_int_equal(k[0], 0);
	assert_int_equal(k[1], 3);
	assert_int_equal(n[0], 5);
	assert_int_equal(n[1], 10);
	rounds_row_counts(ts.cum, 2, FOLD_BY_FUNCTION, "a", true, k, n);
	assert_int_equal(k[0], 5);
	assert_int_equal(k[1], 7);
	tables_free(&ts);
}

/*
 * The homogeneity test: independent multinomial rounds raise the alarm (p < 0.001 and twice the
 * binomial variance) almost never, and its p-value is below 0.05 about 5% of the time; rounds whose
 * shares move by +-5 points (lock step drifting between rounds) raise it nearly always.
 */
static void test_homogeneity(void **state)
{
	const double p[] = { 0.3, 0.2, 0.15, 0.1, 0.1, 0.15 };
	int trials = 300, below05 = 0, alarms = 0, caught = 0;

	(void)state;
	for (int t = 0; t < trials; t++) {
		struct tables ts = { 0 };
		struct rounds_homog h;

		for (int j = 0; j < 8; j++)
			multinomial_round(&ts, p, 6, 2000);
		rounds_homogeneity(ts.cum, 8, FOLD_BY_FUNCTION, ROUNDS_TOP, &h);
		assert_true(h.valid);
		below05 += h.p < 0.05;
		alarms += h.inconsistent;
		tables_free(&ts);
		for (int j = 0; j < 8; j++) {
			double q[6];
			double d = 0.05 * (j % 2 ? 1 : -1);

			memcpy(q, p, sizeof(q));
			q[0] += d;
			q[1] -= d;
			multinomial_round(&ts, q, 6, 2000);
		}
		rounds_homogeneity(ts.cum, 8, FOLD_BY_FUNCTION, ROUNDS_TOP, &h);
		caught += h.inconsistent;
		tables_free(&ts);
	}
	print_message("homogeneity: independent rounds p < 0.05 in %.1f%%, alarms %d of %d; "
		      "disagreeing rounds caught %d of %d\n",
		      100.0 * below05 / trials, alarms, trials, caught, trials);
	assert_true(below05 >= 0.02 * trials && below05 <= 0.09 * trials);
	assert_true(alarms <= 2);
	assert_true(caught >= 0.95 * trials);
}

/* Rows with small expected counts are left out (merged into the rest); too little: invalid. */
static void test_homogeneity_small(void **state)
{
	const uint64_t r[] = { 3, 2, 1 };
	struct tables ts = { 0 };
	struct rounds_homog h;

	(void)state;
	tables_add_round(&ts, r, 3);
	tables_add_round(&ts, r, 3);
	rounds_homogeneity(ts.cum, 2, FOLD_BY_FUNCTION, ROUNDS_TOP, &h);
	assert_false(h.valid);
	tables_free(&ts);
	rounds_homogeneity(NULL, 0, FOLD_BY_FUNCTION, ROUNDS_TOP, &h);
	assert_false(h.valid);
}

/*
 * A syscall's batches from the ledger's cumulative rows: differences of marks, a row missing
 * from a mark counts 0 there; then its share of on-CPU and us/call with the t interval, against
 * values worked by hand.
 */
static void test_sys_ci_known(void **state)
{
	/* write: calls 10, 15, 15; cpu 100, 160, 140 us; wall 200, 330, 270 us; read absent at 1 */
	const struct ledger_sys_row m0[] = {
		{ .nr = 1, .count = 10, .cpu_ns = 100000, .wall_ns = 200000 },
		{ .nr = 0, .count = 5, .cpu_ns = 50000, .wall_ns = 60000 },
	};
	const struct ledger_sys_row m1[] = { { .nr = 1, .count = 25, .cpu_ns = 260000,
					       .wall_ns = 530000 } };
	const struct ledger_sys_row m2[] = {
		{ .nr = 0, .count = 8, .cpu_ns = 80000, .wall_ns = 90000 },
		{ .nr = 1, .count = 40, .cpu_ns = 400000, .wall_ns = 800000 },
	};
	const struct ledger_sys_row *cum[] = { m0, m1, m2 };
	const size_t ncum[] = { 2, 1, 2 };
	const uint64_t phase_ns[] = { 1000000, 1000000, 1000000 };
	struct rounds_sys_batch b[3];
	struct stats_ci share, us;

	(void)state;
	rounds_sys_batches(cum, ncum, phase_ns, 3, 0, b);
	NEAR(b[0].calls, 5, 0);
	NEAR(b[1].calls, 0, 0);
	NEAR(b[2].calls, 3, 0);
	NEAR(b[2].cpu_ns, 30000, 0);
	/* us/call from the two batches with calls: 90 us over 8 calls */
	rounds_sys_ci(b, 3, &share, &us);
	assert_true(us.valid);
	NEAR(us.value, 90.0 / 8, 1e-9);
	/* calls in one batch only: no spread to judge us/call by */
	b[2].calls = 0;
	rounds_sys_ci(b, 3, &share, &us);
	assert_false(us.valid);
	assert_true(share.valid);
	rounds_sys_batches(cum, ncum, phase_ns, 3, 1, b);
	NEAR(b[1].cpu_ns, 160000, 0);
	NEAR(b[2].wall_ns, 270000, 0);
	NEAR(b[2].phase_ns, 1000000, 0);
	rounds_sys_ci(b, 3, &share, &us);
	assert_true(share.valid && us.valid);
	/* share 400/3000; residuals -33.3, 26.7, 6.7 us: se = sqrt(1866.7/2/3)/1000 */
	NEAR(share.value, 400.0 / 3000, 1e-12);
	NEAR(stats_ci_half(&share), 4.303 * sqrt(1866.6667 / 6) / 1000, 1e-5);
	/* 20 us per call; residuals 0, 30, -30 us over a mean of 13.3 calls */
	NEAR(us.value, 20, 1e-9);
	NEAR(stats_ci_half(&us), 4.303 * sqrt(1800.0 / 6) / (40.0 / 3), 1e-3);
	/* 5.7% to 20.9%: wider than the 13.3% share itself, a row the report marks with ? */
	assert_true(stats_ci_wide(&share));
	assert_false(stats_ci_wide(&us));
	/* a figure that falls between marks counts as no change, not as a negative batch */
	const struct ledger_sys_row f1[] = { { .nr = 1, .count = 3, .cpu_ns = 1, .wall_ns = 1 } };
	const struct ledger_sys_row *fall[] = { m0, f1, m2 };
	const size_t nfall[] = { 2, 1, 2 };

	rounds_sys_batches(fall, nfall, phase_ns, 3, 1, b);
	NEAR(b[1].calls, 0, 0);
	NEAR(b[2].calls, 30, 0);
	/* one batch: the value, no interval */
	rounds_sys_ci(b, 1, &share, &us);
	assert_false(share.valid);
	NEAR(share.value, 0.1, 1e-12);
	/* more syscall CPU than on-CPU (stolen time inside calls): the value, no interval */
	rounds_sys_batches(cum, ncum, phase_ns, 3, 1, b);
	for (int j = 0; j < 3; j++)
		b[j].phase_ns = 100000;
	rounds_sys_ci(b, 3, &share, &us);
	assert_false(share.valid);
	NEAR(share.value, 400.0 / 300, 1e-12);
	assert_true(share.lo == share.value && share.hi == share.value);
}

/*
 * Calls in bursts: a syscall whose calls come 50 at a time, a binomial number of bursts per
 * batch.  Taking each call as independent (a Poisson count: +- 1.96 / sqrt(calls) relative)
 * gives an interval far too narrow; the batches' interval is wider and holds its 95%.
 */
static void test_sys_ci_bursts(void **state)
{
	const int sims = 1000, r = 8;
	const double truth = 250000.0 / 1250000.0; /* E[cpu] / E[phase] */
	int covered = 0, naive_covered = 0, wider = 0;

	(void)state;
	for (int s = 0; s < sims; s++) {
		struct rounds_sys_batch b[8];
		struct stats_ci share, us;
		double calls = 0, naive;

		for (int j = 0; j < r; j++) {
			double bursts = (double)binomial(20, 0.25);

			b[j].calls = 50 * bursts;
			b[j].cpu_ns = 1000 * b[j].calls;
			b[j].wall_ns = 1500 * b[j].calls;
			b[j].phase_ns = 1000000 + b[j].cpu_ns;
			calls += b[j].calls;
		}
		rounds_sys_ci(b, r, &share, &us);
		naive = calls ? share.value * 1.96 / sqrt(calls) : 1;
		covered += share.lo <= truth && truth <= share.hi;
		naive_covered += fabs(share.value - truth) <= naive;
		wider += stats_ci_half(&share) > naive;
		NEAR(us.value, 1.5, 1e-9);
	}
	print_message("bursts: batch interval covers %d/%d, the independent-calls one %d/%d, "
		      "wider in %d\n", covered, sims, naive_covered, sims, wider);
	assert_true(covered >= 0.88 * sims);
	assert_true(naive_covered < 0.6 * sims);
	assert_true(wider >= 0.95 * sims);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chi2_sf),
		cmocka_unit_test(test_chi2_homogeneity),
		cmocka_unit_test(test_share_ci_agreeing_rounds),
		cmocka_unit_test(test_share_ci_disagreeing_rounds),
		cmocka_unit_test(test_share_ci_coverage),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_decide_empty_view),
		cmocka_unit_test(test_design_factor),
		cmocka_unit_test(test_row_counts),
		cmocka_unit_test(test_homogeneity),
		cmocka_unit_test(test_homogeneity_small),
		cmocka_unit_test(test_sys_ci_known),
		cmocka_unit_test(test_sys_ci_bursts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
