// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A phase in rounds: the stopping rule, the rounds' intervals, the homogeneity test. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fold/rounds.h"

const char *round_stop_name(enum round_stop stop)
{
	static const char *const names[ROUND_STOP__COUNT] = {
		[ROUND_STOP_ONCE] = "once",	      [ROUND_STOP_PRECISE] = "precise",
		[ROUND_STOP_CAP] = "time cap",	      [ROUND_STOP_LIMIT] = "round limit",
		[ROUND_STOP_SINGLE] = "one asked",    [ROUND_STOP_UNPROFILED] = "not profiled",
		[ROUND_STOP_CUT] = "cut short",
	};

	return stop < ROUND_STOP__COUNT ? names[stop] : "?";
}

static const struct fold_row *find_row(const struct fold_view *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->rows[i].name, name))
			return &v->rows[i];
	return NULL;
}

void rounds_row_counts(const struct fold_table *const *cum, int r, enum fold_by by,
		       const char *name, bool total, uint64_t *k, uint64_t *n)
{
	uint64_t prev_k = 0, prev_n = 0;

	for (int j = 0; j < r; j++) {
		const struct fold_row *row = find_row(&cum[j]->by[by], name);
		uint64_t ck = row ? (total ? row->total : row->self) : 0;
		uint64_t cn = cum[j]->samples;

		/* cumulative counts only grow; a table that disagrees counts as no change */
		k[j] = ck > prev_k ? ck - prev_k : 0;
		n[j] = cn > prev_n ? cn - prev_n : 0;
		prev_k = ck > prev_k ? ck : prev_k;
		prev_n = cn > prev_n ? cn : prev_n;
	}
}

void rounds_share_ci(const uint64_t *k, const uint64_t *n, int r, struct stats_ci *out,
		     bool *from_rounds)
{
	uint64_t sk = 0, sn = 0;
	struct stats_ci between;
	double *dk, *dn, half;

	if (from_rounds)
		*from_rounds = false;
	for (int j = 0; j < r; j++) {
		sk += k[j];
		sn += n[j];
	}
	stats_share(sk, sn, out);
	if (r < 2 || !out->valid)
		return;
	dk = malloc(r * sizeof(*dk));
	dn = malloc(r * sizeof(*dn));
	if (!dk || !dn) {
		free(dk);
		free(dn);
		return;
	}
	for (int j = 0; j < r; j++) {
		dk[j] = (double)k[j];
		dn[j] = (double)n[j];
	}
	stats_ratio_rounds(dk, dn, r, &between);
	free(dk);
	free(dn);
	half = stats_ci_half(&between);
	if (!between.valid || half <= stats_ci_half(out))
		return;
	out->lo = out->value - half < 0 ? 0 : out->value - half;
	out->hi = out->value + half > 1 ? 1 : out->value + half;
	out->n = (uint64_t)r;
	if (from_rounds)
		*from_rounds = true;
}

static const struct ledger_sys_row *find_sys(const struct ledger_sys_row *rows, size_t n,
					     uint32_t nr)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].nr == nr)
			return &rows[i];
	return NULL;
}

/* The growth of a cumulative figure, and the new high-water mark. */
static double grew(uint64_t now, uint64_t *prev)
{
	uint64_t d = now > *prev ? now - *prev : 0;

	*prev = now > *prev ? now : *prev;
	return (double)d;
}

void rounds_sys_batches(const struct ledger_sys_row *const *cum, const size_t *ncum,
			const uint64_t *phase_ns, int r, uint32_t nr, struct rounds_sys_batch *out)
{
	uint64_t cpu = 0, wall = 0, calls = 0;

	for (int j = 0; j < r; j++) {
		const struct ledger_sys_row *y = find_sys(cum[j], ncum[j], nr);
		struct ledger_sys_row none = { .nr = nr };

		if (!y)
			y = &none;
		out[j].cpu_ns = grew(y->cpu_ns, &cpu);
		out[j].wall_ns = grew(y->wall_ns, &wall);
		out[j].calls = grew(y->count, &calls);
		out[j].phase_ns = (double)phase_ns[j];
	}
}

/* A ratio's interval clamped to [0, max] (max 0: no upper bound), scaled by k. */
static void clamp_ci(struct stats_ci *ci, double max, double k)
{
	ci->value *= k;
	ci->lo = ci->lo < 0 ? 0 : ci->lo * k;
	ci->hi *= k;
	if (max > 0 && ci->hi > max)
		ci->hi = max;
}

void rounds_sys_ci(const struct rounds_sys_batch *b, int r, struct stats_ci *share,
		   struct stats_ci *us_per_call)
{
	double *v = malloc(4 * (r > 0 ? r : 1) * sizeof(*v));
	int with_calls = 0;

	*share = (struct stats_ci){ 0 };
	*us_per_call = (struct stats_ci){ 0 };
	if (!v)
		return;
	/* us/call from the batches with calls only: one without says nothing of the time a call
	 * takes (its zero residual would narrow the interval) */
	for (int j = 0, k = 0; j < r; j++) {
		v[j] = b[j].cpu_ns;
		v[r + j] = b[j].phase_ns;
		if (b[j].calls > 0) {
			v[2 * r + k] = b[j].wall_ns;
			v[3 * r + k++] = b[j].calls;
		}
		with_calls = k;
	}
	stats_ratio_rounds(v, v + r, r, share);
	stats_ratio_rounds(v + 2 * r, v + 3 * r, with_calls, us_per_call);
	clamp_ci(share, 1, 1);
	clamp_ci(us_per_call, 0, 1e-3);
	/* more syscall CPU than on-CPU (stolen time inside calls, README "Stolen time", or a call
	 * booked beyond its CPU): no interval of a share holds that; the value stays to show it */
	if (share->value > 1) {
		share->valid = false;
		share->lo = share->hi = share->value;
	}
	free(v);
}

static int cmp_row_name(const void *a, const void *b)
{
	return strcmp((*(const struct fold_row *const *)a)->name,
		      (*(const struct fold_row *const *)b)->name);
}

/*
 * The intervals of rows' rows (self, or total) from r tables, cumulative or one per batch.
 * Each table's rows sorted by name, so that every row is found by bisection.
 */
static int rows_ci(const struct fold_table *const *t, int r, bool cumulative,
		   const struct fold_view *rows, enum fold_by by, bool total, struct stats_ci *out,
		   bool *from_rounds)
{
	const struct fold_row ***sorted = calloc(r, sizeof(*sorted));
	uint64_t *k = malloc(r * sizeof(*k)), *n = malloc(r * sizeof(*n));
	int err = 0;

	for (int j = 0; sorted && j < r && !err; j++) {
		const struct fold_view *v = &t[j]->by[by];

		sorted[j] = malloc((v->n ? v->n : 1) * sizeof(*sorted[j]));
		if (!sorted[j]) {
			err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < v->n; i++)
			sorted[j][i] = &v->rows[i];
		qsort(sorted[j], v->n, sizeof(*sorted[j]), cmp_row_name);
	}
	if (!sorted || !k || !n)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < rows->n; i++) {
		uint64_t prev_k = 0, prev_n = 0;
		const struct fold_row key = { .name = rows->rows[i].name }, *kp = &key;

		for (int j = 0; j < r; j++) {
			const struct fold_row *const *hit =
				bsearch(&kp, sorted[j], t[j]->by[by].n, sizeof(*sorted[j]),
					cmp_row_name);
			uint64_t ck = hit ? (total ? (*hit)->total : (*hit)->self) : 0;
			uint64_t cn = t[j]->samples;

			if (!cumulative) {
				k[j] = ck;
				n[j] = cn;
				continue;
			}
			k[j] = ck > prev_k ? ck - prev_k : 0;
			n[j] = cn > prev_n ? cn - prev_n : 0;
			prev_k = ck > prev_k ? ck : prev_k;
			prev_n = cn > prev_n ? cn : prev_n;
		}
		rounds_share_ci(k, n, r, &out[i], from_rounds ? &from_rounds[i] : NULL);
	}
	for (int j = 0; sorted && j < r; j++)
		free(sorted[j]);
	free(sorted);
	free(k);
	free(n);
	return err;
}

int rounds_rows_ci(const struct fold_table *const *cum, int r, enum fold_by by, bool total,
		   struct stats_ci *out, bool *from_rounds)
{
	return rows_ci(cum, r, true, &cum[r - 1]->by[by], by, total, out, from_rounds);
}

int rounds_rows_ci_batches(const struct fold_table *const *t, int r, const struct fold_view *rows,
			   enum fold_by by, bool total, struct stats_ci *out, bool *from_rounds)
{
	return rows_ci(t, r, false, rows, by, total, out, from_rounds);
}

double rounds_top_half(const struct fold_table *const *cum, int r, enum fold_by by, int top)
{
	const struct fold_view *v;
	uint64_t *k, *n;
	double worst = 0;

	if (r < 1 || !cum[r - 1]->samples)
		return 1;
	v = &cum[r - 1]->by[by];
	if (!v->n || !v->rows[0].self)
		return 1;
	k = malloc(r * sizeof(*k));
	n = malloc(r * sizeof(*n));
	if (!k || !n) {
		free(k);
		free(n);
		return 1;
	}
	for (size_t i = 0; i < v->n && (int)i < top && v->rows[i].self; i++) {
		struct stats_ci ci;

		rounds_row_counts(cum, r, by, v->rows[i].name, false, k, n);
		rounds_share_ci(k, n, r, &ci, NULL);
		worst = fmax(worst, ci.valid ? stats_ci_half(&ci) : 1);
	}
	free(k);
	free(n);
	return worst;
}

enum fold_by rounds_rule_view(unsigned int views)
{
	for (int by = 0; by < FOLD_BY__COUNT; by++)
		if (views & FOLD_VIEW(by))
			return by;
	return FOLD_BY_FUNCTION;
}

enum fold_by rounds_judged_view(const struct fold_table *t, enum fold_by want)
{
	const struct fold_view *v = &t->by[want];

	return v->n && v->rows[0].self ? want : FOLD_BY_FUNCTION;
}

double rounds_design_factor(const struct fold_view *v, uint64_t samples,
			    const struct stats_ci *ci, int top)
{
	double wide[ROUNDS_TOP], wilson[ROUNDS_TOP];
	int n = 0;

	if (top > ROUNDS_TOP)
		top = ROUNDS_TOP;
	for (size_t i = 0; ci && i < v->n && n < top && v->rows[i].self; i++) {
		struct stats_ci w;

		stats_share(v->rows[i].self, samples, &w);
		if (!w.valid || !ci[i].valid)
			continue;
		wide[n] = stats_ci_half(&ci[i]);
		wilson[n++] = stats_ci_half(&w);
	}
	return stats_design_factor(wide, wilson, n);
}

int rounds_decide(const struct fold_table *const *cum, int units, const struct round_rule *rule,
		  double elapsed_s, unsigned int rounds)
{
	/* stop before a round of the mean length so far would end after the cap */
	if (rounds > 0 && elapsed_s + elapsed_s / rounds > rule->cap_s)
		return ROUND_STOP_CAP;
	if (units < 1)
		return 0;
	if (units >= rule->max_rounds)
		return ROUND_STOP_LIMIT;
	if (units >= rule->min_rounds && cum[units - 1]->samples &&
	    rounds_top_half(cum, units, rounds_judged_view(cum[units - 1], rule->by), rule->top) <=
		    rule->half)
		return ROUND_STOP_PRECISE;
	return 0;
}

/* Expected counts of at least 5 in every cell: the chi-square approximation holds. */
#define HOMOG_MIN_EXPECTED 5.0

void rounds_homogeneity(const struct fold_table *const *cum, int r, enum fold_by by, int top,
			struct rounds_homog *out)
{
	const struct fold_view *v;
	uint64_t *k, *n, *table = NULL, *rest;
	double N = 0;
	int rows = 0;

	memset(out, 0, sizeof(*out));
	if (r < 2 || !cum[r - 1]->samples)
		return;
	v = &cum[r - 1]->by[by];
	k = malloc(r * sizeof(*k));
	n = malloc(r * sizeof(*n));
	rest = malloc(r * sizeof(*rest));
	table = malloc((size_t)(top + 1) * r * sizeof(*table));
	if (!k || !n || !rest || !table)
		goto out;
	rounds_row_counts(cum, r, by, "", false, k, n); /* n: each round's samples */
	for (int j = 0; j < r; j++) {
		rest[j] = n[j];
		N += n[j];
		if (!n[j])
			goto out; /* a round without samples: nothing to compare */
	}
	for (size_t i = 0; i < v->n && (int)i < top && v->rows[i].self; i++) {
		uint64_t sk = 0;
		bool ok = true;

		rounds_row_counts(cum, r, by, v->rows[i].name, false, k, n);
		for (int j = 0; j < r; j++)
			sk += k[j];
		for (int j = 0; j < r && ok; j++)
			ok = sk * (double)n[j] / N >= HOMOG_MIN_EXPECTED;
		if (!ok)
			continue;
		for (int j = 0; j < r; j++) {
			table[rows * r + j] = k[j];
			rest[j] -= k[j] < rest[j] ? k[j] : rest[j];
		}
		rows++;
	}
	{
		uint64_t sr = 0;
		bool ok = true;

		for (int j = 0; j < r; j++)
			sr += rest[j];
		for (int j = 0; j < r && ok; j++)
			ok = sr * (double)n[j] / N >= HOMOG_MIN_EXPECTED;
		if (ok) {
			memcpy(&table[rows * r], rest, r * sizeof(*rest));
			rows++;
		}
	}
	if (rows >= 2 &&
	    !stats_chi2_homogeneity(table, rows, r, &out->chi2, &out->df, &out->p)) {
		out->valid = true;
		out->rows = rows;
		out->cols = r;
		out->dispersion = out->chi2 / out->df;
		out->inconsistent = out->p < ROUNDS_LOCKSTEP_P &&
				    out->dispersion > ROUNDS_LOCKSTEP_DISPERSION;
	}
out:
	free(k);
	free(n);
	free(rest);
	free(table);
}
