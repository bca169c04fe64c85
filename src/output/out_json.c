// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report.json: every number of the report, per phase (doc/report.schema.json describes it).
 * Raw counters are written as integers in their own unit (ns, samples, calls); the rates and
 * shares the terminal shows are written as well, so that a reader never recomputes them.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "base/json.h"
#include "output/out_softcode.h"
#include "output/out_json_live.h"
#include "model/ledger.h"
#include "output/out_json.h"
#include "base/phases.h"
#include "fold/rounds.h"
#include "report/runs.h"
#include "base/stats.h"

static const char *const unwind_modes[] = { "fp", "dwarf", "auto" };

static const char *const walk_names[MUXBPF_WALK_END__COUNT] = {
	[MUXBPF_WALK_OUTERMOST] = "outermost", [MUXBPF_WALK_ZERO_END] = "zero_end",
	[MUXBPF_WALK_NO_PROC] = "no_proc", [MUXBPF_WALK_NO_TABLE] = "no_table",
	[MUXBPF_WALK_NO_ROW] = "no_row", [MUXBPF_WALK_UNSUPPORTED] = "unsupported",
	[MUXBPF_WALK_READ_FAULT] = "read_fault", [MUXBPF_WALK_BAD_FRAME] = "bad_frame",
	[MUXBPF_WALK_DEPTH] = "depth",
};

static const char *const drop_names[MUXBPF_DROP__COUNT] = {
	[MUXBPF_DROP_STACK_FAILED] = "stack_failed", [MUXBPF_DROP_COUNTS_FULL] = "counts_full",
	[MUXBPF_DROP_PHASE_RANGE] = "phase_range", [MUXBPF_DROP_STACK_FULL] = "stack_full",
};

/* A stable key for an enum value, "NAME_N" for a value added to the enum after this table. */
static const char *key_of(const char *const *names, int i, const char *prefix)
{
	static char buf[8][32];
	static int next;
	char *b;

	if (names[i])
		return names[i];
	b = buf[next++ % 8];
	snprintf(b, sizeof(buf[0]), "%s_%d", prefix, i);
	return b;
}

static const char *const lmap_names[MUXBPF_LMAP__COUNT] = {
	[MUXBPF_LMAP_THREAD_STATE] = "thread_state", [MUXBPF_LMAP_SYSCALLS] = "syscalls",
	[MUXBPF_LMAP_SITES] = "sites", [MUXBPF_LMAP_WAKEUPS] = "wakeups",
	[MUXBPF_LMAP_THREADS] = "threads",
};

static const char *const unnamed_keys[MB_UNNAMED__COUNT] = {
	[MB_NAMED] = "named", [MB_UNNAMED_NO_MAPPING] = "no_mapping", [MB_UNNAMED_ANON] = "anon",
	[MB_UNNAMED_NO_FILE] = "no_file", [MB_UNNAMED_NO_SYMBOL] = "no_symbol",
	[MB_UNNAMED_STRIPPED] = "stripped",
};

/* The ledger's syscall hook: which, why, and what another process's syscall pays for it. */
static void write_syscall_hook(struct jw *w, const struct report *r)
{
	const struct syscall_hook_info *h = r->hook;

	jw_key(w, "syscall_hook");
	if (!h) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_kstr(w, "hook", syscall_hook_name(h->hook));
	jw_kstr(w, "attached_to", syscall_hook_where(h->hook));
	jw_kstr(w, "why", h->why);
	jw_key(w, "bystander_ns_per_syscall");
	if (h->bystander_ns >= 0)
		jw_num(w, h->bystander_ns);
	else
		jw_null(w);
	jw_obj_end(w);
}

static void write_unwind(struct jw *w, const struct report *r)
{
	const struct mb_unwind_summary *u = r->unwind;

	jw_key(w, "unwind");
	if (!r->profiled || !u || !u->valid || u->mode < 0 || u->mode > MUXBPF_UNWIND_AUTO) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_kstr(w, "mode", unwind_modes[u->mode]);
	jw_ku64(w, "tables", u->tables);
	jw_ku64(w, "loaded", u->loaded);
	jw_ku64(w, "procs", u->procs);
	jw_ku64(w, "no_cfi", u->no_cfi);
	jw_ku64(w, "full", u->full);
	jw_ku64(w, "rows", u->rows);
	jw_ku64(w, "infos", u->infos);
	jw_ku64(w, "bytes", u->bytes);
	jw_ku64(w, "rows_cap", u->rows_cap);
	jw_ku64(w, "infos_cap", u->infos_cap);
	jw_knum(w, "build_ms", u->build_ms);
	jw_knum(w, "build_max_ms", u->build_max_ms);
	jw_ku64(w, "sampler_runs", u->sampler_runs);
	jw_ku64(w, "sampler_run_ns", u->sampler_run_ns);
	jw_key(w, "sampler_ns_per_sample");
	if (u->sampler_runs)
		jw_num(w, r->sampler_ns_per_sample);
	else
		jw_null(w);
	jw_obj_end(w);
}

static void write_sampler(struct jw *w, const struct muxbpf_phase_stats *st)
{
	jw_key(w, "sampler");
	jw_obj(w);
	jw_ku64(w, "taken", st->taken);
	jw_ku64(w, "recorded", st->recorded);
	jw_key(w, "dropped");
	jw_obj(w);
	for (int d = 0; d < MUXBPF_DROP__COUNT; d++)
		jw_ku64(w, key_of(drop_names, d, "drop"), st->dropped[d]);
	jw_obj_end(w);
	jw_ku64(w, "walks", st->walks);
	jw_ku64(w, "frames", st->frames);
	jw_ku64(w, "fp_frames", st->fp_frames);
	jw_key(w, "walk_end");
	jw_obj(w);
	for (int e = 0; e < MUXBPF_WALK_END__COUNT; e++)
		jw_ku64(w, key_of(walk_names, e, "walk_end"), st->walk_end[e]);
	jw_obj_end(w);
	jw_obj_end(w);
}

static void write_rows(struct jw *w, const struct report_phase *p, enum fold_by by)
{
	const struct fold_view *v = &p->fold.by[by];
	uint64_t samples = p->fold.samples;

	jw_arr(w);
	for (size_t i = 0; i < v->n; i++) {
		const bool *rounds = p->rounds.from_rounds[by][0];
		const struct stats_ci self = p->share_ci[by][0][i], total = p->share_ci[by][1][i];

		jw_obj(w);
		jw_kstr(w, "name", v->rows[i].name);
		jw_ku64(w, "self", v->rows[i].self);
		jw_ku64(w, "total", v->rows[i].total);
		jw_knum(w, "self_pct", samples ? 100.0 * v->rows[i].self / samples : 0);
		jw_knum(w, "total_pct", samples ? 100.0 * v->rows[i].total / samples : 0);
		json_write_ci(w, "self_ci_pct", &self);
		json_write_ci(w, "total_ci_pct", &total);
		jw_kbool(w, "self_ci_wide", stats_ci_wide(&self));
		jw_kstr(w, "self_ci_from", rounds && rounds[i] ? "rounds" : "wilson");
		jw_kbool(w, "unnamed", v->rows[i].unnamed);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* Leaf samples per DSO: named, with a source line, and why not. */
static void write_leaf_dsos(struct jw *w, const char *key, const struct fold_table *t)
{
	jw_key(w, key);
	jw_arr(w);
	for (size_t i = 0; i < t->ndsos; i++) {
		const struct fold_dso *d = &t->dsos[i];

		jw_obj(w);
		jw_kstr(w, "dso", d->dso);
		jw_kstr(w, "build_id", d->info && d->info->build_id && *d->info->build_id
					       ? d->info->build_id : NULL);
		jw_kstr(w, "symbols", d->info ? d->info->symbols : NULL);
		jw_kbool(w, "dwarf", d->info && d->info->dwarf);
		jw_ku64(w, "samples", d->samples);
		jw_ku64(w, "named", d->named);
		jw_ku64(w, "with_line", d->with_line);
		jw_key(w, "unnamed_why");
		jw_obj(w);
		for (int k = 1; k < MB_UNNAMED__COUNT; k++)
			jw_ku64(w, key_of(unnamed_keys, k, "unnamed"), d->why[k]);
		jw_obj_end(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* The function table (rows: the function view) and the other views the run folded. */
static void write_functions(struct jw *w, const struct report_phase *p)
{
	const struct fold_table *t = &p->fold;

	jw_key(w, "functions");
	jw_obj(w);
	jw_ku64(w, "samples", t->samples);
	jw_ku64(w, "unnamed", t->unnamed);
	jw_ku64(w, "with_line", t->with_line);
	jw_ku64(w, "no_stack", t->no_stack);
	jw_key(w, "unnamed_why");
	jw_obj(w);
	for (int i = 1; i < MB_UNNAMED__COUNT; i++)
		jw_ku64(w, key_of(unnamed_keys, i, "unnamed"), t->unnamed_why[i]);
	jw_obj_end(w);
	jw_key(w, "rows");
	write_rows(w, p, FOLD_BY_FUNCTION);
	jw_key(w, "views");
	jw_obj(w);
	for (int by = 0; by < FOLD_BY__COUNT; by++) {
		if (by == FOLD_BY_FUNCTION || !t->by[by].n)
			continue;
		jw_key(w, fold_by_name(by));
		write_rows(w, p, by);
	}
	jw_obj_end(w);
	write_leaf_dsos(w, "leaf_dsos", t);
	jw_obj_end(w);
}

/* An interval as {value, lo, hi} in unit (scale: multiplier from the stored unit), or null. */
static void write_interval(struct jw *w, const char *key, const struct stats_ci *ci, double scale)
{
	jw_key(w, key);
	if (!ci->valid) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_knum(w, "value", ci->value * scale);
	jw_knum(w, "lo", ci->lo * scale);
	jw_knum(w, "hi", ci->hi * scale);
	jw_obj_end(w);
}

/* How the phase ran in rounds, why it stopped, its batches and the rounds' agreement. */
static void write_rounds(struct jw *w, const struct report_phase *p, bool merged)
{
	const struct report_rounds *rr = &p->rounds;
	const struct rounds_homog *h = &rr->homog;

	jw_key(w, "rounds");
	/* phases marked from outside (ids from MUXBPF_PHASE__COUNT on) are not driven */
	if (!p->measured || (merged && !rr->runs) || p->id >= MUXBPF_PHASE__COUNT) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_ku64(w, "count", rr->n);
	jw_kstr(w, "stop", round_stop_name(rr->stop));
	jw_kbool(w, "repeats", rr->repeats);
	jw_ku64(w, "batches", rr->batches);
	jw_kstr(w, "batches_of", rr->runs ? "runs" : "rounds");
	jw_key(w, "top_ci_half_pct");
	if (rr->v)
		jw_num(w, 100 * rr->top_half);
	else
		jw_null(w);
	jw_kstr(w, "judged_view", fold_by_name(rr->judged_by));
	jw_key(w, "stop_ci_half_pct");
	if (rr->stop_judged)
		jw_num(w, 100 * rr->stop_half);
	else
		jw_null(w);
	write_interval(w, "cpu_per_cmd_us", &rr->cpu_per_cmd, 1e-3);
	jw_key(w, "design_factor");
	if (rr->v)
		jw_num(w, p->design_factor);
	else
		jw_null(w);
	jw_key(w, "per_batch");
	jw_arr(w);
	for (unsigned int j = 0; rr->v && j < rr->batches; j++) {
		jw_obj(w);
		jw_ku64(w, "rounds", rr->v[j].rounds);
		jw_knum(w, "wall_s", rr->v[j].wall_s);
		jw_ku64(w, "commands", rr->v[j].commands);
		jw_ku64(w, "oncpu_ns", rr->v[j].oncpu_ns);
		jw_ku64(w, "samples", rr->v[j].samples);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "homogeneity");
	if (!h->valid) {
		jw_null(w);
	} else {
		jw_obj(w);
		jw_ki64(w, "rows", h->rows);
		jw_ki64(w, "batches", h->cols);
		jw_knum(w, "chi2", h->chi2);
		jw_ki64(w, "df", h->df);
		jw_knum(w, "p", h->p);
		jw_knum(w, "dispersion", h->dispersion);
		jw_kbool(w, "inconsistent", h->inconsistent);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

static void write_wake(struct jw *w, const struct ledger_wake_row *k)
{
	jw_obj(w);
	jw_kstr(w, "kind", waker_name(k->kind));
	if (k->kind == MUXBPF_WAKER_TASK) {
		char comm[MUXBPF_COMM_LEN + 1];

		memcpy(comm, k->comm, MUXBPF_COMM_LEN);
		comm[MUXBPF_COMM_LEN] = 0;
		jw_kstr(w, "comm", comm);
		jw_ku64(w, "pid", k->pid);
	} else if (k->kind == MUXBPF_WAKER_SOFTIRQ) {
		jw_kstr(w, "softirq", softirq_name(k->detail));
	}
	jw_ku64(w, "count", k->count);
	jw_obj_end(w);
}

/* A syscall row's share of on-CPU and us/call, their intervals (null: none) and their source. */
static void write_sys_ci(struct jw *w, const struct report_phase *p, size_t i)
{
	static const char *const from_names[] = {
		[REPORT_SYS_NONE] = "none", [REPORT_SYS_ONCE] = "once",
		[REPORT_SYS_BATCHES] = "batches",
	};
	const struct report_sys_ci ci = p->sys_ci[i];
	enum report_sys_from from = p->sys_from;
	bool batches = from == REPORT_SYS_BATCHES;

	jw_knum(w, "oncpu_pct", 100 * ci.share.value);
	if (batches && ci.share.valid) {
		json_write_ci(w, "oncpu_ci_pct", &ci.share);
	} else {
		jw_key(w, "oncpu_ci_pct");
		jw_null(w);
	}
	jw_key(w, "us_per_call_ci");
	if (batches && ci.us_per_call.valid) {
		jw_arr(w);
		jw_num(w, ci.us_per_call.lo);
		jw_num(w, ci.us_per_call.hi);
		jw_arr_end(w);
	} else {
		jw_null(w);
	}
	jw_kbool(w, "oncpu_ci_wide", batches && stats_ci_wide(&ci.share));
	jw_kbool(w, "us_per_call_ci_wide", batches && stats_ci_wide(&ci.us_per_call));
	jw_kstr(w, "ci_from", from_names[from]);
}

static void write_ledger(struct jw *w, const struct report_phase *p)
{
	const struct phase_ledger *l = &p->ledger;

	jw_key(w, "ledger");
	if (!p->has_ledger) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_ku64(w, "wall_ns", l->wall_ns);
	jw_ku64(w, "threads", l->threads);
	jw_ku64(w, "thread_wall_ns", l->thread_wall_ns);
	jw_ku64(w, "oncpu_ns", l->oncpu_ns);
	jw_ku64(w, "user_ns", l->user_ns);
	jw_ku64(w, "sys_cpu_ns", l->sys_cpu_ns);
	jw_ku64(w, "site_cpu_ns", l->site_cpu_ns);
	jw_ku64(w, "site_walk_ns", l->site_walk_ns);
	jw_ku64(w, "sys_wall_ns", l->sys_wall_ns);
	jw_ku64(w, "sys_off_ns", l->sys_off_ns);
	jw_ku64(w, "preempt_user_ns", l->preempt_user_ns);
	jw_ki64(w, "switch_path_ns", l->switch_path_ns);
	jw_ku64(w, "stolen_ns", l->stolen_ns);
	jw_ku64(w, "sys_stolen_ns", l->sys_stolen_ns);
	jw_ku64(w, "rt_before_in_ns", l->rt_before_in_ns);
	jw_ki64(w, "leftover_ns", l->leftover_ns);
	jw_knum(w, "leftover_pct",
		stats_pct(l->leftover_ns, l->thread_wall_ns));
	jw_ku64(w, "off_cpu_ns", p->off_cpu_ns);
	jw_ku64(w, "run_delay_ns", l->run_delay_ns);
	jw_ku64(w, "sys_count", l->sys_count);
	jw_ku64(w, "sys_inexact", l->sys_inexact);
	jw_ku64(w, "switch_in_missed", l->switch_in_missed);
	jw_ku64(w, "nvcsw", l->nvcsw);
	jw_ku64(w, "nivcsw", l->nivcsw);
	jw_ku64(w, "min_flt", l->min_flt);
	jw_ku64(w, "maj_flt", l->maj_flt);
	jw_ku64(w, "wakeups", l->wakeups);
	jw_knum(w, "wakeups_per_s", l->wall_ns ? l->wakeups / (l->wall_ns / 1e9) : 0);
	jw_key(w, "oncpu_us_per_wakeup");
	if (l->wakeups)
		jw_num(w, l->oncpu_ns / 1e3 / l->wakeups);
	else
		jw_null(w);
	jw_ku64(w, "lost", l->lost);
	jw_key(w, "lost_by");
	jw_obj(w);
	for (int m = 0; m < MUXBPF_LMAP__COUNT; m++)
		jw_ku64(w, key_of(lmap_names, m, "map"), l->lost_by[m]);
	jw_obj_end(w);
	jw_key(w, "syscalls");
	jw_arr(w);
	for (size_t i = 0; i < l->nsys; i++) {
		const struct ledger_sys_row *y = &l->sys[i];

		jw_obj(w);
		jw_kstr(w, "name", syscall_name(y->nr));
		jw_ku64(w, "nr", y->nr);
		jw_ku64(w, "count", y->count);
		jw_ku64(w, "cpu_ns", y->cpu_ns);
		jw_ku64(w, "wall_ns", y->wall_ns);
		jw_ku64(w, "inexact", y->inexact);
		jw_knum(w, "us_per_call", y->count ? y->wall_ns / 1e3 / y->count : 0);
		write_sys_ci(w, p, i);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "sites");
	jw_arr(w);
	for (size_t i = 0; i < l->nsites; i++) {
		const struct ledger_site_row *y = &l->sites[i];
		const struct stats_ci ci = p->site_ci[i];

		jw_obj(w);
		jw_kstr(w, "syscall", syscall_name(y->nr));
		jw_ku64(w, "nr", y->nr);
		jw_kstr(w, "call_site", p->site_labels ? p->site_labels[i] : NULL);
		jw_ku64(w, "count", y->count);
		jw_ku64(w, "cpu_ns", y->cpu_ns);
		jw_ku64(w, "wall_ns", y->wall_ns);
		jw_ku64(w, "walk_ns", y->walk_ns);
		jw_knum(w, "cpu_pct", 100 * ci.value);
		if (ci.valid) {
			json_write_ci(w, "cpu_ci_pct", &ci);
		} else {
			jw_key(w, "cpu_ci_pct");
			jw_null(w);
		}
		jw_key(w, "cpu_ci_wide");
		jw_bool(w, ci.valid && stats_ci_wide(&ci));
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "wakers");
	jw_arr(w);
	for (size_t i = 0; i < l->nwakes; i++)
		write_wake(w, &l->wakes[i]);
	jw_arr_end(w);
	jw_obj_end(w);
}

static void write_stat(struct jw *w, const char *key, const struct run_stat *s)
{
	jw_key(w, key);
	jw_obj(w);
	jw_knum(w, "min", s->min);
	jw_knum(w, "median", s->median);
	jw_knum(w, "max", s->max);
	jw_knum(w, "spread", s->spread);
	jw_obj_end(w);
}

static void write_spread(struct jw *w, const struct runs_phase *rp)
{
	jw_key(w, "spread");
	if (!rp) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_ku64(w, "runs", rp->n);
	write_stat(w, "oncpu_ns", &rp->oncpu);
	write_stat(w, "wall_s", &rp->wall);
	write_stat(w, "usr_ns", &rp->usr);
	write_stat(w, "sys_ns", &rp->sys);
	write_stat(w, "cmd_per_s", &rp->cmd_rate);
	jw_key(w, "per_run");
	jw_arr(w);
	for (int i = 0; i < rp->n; i++) {
		jw_obj(w);
		jw_knum(w, "oncpu_ns", rp->oncpu_ns[i]);
		jw_knum(w, "wall_s", rp->wall_s[i]);
		jw_knum(w, "usr_ns", rp->usr_ns[i]);
		jw_knum(w, "sys_ns", rp->sys_ns[i]);
		jw_knum(w, "commands", rp->commands[i]);
		jw_knum(w, "cmd_per_s", rp->rate[i]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static void write_phase(struct jw *w, const struct report *r, const struct report_phase *p,
			const struct runs_summary *rs)
{
	bool split = p->has_ledger || !r->ledger;

	jw_obj(w);
	jw_kstr(w, "name", phase_name(p->id));
	jw_ku64(w, "id", p->id);
	jw_kbool(w, "measured", p->measured);
	jw_kbool(w, "ok", p->ok);
	jw_kbool(w, "partial", p->partial);
	jw_kstr(w, "error", p->error);
	jw_key(w, "wall_s");
	if (p->measured)
		jw_num(w, p->wall_s);
	else
		jw_null(w);
	jw_key(w, "window_ns");
	if (p->measured && p->t_begin_ns && p->t_end_ns) {
		jw_arr(w);
		jw_u64(w, p->t_begin_ns);
		jw_u64(w, p->t_end_ns);
		jw_arr_end(w);
	} else {
		jw_null(w);
	}
	jw_ku64(w, "commands", p->commands);
	jw_key(w, "cmd_per_s");
	if (p->measured && p->commands)
		jw_num(w, p->cmd_per_s);
	else
		jw_null(w);
	jw_ku64(w, "oncpu_ns", p->oncpu_ns);
	jw_ku64(w, "schedstat_ns", p->schedstat_ns);
	/* usr/sys as the table shows them: the ledger's exact split, else /proc ticks */
	jw_kstr(w, "usr_sys_source", p->has_ledger ? "ledger" : split ? "proc" : "none");
	jw_key(w, "usr_ns");
	if (split)
		jw_u64(w, p->has_ledger ? p->ledger.user_ns : p->usr_ns);
	else
		jw_null(w);
	jw_key(w, "sys_ns");
	if (split)
		jw_u64(w, p->has_ledger ? p->ledger.sys_cpu_ns : p->sys_ns);
	else
		jw_null(w);
	jw_ku64(w, "proc_usr_ns", p->proc_usr_ns);
	jw_ku64(w, "proc_sys_ns", p->proc_sys_ns);
	jw_key(w, "oncpu_vs_schedstat_pct");
	if (p->schedstat_ns)
		jw_num(w, p->check_pct);
	else
		jw_null(w);
	jw_ku64(w, "samples", p->stats.recorded);
	jw_ku64(w, "other_pid_samples", p->other_pid_samples);
	write_sampler(w, &p->stats);
	write_functions(w, p);
	write_rounds(w, p, rs != NULL);
	write_ledger(w, p);
	write_spread(w, rs ? runs_phase_of(rs, p->id) : NULL);
	json_write_cost(w, p);
	json_write_corrected(w, p);
	jw_obj_end(w);
}

static void json_issue(void *ctx, bool error, const char *msg)
{
	struct jw *w = ctx;

	jw_obj(w);
	jw_kstr(w, "level", error ? "error" : "warning");
	jw_kstr(w, "message", msg);
	jw_obj_end(w);
}

int report_json_emit(FILE *f, const struct report *r, const struct runs_summary *rs, bool pretty)
{
	struct jw w;

	jw_init(&w, f, pretty);
	jw_obj(&w);
	jw_ku64(&w, "schema_version", REPORT_JSON_SCHEMA_VERSION);
	jw_kstr(&w, "tool", "muxbpf");
	jw_kstr(&w, "muxbpf_version", MUXBPF_VERSION_STRING);
	jw_kstr(&w, "target", r->target);
	jw_kstr(&w, "netmux_version", r->version && *r->version ? r->version : NULL);
	jw_ki64(&w, "pid", r->pid);
	jw_ki64(&w, "port", r->port);
	jw_knum(&w, "scale", r->scale);
	jw_ki64(&w, "freq_hz", r->freq);
	jw_knum(&w, "max_phase_seconds", r->max_phase_seconds);
	jw_ki64(&w, "top", r->top);
	jw_kbool(&w, "profiled", r->profiled);
	jw_kbool(&w, "ledger", r->ledger);
	jw_ki64(&w, "runs", rs ? rs->nruns : 1);
	jw_ku64(&w, "site_every", r->site_every);
	jw_key(&w, "max_drop_pct");
	if (r->max_drop_pct >= 0)
		jw_num(&w, r->max_drop_pct);
	else
		jw_null(&w);
	jw_knum(&w, "min_pct", r->min_pct);
	jw_key(&w, "views");
	jw_arr(&w);
	for (int by = 0; by < FOLD_BY__COUNT; by++)
		if (r->by & FOLD_VIEW(by))
			jw_str(&w, fold_by_name(by));
	jw_arr_end(&w);
	jw_kstr(&w, "stopped", r->stopped && *r->stopped ? r->stopped : NULL);
	jw_ku64(&w, "exits_lost", r->exits_lost);
	jw_key(&w, "warnings");
	jw_arr(&w);
	for (int i = 0; i < r->nissues; i++)
		json_issue(&w, r->issues[i].error, r->issues[i].msg);
	jw_arr_end(&w);
	write_unwind(&w, r);
	write_syscall_hook(&w, r);
	jw_knum(&w, "oncpu_check_max_diff_pct", r->check_max_diff_pct);
	write_leaf_dsos(&w, "symbols", &r->symbols);
	json_write_live(&w, r);
	json_write_softcode(&w, r);
	jw_key(&w, "phases");
	jw_arr(&w);
	for (int i = 0; i < r->nphases; i++)
		write_phase(&w, r, &r->phases[i], rs);
	jw_arr_end(&w);
	jw_obj_end(&w);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

int report_json_write(FILE *f, const struct report *r, const struct runs_summary *rs)
{
	return report_json_emit(f, r, rs, true);
}
