// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Intervals for shares and means (see stats.h for which one applies where). */
#include <math.h>
#include "stats.h"

#define Z975 1.959963984540054

double stats_ci_half(const struct stats_ci *ci)
{
	return (ci->hi - ci->lo) / 2;
}

bool stats_ci_wide(const struct stats_ci *ci)
{
	return !ci->valid || ci->hi - ci->lo > fabs(ci->value);
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
	out->lo = mid - half < 0 ? 0 : mid - half;
	out->hi = mid + half > 1 ? 1 : mid + half;
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
