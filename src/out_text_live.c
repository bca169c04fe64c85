// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The profiler's own cost per phase, the live session's header and the maps' occupancy. */
#include <inttypes.h>
#include "phases.h"
#include "out_text_live.h"

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

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
		pct(l->self_cpu_ns / 1e9, l->elapsed_s), l->rss_kb, l->rss_peak_kb);
	if (!l->occ_valid)
		return;
	fprintf(f, "  maps (hash maps that can fill; entries now / peak / size):\n");
	for (int i = 0; i < l->occ.n; i++) {
		const struct mb_map_occ *o = &l->occ.v[i];

		fprintf(f, "    %-16s %8" PRId64 " / %8" PRId64 " / %8u  %5.1f%%%s\n", o->name,
			o->elements, o->peak, o->max_entries, pct(o->peak, o->max_entries),
			o->warned ? "  NEARLY FULL" : "");
	}
	fprintf(f, "    dropped: %" PRIu64 " samples (samples map full), %" PRIu64 " stacks (a stack "
		"map full: leaf only), %" PRIu64 " ledger entries, %" PRIu64 " thread exits\n",
		l->occ.samples_lost, l->occ.stacks_full, l->occ.ledger_lost, l->occ.exits_lost);
	fprintf(f, "    checked every second (%" PRIu64 " checks, %s, %.1f us each)\n",
		l->occ.checks, l->occ.kernel_count ? "the kernel's element counters"
						   : "walking the keys",
		l->occ.checks ? l->occ.check_ns / 1e3 / l->occ.checks : 0.0);
}

/*
 * One line in a phase's section (not a table of its own: scripts find the phase table's rows
 * by their first word).  The BPF time includes the ledger's tracepoint runs for other
 * processes; the statistics add two clock reads per run (README: long runs).
 */
void report_print_cost(FILE *f, const struct report_phase *p)
{
	const struct mb_cost *c = &p->cost;

	if (!c->valid)
		return;
	fprintf(f, "  profiler cost: ");
	if (!c->stats) {
		fprintf(f, "BPF run time not measured (--no-bpf-stats, or the kernel refused "
			"run-time statistics); muxbpf %.2f ms CPU = %.3f%% of a core\n",
			c->self_cpu_ns / 1e6, pct(c->self_cpu_ns, c->wall_ns));
		return;
	}
	if (p->oncpu_ns)
		fprintf(f, "BPF %.3f ms = %.2f%% of on-CPU", c->bpf_ns / 1e6,
			pct(c->bpf_ns, p->oncpu_ns));
	else
		fprintf(f, "BPF %.3f ms (no on-CPU time to compare)", c->bpf_ns / 1e6);
	fprintf(f, " (sampler %" PRIu64 " runs, ledger %" PRIu64 " runs, also for other "
		"processes); muxbpf %.2f ms CPU = %.3f%% of a core\n", c->sampler_runs,
		c->ledger_runs, c->self_cpu_ns / 1e6, pct(c->self_cpu_ns, c->wall_ns));
}
