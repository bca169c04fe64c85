// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* report.json: the profiler's cost per phase and the live session (schema: doc/report.schema.json). */
#include "model/ledger.h"
#include "output/out_json_live.h"

void json_write_cost(struct jw *w, const struct report_phase *p)
{
	const struct mb_cost *c = &p->cost;

	jw_key(w, "cost");
	if (!c->valid) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_kbool(w, "bpf_stats", c->stats);
	jw_ku64(w, "bpf_run_ns", c->bpf_ns);
	jw_ku64(w, "bpf_runs", c->bpf_runs);
	jw_ku64(w, "sampler_run_ns", c->sampler_ns);
	jw_ku64(w, "sampler_runs", c->sampler_runs);
	jw_ku64(w, "ledger_run_ns", c->ledger_ns);
	jw_ku64(w, "ledger_runs", c->ledger_runs);
	jw_key(w, "bpf_pct_of_oncpu");
	if (c->stats && p->oncpu_ns)
		jw_num(w, 100.0 * c->bpf_ns / p->oncpu_ns);
	else
		jw_null(w);
	jw_ku64(w, "muxbpf_cpu_ns", c->self_cpu_ns);
	jw_knum(w, "muxbpf_pct_of_core", stats_pct(c->self_cpu_ns, c->wall_ns));
	json_write_estimate(w, c);
	jw_obj_end(w);
}

void json_write_corrected(struct jw *w, const struct report_phase *p)
{
	const struct phase_ledger *l = &p->ledger;
	const struct mb_corrected *k = &p->corrected;

	jw_key(w, "corrected");
	if (!p->has_ledger || !k->valid) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_kstr(w, "label", "estimate: measured figures less muxbpf's own time in the target's "
			    "context");
	jw_knum(w, "oncpu_ns", k->oncpu_ns);
	jw_knum(w, "usr_ns", k->usr_ns);
	jw_knum(w, "sys_ns", k->sys_ns);
	jw_knum(w, "programs_ns", k->programs_ns);
	jw_knum(w, "tracepoint_path_ns", k->path_ns);
	jw_key(w, "floor_ns_per_syscall");
	if (k->floor_ns >= 0)
		jw_num(w, k->floor_ns);
	else
		jw_null(w);
	jw_knum(w, "ns_per_syscall_removed", k->call_ns);
	jw_key(w, "syscalls");
	jw_arr(w);
	for (size_t i = 0; i < l->nsys; i++) {
		jw_obj(w);
		jw_kstr(w, "name", syscall_name(l->sys[i].nr));
		jw_ku64(w, "calls", l->sys[i].count);
		jw_knum(w, "cpu_ns", p->sys_corrected[i].cpu_ns);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* The programs' own counts and the cost estimated from them (cost.c, cost_estimate()). */
void json_write_estimate(struct jw *w, const struct mb_cost *c)
{
	const struct mb_cost_est *e = &c->est;

	jw_key(w, "run_counts");
	if (!c->counts.valid) {
		jw_null(w);
	} else {
		jw_obj(w);
		jw_ku64(w, "target_runs", e->target_runs);
		jw_ku64(w, "early_exits", e->exits);
		jw_ku64(w, "samples", e->samples);
		jw_ku64(w, "syscalls", e->calls);
		jw_obj_end(w);
	}
	jw_key(w, "estimate");
	if (!e->valid) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_knum(w, "bpf_run_ns", e->bpf_ns);
	jw_knum(w, "ledger_run_ns", e->ledger_ns);
	jw_knum(w, "sampler_run_ns", e->sampler_ns);
	jw_knum(w, "bystander_ns", e->bystander_ns);
	jw_knum(w, "in_context_ns", e->in_ctx_ns);
	jw_knum(w, "in_syscalls_ns", e->in_call_ns);
	jw_knum(w, "calibration_s", c->calib.seconds);
	jw_ku64(w, "calibration_target_syscalls", c->calib.target_syscalls);
	jw_obj_end(w);
}

void json_write_live(struct jw *w, const struct report *r)
{
	const struct mb_live_info *l = r->live;

	jw_key(w, "live");
	if (!l) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_kbool(w, "attached", l->attached);
	jw_kstr(w, "how", l->attached ? l->how : NULL);
	jw_kstr(w, "comm", l->attached ? l->comm : NULL);
	jw_knum(w, "target_age_s", l->target_age_s);
	jw_ki64(w, "sampler_threads", l->sampler_threads);
	jw_ki64(w, "threads_seen", l->threads_seen);
	jw_kstr(w, "control", *l->control ? l->control : NULL);
	jw_knum(w, "interval_s", l->interval_s);
	jw_knum(w, "duration_s", l->duration_s);
	jw_kstr(w, "stop_reason", l->stop_reason);
	jw_knum(w, "elapsed_s", l->elapsed_s);
	jw_ki64(w, "readings", l->readings);
	jw_ki64(w, "readings_busy", l->readings_busy);
	jw_ku64(w, "muxbpf_cpu_ns", l->self_cpu_ns);
	jw_ku64(w, "muxbpf_rss_kb", l->rss_kb);
	jw_ku64(w, "muxbpf_rss_peak_kb", l->rss_peak_kb);
	jw_key(w, "maps");
	if (!l->occ_valid) {
		jw_null(w);
	} else {
		jw_obj(w);
		jw_kbool(w, "kernel_count", l->occ.kernel_count);
		jw_ku64(w, "checks", l->occ.checks);
		jw_ku64(w, "check_ns", l->occ.check_ns);
		jw_ku64(w, "samples_lost", l->occ.samples_lost);
		jw_ku64(w, "stacks_full", l->occ.stacks_full);
		jw_ku64(w, "ledger_lost", l->occ.ledger_lost);
		jw_ku64(w, "exits_lost", l->occ.exits_lost);
		jw_key(w, "maps");
		jw_arr(w);
		for (int i = 0; i < l->occ.n; i++) {
			jw_obj(w);
			jw_kstr(w, "name", l->occ.v[i].name);
			jw_ku64(w, "max_entries", l->occ.v[i].max_entries);
			jw_ki64(w, "entries", l->occ.v[i].elements);
			jw_ki64(w, "peak", l->occ.v[i].peak);
			jw_obj_end(w);
		}
		jw_arr_end(w);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}
