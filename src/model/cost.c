// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a phase cost: the delta between two cost readings, by program group, and the estimate
 * from the programs' own counts and the calibration window's ns per run.  Pure.
 */
#include <string.h>
#include "model/cost.h"
#include "model/ledger.h"

/* Programs whose target run reads the clock outside the calibration window too (the call's or
 * the switch's time): their window's body timing starts at that read, and costs no extra one. */
static bool reads_clock(int prog)
{
	return prog == MUXBPF_PROG_SYS_ENTER || prog == MUXBPF_PROG_SYS_EXIT ||
	       prog == MUXBPF_PROG_SCHED_SWITCH;
}

void calib_from(const struct mb_calib_reading *a, const struct mb_calib_reading *b,
		struct mb_calib *out)
{
	memset(out, 0, sizeof(*out));
	if (!a->valid || !b->valid || b->t_ns <= a->t_ns)
		return;
	out->seconds = (b->t_ns - a->t_ns) / 1e9;
	for (int p = 0; p < MUXBPF_PROG__COUNT; p++) {
		double t = (double)(b->run_ns[p] - a->run_ns[p]);
		double r = (double)(b->counts.runs[p] - a->counts.runs[p]);
		double e = (double)(b->counts.exits[p] - a->counts.exits[p]);
		double n = (double)(b->counts.timed[p] - a->counts.timed[p]);
		double s = n ? (b->counts.timed_ns[p] - a->counts.timed_ns[p]) / n : 0;
		double k = n ? (b->counts.clock_ns[p] - a->counts.clock_ns[p]) / n : 0;
		double ex, run;

		out->target_runs += (uint64_t)r;
		out->exits += (uint64_t)e;
		if (p == MUXBPF_PROG_SYS_ENTER)
			out->target_syscalls = (uint64_t)n;
		if (r + e == 0 || b->run_ns[p] < a->run_ns[p])
			continue;
		ex = (t - r * (s + 2 * k)) / (r + e);
		/* noise (a clock read timed slower than the statistics saw) cannot make it < 0 */
		if (ex < 0)
			ex = 0;
		if (ex > t / (r + e))
			ex = t / (r + e);
		run = ex + s - (reads_clock(p) ? 0 : k);
		out->exit_ns[p] = ex;
		out->run_ns[p] = run > ex ? run : ex;
	}
	if (b->sample_runs > a->sample_runs)
		out->sample_ns = (double)(b->sample_ns - a->sample_ns) /
				 (b->sample_runs - a->sample_runs);
	/* statistics that never moved: the kernel refused them (or another holder's ended) */
	for (int p = 0; p < MUXBPF_PROG__COUNT; p++)
		if (b->run_ns[p] > a->run_ns[p])
			out->valid = true;
	if (b->sample_ns > a->sample_ns)
		out->valid = true;
}

void cost_estimate(const struct mb_calib *cal, const struct mb_run_delta *d, bool stats_on,
		   struct mb_cost_est *out)
{
	const struct muxbpf_run_counts *c = &d->c;

	memset(out, 0, sizeof(*out));
	if (!d->valid)
		return;
	/* target runs: in netmux's context (the interrupt programs run for every task) */
	for (int p = 0; p < MUXBPF_PROG__COUNT; p++) {
		out->target_runs += c->in_ctx[p];
		out->exits += c->exits[p];
	}
	out->samples = d->samples;
	out->calls = c->runs[MUXBPF_PROG_SYS_EXIT];
	if (!cal->valid)
		return;
	out->valid = true;
	for (int p = 0; p < MUXBPF_PROG__COUNT; p++) {
		/*
		 * Target runs inside the calibration window (a phase that overlapped it) read the
		 * clock two or three times more: the window's clock reads, as timed, times that.
		 */
		double extra = (reads_clock(p) ? 2.0 : 3.0) * c->clock_ns[p];

		out->ledger_ns += c->runs[p] * cal->run_ns[p] + c->exits[p] * cal->exit_ns[p] + extra;
		out->bystander_ns += c->exits[p] * cal->exit_ns[p];
		out->in_ctx_ns += c->in_ctx[p] * (cal->run_ns[p] - (stats_on ? 0 : cal->exit_ns[p]));
		if (c->runs[p])
			out->in_ctx_ns += extra * c->in_ctx[p] / c->runs[p];
	}
	out->sampler_ns = d->samples * cal->sample_ns;
	out->bpf_ns = out->ledger_ns + out->sampler_ns;
	/* the sampler runs on the sampled thread's CPU, in its context */
	out->in_ctx_ns += out->sampler_ns;
	/*
	 * The ledger times a call from sys_enter's clock read to sys_exit's: inside it are
	 * sys_enter's work after its read (its run less its start, which is about an early exit)
	 * and sys_exit's start (about an early exit: the statistics' own part of a run, or ~0
	 * without them).
	 */
	out->call_ns = cal->run_ns[MUXBPF_PROG_SYS_ENTER] - cal->exit_ns[MUXBPF_PROG_SYS_ENTER] +
		       (stats_on ? cal->exit_ns[MUXBPF_PROG_SYS_EXIT] : 0);
	out->in_call_ns = out->calls * out->call_ns;
	if (out->in_call_ns > out->in_ctx_ns)
		out->in_call_ns = out->in_ctx_ns;
}

static double at_least_0(double x)
{
	return x > 0 ? x : 0;
}

void cost_correct(uint64_t oncpu_ns, uint64_t sys_ns, uint64_t calls, const struct mb_cost *c,
		  struct mb_corrected *out)
{
	const struct mb_cost_est *e = &c->est;
	double in_call;

	memset(out, 0, sizeof(*out));
	out->floor_ns = -1;
	if (!c->valid || !e->valid)
		return;
	out->valid = true;
	out->floor_ns = c->calib.floor_ns;
	out->call_ns = e->call_ns;
	out->programs_ns = e->in_ctx_ns;
	out->path_ns = c->calib.floor_ns > 0 ? calls * c->calib.floor_ns : 0;
	/* the in-call part of the programs, for the calls of the ledger's own table */
	in_call = calls * e->call_ns;
	if (in_call > e->in_ctx_ns)
		in_call = e->in_ctx_ns;
	out->oncpu_ns = at_least_0((double)oncpu_ns - out->programs_ns - out->path_ns);
	out->sys_ns = at_least_0((double)sys_ns - in_call);
	if (out->sys_ns > out->oncpu_ns)
		out->sys_ns = out->oncpu_ns;
	out->usr_ns = out->oncpu_ns - out->sys_ns;
}

double cost_correct_call(const struct mb_corrected *k, uint64_t cpu_ns, uint64_t count)
{
	if (!k->valid)
		return (double)cpu_ns;
	return at_least_0((double)cpu_ns - count * k->call_ns);
}

static void count_delta(const struct mb_cost_reading *from, const struct mb_cost_reading *to,
			struct mb_run_delta *d)
{
	const __u64 *a = (const __u64 *)&from->new_counts;
	const __u64 *b = (const __u64 *)&to->old_counts;
	__u64 *o = (__u64 *)&d->c;
	size_t n = sizeof(d->c) / sizeof(uint64_t);
	/* the phase's counts at its start (another window of the same id before), else none */
	bool same = from->counted && from->phase_new == to->phase_old;

	memset(d, 0, sizeof(*d));
	if (!to->counted)
		return;
	d->valid = true;
	for (size_t i = 0; i < n; i++)
		o[i] = b[i] - (same && a[i] <= b[i] ? a[i] : 0);
	d->samples = to->old_samples - (same && from->new_samples <= to->old_samples ?
					from->new_samples : 0);
}

void cost_delta(const struct mb_cost_reading *from, const struct mb_cost_reading *to,
		const struct mb_calib *cal, struct mb_cost *out)
{
	memset(out, 0, sizeof(*out));
	if (!from->valid || !to->valid)
		return;
	count_delta(from, to, &out->counts);
	out->calib = cal && cal->valid ? *cal : to->calib;
	out->valid = true;
	out->self_cpu_ns = to->self_cpu_ns - from->self_cpu_ns;
	out->wall_ns = to->t_ns - from->t_ns;
	for (int i = 0; i < to->nprogs; i++) {
		const struct mb_prog_cost *b = &to->progs[i], *a = NULL;
		uint64_t runs, ns;

		for (int j = 0; j < from->nprogs && !a; j++)
			if (!strcmp(from->progs[j].name, b->name))
				a = &from->progs[j];
		runs = b->runs - (a ? a->runs : 0);
		ns = b->run_ns - (a ? a->run_ns : 0);
		out->bpf_runs += runs;
		out->bpf_ns += ns;
		if (!strcmp(b->name, "mb_sample")) {
			out->sampler_runs += runs;
			out->sampler_ns += ns;
		} else if (ledger_prog_slot(b->name) >= 0) {
			out->ledger_runs += runs;
			out->ledger_ns += ns;
		}
	}
	/* the statistics' figures stand for the window only if they were held all through it */
	out->stats = from->stats_on && to->stats_on && out->bpf_ns;
	out->stats_part = !out->stats && (from->stats_on || to->stats_on);
	/*
	 * Statistics not held all through: their times are not the window's (0), and the runs are
	 * the programs' own counts (the kernel counts runs only with the statistics on).
	 */
	if (!out->stats) {
		out->bpf_ns = out->sampler_ns = out->ledger_ns = 0;
		out->sampler_runs = out->ledger_runs = 0;
		if (out->counts.valid) {
			out->sampler_runs = out->counts.samples;
			for (int p = 0; p < MUXBPF_PROG__COUNT; p++)
				out->ledger_runs += out->counts.c.runs[p] + out->counts.c.exits[p];
		}
		out->bpf_runs = out->sampler_runs + out->ledger_runs;
	}
	cost_estimate(&out->calib, &out->counts, out->stats, &out->est);
}
