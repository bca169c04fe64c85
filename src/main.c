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
	for (int i = 0; i < run->nwindows; i++)
		fill_window(&r->phases[r->nphases++], &run->windows[i], run, r->profiled);
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
	resolve_free(frames, run->profile.n);
	symbolizer__free(sym);
	return err;
}

static void report_free(struct report *r)
{
	for (int i = 0; i < r->nphases; i++)
		fold_table__free(&r->phases[i].fold);
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
