// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * muxbpf: profile a throwaway netmux phase by phase from BPF maps.
 *
 * The pipeline: options -> run (game, attach, drive, collect) -> resolve (symbolize) -> fold
 * (per-phase function tables) -> report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fold.h"
#include "log.h"
#include "opts.h"
#include "report.h"
#include "resolve.h"
#include "run.h"

/* Fill one report row from a measured window. */
static void fill_window(struct report_phase *rp, const struct window *w, const struct run *run,
			bool profiled)
{
	rp->id = w->phase;
	rp->measured = true;
	rp->ok = w->result.ok;
	snprintf(rp->error, sizeof(rp->error), "%s", w->result.error);
	rp->wall_s = w->result.wall_s;
	rp->commands = w->result.commands;
	rp->schedstat_ns = w->after.proc.schedstat_ns - w->before.proc.schedstat_ns;
	rp->oncpu_ns = profiled ? rt_delta(&w->before.rt, &w->after.rt, run->pid) : rp->schedstat_ns;
	rp->usr_ns = w->after.proc.utime_ns - w->before.proc.utime_ns;
	rp->sys_ns = w->after.proc.stime_ns - w->before.proc.stime_ns;
	rp->proc_usr_ns = rp->usr_ns;
	rp->proc_sys_ns = rp->sys_ns;
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

static int fold_all(struct report *r, const struct run *run, struct mb_sym **frames)
{
	for (int i = 0; i < r->nphases; i++) {
		struct report_phase *rp = &r->phases[i];
		int err;

		rp->stats = run->profile.stats[rp->id];
		err = fold_phase(&run->profile, frames, rp->id, run->pid, &rp->fold);
		if (err)
			return err;
		rp->other_pid_samples = rp->stats.recorded - rp->fold.samples;
	}
	return 0;
}

#define SITE_FRAMES 4

/* "a <- b <- c <- d": the first frames of a call site's user stack. */
static char *site_label(struct symbolizer *sym, const struct run *run, unsigned int phase,
			int32_t stack_id)
{
	const struct mb_stack *st = stack_id >= 0 ? stack_table__find(&run->profile.stacks,
								    stack_id)
						  : NULL;
	struct mb_sym frames[SITE_FRAMES];
	char buf[1024] = "";
	size_t len = 0;
	uint32_t nr;

	if (!st || !st->nr)
		return NULL;
	nr = st->nr < SITE_FRAMES ? st->nr : SITE_FRAMES;
	if (resolve_stack(sym, &run->maps[phase], &run->last_maps, st->ips, nr, frames))
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
	if (st->nr > nr && len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, " <- ...");
	return strdup(buf);
}

/* Labels for the call sites the report lists (the top ones of each phase). */
static int label_sites(struct report *r, struct symbolizer *sym, const struct run *run)
{
	for (int i = 0; i < r->nphases; i++) {
		struct report_phase *p = &r->phases[i];
		size_t n = p->ledger.nsites < (size_t)r->top ? p->ledger.nsites : (size_t)r->top;

		if (!p->has_ledger || !n)
			continue;
		p->site_labels = calloc(p->ledger.nsites, sizeof(*p->site_labels));
		if (!p->site_labels)
			return -ENOMEM;
		for (size_t j = 0; j < n; j++)
			p->site_labels[j] = site_label(sym, run, p->id, p->ledger.sites[j].stack_id);
	}
	return 0;
}

static int build_report(struct report *r, const struct opts *o, const struct run *run)
{
	struct mb_sym **frames = NULL;
	struct symbolizer *sym;
	int err;

	memset(r, 0, sizeof(*r));
	r->target = run->netmux;
	r->version = run->version;
	r->pid = run->pid;
	r->port = run->port;
	r->scale = o->scale;
	r->freq = o->freq;
	r->top = o->top;
	r->profiled = !o->no_profile;
	r->ledger = run->ledger;
	r->unwind = &run->profile.unwind;
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
		return 0;
	sym = symbolizer__new();
	if (!sym)
		return -errno;
	err = resolve_profile(sym, run->maps, &run->last_maps, &run->profile, run->pid, &frames);
	if (!err)
		err = fold_all(r, run, frames);
	if (!err && r->ledger)
		err = label_sites(r, sym, run);
	resolve_free(frames, run->profile.n);
	symbolizer__free(sym);
	return err;
}

static void report_free(struct report *r)
{
	for (int i = 0; i < r->nphases; i++) {
		struct report_phase *p = &r->phases[i];

		for (size_t j = 0; p->site_labels && j < p->ledger.nsites; j++)
			free(p->site_labels[j]);
		free(p->site_labels);
		phase_ledger__free(&p->ledger);
		fold_table__free(&p->fold);
	}
}

int main(int argc, char **argv)
{
	struct report report;
	struct opts o;
	struct run run;
	int err, rerr, problems;

	err = opts_parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	err = run_session(&o, &run);
	if (!run.pid) {
		run__free(&run);
		return 1;
	}
	rerr = build_report(&report, &o, &run);
	if (rerr)
		pr_err("failed to build the report: %s", strerror(-rerr));
	else
		report_print(stdout, &report);
	problems = rerr ? 1 : report_check(&report);
	if (err)
		pr_err("run incomplete: %s", strerror(-err));
	report_free(&report);
	run__free(&run);
	return err || problems ? 1 : 0;
}
