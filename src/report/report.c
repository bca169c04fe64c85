// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report's computed figures beside the rows: the intervals every writer prints (shares,
 * syscalls, call sites, softcode rows), the rows' other figures (the call sites' order, the
 * softcode rows' us per command and probe cost, the figures corrected for muxbpf's cost, the
 * phases' rates and the cost line's), and the checks on an assembled report (drops, failed
 * phases, empty recordings, the on-CPU check).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/phases.h"
#include "report/report.h"

double report_max_check_diff(const struct report *r)
{
	double worst = 0;

	for (int i = 0; i < r->nphases; i++) {
		const struct report_phase *p = &r->phases[i];
		double d;

		if (!p->measured || !p->schedstat_ns)
			continue;
		d = 100.0 * ((double)p->oncpu_ns - (double)p->schedstat_ns) / p->schedstat_ns;
		if (d < 0)
			d = -d;
		if (d > worst)
			worst = d;
	}
	return worst;
}

uint64_t report_dropped(const struct muxbpf_phase_stats *st)
{
	uint64_t n = 0;

	for (int d = 0; d < MUXBPF_DROP__COUNT; d++)
		n += st->dropped[d];
	return n;
}

double report_drop_pct(const struct muxbpf_phase_stats *st)
{
	return stats_pct(report_dropped(st), st->taken);
}

void report_share_ci(const struct report_phase *p, enum fold_by by, size_t i, bool total,
		     struct stats_ci *out)
{
	const struct fold_row *row = &p->fold.by[by].rows[i];

	if (p->rounds.ci[by][total] && i < p->fold.by[by].n) {
		*out = p->rounds.ci[by][total][i];
		return;
	}
	stats_share(total ? row->total : row->self, p->fold.samples, out);
}

enum report_sys_from report_sys_ci(const struct report_phase *p, size_t i,
				   struct report_sys_ci *out)
{
	const struct ledger_sys_row *y = &p->ledger.sys[i];
	double share = p->oncpu_ns ? (double)y->cpu_ns / p->oncpu_ns : 0;
	double us = y->count ? y->wall_ns / 1e3 / y->count : 0;

	if (p->rounds.sys && i < p->ledger.nsys) {
		*out = p->rounds.sys[i];
		return REPORT_SYS_BATCHES;
	}
	out->share = (struct stats_ci){ .value = share, .lo = share, .hi = share, .n = 1 };
	out->us_per_call = (struct stats_ci){ .value = us, .lo = us, .hi = us, .n = 1 };
	return p->rounds.sys_once ? REPORT_SYS_ONCE : REPORT_SYS_NONE;
}

/*
 * A site's share of the phase's syscall on-CPU, stratified by syscall as the flame graph's
 * [sys] frames are (src/sprof.c, add_sites()): its syscall's exact share of the syscall time
 * times the site's share of that syscall's walked calls.  Only the second factor is sampled, so
 * the interval is its own (stats_share_sampled()) scaled by the first.  A share of all walked
 * calls instead let a few costly calls the sample missed (a timer tick inside a getppid) move
 * one syscall against another with an interval too narrow to show it: beside a CPU hog,
 * getppid's walked calls gave 6.03% [5.62, 6.44] of the write loop's three syscalls, exact
 * 6.89% (tests/test_bpf_ledger.c, test_site_sample).
 */
void report_site_ci(const struct report *r, const struct report_phase *p, size_t i,
		    struct stats_ci *out)
{
	const struct phase_ledger *l = &p->ledger;
	const struct ledger_site_row *y = &l->sites[i];
	double x, q, sys = 0, all = 0, f;

	/* the rows' own sums: with --runs, site_cpu_ns is a median over the runs, the rows means */
	ledger_site_sums(l, y->nr, &x, &q);
	for (size_t j = 0; j < l->nsys; j++) {
		all += (double)l->sys[j].cpu_ns;
		if (l->sys[j].nr == y->nr)
			sys = (double)l->sys[j].cpu_ns;
	}
	stats_share_sampled((double)y->cpu_ns, ledger_site_cpu_sq(y), y->count, x, q,
			    r->site_every ? 1.0 / r->site_every : 0, out);
	f = all > 0 ? sys / all : 0;
	out->value *= f;
	out->lo *= f;
	out->hi *= f;
}

bool report_lockstep_text(const struct report_phase *p, char *buf, size_t size)
{
	const struct rounds_homog *h = &p->rounds.homog;

	buf[0] = '\0';
	if (!h->inconsistent)
		return false;
	snprintf(buf, size,
		 "phase %s: its rows' shares disagree between its %u rounds far beyond their "
		 "binomial intervals (chi-square %.0f on %d df, p %.1g, %.1f times the binomial "
		 "variance): the samples are correlated with the work (lock step?); its intervals "
		 "are the rounds'",
		 phase_name(p->id), p->rounds.n, h->chi2, h->df, h->p, h->dispersion);
	return true;
}

double report_design_factor(const struct report_phase *p)
{
	return p && p->rounds.v && p->rounds.design > 1 ? p->rounds.design : 1;
}

bool report_sampled_ci(const struct report_phase *p, uint64_t k, uint64_t n,
		       struct stats_ci *out)
{
	double f = report_design_factor(p);

	stats_share(k, n, out);
	stats_share_widen(out, f);
	return f > 1 && out->valid;
}

/* Emit one issue through fn: the line goes to stderr (report_check) and into report.json. */
static void issue(report_issue_fn fn, void *ctx, bool error, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void issue(report_issue_fn fn, void *ctx, bool error, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(ctx, error, msg);
}

int report_issues(const struct report *r, report_issue_fn fn, void *ctx)
{
	int problems = 0;

	for (int i = 0; i < r->nphases; i++) {
		const struct report_phase *p = &r->phases[i];
		double expected = (p->has_ledger ? p->ledger.user_ns : p->usr_ns) / 1e9 * r->freq;
		char text[512];

		if (r->profiled && p->stats.taken && report_dropped(&p->stats)) {
			double d = report_drop_pct(&p->stats);

			if (p->measured && r->max_drop_pct >= 0 && d > r->max_drop_pct) {
				issue(fn, ctx, true,
				      "phase %s dropped %.2f%% of its samples (%" PRIu64
				      " of %" PRIu64 "), more than --max-drop-pct %g",
				      phase_name(p->id), d,
				      report_dropped(&p->stats), (uint64_t)p->stats.taken,
				      r->max_drop_pct);
				problems++;
			} else if (d > REPORT_DROP_WARN_PCT) {
				issue(fn, ctx, false,
				      "phase %s dropped %.2f%% of its samples (%" PRIu64
				      " of %" PRIu64 "): see its accounting line",
				      phase_name(p->id), d,
				      report_dropped(&p->stats), (uint64_t)p->stats.taken);
			}
		}
		if (p->has_ledger && p->ledger.lost)
			issue(fn, ctx, false,
			      "phase %s: %" PRIu64 " ledger entries lost (a ledger map is full)",
			      phase_name(p->id), p->ledger.lost);
		if (report_lockstep_text(p, text, sizeof(text)))
			issue(fn, ctx, false, "%s", text);
		if (!p->measured)
			continue;
		/* an interrupted phase is reported as such; the exit code says why */
		if (!p->ok && !p->partial) {
			issue(fn, ctx, true, "phase %s failed: %s", phase_name(p->id), p->error);
			problems++;
		}
		/* An empty recording must never read as an idle server. */
		if (r->profiled && p->stats.recorded == 0 && expected >= REPORT_BUSY_MIN_SAMPLES) {
			issue(fn, ctx, true,
			      "phase %s: no samples recorded although netmux spent %.0f ms in user "
			      "mode (%.0f samples expected): the sampler is not working",
			      phase_name(p->id),
			      (p->has_ledger ? p->ledger.user_ns : p->usr_ns) / 1e6, expected);
			problems++;
		}
	}
	if (r->period_failed)
		issue(fn, ctx, false,
		      "the sampling period was not re-drawn: PERF_EVENT_IOC_PERIOD failed %" PRIu64
		      " of %" PRIu64 " times (%s); where it failed, samples can lock step with "
		      "periodic work", r->period_failed, r->period_failed + r->period_redraws,
		      strerror(r->period_err));
	if (r->exits_lost)
		issue(fn, ctx, false,
		      "%" PRIu64 " thread exits did not fit the runtime map: their on-CPU time is "
		      "missing", r->exits_lost);
	return problems;
}

static void print_issue(void *ctx, bool error, const char *msg)
{
	(void)ctx;
	if (error)
		pr_err("%s", msg);
	else
		pr_warn("%s", msg);
}

/* A command row's intervals (report_sc_ci). */
static void command_ci(const struct report_phase *p, const struct sc_rows *rows,
		       const struct sc_row *row, struct report_sc_ci *out)
{
	const struct report_rounds *rr = &p->rounds;
	struct stats_ci share, us;
	bool from;

	out->us_batches = false;
	out->share_batches = report_sampled_ci(p, row->samples, rows->samples, &out->share);
	if (rr->sc_cum) {
		sc_row_batches_ci(rr->sc_cum, rr->nsc, row->label, &share, &from, &us);
		if (share.valid) {
			out->share = share;
			out->share_batches = from;
		}
		if (us.valid && row->runs) {
			out->us = us;
			out->us_batches = true;
			return;
		}
	}
	sc_cpu_per_cmd_ci(row, &out->share, p->oncpu_ns, &out->us);
}

/* A command row's figures (report_sc_ci), after its intervals: us per command, the estimate. */
static void command_figures(const struct report_phase *p, const struct sc_rows *rows,
			    const struct sc_row *row, struct report_sc_ci *c)
{
	c->us_per_cmd = row->runs ? row->cpu_ns / 1e3 / row->runs : 0.0;
	c->est_ms = p->oncpu_ns / 1e6 * stats_pct(row->samples, rows->samples) / 100;
	c->est_half_ms = p->oncpu_ns / 1e6 * stats_ci_half(&c->share);
}

/* Every row's figures and intervals of one phase's softcode rows (report_sc_ci), and the
 * command rows' probe cost.  0 or -ENOMEM. */
static int softcode_ci(struct report_phase *p)
{
	if (p->sc_commands.n &&
	    !(p->sc_command_ci = calloc(p->sc_commands.n, sizeof(*p->sc_command_ci))))
		return -ENOMEM;
	if (p->sc_paths.n && !(p->sc_path_ci = calloc(p->sc_paths.n, sizeof(*p->sc_path_ci))))
		return -ENOMEM;
	for (size_t j = 0; j < p->sc_commands.n; j++) {
		const struct sc_row *row = &p->sc_commands.v[j];

		command_ci(p, &p->sc_commands, row, &p->sc_command_ci[j]);
		command_figures(p, &p->sc_commands, row, &p->sc_command_ci[j]);
		p->sc_probe_ns += row->probe_ns;
	}
	for (size_t j = 0; j < p->sc_paths.n; j++) {
		struct report_sc_ci *c = &p->sc_path_ci[j];

		c->share_batches = report_sampled_ci(p, p->sc_paths.v[j].samples,
						     p->sc_paths.samples, &c->share);
	}
	return 0;
}

/* A phase's softcode rows and their intervals, when the views ran.  0 or -ENOMEM. */
static int softcode_rows(const struct report *r, struct report_phase *p)
{
	const struct sc_data *d = r->softcode;
	int err;

	if (!d || !d->valid || !(r->by & FOLD_VIEWS_SOFTCODE))
		return 0;
	err = sc_command_rows(d, p->id, p->oncpu_ns, &p->sc_commands);
	if (!err)
		err = sc_path_rows(d, p->id, &p->sc_paths);
	return err ?: softcode_ci(p);
}

/* The share intervals of a phase's fold rows, every view's, self and total.  0 or -ENOMEM. */
static int share_ci(struct report_phase *p)
{
	for (int by = 0; by < FOLD_BY__COUNT; by++)
		for (int t = 0; t < 2 && p->fold.by[by].n; t++) {
			p->share_ci[by][t] = calloc(p->fold.by[by].n, sizeof(*p->share_ci[by][t]));
			if (!p->share_ci[by][t])
				return -ENOMEM;
			for (size_t i = 0; i < p->fold.by[by].n; i++)
				report_share_ci(p, by, i, t, &p->share_ci[by][t][i]);
		}
	return 0;
}

/* A site's place by share, largest first (site_order's qsort; ties in the table's order). */
struct site_order {
	size_t i;
	double share;
};

static int by_share_desc(const void *a, const void *b)
{
	const struct site_order *x = a, *y = b;

	if (x->share != y->share)
		return (x->share < y->share) - (x->share > y->share);
	return (x->i > y->i) - (x->i < y->i);
}

/* The call sites' order by share (site_ci), their walks and the walks' us each.  0 or -ENOMEM. */
static int site_order(struct report_phase *p)
{
	const struct phase_ledger *l = &p->ledger;
	struct site_order *o = calloc(l->nsites, sizeof(*o));

	p->site_order = calloc(l->nsites, sizeof(*p->site_order));
	if (!o || !p->site_order) {
		free(o);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->nsites; i++) {
		p->site_walks += l->sites[i].count;
		o[i] = (struct site_order){ .i = i, .share = p->site_ci[i].value };
	}
	qsort(o, l->nsites, sizeof(*o), by_share_desc);
	for (size_t i = 0; i < l->nsites; i++)
		p->site_order[i] = o[i].i;
	free(o);
	p->site_walk_us = p->site_walks ? l->site_walk_ns / 1e3 / p->site_walks : 0;
	return 0;
}

/* The intervals of a phase's syscall and call-site rows.  0 or -ENOMEM. */
static int ledger_ci(const struct report *r, struct report_phase *p)
{
	const struct phase_ledger *l = &p->ledger;

	if (l->nsys && !(p->sys_ci = calloc(l->nsys, sizeof(*p->sys_ci))))
		return -ENOMEM;
	if (l->nsites && !(p->site_ci = calloc(l->nsites, sizeof(*p->site_ci))))
		return -ENOMEM;
	for (size_t i = 0; i < l->nsys; i++) /* one source for every row */
		p->sys_from = report_sys_ci(p, i, &p->sys_ci[i]);
	for (size_t i = 0; i < l->nsites; i++)
		report_site_ci(r, p, i, &p->site_ci[i]);
	return l->nsites ? site_order(p) : 0;
}

/*
 * The phase's figures less muxbpf's own time in netmux's context (cost_correct()) and each
 * syscall row's, per call too: the estimate the text report, report.json and the flame graph's
 * subtitle print.  0 or -ENOMEM.
 */
static int corrected(struct report_phase *p)
{
	const struct phase_ledger *l = &p->ledger;

	cost_correct(l->oncpu_ns, l->sys_cpu_ns, l->sys_count, &p->cost, &p->corrected);
	if (!p->corrected.valid || !l->nsys)
		return 0;
	p->sys_corrected = calloc(l->nsys, sizeof(*p->sys_corrected));
	if (!p->sys_corrected)
		return -ENOMEM;
	for (size_t i = 0; i < l->nsys; i++) {
		struct report_sys_corrected *c = &p->sys_corrected[i];

		c->cpu_ns = cost_correct_call(&p->corrected, l->sys[i].cpu_ns, l->sys[i].count);
		c->us_per_call = l->sys[i].count ? c->cpu_ns / 1e3 / l->sys[i].count : 0;
	}
	return 0;
}

/* Keep one issue in the report (report_issues' fn); a failed copy is left out. */
static void keep_issue(void *ctx, bool error, const char *msg)
{
	struct report *r = ctx;
	struct report_issue *v = realloc(r->issues, (r->nissues + 1) * sizeof(*v));
	char *m = strdup(msg);

	if (!v || !m) {
		free(m);
		if (v)
			r->issues = v;
		return;
	}
	r->issues = v;
	v[r->nissues++] = (struct report_issue){ .error = error, .msg = m };
}

/* The softcode probes' cost over the run (report.sc_ufun_probes_ns, sc_cmd_probes_ns). */
static void softcode_probes(struct report *r)
{
	const struct sc_data *d = r->softcode;
	const struct muxbpf_sc_stats *s;

	if (!d)
		return;
	s = &d->stats;
	r->sc_ufun_probes_ns = (s->ufun_enter + s->ufun_exit) * d->hit_ns;
	r->sc_cmd_probes_ns = (s->cmd_starts + s->cmd_ends) / 2.0 * d->ends.pair_ns;
}

/* A phase's rates, means and sums: commands per second, on-CPU against schedstat, frames a
 * walk, the design factor, the samples dropped and kept whole, the off-CPU time. */
static void phase_rates(struct report_phase *p)
{
	const struct muxbpf_phase_stats *st = &p->stats;

	p->cmd_per_s = p->wall_s > 0 ? p->commands / p->wall_s : 0;
	p->check_pct = p->schedstat_ns ? 100.0 * ((double)p->oncpu_ns - p->schedstat_ns) /
						 p->schedstat_ns
				       : 0;
	p->frames_per_walk = st->walks ? (double)st->frames / st->walks : 0;
	p->design_factor = report_design_factor(p);
	p->dropped = report_dropped(st);
	p->recorded_whole = st->taken - p->dropped;
	p->off_cpu_ns = p->ledger.sys_off_ns + p->ledger.preempt_user_ns;
}

/* A phase's cost line figures: the BPF time shown, the estimate against the statistics, the
 * bystanders' ns per early exit. */
static void cost_figures(struct report_phase *p)
{
	const struct mb_cost *c = &p->cost;
	const struct mb_cost_est *e = &c->est;

	p->cost_bpf_ns = c->stats ? (double)c->bpf_ns : e->bpf_ns;
	p->cost_est_vs_stats_pct = c->bpf_ns ? 100.0 * (e->bpf_ns - c->bpf_ns) / c->bpf_ns : 0;
	p->bystander_ns_each = e->exits ? e->bystander_ns / e->exits : 0.0;
}

/* The run's own figures: the softcode probes' cost, the sampler's ns per sample, the live
 * map checks' us each. */
static void run_figures(struct report *r)
{
	const struct mb_unwind_summary *u = r->unwind;
	const struct mb_live_info *l = r->live;

	softcode_probes(r);
	r->sampler_ns_per_sample =
		u && u->sampler_runs ? (double)u->sampler_run_ns / u->sampler_runs : 0;
	r->live_check_us = l && l->occ.checks ? l->occ.check_ns / 1e3 / l->occ.checks : 0.0;
}

int report_figures(struct report *r)
{
	run_figures(r);
	for (int i = 0; i < r->nphases; i++) {
		struct report_phase *p = &r->phases[i];
		int err;

		phase_rates(p);
		cost_figures(p);
		err = softcode_rows(r, p);
		if (!err)
			err = share_ci(p);
		if (!err && p->has_ledger)
			err = ledger_ci(r, p);
		if (!err && p->has_ledger)
			err = corrected(p);
		if (err)
			return err;
	}
	r->check_max_diff_pct = report_max_check_diff(r);
	report_issues(r, keep_issue, r);
	return 0;
}

void report_figures_free(struct report *r)
{
	for (int i = 0; i < r->nissues; i++)
		free(r->issues[i].msg);
	free(r->issues);
	r->issues = NULL;
	r->nissues = 0;
	for (int i = 0; i < r->nphases; i++) {
		struct report_phase *p = &r->phases[i];

		sc_rows__free(&p->sc_commands);
		sc_rows__free(&p->sc_paths);
		free(p->sc_command_ci);
		free(p->sc_path_ci);
		p->sc_command_ci = p->sc_path_ci = NULL;
		p->sc_probe_ns = 0;
		for (int by = 0; by < FOLD_BY__COUNT; by++)
			for (int t = 0; t < 2; t++) {
				free(p->share_ci[by][t]);
				p->share_ci[by][t] = NULL;
			}
		free(p->sys_ci);
		free(p->site_ci);
		p->sys_ci = NULL;
		p->site_ci = NULL;
		free(p->sys_corrected);
		p->sys_corrected = NULL;
		free(p->site_order);
		p->site_order = NULL;
		p->site_walks = 0;
	}
}

int report_check(const struct report *r)
{
	return report_issues(r, print_issue, NULL);
}
