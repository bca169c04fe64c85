// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Assemble the report from one run: per-window rows and ledgers, "outside", symbolization of
 * every stack, the per-phase views, the ledger's call-site labels, and (with --out) the
 * symbolized profile for the artifacts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/clock.h"
#include "report/assemble.h"
#include "report/flame.h"
#include "fold/fold.h"
#include "base/log.h"
#include "symbols/resolve.h"
#include "report/softcode_rows.h"
#include "report/softcode_stacks.h"
#include "report/sprof_softcode.h"
#include "session/reading.h"
#include "proc/reply_check.h"

/* Fill one report row from a measured window. */
static void fill_window(struct report_phase *rp, const struct window *w, const struct run *run,
			bool profiled)
{
	rp->id = w->phase;
	rp->measured = true;
	rp->ok = w->result.ok;
	rp->partial = w->partial;
	snprintf(rp->error, sizeof(rp->error), "%s", w->result.error);
	rp->wall_s = w->result.wall_s;
	rp->t_begin_ns = w->before.t_ns;
	rp->t_end_ns = w->after.t_ns;
	rp->commands = w->result.commands;
	rp->rounds.n = w->result.rounds;
	rp->rounds.repeats = w->phase < MUXBPF_PHASE__COUNT && driver_phase_repeats(w->phase);
	rp->rounds.stop = w->round_stop;
	rp->rounds.stop_judged = w->stop_judged;
	rp->rounds.stop_half = w->stop_half;
	rp->schedstat_ns = w->after.proc.schedstat_ns - w->before.proc.schedstat_ns;
	rp->oncpu_ns = profiled ? rt_delta(&w->before.rt, &w->after.rt, run->pid) : rp->schedstat_ns;
	rp->usr_ns = w->after.proc.utime_ns - w->before.proc.utime_ns;
	rp->sys_ns = w->after.proc.stime_ns - w->before.proc.stime_ns;
	rp->proc_usr_ns = rp->usr_ns;
	rp->proc_sys_ns = rp->sys_ns;
	cost_delta(&w->before.cost, &w->after.cost, &run->calib, &rp->cost);
}

/* The window's time ledger from the boundary readings and the ledger maps. */
static int fill_ledger(struct report_phase *rp, const struct window *w, const struct run *run)
{
	struct mb_boundary from = { .t_ns = w->before.t_ns, .rt = &w->before.rt,
				    .inflight = &w->before.inflight };
	struct mb_boundary to = { .t_ns = w->after.t_ns, .rt = &w->after.rt,
				  .inflight = &w->after.inflight };
	int err;

	err = ledger_build(&run->ledger_data, w->phase, run->pid, &from, &to, &rp->ledger);
	if (!err)
		rp->has_ledger = true;
	return err;
}

/* Everything outside the measured windows: setup, logins, shutdown excluded. */
static void fill_outside(struct report_phase *rp, const struct report *r, const struct run *run,
			 bool profiled)
{
	uint64_t total;

	rp->id = 0;
	rp->ok = true;
	if (!run->final_taken) /* stopped before a closing reading: nothing to subtract from */
		return;
	total = profiled ? rt_delta(&run->start.rt, &run->final.rt, run->pid)
			 : run->final.proc.schedstat_ns - run->start.proc.schedstat_ns;
	rp->usr_ns = run->final.proc.utime_ns - run->start.proc.utime_ns;
	rp->sys_ns = run->final.proc.stime_ns - run->start.proc.stime_ns;
	for (int i = 0; i < r->nphases; i++) {
		total -= total >= r->phases[i].oncpu_ns ? r->phases[i].oncpu_ns : total;
		rp->usr_ns -= rp->usr_ns >= r->phases[i].usr_ns ? r->phases[i].usr_ns : rp->usr_ns;
		rp->sys_ns -= rp->sys_ns >= r->phases[i].sys_ns ? r->phases[i].sys_ns : rp->sys_ns;
	}
	rp->oncpu_ns = total;
}

/*
 * Each syscall's share of on-CPU and us per call with the batches' intervals: the ledger's rows
 * at each mark, the window's own ledger for the last batch (so the batches add up to it).
 */
static int fill_sys_ci(struct report_phase *rp, const struct window *w, unsigned int n)
{
	const struct ledger_sys_row *cum[ROUNDS_MAX + 1];
	size_t ncum[ROUNDS_MAX + 1];
	uint64_t phase_ns[ROUNDS_MAX + 1];
	struct rounds_sys_batch *b;

	if (!rp->ledger.nsys)
		return 0;
	for (unsigned int j = 0; j < n; j++) {
		bool last = j == n - 1;

		cum[j] = last ? rp->ledger.sys : w->marks[j].sys;
		ncum[j] = last ? rp->ledger.nsys : w->marks[j].nsys;
		phase_ns[j] = rp->rounds.v[j].oncpu_ns;
	}
	b = calloc(n, sizeof(*b));
	rp->rounds.sys = calloc(rp->ledger.nsys, sizeof(*rp->rounds.sys));
	if (!b || !rp->rounds.sys) {
		free(b);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rp->ledger.nsys; i++) {
		struct report_sys_ci *ci = &rp->rounds.sys[i];

		rounds_sys_batches(cum, ncum, phase_ns, (int)n, rp->ledger.sys[i].nr, b);
		rounds_sys_ci(b, (int)n, &ci->share, &ci->us_per_call);
	}
	free(b);
	return 0;
}

/* The stack rule's view of one count: between commands by its resolved stack. */
struct between_ctx {
	const struct mb_profile *prof;
	const struct mb_resolved *res;
	const struct sample_index *ix;
};

static bool count_between(const struct sc_count *c, void *ctx)
{
	const struct between_ctx *b = ctx;
	const struct mb_rstack *st = sc_count_stack(c, b->prof, b->res, b->ix);

	return st && sc_stack_between(st->frames, st->n);
}

/*
 * The report's copy of a set of softcode counts, with the default mode's stack rule
 * (softcode_stacks.h) applied when rule is given: the run's counts stay as read.  *moved: the
 * samples the rule moved between commands.  0 or -ENOMEM.
 */
static int counts_by_rule(const struct sc_count *v, size_t n, const struct between_ctx *rule,
			  struct sc_count **out, uint64_t *moved)
{
	*out = NULL;
	*moved = 0;
	if (!n)
		return 0;
	*out = malloc(n * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, v, n * sizeof(**out));
	if (rule)
		*moved = sc_move_between(*out, n, count_between, (void *)rule);
	return 0;
}

/*
 * --by command: the phase's command rows at each batch's end, from the marks' softcode counts
 * (the command labels are the final collection's: ids do not change) and the report's own.
 * A mark's counts go through the same stack rule as the report's, so that the batches still add
 * up to the phase.  Nothing unless every mark has its counts.
 */
static int fill_command_batches(struct report_rounds *rr, const struct report_phase *rp,
				const struct window *w, const struct sc_data *d,
				const struct between_ctx *rule, unsigned int n)
{
	if (!d || !d->valid)
		return 0;
	for (unsigned int j = 0; j + 1 < n; j++)
		if (!w->marks[j].sc.valid)
			return 0;
	rr->sc_cum = calloc(n, sizeof(*rr->sc_cum));
	if (!rr->sc_cum)
		return -ENOMEM;
	rr->nsc = (int)n;
	for (unsigned int j = 0; j < n; j++) {
		struct sc_data at = *d;
		struct sc_count *counts = NULL;
		uint64_t moved;
		int err = 0;

		if (j + 1 < n) {
			err = counts_by_rule(w->marks[j].sc.counts, w->marks[j].sc.ncounts, rule,
					     &counts, &moved);
			at.counts = counts;
			at.ncounts = w->marks[j].sc.ncounts;
			at.times = w->marks[j].sc.times;
			at.ntimes = w->marks[j].sc.ntimes;
		}
		if (!err)
			err = sc_command_rows(&at, rp->id,
					      j + 1 < n ? w->marks[j].oncpu_ns : rp->oncpu_ns,
					      &rr->sc_cum[j]);
		free(counts);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A window's rounds: the batches of rounds from its marks (the last batch ends at the window's
 * end, so the batches add up to the phase's figures), and each row's interval from the spread
 * between them.  A mark holds the fold at its batch's end; the last batch's is the report's.
 */
static int fill_rounds(struct report *r, struct report_phase *rp, const struct window *w,
		       const struct between_ctx *rule)
{
	struct report_rounds *rr = &rp->rounds;
	const struct fold_table *cum[ROUNDS_MAX + 1];
	double ns[ROUNDS_MAX + 1], cmds[ROUNDS_MAX + 1];
	unsigned int n = w->nmarks;
	int err = 0;

	/* a mark at the window's last round is its end: the report's figures stand in for it */
	if (n && w->marks[n - 1].rounds == w->result.rounds)
		n--;
	n++;
	rr->sys_once = true;
	if (n < 2 || n > ROUNDS_MAX + 1 || (w->result.rounds < 2 && n < ROUNDS_MIN_BATCH_MEANS))
		return 0;
	rr->sys_once = false;
	rr->v = calloc(n, sizeof(*rr->v));
	if (!rr->v)
		return -ENOMEM;
	rr->batches = n;
	for (unsigned int j = 0; j < n; j++) {
		const struct round_mark *m = &w->marks[j], *prev = j ? &w->marks[j - 1] : NULL;
		bool last = j == n - 1;
		uint64_t t1 = last ? w->after.t_ns : m->t_ns, t0 = prev ? prev->t_ns : w->before.t_ns;

		cum[j] = last ? &rp->fold : &m->fold;
		rr->v[j].rounds = (last ? w->result.rounds : m->rounds) - (prev ? prev->rounds : 0);
		rr->v[j].wall_s = (t1 - t0) / 1e9;
		rr->v[j].commands = (last ? rp->commands : m->commands) - (prev ? prev->commands : 0);
		rr->v[j].oncpu_ns = (last ? rp->oncpu_ns : m->oncpu_ns) - (prev ? prev->oncpu_ns : 0);
		rr->v[j].samples = cum[j]->samples - (j ? cum[j - 1]->samples : 0);
		ns[j] = (double)rr->v[j].oncpu_ns;
		cmds[j] = (double)rr->v[j].commands;
	}
	stats_ratio_rounds(ns, cmds, (int)n, &rr->cpu_per_cmd);
	stats_ci_nonneg(&rr->cpu_per_cmd);
	if (rp->has_ledger && (err = fill_sys_ci(rp, w, n)))
		return err;
	rr->judged_by = rounds_judged_view(&rp->fold, r->rule_by);
	rr->top_half = rounds_top_half(cum, (int)n, rr->judged_by, ROUNDS_TOP);
	/* batches inside one round are not the same work (attrwrite's later objects): only rounds
	 * are expected to agree */
	if (rr->n >= 2)
		rounds_homogeneity(cum, (int)n, rr->judged_by, ROUNDS_TOP, &rr->homog);
	for (int by = 0; by < FOLD_BY__COUNT && !err; by++) {
		size_t rows = rp->fold.by[by].n;

		for (int t = 0; t < 2 && rows && !err; t++) {
			rr->ci[by][t] = calloc(rows, sizeof(*rr->ci[by][t]));
			rr->from_rounds[by][t] = calloc(rows, sizeof(*rr->from_rounds[by][t]));
			err = rr->ci[by][t] && rr->from_rounds[by][t]
				      ? rounds_rows_ci(cum, (int)n, by, t, rr->ci[by][t],
						       rr->from_rounds[by][t])
				      : -ENOMEM;
		}
	}
	if (!err)
		rr->design = rounds_design_factor(&rp->fold.by[rr->judged_by], rp->fold.samples,
						  rr->ci[rr->judged_by][0], ROUNDS_TOP);
	if (!err && (r->by & FOLD_VIEW_COMMAND))
		err = fill_command_batches(rr, rp, w, r->softcode, rule, n);
	return err;
}

static int fold_all(struct report *r, const struct run *run, const struct mb_resolved *res,
		    const struct between_ctx *rule)
{
	for (int i = 0; i < r->nphases; i++) {
		struct report_phase *rp = &r->phases[i];
		int err;

		rp->stats = run->profile.stats[rp->id];
		err = fold_phase(&run->profile, res, rp->id, run->pid, r->folded, &rp->fold);
		if (err)
			return err;
		rp->other_pid_samples = rp->stats.recorded - rp->fold.samples;
		if (rp->measured &&
		    (err = fill_rounds(r, rp, &run->windows[i], rule)))
			return err;
	}
	/* leaf DSOs over the whole run: the report's symbols section */
	return fold_phase(&run->profile, res, FOLD_ALL_PHASES, run->pid, 0, &r->symbols);
}

#define SITE_FRAMES 4

/* The call sites' user stacks of every phase's ledger, resolved once (labels and sprof). */
struct sites {
	struct mb_rstack *v[MUXBPF_MAX_PHASES]; /* per report phase: v[i][j] for ledger.sites[j] */
};

static void sites_free(struct sites *s, const struct report *r)
{
	for (int i = 0; i < r->nphases; i++) {
		for (size_t j = 0; s->v[i] && j < r->phases[i].ledger.nsites; j++)
			free(s->v[i][j].frames);
		free(s->v[i]);
	}
}

/* Every frame of each call site's stack (none when the walk failed or the lookup did). */
static int resolve_sites(struct sites *s, const struct report *r, struct symbolizer *sym,
			 const struct run *run)
{
	for (int i = 0; i < r->nphases; i++) {
		const struct report_phase *p = &r->phases[i];

		if (!p->has_ledger || !p->ledger.nsites)
			continue;
		s->v[i] = calloc(p->ledger.nsites, sizeof(*s->v[i]));
		if (!s->v[i])
			return -ENOMEM;
		for (size_t j = 0; j < p->ledger.nsites; j++) {
			int32_t id = p->ledger.sites[j].stack_id;
			const struct mb_stack *st = id >= 0 ? stack_table__find(&run->profile.stacks,
										(uint32_t)id)
							     : NULL;
			uint32_t nr = st ? st->nr : 0;
			struct mb_rstack *rs = &s->v[i][j];

			if (nr > MUXBPF_MAX_STACK_DEPTH)
				nr = MUXBPF_MAX_STACK_DEPTH;
			if (!nr)
				continue;
			rs->frames = calloc(nr, sizeof(*rs->frames));
			if (!rs->frames)
				return -ENOMEM;
			if (!resolve_stack(sym, &run->maps[p->id], &run->last_maps, st->ips, nr,
					   rs->frames))
				rs->n = nr;
		}
	}
	return 0;
}

#define SITE_FRAMES 4

/* "a <- b <- c <- d": the first frames of a call site's user stack. */
static char *site_label(const struct mb_rstack *rs)
{
	uint32_t nr = rs->n < SITE_FRAMES ? rs->n : SITE_FRAMES;
	const struct mb_sym *frames = rs->frames;
	char buf[1024] = "";
	size_t len = 0;

	if (!nr)
		return NULL;
	for (uint32_t f = 0; f < nr && len < sizeof(buf); f++) {
		const char *dso = frames[f].dso ? strrchr(frames[f].dso, '/') : NULL;

		if (frames[f].name)
			len += snprintf(buf + len, sizeof(buf) - len, "%s%s", f ? " <- " : "",
					frames[f].name);
		else
			len += snprintf(buf + len, sizeof(buf) - len, "%s[%s+0x%llx]",
					f ? " <- " : "", dso ? dso + 1 : "?",
					(unsigned long long)frames[f].offset);
	}
	if (rs->n > nr && len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, " <- ...");
	return strdup(buf);
}

/* Labels for the call sites the report lists (the top ones of each phase). */
static int label_sites(struct report *r, const struct sites *s)
{
	for (int i = 0; i < r->nphases; i++) {
		struct report_phase *p = &r->phases[i];
		size_t n = p->ledger.nsites; /* all: report.json lists them, --runs merges by label */

		if (!p->has_ledger || !n)
			continue;
		p->site_labels = calloc(p->ledger.nsites, sizeof(*p->site_labels));
		if (!p->site_labels)
			return -ENOMEM;
		for (size_t j = 0; j < n; j++)
			p->site_labels[j] = site_label(&s->v[i][j]);
	}
	return 0;
}

/* sprof's view of the run: the samples of the target and the report's ledgers. */
static int add_to_sprof(struct sprof *sp, const struct report *r, const struct run *run,
			const struct mb_resolved *res, const struct sample_index *ix,
			const struct sites *s)
{
	const struct phase_ledger *ledgers[MUXBPF_MAX_PHASES];
	const struct mb_rstack *sites[MUXBPF_MAX_PHASES];
	unsigned int ids[MUXBPF_MAX_PHASES];
	struct sprof_run in = { .prof = &run->profile, .res = res, .pid = (uint32_t)run->pid,
				.nphases = r->nphases, .ids = ids, .ledgers = ledgers,
				.sites = sites, .site_every = r->site_every,
				.softcode = r->softcode->valid && (r->by & FOLD_VIEW_SOFTCODE)
						    ? r->softcode
						    : NULL,
				.ix = ix, .add_softcode = sprof_add_softcode };

	for (int i = 0; i < r->nphases; i++) {
		ids[i] = r->phases[i].id;
		ledgers[i] = r->phases[i].has_ledger ? &r->phases[i].ledger : NULL;
		sites[i] = s->v[i];
	}
	return sprof_add_run(sp, &in);
}

/*
 * The report's own softcode data: the run's, with its own copy of the counts (the default mode's
 * stack rule moves some of them between commands, softcode_stacks.h); the other arrays are the
 * run's (the report does not outlive it).
 */
static int own_softcode(struct report *r, const struct run *run)
{
	struct sc_data *d = calloc(1, sizeof(*d));

	r->sc_own = d;
	r->softcode = d;
	if (!d)
		return -ENOMEM;
	*d = run->softcode;
	d->counts = NULL;
	d->moved = 0;
	return counts_by_rule(run->softcode.counts, run->softcode.ncounts, NULL, &d->counts,
			      &d->moved);
}

/*
 * The stack rule on the report's final counts, before anything reads them; the marks' counts
 * get it as their batches' rows are made (fill_command_batches).  The exact mode's probes
 * already say when a command ran: no rule (NULL).
 */
static const struct between_ctx *softcode_stack_rule(struct report *r, struct between_ctx *b)
{
	struct sc_data *d = r->sc_own;

	if (!d->valid || d->exact)
		return NULL;
	d->moved = sc_move_between(d->counts, d->ncounts, count_between, b);
	return b;
}

int build_report(struct report *r, const struct opts *o, const struct run *run, struct sprof *sp)
{
	struct mb_resolved res = {};
	struct sample_index ix = {};
	struct between_ctx between = { .prof = &run->profile, .res = &res, .ix = &ix };
	struct sites sites = {};
	struct symbolizer *sym;
	double t0, t1;
	int err;

	memset(r, 0, sizeof(*r));
	r->target = run->netmux;
	r->version = run->version;
	r->pid = run->pid;
	r->port = run->port;
	r->scale = o->scale;
	r->freq = o->freq;
	r->top = o->top;
	r->by = o->by;
	r->rule_by = rounds_rule_view(o->by);
	/* the views the rule may judge (its own, or by function when that one has no rows) */
	r->folded = session_views(o) | FOLD_VIEW(r->rule_by) | FOLD_VIEW(FOLD_BY_FUNCTION);
	r->min_pct = o->min_pct;
	r->max_phase_seconds = o->max_phase_seconds;
	r->debug_dirs = o->debug_dirs;
	r->ndebug_dirs = o->ndebug_dirs;
	r->profiled = !o->no_profile;
	r->ledger = run->ledger;
	r->hook = run->ledger && run->hook.hook ? &run->hook : NULL;
	r->site_every = o->site_every > 0 ? o->site_every : MUXBPF_DEFAULT_SITE_EVERY;
	r->max_drop_pct = o->max_drop_pct;
	r->stopped = run->stopped[0] ? run->stopped : NULL;
	r->exits_lost = run->profile.exits_lost;
	r->period_redraws = run->profile.period_redraws;
	r->period_failed = run->profile.period_failed;
	r->period_err = run->profile.period_err;
	r->unwind = &run->profile.unwind;
	r->live = run->live.valid ? &run->live : NULL;
	err = own_softcode(r, run);
	if (err)
		return err;
	for (int i = 0; i < run->nwindows; i++) {
		fill_window(&r->phases[r->nphases], &run->windows[i], run, r->profiled);
		if (r->ledger) {
			err = fill_ledger(&r->phases[r->nphases], &run->windows[i], run);
			if (err)
				return err;
		}
		r->nphases++;
	}
	fill_outside(&r->phases[r->nphases], r, run, r->profiled);
	r->nphases++;
	if (!r->profiled)
		return report_figures(r);
	sym = session_symbolizer(o, run);
	if (!sym)
		return -errno;
	t0 = mono_ms();
	err = resolve_profile(sym, run->maps, &run->last_maps, &run->profile, run->pid, &res);
	t1 = mono_ms();
	/* the softcode counts' join with the resolved stacks: for the stack rule and the artifacts */
	if (!err && run->softcode.valid)
		err = sample_index_build(&ix, &run->profile, (uint32_t)run->pid, (uint32_t)run->pid);
	if (!err)
		err = fold_all(r, run, &res, softcode_stack_rule(r, &between));
	pr_verbose("timing: symbolized %zu distinct stacks (%zu sample keys) in %.1f ms, folded in "
		   "%.1f ms", run->profile.stacks.n, run->profile.n, t1 - t0, mono_ms() - t1);
	if (!err && r->ledger)
		err = resolve_sites(&sites, r, sym, run);
	if (!err && r->ledger)
		err = label_sites(r, &sites);
	if (!err && sp)
		err = add_to_sprof(sp, r, run, &res, &ix, &sites);
	r->stacks = sp;
	sample_index_free(&ix);
	sites_free(&sites, r);
	resolve_free(&res);
	r->sym = sym; /* the tables' dso and info pointers live in it: freed by report_free() */
	/* after the stack rule and the rounds: the rows read the counts it moved, the intervals
	 * the rounds' */
	return err ?: report_figures(r);
}

void report_free(struct report *r)
{
	report_figures_free(r);
	report_flames_free(r);
	for (int i = 0; i < r->nphases; i++) {
		struct report_phase *p = &r->phases[i];

		for (size_t j = 0; p->site_labels && j < p->ledger.nsites; j++)
			free(p->site_labels[j]);
		free(p->site_labels);
		phase_ledger__free(&p->ledger);
		fold_table__free(&p->fold);
		free(p->rounds.v);
		free(p->rounds.sys);
		for (int j = 0; j < p->rounds.nsc; j++)
			sc_rows__free(&p->rounds.sc_cum[j]);
		free(p->rounds.sc_cum);
		for (int by = 0; by < FOLD_BY__COUNT; by++)
			for (int t = 0; t < 2; t++) {
				free(p->rounds.ci[by][t]);
				free(p->rounds.from_rounds[by][t]);
			}
		memset(&p->rounds, 0, sizeof(p->rounds));
	}
	fold_table__free(&r->symbols);
	if (r->sc_own)
		free(r->sc_own->counts);
	free(r->sc_own);
	r->sc_own = NULL;
	symbolizer__free(r->sym);
	r->sym = NULL;
}

