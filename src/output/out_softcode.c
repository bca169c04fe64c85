// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The softcode views in the text report and in report.json: the report's rows and intervals
 * (report_figures), formatted. */
#include <inttypes.h>
#include <stdio.h>
#include "base/json.h"
#include "output/out_softcode.h"
#include "base/phases.h"
#include "base/stats.h"

/* Where a phase's softcode intervals come from, for the tables' titles. */
static const char *ci_source(const struct report_phase *p, char *buf, size_t size)
{
	double f = p->design_factor;

	if (f > 1)
		snprintf(buf, size, "Wilson x%.2f, the phase's batch design factor", f);
	else
		snprintf(buf, size, "Wilson%s", p->rounds.v ? ": its batches are no wider" : "");
	return buf;
}

/* A share's interval in report.json: [lo, hi] in percent, wider than the share, and whence. */
static void json_share_ci(struct jw *w, const struct stats_ci *ci, bool batches)
{
	json_write_ci(w, "share_ci_pct", ci);
	jw_kbool(w, "share_ci_wide", stats_ci_wide(ci));
	jw_kstr(w, "share_ci_from", batches ? "batches" : "wilson");
}

/* A command row's us/cmd with its interval (report_sc_ci), null without runs. */
static void json_cpu_per_cmd(struct jw *w, const struct report_sc_ci *c)
{
	jw_key(w, "cpu_per_cmd_us");
	if (!c->us.valid) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_knum(w, "value", c->us.value / 1e3);
	jw_knum(w, "lo", c->us.lo / 1e3);
	jw_knum(w, "hi", c->us.hi / 1e3);
	jw_kbool(w, "wide", stats_ci_wide(&c->us));
	jw_kstr(w, "from", c->us_batches ? "batches" : "samples");
	jw_obj_end(w);
}

void report_print_softcode_header(FILE *f, const struct report *r)
{
	const struct sc_data *d = r->softcode;
	const struct muxbpf_sc_stats *s;

	if (!d || !(r->by & FOLD_VIEWS_SOFTCODE))
		return;
	if (!d->valid) {
		fprintf(f, "softcode views unavailable: %s; every other view is complete\n",
			d->why[0] ? d->why : "not profiled");
		return;
	}
	s = &d->stats;
	fprintf(f, "softcode: commands %s at each sample; u() frames from 2 uprobes on do_ufun: "
		   "%" PRIu64 " hits; ",
		d->exact ? "from the exact mode's probes" : "read from mudstate (no probe)",
		(uint64_t)(s->ufun_enter + s->ufun_exit));
	if (d->exact)
		fprintf(f, "exact mode: uprobes on process_command's entry and returns: %" PRIu64
			   " hits", (uint64_t)(s->cmd_starts + s->cmd_ends));
	else
		fprintf(f, "exact on-CPU per command: off (--exact-commands)");
	if (d->hit_ns >= 0)
		fprintf(f, "; a u() probe hit costs %.2f us here (measured at start and end, the lower): ~%.1f ms in all%s\n",
			d->hit_ns / 1e3, r->sc_ufun_probes_ns / 1e6,
			d->exact ? ", left out of the exact times" : "");
	else
		fprintf(f, "; a uprobe hit's cost could not be measured%s\n",
			d->exact ? ": the exact times include our probes' cost" : "");
	if (d->exact && d->ends.pair_ns >= 0)
		fprintf(f, "  exact: a command's two probes cost %.2f us here, %.2f us of it inside its "
			   "time, %.2f us the entry program's own work in none (measured at start and end, the lower): "
			   "~%.1f ms in all, left out\n",
			d->ends.pair_ns / 1e3, d->ends.inside_ns / 1e3, d->ends.own_ns / 1e3,
			r->sc_cmd_probes_ns / 1e6);
	else if (d->exact)
		fprintf(f, "  exact: the command probes' cost could not be measured: the exact times "
			   "include it\n");
	if (d->exact)
		fprintf(f, "  exact: %" PRIu64 " command starts, %" PRIu64 " returns, %" PRIu64
			   " task clock errors; samples under the command the probes opened, %" PRIu64
			   " with none open (between commands)\n", (uint64_t)s->cmd_starts,
			(uint64_t)s->cmd_ends, (uint64_t)s->clock_err, (uint64_t)s->between);
	else
		fprintf(f, "  %" PRIu64 " samples counted between commands by their stacks (walked to "
			   "main, no process_command frame) while mudstate still named a command\n",
			d->moved);
	if (d->object[0])
		fprintf(f, "  mudstate and the probes in %s; loaded again %" PRIu64 " times while "
			   "profiled, netmux exec'd again %" PRIu64 " times\n",
			d->object, (uint64_t)s->loads, (uint64_t)s->unloads);
	fprintf(f, "  names from %s; %" PRIu64 " samples on the command thread, %" PRIu64
		   " without a readable command%s\n",
		d->names_from ? d->names_from : "nowhere (#N)", (uint64_t)s->samples, (uint64_t)s->no_cmd,
		s->lost ? " (MAPS FULL: some keys lost)" : "");
}

static void print_commands(FILE *f, const struct report *r, const struct report_phase *p,
			   const struct sc_rows *rows)
{
	const struct sc_data *d = r->softcode;
	const char *us_src = "the share's interval x the phase's on-CPU / cmds";
	char ci[16], cpc[16], src[96];

	if (p->rounds.sc_cum) {
		snprintf(src, sizeof(src), "the wider of Wilson and the spread between the phase's %d "
			 "batches", p->rounds.nsc);
		us_src = "the t interval of the exact figure over the batches (else the share's "
			 "interval x the phase's on-CPU / cmds)";
	} else {
		ci_source(p, src, sizeof(src));
	}
	if (d->exact)
		fprintf(f, "  by command (on-CPU: netmux's task clock inside each command less our "
			   "probes' %.2f ms, plus the %.2f ms between commands shared out per command "
			   "started, x%.3f to the kernel's runtime; samples user-mode; share +- its 95%% "
			   "interval (%s); us/cmd +- %s; ? = wider than the figure):\n"
			   "  %10s %8s %9s %8s %8s %6s %6s  %s\n", p->sc_probe_ns / 1e6,
			rows->between_ns / 1e6,
			rows->scale, src, us_src, "on-CPU ms", "cmds", "us/cmd", "+-", "samples", "share",
			"+-", "command");
	else
		fprintf(f, "  by command (samples, share +- its 95%% interval (%s), ? = wider than "
			   "the share; est. ms = the phase's on-CPU x share):\n"
			   "  %8s %6s %6s %9s %7s  %s\n", src, "samples", "share", "+-", "est. ms", "+-",
			"command");
	for (size_t i = 0; i < rows->n && (int)i < r->top; i++) {
		const struct sc_row *row = &rows->v[i];
		const struct report_sc_ci c = p->sc_command_ci[i];

		stats_ci_pts(ci, sizeof(ci), &c.share);
		if (d->exact) {
			if (c.us.valid)
				snprintf(cpc, sizeof(cpc), "%.2f%s", stats_ci_half(&c.us) / 1e3,
					 stats_ci_wide(&c.us) ? "?" : "");
			else
				snprintf(cpc, sizeof(cpc), "-");
			fprintf(f, "  %10.3f %8" PRIu64 " %9.2f %8s %8" PRIu64 " %5.1f%% %6s  %s\n",
				row->cpu_ns / 1e6, row->runs, c.us_per_cmd, cpc, row->samples,
				stats_pct(row->samples, rows->samples), ci, row->label);
		} else {
			fprintf(f, "  %8" PRIu64 " %5.1f%% %6s %9.3f %7.3f  %s\n", row->samples,
				stats_pct(row->samples, rows->samples), ci, c.est_ms, c.est_half_ms,
				row->label);
		}
	}
}

static void print_paths(FILE *f, const struct report *r, const struct report_phase *p,
			const struct sc_rows *rows)
{
	char ci[16], src[96];

	fprintf(f, "  by softcode (samples by softcode frames, outermost first; share +- its 95%% "
		   "interval (%s), ? = wider than the share):\n  %8s %6s %6s  %s\n",
		ci_source(p, src, sizeof(src)), "samples", "share", "+-", "softcode");
	for (size_t i = 0; i < rows->n && (int)i < r->top; i++)
		fprintf(f, "  %8" PRIu64 " %5.1f%% %6s  %s\n", rows->v[i].samples,
			stats_pct(rows->v[i].samples, rows->samples),
			stats_ci_pts(ci, sizeof(ci), &p->sc_path_ci[i].share), rows->v[i].label);
}

void report_print_softcode(FILE *f, const struct report *r, const struct report_phase *p)
{
	const struct sc_data *d = r->softcode;

	if (!d || !d->valid)
		return;
	if ((r->by & FOLD_VIEW_COMMAND) && p->sc_commands.n)
		print_commands(f, r, p, &p->sc_commands);
	if ((r->by & FOLD_VIEW_SOFTCODE) && p->sc_paths.n)
		print_paths(f, r, p, &p->sc_paths);
}

void json_write_softcode(struct jw *w, const struct report *r)
{
	const struct sc_data *d = r->softcode;

	if (!d || !(r->by & FOLD_VIEWS_SOFTCODE))
		return;
	jw_key(w, "softcode");
	jw_obj(w);
	jw_kbool(w, "available", d->valid);
	jw_kstr(w, "why", d->valid ? NULL : d->why);
	jw_kbool(w, "exact", d->exact);
	jw_kstr(w, "names_from", d->names_from);
	jw_kstr(w, "object", d->object[0] ? d->object : NULL);
	jw_ku64(w, "loads", d->stats.loads);
	jw_ku64(w, "execs", d->stats.unloads);
	jw_ku64(w, "samples", d->stats.samples);
	jw_ku64(w, "no_command", d->stats.no_cmd);
	jw_ku64(w, "ufun_probe_hits", d->stats.ufun_enter + d->stats.ufun_exit);
	jw_ku64(w, "command_probe_hits", d->stats.cmd_starts + d->stats.cmd_ends);
	jw_ku64(w, "between_samples", d->stats.between);
	if (d->exact)
		jw_kstr(w, "stack_rule_between", NULL);
	else
		jw_ku64(w, "stack_rule_between", d->moved);
	if (d->valid && d->hit_ns >= 0)
		jw_knum(w, "uprobe_hit_ns", d->hit_ns);
	else
		jw_kstr(w, "uprobe_hit_ns", NULL);
	if (d->valid && d->exact && d->ends.pair_ns >= 0) {
		jw_knum(w, "command_probes_ns", d->ends.pair_ns);
		jw_knum(w, "command_probes_inside_ns", d->ends.inside_ns);
		jw_knum(w, "command_probes_own_ns", d->ends.own_ns);
	} else {
		jw_kstr(w, "command_probes_ns", NULL);
		jw_kstr(w, "command_probes_inside_ns", NULL);
		jw_kstr(w, "command_probes_own_ns", NULL);
	}
	jw_ku64(w, "lost", d->stats.lost);
	jw_key(w, "phases");
	jw_arr(w);
	for (int i = 0; d->valid && i < r->nphases; i++) {
		const struct report_phase *p = &r->phases[i];
		const struct sc_rows *rows = &p->sc_commands;

		jw_obj(w);
		jw_ku64(w, "id", p->id);
		jw_kstr(w, "name", phase_name(p->id));
		jw_key(w, "commands");
		jw_arr(w);
		for (size_t j = 0; j < rows->n; j++) {
			const struct report_sc_ci *c = &p->sc_command_ci[j];

			jw_obj(w);
			jw_kstr(w, "command", rows->v[j].label);
			jw_ku64(w, "samples", rows->v[j].samples);
			jw_knum(w, "share_pct", stats_pct(rows->v[j].samples, rows->samples));
			json_share_ci(w, &c->share, c->share_batches);
			json_cpu_per_cmd(w, c);
			jw_ku64(w, "runs", rows->v[j].runs);
			jw_ku64(w, "cpu_ns", rows->v[j].cpu_ns);
			jw_ku64(w, "task_clock_ns", rows->v[j].clock_ns);
			jw_ku64(w, "in_command_ns", rows->v[j].in_ns);
			jw_ku64(w, "probe_hits", rows->v[j].probe_hits);
			jw_ku64(w, "segments", rows->v[j].segments);
			jw_ku64(w, "probe_ns", rows->v[j].probe_ns);
			jw_obj_end(w);
		}
		jw_arr_end(w);
		jw_key(w, "softcode");
		jw_arr(w);
		rows = &p->sc_paths;
		for (size_t j = 0; j < rows->n; j++) {
			const struct report_sc_ci *c = &p->sc_path_ci[j];

			jw_obj(w);
			jw_kstr(w, "path", rows->v[j].label);
			jw_ku64(w, "samples", rows->v[j].samples);
			jw_knum(w, "share_pct", stats_pct(rows->v[j].samples, rows->samples));
			json_share_ci(w, &c->share, c->share_batches);
			jw_obj_end(w);
		}
		jw_arr_end(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}
