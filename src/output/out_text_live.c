// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The profiler's own cost per phase, the live session's header and the maps' occupancy. */
#include <inttypes.h>
#include "model/ledger.h"
#include "base/phases.h"
#include "output/out_text_live.h"

void report_print_live(FILE *f, const struct report *r)
{
	const struct mb_live_info *l = r->live;

	if (!l)
		return;
	if (l->attached)
		fprintf(f, "  attached: %s (%s), running for %.0f s before; sampler: %d per-thread "
			"event%s (later threads and children inherit them); %d thread%s seen\n",
			l->how, *l->comm ? l->comm : "?", l->target_age_s, l->sampler_threads,
			l->sampler_threads == 1 ? "" : "s", l->threads_seen,
			l->threads_seen == 1 ? "" : "s");
	fprintf(f, "  live phases: ");
	if (*l->control)
		fprintf(f, "--control %s", l->control);
	else if (l->interval_s > 0)
		fprintf(f, "--interval %g s", l->interval_s);
	else
		fprintf(f, "one window");
	if (l->duration_s > 0)
		fprintf(f, ", --duration %g s", l->duration_s);
	fprintf(f, "; ended by %s after %.1f s\n", *l->stop_reason ? l->stop_reason : "an error",
		l->elapsed_s);
	fprintf(f, "  boundary readings: %d, %d with a target thread on a CPU (runtime then up to "
		"a tick old)\n", l->readings, l->readings_busy);
	fprintf(f, "  muxbpf itself: %.1f ms CPU in %.1f s (%.4f%% of a core), RSS %" PRIu64
		" KiB (peak %" PRIu64 " KiB)\n", l->self_cpu_ns / 1e6, l->elapsed_s,
		stats_pct(l->self_cpu_ns / 1e9, l->elapsed_s), l->rss_kb, l->rss_peak_kb);
	if (!l->occ_valid)
		return;
	fprintf(f, "  maps (hash maps that can fill; entries now / peak / size):\n");
	for (int i = 0; i < l->occ.n; i++) {
		const struct mb_map_occ *o = &l->occ.v[i];

		fprintf(f, "    %-16s %8" PRId64 " / %8" PRId64 " / %8u  %5.1f%%%s\n", o->name,
			o->elements, o->peak, o->max_entries, stats_pct(o->peak, o->max_entries),
			o->warned ? "  NEARLY FULL" : "");
	}
	fprintf(f, "    dropped: %" PRIu64 " samples (samples map full), %" PRIu64 " stacks (a stack "
		"map full: leaf only), %" PRIu64 " ledger entries, %" PRIu64 " thread exits\n",
		l->occ.samples_lost, l->occ.stacks_full, l->occ.ledger_lost, l->occ.exits_lost);
	fprintf(f, "    checked every second (%" PRIu64 " checks, %s, %.1f us each)\n",
		l->occ.checks, l->occ.kernel_count ? "the kernel's element counters"
						   : "walking the keys",
		r->live_check_us);
}

/*
 * One line in a phase's section (not a table of its own: scripts find the phase table's rows
 * by their first word), and one for the bystanders.  With the statistics off (the default after
 * the calibration window) the BPF figure is the estimate from the programs' own counts; with
 * them on all through the window (--bpf-stats) it is the statistics', the estimate beside it.
 */
void report_print_cost_line(FILE *f, const struct report_phase *p)
{
	const struct mb_cost *c = &p->cost;
	const struct mb_cost_est *e = &c->est;
	double bpf = p->cost_bpf_ns;

	if (!c->valid)
		return;
	fprintf(f, "  profiler cost: ");
	if (!c->stats && !e->valid) {
		fprintf(f, "BPF run time not measured (--no-bpf-stats, or the kernel refused "
			"run-time statistics): %" PRIu64 " ledger runs in netmux's context, %" PRIu64
			" early exits, %" PRIu64 " samples; muxbpf %.2f ms CPU = %.3f%% of a core\n",
			e->target_runs, e->exits, e->samples, c->self_cpu_ns / 1e6,
			stats_pct(c->self_cpu_ns, c->wall_ns));
		return;
	}
	if (p->oncpu_ns)
		fprintf(f, "BPF %.3f ms = %.2f%% of on-CPU", bpf / 1e6,
			stats_pct(bpf, p->oncpu_ns));
	else
		fprintf(f, "BPF %.3f ms (no on-CPU time to compare)", bpf / 1e6);
	if (c->stats && e->valid)
		fprintf(f, " (run-time statistics; estimated from the run counts: %.3f ms, %+.1f%%)",
			e->bpf_ns / 1e6, p->cost_est_vs_stats_pct);
	else if (c->stats)
		fprintf(f, " (run-time statistics)");
	else if (c->calib.target_syscalls < CALIB_THIN_RUNS)
		/* an idle target in the window: its target runs' ns rest on few timings */
		fprintf(f, " (estimated: run counts × ns per run from the %.1f s calibration "
			"window%s, only %" PRIu64 " netmux syscalls in it)", c->calib.seconds,
			c->stats_part ? ", which overlapped this phase" : "",
			c->calib.target_syscalls);
	else
		fprintf(f, " (estimated: run counts × ns per run from the %.1f s calibration "
			"window%s)", c->calib.seconds,
			c->stats_part ? ", which overlapped this phase" : "");
	fprintf(f, "; sampler %" PRIu64 " runs, ledger %" PRIu64 " runs in netmux's context; "
		"muxbpf %.2f ms CPU = %.3f%% of a core\n", c->stats ? c->sampler_runs : e->samples, e->target_runs,
		c->self_cpu_ns / 1e6, stats_pct(c->self_cpu_ns, c->wall_ns));
}

void report_print_cost(FILE *f, const struct report_phase *p)
{
	const struct mb_cost_est *e = &p->cost.est;

	if (!p->cost.valid)
		return;
	report_print_cost_line(f, p);
	if (!p->cost.stats && !e->valid)
		return;
	if (e->valid)
		fprintf(f, "  bystanders: %" PRIu64 " early exits for other processes' events, "
			"%.3f ms in the programs (%.0f ns each, calibrated); the syscall hook's "
			"dispatch around them is not in this figure\n", e->exits,
			e->bystander_ns / 1e6, p->bystander_ns_each);
	report_print_corrected(f, p);
}

/*
 * The phase's figures less muxbpf's own time in netmux's context: an estimate, labelled so in
 * every line; the measured figures above stay as they are.
 */
void report_print_corrected(FILE *f, const struct report_phase *p)
{
	const struct phase_ledger *l = &p->ledger;
	const struct mb_corrected *k = &p->corrected;

	if (!p->has_ledger || !k->valid)
		return;
	fprintf(f, "  corrected for muxbpf (estimate): on-CPU %.2f ms (user %.2f + syscalls %.2f), "
		"measured %.2f; removed %.3f ms of its programs in netmux's context",
		k->oncpu_ns / 1e6, k->usr_ns / 1e6, k->sys_ns / 1e6, l->oncpu_ns / 1e6,
		k->programs_ns / 1e6);
	if (k->floor_ns >= 0)
		fprintf(f, " and %.3f ms of syscall hook path (%.0f ns × %" PRIu64 " syscalls, "
			"measured at attach)", k->path_ns / 1e6, k->floor_ns, l->sys_count);
	fprintf(f, "; each syscall %.0f ns less", k->call_ns);
	for (size_t i = 0; i < l->nsys && i < 3; i++)
		if (l->sys[i].count)
			fprintf(f, "%s %s %.2f us/call", i ? "," : ":", syscall_name(l->sys[i].nr),
				p->sys_corrected[i].us_per_call);
	fputc('\n', f);
}
