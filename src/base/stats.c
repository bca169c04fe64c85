// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Intervals for shares and means (see stats.h for which one applies where). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/stats.h"

#define Z975 1.959963984540054

double stats_pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

double stats_ci_half(const struct stats_ci *ci)
{
	return (ci->hi - ci->lo) / 2;
}

bool stats_ci_wide(const struct stats_ci *ci)
{
	return !ci->valid || ci->hi - ci->lo > fabs(ci->value);
}

const char *stats_ci_pts(char *buf, size_t size, const struct stats_ci *ci)
{
	snprintf(buf, size, "+-%.1f%s", 100 * stats_ci_half(ci), stats_ci_wide(ci) ? "?" : "");
	return buf;
}

double stats_t975(uint64_t df)
{
	/* df 1..30, then the Cornish-Fisher expansion (error < 1e-4 from df 30 on) */
	static const double t[] = {
		0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
		2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};
	double z = Z975, d = (double)df;

	if (df < 1)
		return INFINITY;
	if (df < sizeof(t) / sizeof(t[0]))
		return t[df];
	return z + (z * z * z + z) / (4 * d) +
	       (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

void stats_share(uint64_t k, uint64_t n, struct stats_ci *out)
{
	double p, z2 = Z975 * Z975, den, mid, half;

	*out = (struct stats_ci){ .n = n, .lo = 0, .hi = 1 };
	if (!n || k > n)
		return;
	p = (double)k / n;
	den = 1 + z2 / n;
	mid = (p + z2 / (2.0 * n)) / den;
	half = Z975 * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / den;
	out->value = p;
	/* Wilson's interval holds p, but at k = 0 or n mid -/+ half lands a rounding past it (lo
	 * above 0 for n = 3, hi below 1 for n = 10): the interval keeps its value */
	out->lo = mid - half < 0 ? 0 : fmin(mid - half, p);
	out->hi = mid + half > 1 ? 1 : fmax(mid + half, p);
	out->valid = true;
}

/*
 * With y_i = x_i for the share's units and 0 for the others, r = x_s / x, the estimator's
 * variance is (1 - p) sum (y_i - r x_i)^2 / x^2 over the sampled units (each weighed 1/p; the
 * weights cancel in the ratio), and sum (y_i - r x_i)^2 = (1 - r)^2 q_s + r^2 (q - q_s).
 */
double stats_share_sampled_var(double x_s, double q_s, double x, double q, double p)
{
	double r;

	if (x <= 0 || x_s < 0 || x_s > x || p <= 0 || p > 1)
		return 0;
	r = x_s / x;
	return fmax((1 - p) * ((1 - r) * (1 - r) * q_s + r * r * fmax(q - q_s, 0)) / (x * x), 0);
}

void stats_share_sampled(double x_s, double q_s, uint64_t k, double x, double q, double p,
			 struct stats_ci *out)
{
	double r, half;

	*out = (struct stats_ci){ .n = k, .lo = 0, .hi = 1 };
	if (x <= 0 || !k || x_s < 0 || x_s > x || p <= 0 || p > 1)
		return;
	r = x_s / x;
	half = Z975 * sqrt(stats_share_sampled_var(x_s, q_s, x, q, p));
	out->value = r;
	out->lo = fmax(r - half, 0);
	out->hi = fmin(r + half, 1);
	out->valid = true;
}

void stats_ratio_rounds(const double *num, const double *den, int r, struct stats_ci *out)
{
	double sn = 0, sd = 0, ss = 0, ratio, dbar, se;

	*out = (struct stats_ci){ .n = r > 0 ? (uint64_t)r : 0 };
	for (int i = 0; i < r; i++) {
		sn += num[i];
		sd += den[i];
	}
	if (sd <= 0)
		return;
	ratio = sn / sd;
	out->value = out->lo = out->hi = ratio;
	if (r < 2)
		return;
	for (int i = 0; i < r; i++) {
		double e = num[i] - ratio * den[i];

		ss += e * e;
	}
	dbar = sd / r;
	se = sqrt(ss / (r - 1) / r) / dbar;
	out->lo = ratio - stats_t975(r - 1) * se;
	out->hi = ratio + stats_t975(r - 1) * se;
	out->valid = true;
}

void stats_ci_nonneg(struct stats_ci *ci)
{
	if (ci->lo < 0)
		ci->lo = 0;
}

double stats_design_factor(const double *wide_half, const double *wilson_half, int n)
{
	double wide = 0, wilson = 0;

	for (int i = 0; i < n; i++) {
		wide += wide_half[i] * wide_half[i];
		wilson += wilson_half[i] * wilson_half[i];
	}
	return wilson > 0 && wide > wilson ? sqrt(wide / wilson) : 1;
}

void stats_share_widen(struct stats_ci *ci, double factor)
{
	double lo, hi;

	if (factor <= 1 || !ci->valid)
		return;
	lo = ci->value - (ci->value - ci->lo) * factor;
	hi = ci->value + (ci->hi - ci->value) * factor;
	ci->lo = lo < 0 ? 0 : lo;
	ci->hi = hi > 1 ? 1 : hi;
}

void stats_mean(const double *x, int n, struct stats_ci *out)
{
	double s = 0, ss = 0, mean, se;

	*out = (struct stats_ci){ .n = n > 0 ? (uint64_t)n : 0 };
	if (n < 1)
		return;
	for (int i = 0; i < n; i++)
		s += x[i];
	mean = s / n;
	out->value = out->lo = out->hi = mean;
	if (n < 2)
		return;
	for (int i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	se = sqrt(ss / (n - 1) / n);
	out->lo = mean - stats_t975(n - 1) * se;
	out->hi = mean + stats_t975(n - 1) * se;
	out->valid = true;
}

/* The regularized upper incomplete gamma function Q(a, x): the series for x < a + 1, Lentz's
 * continued fraction otherwise (Numerical Recipes 6.2). */
static double gamma_q(double a, double x)
{
	double gln = lgamma(a), sum, del, ap, b, c, d, h;

	if (x <= 0)
		return 1;
	if (x < a + 1) {
		ap = a;
		sum = del = 1 / a;
		for (int i = 0; i < 1000 && fabs(del) > fabs(sum) * 1e-15; i++) {
			ap += 1;
			del *= x / ap;
			sum += del;
		}
		return 1 - sum * exp(-x + a * log(x) - gln);
	}
	b = x + 1 - a;
	c = 1 / 1e-300;
	d = 1 / b;
	h = d;
	for (int i = 1; i < 1000; i++) {
		double an = -i * (i - a), e;

		b += 2;
		d = an * d + b;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		c = b + an / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		d = 1 / d;
		e = d * c;
		h *= e;
		if (fabs(e - 1) < 1e-15)
			break;
	}
	return exp(-x + a * log(x) - gln) * h;
}

double stats_chi2_sf(double x, double df)
{
	double q;

	if (df <= 0 || x <= 0)
		return 1;
	q = gamma_q(df / 2, x / 2);
	return q < 0 ? 0 : q > 1 ? 1 : q;
}

int stats_chi2_homogeneity(const uint64_t *table, int rows, int cols, double *chi2, int *df,
			   double *p)
{
	double *rs, *cs, n = 0, x = 0;
	int err = 0;

	if (rows < 2 || cols < 2)
		return -EINVAL;
	rs = calloc(rows, sizeof(*rs));
	cs = calloc(cols, sizeof(*cs));
	if (!rs || !cs) {
		free(rs);
		free(cs);
		return -ENOMEM;
	}
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++) {
			rs[i] += table[i * cols + j];
			cs[j] += table[i * cols + j];
			n += table[i * cols + j];
		}
	for (int i = 0; i < rows && !err; i++)
		err = rs[i] > 0 ? 0 : -EINVAL;
	for (int j = 0; j < cols && !err; j++)
		err = cs[j] > 0 ? 0 : -EINVAL;
	for (int i = 0; i < rows && !err; i++)
		for (int j = 0; j < cols; j++) {
			double e = rs[i] * cs[j] / n, o = table[i * cols + j];

			x += (o - e) * (o - e) / e;
		}
	free(rs);
	free(cs);
	if (err)
		return err;
	*chi2 = x;
	*df = (rows - 1) * (cols - 1);
	*p = stats_chi2_sf(x, *df);
	return 0;
}

/* ---- A/B comparisons ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double stats_quantile_sorted(const double *s, size_t n, double q)
{
	double pos, frac;
	size_t i;

	if (!n)
		return NAN;
	pos = q <= 0 ? 0 : q >= 1 ? (double)(n - 1) : q * (double)(n - 1);
	i = (size_t)pos;
	frac = pos - (double)i;
	return i + 1 < n ? s[i] + frac * (s[i + 1] - s[i]) : s[n - 1];
}

double stats_median(const double *v, size_t n)
{
	double *s, m;

	if (!n)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = stats_quantile_sorted(s, n, 0.5);
	free(s);
	return m;
}

double stats_min(const double *v, size_t n)
{
	double m = NAN;

	for (size_t i = 0; i < n; i++)
		if (isnan(m) || v[i] < m)
			m = v[i];
	return m;
}

struct signed_abs {
	double abs;
	int sign;
};

static int cmp_abs(const void *a, const void *b)
{
	return cmp_double(&((const struct signed_abs *)a)->abs, &((const struct signed_abs *)b)->abs);
}

#define WILCOXON_EXACT_MAX 30

/* P(W+ <= w) for n ranks 1..n, every sign equally likely: the count of subsets by sum. */
static double wilcoxon_cdf_exact(size_t n, long w)
{
	long max = (long)(n * (n + 1) / 2);
	double *c = calloc(max + 1, sizeof(*c)), below = 0, all = 0;

	if (!c)
		return NAN;
	c[0] = 1;
	for (size_t k = 1; k <= n; k++)
		for (long s = max; s >= (long)k; s--)
			c[s] += c[s - k];
	for (long s = 0; s <= max; s++) {
		all += c[s];
		if (s <= w)
			below += c[s];
	}
	free(c);
	return below / all;
}

/*
 * Exact two-sided p of the signed-rank statistic with tied magnitudes: the distribution of the
 * sum of the doubled midranks r2[0..m) given a positive sign, over the 2^m equally likely sign
 * patterns, by dynamic programming over the sum (at most m(m+1), integers).  Deterministic
 * measures (instructions) give identical differences round after round: the normal
 * approximation then says p = 0.014 for 8 rounds all one way, where the exact answer is
 * 2/256.  -1 on no memory.
 */
static double wilcoxon_p_ties_exact(const long *r2, size_t m, long w2)
{
	long max = 0;
	double *c, lo = 0, hi = 0, total = ldexp(1, (int)m);

	for (size_t i = 0; i < m; i++)
		max += r2[i];
	c = calloc((size_t)max + 1, sizeof(*c));
	if (!c)
		return -1;
	c[0] = 1;
	for (size_t i = 0, top = 0; i < m; i++) {
		for (long s = (long)top; s >= 0; s--)
			if (c[s] != 0)
				c[s + r2[i]] += c[s];
		top += (size_t)r2[i];
	}
	for (long s = 0; s <= max; s++) {
		if (s <= w2)
			lo += c[s];
		if (s >= w2)
			hi += c[s];
	}
	free(c);
	return fmin(1, 2 * fmin(lo, hi) / total);
}

double stats_wilcoxon_p(const double *d, size_t n)
{
	long r2[WILCOXON_EXACT_MAX];
	long w2 = 0;
	struct signed_abs *v = malloc((n ? n : 1) * sizeof(*v));
	double wplus = 0, tie_term = 0, p;
	size_t m = 0;
	bool ties = false;

	if (!v)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0 && !isnan(d[i]))
			v[m++] = (struct signed_abs){ fabs(d[i]), d[i] > 0 ? 1 : -1 };
	if (!m) {
		free(v);
		return 1;
	}
	qsort(v, m, sizeof(*v), cmp_abs);
	for (size_t i = 0; i < m;) {
		size_t j = i;
		double rank;

		while (j + 1 < m && v[j + 1].abs == v[i].abs)
			j++;
		rank = (double)(i + j + 2) / 2; /* ranks i+1..j+1 averaged */
		for (size_t k = i; k <= j && m <= WILCOXON_EXACT_MAX; k++) {
			r2[k] = (long)(i + j + 2);
			w2 += v[k].sign > 0 ? r2[k] : 0;
		}
		if (j > i) {
			double t = (double)(j - i + 1);

			ties = true;
			tie_term += t * t * t - t;
		}
		for (size_t k = i; k <= j; k++)
			if (v[k].sign > 0)
				wplus += rank;
		i = j + 1;
	}
	free(v);
	if (m <= WILCOXON_EXACT_MAX && !ties) {
		double lo = wilcoxon_cdf_exact(m, (long)wplus);
		double hi = 1 - wilcoxon_cdf_exact(m, (long)wplus - 1); /* P(W+ >= w) */

		p = 2 * fmin(lo, hi);
	} else if (m <= WILCOXON_EXACT_MAX && (p = wilcoxon_p_ties_exact(r2, m, w2)) >= 0) {
		/* exact with ties */
	} else {
		double mean = m * (m + 1) / 4.0;
		double var = m * (m + 1) * (2.0 * m + 1) / 24.0 - tie_term / 48.0;
		double z = var > 0 ? (fabs(wplus - mean) - 0.5) / sqrt(var) : 0;

		p = z > 0 ? erfc(z / sqrt(2)) : 1;
	}
	return p > 1 ? 1 : p;
}

uint64_t stats_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int stats_bootstrap(const double *a, const double *b, size_t n, stats_fn fn, void *ctx,
		    int iters, double conf, uint64_t seed, double *lo, double *hi)
{
	size_t *idx, got = 0;
	double *res;
	uint64_t st = seed;

	if (!n || iters < 1)
		return -EINVAL;
	idx = malloc(n * sizeof(*idx));
	res = malloc(iters * sizeof(*res));
	if (!idx || !res) {
		free(idx);
		free(res);
		return -ENOMEM;
	}
	for (int k = 0; k < iters; k++) {
		double r;

		for (size_t i = 0; i < n; i++)
			idx[i] = stats_rand(&st) % n;
		r = fn(a, b, idx, n, ctx);
		if (!isnan(r))
			res[got++] = r;
	}
	qsort(res, got, sizeof(*res), cmp_double);
	*lo = stats_quantile_sorted(res, got, (1 - conf) / 2);
	*hi = stats_quantile_sorted(res, got, (1 + conf) / 2);
	free(idx);
	free(res);
	return 0;
}

double stats_fn_median_ratio(const double *a, const double *b, const size_t *idx, size_t n,
			     void *ctx)
{
	double *r = malloc(n * sizeof(*r)), m;
	size_t k = 0;

	(void)ctx;
	if (!r)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		size_t j = idx ? idx[i] : i;

		if (a[j] > 0)
			r[k++] = b[j] / a[j];
	}
	m = stats_median(r, k);
	free(r);
	return m;
}

double stats_fn_pooled_diff(const double *a, const double *b, const size_t *idx, size_t n,
			    void *ctx)
{
	const struct stats_weights *w = ctx;
	double sa = 0, sb = 0, wa = 0, wb = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = idx ? idx[i] : i;

		sa += a[j];
		sb += b[j];
		wa += w->wa[j];
		wb += w->wb[j];
	}
	return wa > 0 && wb > 0 ? sb / wb - sa / wa : NAN;
}

const char *stats_verdict_name(enum stats_verdict v)
{
	return v == STATS_FASTER ? "faster" : v == STATS_SLOWER ? "slower" : "same";
}

/* The standard normal quantile by bisection on erfc (a few dozen steps, exact enough). */
static double z_quantile(double p)
{
	double lo = -10, hi = 10;

	for (int i = 0; i < 80; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(-mid / sqrt(2)) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static void ab_defaults(struct stats_ab_opts *o, const struct stats_ab_opts *in)
{
	*o = in ? *in : (struct stats_ab_opts){};
	if (o->alpha <= 0 || o->alpha >= 1)
		o->alpha = STATS_ALPHA;
	if (o->conf <= 0 || o->conf >= 1)
		o->conf = 0.95;
	/* 0: the default; a negative value: no floor */
	if (o->min_effect == 0)
		o->min_effect = 0.03;
	else if (o->min_effect < 0)
		o->min_effect = 0;
	if (o->iters < 1)
		o->iters = 4000;
	if (!o->seed)
		o->seed = 1;
}

/* The verdict rule shared by the paired and the unpaired comparison: slower or faster only when
 * p is below alpha, the ratio at least min_effect from 1, and its interval excludes 1. */
static void set_verdict(struct stats_ab *out, const struct stats_ab_opts *o)
{
	out->verdict = STATS_SAME;
	if (out->p < o->alpha && fabs(out->ratio - 1) >= o->min_effect) {
		if (out->ci_low > 1)
			out->verdict = STATS_SLOWER;
		else if (out->ci_high < 1)
			out->verdict = STATS_FASTER;
	}
}

int stats_ab_compare(const double *a, const double *b, size_t n, const struct stats_ab_opts *in,
		     struct stats_ab *out)
{
	struct stats_ab_opts o;
	double *d, *lr, sd = 0, mean = 0, mdd;
	int err;

	ab_defaults(&o, in);
	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	d = malloc(n * sizeof(*d));
	lr = malloc(n * sizeof(*lr));
	if (!d || !lr) {
		free(d);
		free(lr);
		return -ENOMEM;
	}
	out->n = n;
	out->a_median = stats_median(a, n);
	out->b_median = stats_median(b, n);
	out->a_best = stats_min(a, n);
	out->b_best = stats_min(b, n);
	out->best_ratio = out->a_best > 0 ? out->b_best / out->a_best : NAN;
	out->ratio = stats_fn_median_ratio(a, b, NULL, n, NULL);
	for (size_t i = 0; i < n; i++) {
		d[i] = b[i] - a[i];
		lr[i] = a[i] > 0 && b[i] > 0 ? log(b[i] / a[i]) : 0;
		mean += lr[i] / n;
	}
	for (size_t i = 0; i < n; i++)
		sd += (lr[i] - mean) * (lr[i] - mean);
	sd = n > 1 ? sqrt(sd / (n - 1)) : INFINITY;
	out->p = stats_wilcoxon_p(d, n);
	err = stats_bootstrap(a, b, n, stats_fn_median_ratio, NULL, o.iters, o.conf, o.seed,
			      &out->ci_low, &out->ci_high);
	free(d);
	free(lr);
	if (err)
		return err;
	mdd = (z_quantile(1 - o.alpha / 2) + z_quantile(0.8)) * sd / sqrt((double)n);
	mdd = exp(mdd) - 1;
	mdd = fmax(mdd, fmax(o.min_effect, (out->ci_high - out->ci_low) / 2));
	/* the exact signed-rank test cannot go below 2 / 2^n */
	if (n < 63 && 2.0 / (double)(1ull << n) >= o.alpha)
		mdd = 1;
	out->mdd = isfinite(mdd) ? fmin(mdd, 1) : 1;
	set_verdict(out, &o);
	return 0;
}

int stats_delta_compare(const double *a, const double *b, const double *wa, const double *wb,
			size_t n, const struct stats_ab_opts *in, struct stats_delta *out)
{
	struct stats_weights w = { wa, wb };
	struct stats_ab_opts o;
	double sa = 0, sb = 0, ta = 0, tb = 0;

	ab_defaults(&o, in);
	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		sa += a[i];
		sb += b[i];
		ta += wa[i];
		tb += wb[i];
	}
	out->a = ta > 0 ? sa / ta : 0;
	out->b = tb > 0 ? sb / tb : 0;
	out->delta = out->b - out->a;
	return stats_bootstrap(a, b, n, stats_fn_pooled_diff, &w, o.iters, o.conf, o.seed, &out->lo,
			       &out->hi);
}

#define MW_EXACT_MAX 20

/* P(U <= u) for sizes m, n without ties: arrangements counted by U (f(m,n,u) recursion). */
static double mw_cdf_exact(size_t m, size_t n, long u)
{
	long umax = (long)(m * n);
	size_t stride = (size_t)umax + 1;
	double *f = calloc((m + 1) * (n + 1) * stride, sizeof(*f)), below = 0, all = 0;

	if (!f)
		return NAN;
#define F(i, j, k) f[((i) * (n + 1) + (j)) * stride + (k)]
	for (size_t i = 0; i <= m; i++)
		for (size_t j = 0; j <= n; j++)
			for (long k = 0; k <= umax; k++) {
				if (!i || !j) {
					F(i, j, k) = k == 0;
					continue;
				}
				/* the largest value is from a (adds j to U) or from b */
				F(i, j, k) = (k >= (long)j ? F(i - 1, j, k - (long)j) : 0) + F(i, j - 1, k);
			}
	for (long k = 0; k <= umax; k++) {
		all += F(m, n, k);
		if (k <= u)
			below += F(m, n, k);
	}
#undef F
	free(f);
	return below / all;
}

double stats_mannwhitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	double u = 0, p;
	bool ties = false;

	if (!na || !nb)
		return 1;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++) {
			if (a[i] > b[j])
				u += 1;
			else if (a[i] == b[j]) {
				u += 0.5;
				ties = true;
			}
		}
	if (!ties && na <= MW_EXACT_MAX && nb <= MW_EXACT_MAX) {
		double lo = mw_cdf_exact(na, nb, (long)u);
		double hi = 1 - mw_cdf_exact(na, nb, (long)u - 1);

		p = 2 * fmin(lo, hi);
	} else {
		double mean = na * nb / 2.0, sd = sqrt(na * nb * (na + nb + 1.0) / 12.0);
		double z = sd > 0 ? (fabs(u - mean) - 0.5) / sd : 0;

		p = z > 0 ? erfc(z / sqrt(2)) : 1;
	}
	return p > 1 ? 1 : p;
}

static double median_idx(const double *v, const size_t *idx, size_t n)
{
	double *r = malloc(n * sizeof(*r)), m;

	if (!r)
		return NAN;
	for (size_t i = 0; i < n; i++)
		r[i] = v[idx ? idx[i] : i];
	m = stats_median(r, n);
	free(r);
	return m;
}

int stats_median_ci(const double *v, size_t n, const struct stats_ab_opts *in, double *median,
		    double *lo, double *hi)
{
	struct stats_ab_opts o;
	size_t *idx;
	double *res;
	uint64_t st;

	ab_defaults(&o, in);
	if (!n)
		return -EINVAL;
	idx = malloc(n * sizeof(*idx));
	res = malloc(o.iters * sizeof(*res));
	if (!idx || !res) {
		free(idx);
		free(res);
		return -ENOMEM;
	}
	st = o.seed;
	for (int k = 0; k < o.iters; k++) {
		for (size_t i = 0; i < n; i++)
			idx[i] = stats_rand(&st) % n;
		res[k] = median_idx(v, idx, n);
	}
	qsort(res, o.iters, sizeof(*res), cmp_double);
	*median = stats_median(v, n);
	*lo = stats_quantile_sorted(res, o.iters, (1 - o.conf) / 2);
	*hi = stats_quantile_sorted(res, o.iters, (1 + o.conf) / 2);
	free(idx);
	free(res);
	return 0;
}

static double log_var(const double *v, size_t n)
{
	double mean = 0, var = 0;

	for (size_t i = 0; i < n; i++)
		mean += (v[i] > 0 ? log(v[i]) : 0) / n;
	for (size_t i = 0; i < n; i++) {
		double d = (v[i] > 0 ? log(v[i]) : 0) - mean;

		var += d * d;
	}
	return n > 1 ? var / (n - 1) : INFINITY;
}

int stats_ab_compare_unpaired(const double *a, size_t na, const double *b, size_t nb,
			      const struct stats_ab_opts *in, struct stats_ab *out)
{
	struct stats_ab_opts o;
	size_t *ia, *ib;
	double *res, mdd, minp = 1;
	uint64_t st;
	int got = 0;

	ab_defaults(&o, in);
	memset(out, 0, sizeof(*out));
	if (!na || !nb)
		return -EINVAL;
	ia = malloc(na * sizeof(*ia));
	ib = malloc(nb * sizeof(*ib));
	res = malloc(o.iters * sizeof(*res));
	if (!ia || !ib || !res) {
		free(ia);
		free(ib);
		free(res);
		return -ENOMEM;
	}
	out->n = na < nb ? na : nb;
	out->a_median = stats_median(a, na);
	out->b_median = stats_median(b, nb);
	out->a_best = stats_min(a, na);
	out->b_best = stats_min(b, nb);
	out->best_ratio = out->a_best > 0 ? out->b_best / out->a_best : NAN;
	out->ratio = out->a_median > 0 ? out->b_median / out->a_median : NAN;
	out->p = stats_mannwhitney_p(a, na, b, nb);
	st = o.seed;
	for (int k = 0; k < o.iters; k++) {
		double ma, mb;

		for (size_t i = 0; i < na; i++)
			ia[i] = stats_rand(&st) % na;
		for (size_t i = 0; i < nb; i++)
			ib[i] = stats_rand(&st) % nb;
		ma = median_idx(a, ia, na);
		mb = median_idx(b, ib, nb);
		if (ma > 0)
			res[got++] = mb / ma;
	}
	qsort(res, got, sizeof(*res), cmp_double);
	out->ci_low = stats_quantile_sorted(res, got, (1 - o.conf) / 2);
	out->ci_high = stats_quantile_sorted(res, got, (1 + o.conf) / 2);
	free(ia);
	free(ib);
	free(res);
	mdd = (z_quantile(1 - o.alpha / 2) + z_quantile(0.8)) *
	      sqrt(log_var(a, na) / na + log_var(b, nb) / nb);
	mdd = fmax(exp(mdd) - 1, fmax(o.min_effect, (out->ci_high - out->ci_low) / 2));
	/* the most extreme arrangement: 2 / C(na + nb, na) */
	for (size_t i = 1; i <= nb; i++)
		minp *= (double)i / (double)(na + i);
	if (2 * minp >= o.alpha)
		mdd = 1;
	out->mdd = isfinite(mdd) ? fmin(mdd, 1) : 1;
	set_verdict(out, &o);
	return 0;
}
