// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Plain-text report. */
#include <inttypes.h>
#include <string.h>
#include "log.h"
#include "phases.h"
#include "report.h"

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static void print_header(FILE *f, const struct report *r)
{
	fprintf(f, "muxbpf: %s\n", r->target);
	fprintf(f, "  version  %s\n", r->version && *r->version ? r->version : "(unknown)");
	fprintf(f, "  pid %d, port %d, scale %g", r->pid, r->port, r->scale);
	if (r->profiled)
		fprintf(f, ", %d Hz user-only cpu-clock sampling, frame-pointer stacks\n", r->freq);
	else
		fprintf(f, ", not profiled (--no-profile)\n");
	fprintf(f, "  on-CPU: kernel runtime accounting (exact); usr/sys: /proc ticks (%s)\n\n",
		"10 ms granular");
}

static void print_phase_row(FILE *f, const struct report_phase *p)
{
	char cmds[32] = "-", rate[32] = "-", wall[32] = "-";

	if (p->measured) {
		snprintf(wall, sizeof(wall), "%.3f", p->wall_s);
		if (p->commands) {
			snprintf(cmds, sizeof(cmds), "%" PRIu64, p->commands);
			snprintf(rate, sizeof(rate), "%.0f",
				 p->wall_s > 0 ? p->commands / p->wall_s : 0);
		}
	}
	fprintf(f, "%-15s %8s %8s %9s %10.2f %9.0f %9.0f %8" PRIu64 "%s\n", phase_name(p->id), wall,
		cmds, rate, ms(p->oncpu_ns), ms(p->usr_ns), ms(p->sys_ns), (uint64_t)p->stats.recorded,
		p->ok ? "" : "  FAILED");
}

static void print_table(FILE *f, const struct report *r)
{
	fprintf(f, "%-15s %8s %8s %9s %10s %9s %9s %8s\n", "phase", "wall s", "cmds", "cmd/s",
		"on-CPU ms", "usr ms", "sys ms", "samples");
	for (int i = 0; i < r->nphases; i++)
		print_phase_row(f, &r->phases[i]);
}

static void print_check(FILE *f, const struct report *r)
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
	fprintf(f, "\non-CPU cross-check against /proc/PID/task/*/schedstat: max |diff| %.2f%%\n",
		worst);
}

static void print_functions(FILE *f, const struct report *r, const struct report_phase *p)
{
	const struct fold_table *t = &p->fold;
	uint64_t dropped = 0;

	for (int d = 0; d < MUXBPF_DROP__COUNT; d++)
		if (d != MUXBPF_DROP_STACK_FAILED)
			dropped += p->stats.dropped[d];
	fprintf(f, "\n== %s: %" PRIu64 " user samples, %.1f%% unnamed", phase_name(p->id),
		t->samples, pct(t->unnamed, t->samples));
	if (t->no_stack)
		fprintf(f, ", %" PRIu64 " without stack", t->no_stack);
	if (dropped)
		fprintf(f, ", %" PRIu64 " LOST (map full)", dropped);
	if (p->other_pid_samples)
		fprintf(f, ", %" PRIu64 " in child processes", p->other_pid_samples);
	fprintf(f, "\n");
	if (!t->samples)
		return;
	fprintf(f, "  %7s %7s  %s\n", "self%", "total%", "function");
	for (size_t i = 0; i < t->n && (int)i < r->top; i++) {
		if (!t->rows[i].self)
			break;
		fprintf(f, "  %6.1f%% %6.1f%%  %s\n", pct(t->rows[i].self, t->samples),
			pct(t->rows[i].total, t->samples), t->rows[i].name);
	}
	for (int w = 1; w < MB_UNNAMED__COUNT; w++)
		if (t->unnamed_why[w])
			fprintf(f, "  unnamed leaves, %s: %.1f%%\n", mb_unnamed_str(w),
				pct(t->unnamed_why[w], t->samples));
}

void report_print(FILE *f, const struct report *r)
{
	print_header(f, r);
	print_table(f, r);
	print_check(f, r);
	if (!r->profiled)
		return;
	for (int i = 0; i < r->nphases; i++)
		print_functions(f, r, &r->phases[i]);
}

int report_check(const struct report *r)
{
	int problems = 0;

	for (int i = 0; i < r->nphases; i++) {
		const struct report_phase *p = &r->phases[i];
		double expected = p->usr_ns / 1e9 * r->freq;

		if (!p->measured)
			continue;
		if (!p->ok) {
			pr_err("phase %s failed: %s", phase_name(p->id), p->error);
			problems++;
		}
		/* An empty recording must never read as an idle server. */
		if (r->profiled && p->stats.recorded == 0 && expected >= REPORT_BUSY_MIN_SAMPLES) {
			pr_err("phase %s: no samples recorded although netmux spent %.0f ms in user "
			       "mode (%.0f samples expected): the sampler is not working",
			       phase_name(p->id), ms(p->usr_ns), expected);
			problems++;
		}
	}
	return problems;
}
