// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --runs: merge N reports into one, with per-phase spread. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/phases.h"
#include "report/runs.h"
#include "base/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct run_stat run_stat_of(double *v, int n)
{
	struct run_stat s = {};

	if (n <= 0)
		return s;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
	return s;
}

static double median_of(const double *v, int n)
{
	double tmp[RUNS_MAX];

	memcpy(tmp, v, n * sizeof(*v));
	return run_stat_of(tmp, n).median;
}

/* ---- function tables: rows summed by name ---------------------------------------------------- */

static int view_merge(struct fold_view *out, const struct fold_view *in)
{
	for (size_t i = 0; i < in->n; i++) {
		struct fold_row *r = NULL;

		for (size_t j = 0; j < out->n && !r; j++)
			if (!strcmp(out->rows[j].name, in->rows[i].name))
				r = &out->rows[j];
		if (!r) {
			void *v = realloc(out->rows, (out->n + 1) * sizeof(*out->rows));

			if (!v)
				return -ENOMEM;
			out->rows = v;
			r = &out->rows[out->n];
			memset(r, 0, sizeof(*r));
			r->name = strdup(in->rows[i].name);
			if (!r->name)
				return -ENOMEM;
			r->unnamed = in->rows[i].unnamed;
			out->n++;
		}
		r->self += in->rows[i].self;
		r->total += in->rows[i].total;
	}
	return 0;
}

static int dso_merge(struct fold_table *out, const struct fold_table *in)
{
	for (size_t i = 0; i < in->ndsos; i++) {
		const struct fold_dso *s = &in->dsos[i];
		struct fold_dso *d = NULL;

		for (size_t j = 0; j < out->ndsos && !d; j++)
			if (out->dsos[j].dso == s->dso ||
			    (out->dsos[j].dso && s->dso && !strcmp(out->dsos[j].dso, s->dso)))
				d = &out->dsos[j];
		if (!d) {
			void *v = realloc(out->dsos, (out->ndsos + 1) * sizeof(*out->dsos));

			if (!v)
				return -ENOMEM;
			out->dsos = v;
			d = &out->dsos[out->ndsos++];
			memset(d, 0, sizeof(*d));
			d->dso = s->dso; /* strings live as long as the runs' reports */
			d->info = s->info;
		}
		d->samples += s->samples;
		d->named += s->named;
		d->with_line += s->with_line;
		for (int w = 0; w < MB_UNNAMED__COUNT; w++)
			d->why[w] += s->why[w];
	}
	return 0;
}

static int fold_merge(struct fold_table *out, const struct fold_table *in)
{
	int err = 0;

	out->samples += in->samples;
	out->unnamed += in->unnamed;
	out->with_line += in->with_line;
	out->no_stack += in->no_stack;
	for (int w = 0; w < MB_UNNAMED__COUNT; w++)
		out->unnamed_why[w] += in->unnamed_why[w];
	for (int by = 0; by < FOLD_BY__COUNT && !err; by++)
		err = view_merge(&out->by[by], &in->by[by]);
	return err ?: dso_merge(out, in);
}

/* ---- ledgers: scalars as medians, rows as means per run -------------------------------------- */

#define LEDGER_SCALARS(X)                                                                          \
	X(wall_ns) X(thread_wall_ns) X(oncpu_ns) X(sys_cpu_ns) X(site_cpu_ns) X(site_walk_ns)      \
	X(user_ns) X(sys_wall_ns) X(sys_stolen_ns) X(sys_off_ns) X(preempt_user_ns) X(stolen_ns)   \
	X(rt_before_in_ns) X(run_delay_ns) X(sys_count) X(sys_inexact) X(switch_in_missed)         \
	X(nvcsw) X(nivcsw) X(min_flt) X(maj_flt) X(pcount) X(wakeups) X(lost)

static void ledger_scalars(struct phase_ledger *out, const struct report *in, int n, int i)
{
	double v[RUNS_MAX];

#define MEDIAN(field)                                                                              \
	for (int k = 0; k < n; k++)                                                                \
		v[k] = (double)in[k].phases[i].ledger.field;                                       \
	out->field = (uint64_t)(median_of(v, n) + 0.5);
	LEDGER_SCALARS(MEDIAN)
#undef MEDIAN
	for (int k = 0; k < n; k++)
		v[k] = (double)in[k].phases[i].ledger.switch_path_ns;
	out->switch_path_ns = (int64_t)median_of(v, n);
	for (int k = 0; k < n; k++)
		v[k] = (double)in[k].phases[i].ledger.leftover_ns;
	out->leftover_ns = (int64_t)median_of(v, n);
	for (int k = 0; k < n; k++)
		v[k] = in[k].phases[i].ledger.threads;
	out->threads = (uint32_t)median_of(v, n);
}

static int sys_merge(struct phase_ledger *out, const struct phase_ledger *in)
{
	for (size_t i = 0; i < in->nsys; i++) {
		struct ledger_sys_row *r = NULL;

		for (size_t j = 0; j < out->nsys && !r; j++)
			if (out->sys[j].nr == in->sys[i].nr)
				r = &out->sys[j];
		if (!r) {
			void *v = realloc(out->sys, (out->nsys + 1) * sizeof(*out->sys));

			if (!v)
				return -ENOMEM;
			out->sys = v;
			r = &out->sys[out->nsys++];
			memset(r, 0, sizeof(*r));
			r->nr = in->sys[i].nr;
		}
		r->count += in->sys[i].count;
		r->cpu_ns += in->sys[i].cpu_ns;
		r->wall_ns += in->sys[i].wall_ns;
		r->inexact += in->sys[i].inexact;
		r->stolen_ns += in->sys[i].stolen_ns;
	}
	return 0;
}

static int site_merge(struct phase_ledger *out, char ***labels, const struct report_phase *in)
{
	for (size_t i = 0; i < in->ledger.nsites; i++) {
		const struct ledger_site_row *s = &in->ledger.sites[i];
		const char *label = in->site_labels ? in->site_labels[i] : NULL;
		struct ledger_site_row *r = NULL;
		size_t j;

		for (j = 0; j < out->nsites && !r; j++)
			if (out->sites[j].nr == s->nr &&
			    (((*labels)[j] && label && !strcmp((*labels)[j], label)) ||
			     (!(*labels)[j] && !label)))
				r = &out->sites[j];
		if (!r) {
			void *v = realloc(out->sites, (out->nsites + 1) * sizeof(*out->sites));
			void *l = realloc(*labels, (out->nsites + 1) * sizeof(**labels));

			if (v)
				out->sites = v;
			if (l)
				*labels = l;
			if (!v || !l)
				return -ENOMEM;
			r = &out->sites[out->nsites];
			memset(r, 0, sizeof(*r));
			r->nr = s->nr;
			r->stack_id = -1; /* stack ids are per run */
			(*labels)[out->nsites] = label ? strdup(label) : NULL;
			if (label && !(*labels)[out->nsites])
				return -ENOMEM;
			out->nsites++;
		}
		r->count += s->count;
		r->cpu_ns += s->cpu_ns;
		r->wall_ns += s->wall_ns;
		r->cpu_sq += s->cpu_sq;
		r->walk_ns += s->walk_ns;
	}
	return 0;
}

static int wake_merge(struct phase_ledger *out, const struct phase_ledger *in)
{
	for (size_t i = 0; i < in->nwakes; i++) {
		const struct ledger_wake_row *w = &in->wakes[i];
		struct ledger_wake_row *r = NULL;

		for (size_t j = 0; j < out->nwakes && !r; j++)
			if (out->wakes[j].kind == w->kind && out->wakes[j].detail == w->detail &&
			    !memcmp(out->wakes[j].comm, w->comm, sizeof(w->comm)))
				r = &out->wakes[j];
		if (!r) {
			void *v = realloc(out->wakes, (out->nwakes + 1) * sizeof(*out->wakes));

			if (!v)
				return -ENOMEM;
			out->wakes = v;
			r = &out->wakes[out->nwakes++];
			*r = *w;
			r->count = 0;
		}
		r->count += w->count;
	}
	return 0;
}

static int cmp_sys(const void *a, const void *b)
{
	const struct ledger_sys_row *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	return x->wall_ns < y->wall_ns ? 1 : x->wall_ns > y->wall_ns ? -1 : 0;
}

static int cmp_wake(const void *a, const void *b)
{
	const struct ledger_wake_row *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* Sites and their labels sorted together by cpu_ns. */
static void sort_sites(struct phase_ledger *l, char **labels)
{
	for (size_t i = 1; i < l->nsites; i++)
		for (size_t j = i; j > 0 && l->sites[j].cpu_ns > l->sites[j - 1].cpu_ns; j--) {
			struct ledger_site_row t = l->sites[j];
			char *s = labels[j];

			l->sites[j] = l->sites[j - 1];
			labels[j] = labels[j - 1];
			l->sites[j - 1] = t;
			labels[j - 1] = s;
		}
}

static uint64_t per_run(uint64_t sum, int n)
{
	return (sum + n / 2) / n;
}

static int ledger_merge(struct report_phase *out, const struct report *in, int n, int i)
{
	struct phase_ledger *l = &out->ledger;
	int err = 0;

	ledger_scalars(l, in, n, i);
	for (int k = 0; k < n && !err; k++) {
		const struct report_phase *p = &in[k].phases[i];

		err = sys_merge(l, &p->ledger);
		if (!err)
			err = site_merge(l, &out->site_labels, p);
		if (!err)
			err = wake_merge(l, &p->ledger);
	}
	if (err)
		return err;
	for (size_t j = 0; j < l->nsys; j++) {
		l->sys[j].count = per_run(l->sys[j].count, n);
		l->sys[j].cpu_ns = per_run(l->sys[j].cpu_ns, n);
		l->sys[j].wall_ns = per_run(l->sys[j].wall_ns, n);
		l->sys[j].inexact = per_run(l->sys[j].inexact, n);
		l->sys[j].stolen_ns = per_run(l->sys[j].stolen_ns, n);
	}
	for (size_t j = 0; j < l->nsites; j++) {
		l->sites[j].count = per_run(l->sites[j].count, n);
		l->sites[j].cpu_ns = per_run(l->sites[j].cpu_ns, n);
		l->sites[j].wall_ns = per_run(l->sites[j].wall_ns, n);
		/* over n * n: a share of the means then has the interval of the runs' pooled
		 * sample (stats_share_sampled(): x scales by 1/n, q must by 1/n^2) */
		l->sites[j].cpu_sq = per_run(per_run(l->sites[j].cpu_sq, n), n);
		l->sites[j].walk_ns = per_run(l->sites[j].walk_ns, n);
	}
	for (size_t j = 0; j < l->nwakes; j++)
		l->wakes[j].count = per_run(l->wakes[j].count, n);
	if (l->nsys)
		qsort(l->sys, l->nsys, sizeof(*l->sys), cmp_sys);
	if (l->nwakes)
		qsort(l->wakes, l->nwakes, sizeof(*l->wakes), cmp_wake);
	if (out->site_labels)
		sort_sites(l, out->site_labels);
	return 0;
}

/* ---- the merge ------------------------------------------------------------------------------- */

static uint64_t shown_usr(const struct report_phase *p)
{
	return p->has_ledger ? p->ledger.user_ns : p->usr_ns;
}

static uint64_t shown_sys(const struct report_phase *p)
{
	return p->has_ledger ? p->ledger.sys_cpu_ns : p->sys_ns;
}

static void summarize(struct runs_phase *rp, const struct report *in, int n, int i)
{
	double tmp[RUNS_MAX];

	rp->id = in[0].phases[i].id;
	rp->n = n;
	for (int k = 0; k < n; k++) {
		const struct report_phase *p = &in[k].phases[i];

		rp->oncpu_ns[k] = p->oncpu_ns;
		rp->wall_s[k] = p->wall_s;
		rp->usr_ns[k] = shown_usr(p);
		rp->sys_ns[k] = shown_sys(p);
		rp->commands[k] = p->commands;
		rp->rate[k] = p->wall_s > 0 ? p->commands / p->wall_s : 0;
	}
#define STAT(field, arr)                                                                           \
	memcpy(tmp, rp->arr, n * sizeof(double));                                                  \
	rp->field = run_stat_of(tmp, n);
	STAT(oncpu, oncpu_ns)
	STAT(wall, wall_s)
	STAT(usr, usr_ns)
	STAT(sys, sys_ns)
	STAT(cmd_rate, rate)
#undef STAT
}

/* The widest interval among view v's top rows' self shares (a fraction; 1 without rows). */
static double top_half(const struct fold_view *v, const struct stats_ci *ci, int top)
{
	double worst = 0;

	for (size_t i = 0; i < v->n && (int)i < top && v->rows[i].self; i++)
		worst = fmax(worst, ci[i].valid ? stats_ci_half(&ci[i]) : 1);
	return v->n && v->rows[0].self ? worst : 1;
}

/*
 * Each run is a batch of the merged phase: independent (a fresh game), the same work.  The runs'
 * figures as its batches, each row's interval the wider of Wilson on the merged samples and the
 * t interval over the runs (rounds.c), CPU per command the ratio of sums over the runs; the runs'
 * own batches are not used (their spread is inside one run).  Fewer than 2 runs: none.
 */
static int runs_rounds(struct report_phase *p, const struct report *in, int n, int i,
		       enum fold_by rule_by)
{
	struct report_rounds *rr = &p->rounds;
	const struct fold_table *t[RUNS_MAX];
	double ns[RUNS_MAX], cmds[RUNS_MAX];
	int err = 0;

	rr->runs = true;
	rr->stop = in[n - 1].phases[i].rounds.stop;
	rr->repeats = in[n - 1].phases[i].rounds.repeats;
	for (int k = 0; k < n; k++)
		rr->n += in[k].phases[i].rounds.n;
	if (n < 2)
		return 0;
	rr->v = calloc(n, sizeof(*rr->v));
	if (!rr->v)
		return -ENOMEM;
	rr->batches = n;
	for (int k = 0; k < n; k++) {
		const struct report_phase *q = &in[k].phases[i];

		t[k] = &q->fold;
		rr->v[k] = (struct report_round){ .rounds = q->rounds.n, .wall_s = q->wall_s,
						  .commands = q->commands, .oncpu_ns = q->oncpu_ns,
						  .samples = q->fold.samples };
		ns[k] = (double)q->oncpu_ns;
		cmds[k] = (double)q->commands;
	}
	stats_ratio_rounds(ns, cmds, n, &rr->cpu_per_cmd);
	stats_ci_nonneg(&rr->cpu_per_cmd);
	for (int by = 0; by < FOLD_BY__COUNT && !err; by++) {
		size_t rows = p->fold.by[by].n;

		for (int tt = 0; tt < 2 && rows && !err; tt++) {
			rr->ci[by][tt] = calloc(rows, sizeof(*rr->ci[by][tt]));
			rr->from_rounds[by][tt] = calloc(rows, sizeof(*rr->from_rounds[by][tt]));
			err = rr->ci[by][tt] && rr->from_rounds[by][tt]
				      ? rounds_rows_ci_batches(t, n, &p->fold.by[by], by, tt,
							       rr->ci[by][tt], rr->from_rounds[by][tt])
				      : -ENOMEM;
		}
	}
	rr->judged_by = rounds_judged_view(&p->fold, rule_by);
	rr->top_half = 1; /* no row to judge: never precise */
	if (err || !rr->ci[rr->judged_by][0])
		return err;
	rr->top_half = top_half(&p->fold.by[rr->judged_by], rr->ci[rr->judged_by][0], ROUNDS_TOP);
	rr->design = rounds_design_factor(&p->fold.by[rr->judged_by], p->fold.samples,
					  rr->ci[rr->judged_by][0], ROUNDS_TOP);
	return 0;
}

static const struct ledger_sys_row *sys_row(const struct phase_ledger *l, uint32_t nr)
{
	for (size_t j = 0; j < l->nsys; j++)
		if (l->sys[j].nr == nr)
			return &l->sys[j];
	return NULL;
}

/*
 * Each syscall row's share of on-CPU and us per call with the t interval over the runs (each run
 * a batch, as for the rows above): sum of its CPU over the runs' on-CPU, wall over calls.  A run
 * without the call counts 0 there.  Fewer than 2 runs, or a run without a ledger: none.
 */
static int runs_sys_ci(struct report_phase *p, const struct report *in, int n, int i)
{
	struct rounds_sys_batch b[RUNS_MAX];

	if (n < 2 || !p->has_ledger || !p->ledger.nsys)
		return 0;
	p->rounds.sys = calloc(p->ledger.nsys, sizeof(*p->rounds.sys));
	if (!p->rounds.sys)
		return -ENOMEM;
	for (size_t j = 0; j < p->ledger.nsys; j++) {
		for (int k = 0; k < n; k++) {
			const struct report_phase *q = &in[k].phases[i];
			const struct ledger_sys_row *y = sys_row(&q->ledger, p->ledger.sys[j].nr);

			b[k] = (struct rounds_sys_batch){ .phase_ns = (double)q->oncpu_ns };
			if (y) {
				b[k].cpu_ns = (double)y->cpu_ns;
				b[k].wall_ns = (double)y->wall_ns;
				b[k].calls = (double)y->count;
			}
		}
		rounds_sys_ci(b, n, &p->rounds.sys[j].share, &p->rounds.sys[j].us_per_call);
	}
	return 0;
}

int runs_merge(struct report *out, const struct report *in, int n, struct runs_summary *rs)
{
	const struct report *last = &in[n - 1];
	double v[RUNS_MAX];
	int err = 0;

	if (n < 1 || n > RUNS_MAX)
		return -EINVAL;
	for (int k = 1; k < n; k++) {
		if (in[k].nphases != in[0].nphases)
			return -EINVAL;
		for (int i = 0; i < in[0].nphases; i++)
			if (in[k].phases[i].id != in[0].phases[i].id)
				return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	memset(rs, 0, sizeof(*rs));
	*out = *last;
	memset(out->phases, 0, sizeof(out->phases));
	memset(&out->symbols, 0, sizeof(out->symbols));
	out->sym = NULL; /* the runs' reports keep theirs */
	out->sc_own = NULL; /* softcode: the last run's, which its report keeps */
	out->issues = NULL; /* the merged report's own, from report_figures */
	out->nissues = 0;
	for (int k = 0; k < n && !err; k++) {
		out->exits_lost += k < n - 1 ? in[k].exits_lost : 0;
		err = fold_merge(&out->symbols, &in[k].symbols);
	}
	rs->nruns = n;
	rs->nphases = in[0].nphases;
	for (int i = 0; i < in[0].nphases && !err; i++) {
		struct report_phase *p = &out->phases[i];
		const struct report_phase *l = &last->phases[i];

		p->id = l->id;
		p->measured = l->measured;
		p->ok = true;
		p->has_ledger = true;
		for (int k = 0; k < n; k++) {
			const struct report_phase *q = &in[k].phases[i];

			if (!q->ok && p->ok) {
				p->ok = false;
				snprintf(p->error, sizeof(p->error), "run %d: %.200s", k + 1,
					 q->error);
			}
			p->has_ledger &= q->has_ledger;
			p->other_pid_samples += q->other_pid_samples;
			p->stats.taken += q->stats.taken;
			p->stats.recorded += q->stats.recorded;
			for (int d = 0; d < MUXBPF_DROP__COUNT; d++)
				p->stats.dropped[d] += q->stats.dropped[d];
			p->stats.walks += q->stats.walks;
			p->stats.frames += q->stats.frames;
			p->stats.fp_frames += q->stats.fp_frames;
			for (int e = 0; e < MUXBPF_WALK_END__COUNT; e++)
				p->stats.walk_end[e] += q->stats.walk_end[e];
			if (!err)
				err = fold_merge(&p->fold, &q->fold);
		}
/* (an even number of runs has a median halfway: a count rounds it, as sizeof cannot tell a
 * uint64_t from a double) */
#define MED(field, type, round)                                                                    \
	for (int k = 0; k < n; k++)                                                                \
		v[k] = (double)in[k].phases[i].field;                                              \
	p->field = (type)(median_of(v, n) + (round));
		MED(wall_s, double, 0)
		MED(commands, uint64_t, 0.5)
		MED(oncpu_ns, uint64_t, 0.5)
		MED(schedstat_ns, uint64_t, 0.5)
		MED(usr_ns, uint64_t, 0.5)
		MED(sys_ns, uint64_t, 0.5)
		MED(proc_usr_ns, uint64_t, 0.5)
		MED(proc_sys_ns, uint64_t, 0.5)
#undef MED
		for (int by = 0; by < FOLD_BY__COUNT; by++)
			if (p->fold.by[by].n)
				qsort(p->fold.by[by].rows, p->fold.by[by].n,
				      sizeof(struct fold_row), fold_row_cmp);
		if (!err && p->has_ledger)
			err = ledger_merge(p, in, n, i);
		if (!err)
			err = runs_sys_ci(p, in, n, i);
		if (!err)
			err = runs_rounds(p, in, n, i, out->rule_by);
		summarize(&rs->phases[i], in, n, i);
	}
	out->nphases = in[0].nphases;
	return err ?: report_figures(out);
}

const struct runs_phase *runs_phase_of(const struct runs_summary *rs, unsigned int id)
{
	for (int i = 0; i < rs->nphases; i++)
		if (rs->phases[i].id == id)
			return &rs->phases[i];
	return NULL;
}

void runs_print(FILE *f, const struct runs_summary *rs)
{
	fprintf(f, "\n== spread over %d runs (fresh game each): min / median / max, spread = "
		   "(max - min) / median\n", rs->nruns);
	fprintf(f, "   the table above shows each column's median; function tables count every "
		   "run's samples;\n"
		   "   ledger totals are medians, syscall/site/waker rows means per run\n");
	fprintf(f, "%-15s %9s %9s %9s %7s  %8s %8s %8s %7s  %7s  %s\n", "phase", "CPU ms min",
		"median", "max", "spread", "wall min", "median", "max", "spread", "cmd/s sp",
		"CPU median 95% (bootstrap)");
	for (int i = 0; i < rs->nphases; i++) {
		const struct runs_phase *p = &rs->phases[i];
		double med, lo, hi;

		fprintf(f, "%-15s %9.2f %9.2f %9.2f %6.1f%%  %8.3f %8.3f %8.3f %6.1f%%",
			phase_name(p->id), p->oncpu.min / 1e6, p->oncpu.median / 1e6,
			p->oncpu.max / 1e6, 100 * p->oncpu.spread, p->wall.min, p->wall.median, p->wall.max,
			100 * p->wall.spread);
		if (p->cmd_rate.median > 0)
			fprintf(f, "  %6.1f%%", 100 * p->cmd_rate.spread);
		else
			fprintf(f, "  %7s", "-");
		if (stats_median_ci(p->oncpu_ns, p->n, NULL, &med, &lo, &hi) == 0)
			fprintf(f, "  [%.2f, %.2f]", lo / 1e6, hi / 1e6);
		fputc('\n', f);
	}
}
