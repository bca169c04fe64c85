// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* muxbpf ab's text and ab.json (doc/ab.schema.json), from the plain result (ab_result.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "output/out_ab.h"
#include "base/json.h"
#include "base/phases.h"

static void env_line(FILE *f, const struct ab_opts *o, int w)
{
	for (int i = 0; i < o->nenv[w]; i++)
		fprintf(f, "%s%s", i ? " " : "  env ", o->env[w][i]);
	if (o->nenv[w])
		fputc('\n', f);
}

/* --metric instructions: the verdicts on instructions, CPU time beside them. */
static void instr_table(FILE *f, const struct ab_result *r)
{
	fprintf(f, "  instructions per command: netmux's user-mode instructions retired in each "
		   "block / its commands; source: %s\n", r->isrc_why);
	fprintf(f, "  CPU per command beside them: exact on-CPU time (kernel runtime accounting, "
		   "all threads, kernel time included)%s\n\n",
		r->isrc == ICOUNT_CALLGRIND ? ", of netmux under callgrind (~40x native)" : "");
	fprintf(f, "%-15s %12s %12s %8s %19s %8s %6s  %-7s %9s %9s %7s  %s\n", "phase",
		"A instr/cmd", "B instr/cmd", "B/A", "95% interval", "p", "mdd", "verdict",
		"A us/cmd", "B us/cmd", "B/A", "time");
	for (int i = 0; i < r->nphases; i++) {
		const struct ab_phase *p = &r->phases[i];
		const struct stats_ab *c = &p->cmp, *t = &p->cmp_time;

		fprintf(f, "%-15s %12.1f %12.1f %8.4f   [%7.4f, %7.4f] %8.2g %5.2f%%  %-7s %9.2f "
			   "%9.2f %7.3f  %s\n",
			phase_name(p->phase), c->a_median, c->b_median, c->ratio, c->ci_low,
			c->ci_high, c->p, 100 * c->mdd, stats_verdict_name(c->verdict), t->a_median,
			t->b_median, t->ratio, stats_verdict_name(t->verdict));
	}
	fprintf(f, "\n  instr/cmd: median over the rounds; B/A: median of the rounds' ratios, "
		   "interval by bootstrap over the paired rounds; p: Wilcoxon signed-rank; mdd: the "
		   "smallest difference this run could have called; verdict: faster/slower needs "
		   "the interval off 1, p < 0.01 and at least %.1f%%; time: the same rules on CPU "
		   "per command (3%% floor)\n",
		100 * AB_INSTR_MIN_EFFECT);
}

/* A function of one build only: its row's figures are all that build's. */
static const char *only_tag(int only_in)
{
	return only_in == AB_ONLY_A ? "[only in A] " : only_in == AB_ONLY_B ? "[only in B] " : "";
}

void ab_text_write(FILE *f, const struct ab_result *r)
{
	const struct ab_opts *o = r->o;
	int top = o->top > 0 ? o->top : 10;

	fprintf(f, "muxbpf ab: A = %s\n", o->netmux[AB_A]);
	fprintf(f, "             %s\n", r->version[AB_A][0] ? r->version[AB_A] : "(no version)");
	env_line(f, o, AB_A);
	if (!o->one_side) {
		fprintf(f, "           B = %s\n", o->netmux[AB_B]);
		fprintf(f, "             %s\n",
			r->version[AB_B][0] ? r->version[AB_B] : "(no version)");
		env_line(f, o, AB_B);
	}
	fprintf(f,
		"  both up at once, blocks alternating A/B over %d rounds per phase, scale %g, "
		"%d Hz; %.0f s\n",
		o->rounds, o->scale, o->freq, r->wall_s);
	if (o->instructions) {
		instr_table(f, r);
		goto details;
	}
	fprintf(f, "  CPU per command: netmux's exact on-CPU time in each block (kernel runtime "
		   "accounting, all threads) / its commands\n\n");
	fprintf(f, "%-15s %9s %9s %9s %9s %7s %17s %8s %6s  %s\n", "phase", "A us/cmd", "A best",
		"B us/cmd", "B best", "B/A", "95% interval", "p", "mdd", "verdict");
	for (int i = 0; i < r->nphases; i++) {
		const struct ab_phase *p = &r->phases[i];
		const struct stats_ab *c = &p->cmp;

		fprintf(f, "%-15s %9.2f %9.2f %9.2f %9.2f %7.3f   [%6.3f, %6.3f] %8.2g %5.1f%%  %s\n",
			phase_name(p->phase), c->a_median, c->a_best, c->b_median, c->b_best,
			c->ratio, c->ci_low, c->ci_high, c->p, 100 * c->mdd,
			stats_verdict_name(c->verdict));
	}
	fprintf(f, "\n  us/cmd: median over the rounds; best: the lowest round; B/A: median of the "
		   "rounds' ratios, interval by bootstrap over the paired rounds; p: Wilcoxon "
		   "signed-rank on the paired rounds; mdd: the smallest difference this run could "
		   "have called; verdict: faster/slower needs the interval off 1, p < 0.01 and at "
		   "least 3%%\n");
details:
	for (int i = 0; i < r->nphases; i++) {
		const struct ab_phase *p = &r->phases[i];
		uint64_t sa = 0, sb = 0;
		int shown = 0;

		for (int k = 0; k < p->rounds; k++) {
			sa += p->a[k].samples;
			sb += p->b[k].samples;
		}
		fprintf(f, "\n== %s: %llu commands per block; samples A %llu, B %llu\n",
			phase_name(p->phase), (unsigned long long)(p->rounds ? p->a[0].cmds : 0),
			(unsigned long long)sa, (unsigned long long)sb);
		if (o->instructions) {
			fprintf(f, "  rounds (instructions/cmd, A B):");
			for (int k = 0; k < p->rounds; k++)
				fprintf(f, " %.1f/%.1f", p->a_ins[k], p->b_ins[k]);
			fputc('\n', f);
		}
		fprintf(f, "  rounds (us/cmd, A B):");
		for (int k = 0; k < p->rounds; k++)
			fprintf(f, " %.2f/%.2f", p->a_us[k], p->b_us[k]);
		if (r->fns_instr)
			fprintf(f, "\n  functions, B - A in instructions per command (callgrind's dumps; "
				   "inlined code counts in the function it was inlined into), 95%% "
				   "interval:\n");
		else
			fprintf(f, "\n  functions, B - A in us of CPU per command (user samples), "
				   "95%% interval:\n");
		fprintf(f, "  %10s %21s %10s %21s  %s\n", "self", "", "total", "",
			"function (\"only in A/B\": defined in that build's objects only)");
		for (size_t k = 0; k < p->nfns && shown < top; k++, shown++) {
			const struct ab_fn *fn = &p->fns[k];

			fprintf(f, "  %+10.3f [%+8.3f, %+8.3f] %+10.3f [%+8.3f, %+8.3f]  %s%s\n",
				fn->self.delta, fn->self.lo, fn->self.hi, fn->total.delta,
				fn->total.lo, fn->total.hi, only_tag(fn->only_in), fn->name);
		}
		if (!p->nsys)
			continue;
		fprintf(f, "  syscalls, B - A per command (on-CPU exact, the time ledger):\n");
		fprintf(f, "  %10s %21s %9s %9s  %s\n", "us", "", "calls A", "calls B", "syscall");
		for (size_t k = 0; k < p->nsys && (int)k < top; k++) {
			const struct ab_sys *y = &p->sys[k];

			fprintf(f, "  %+10.3f [%+8.3f, %+8.3f] %9.3f %9.3f  %s\n", y->cpu.delta,
				y->cpu.lo, y->cpu.hi, y->calls.a, y->calls.b, y->name);
		}
	}
}

static void delta_obj(struct jw *w, const char *key, const struct stats_delta *d)
{
	jw_key(w, key);
	jw_obj(w);
	jw_knum(w, "a", d->a);
	jw_knum(w, "b", d->b);
	jw_knum(w, "delta", d->delta);
	jw_knum(w, "ci_low", d->lo);
	jw_knum(w, "ci_high", d->hi);
	jw_obj_end(w);
}

static void build_obj(struct jw *w, const struct ab_result *r, int s)
{
	const struct ab_opts *o = r->o;

	jw_obj(w);
	jw_kstr(w, "netmux", o->netmux[s]);
	jw_kstr(w, "version", r->version[s]);
	jw_kstr(w, "game", o->game[s]);
	jw_key(w, "env");
	jw_arr(w);
	for (int i = 0; i < o->nenv[s]; i++)
		jw_str(w, o->env[s][i]);
	jw_arr_end(w);
	jw_kstr(w, "dir", s ? "b" : "a");
	jw_obj_end(w);
}

static void side_obj(struct jw *w, const char *key, const struct ab_phase *p, int s, bool instr)
{
	const struct stats_ab *c = &p->cmp;
	const double *us = s ? p->b_us : p->a_us;
	const struct ab_block *b = s ? p->b : p->a;

	jw_key(w, key);
	jw_obj(w);
	jw_knum(w, "cpu_per_cmd_us", s ? c->b_median : c->a_median);
	jw_knum(w, "best_cpu_per_cmd_us", s ? c->b_best : c->a_best);
	jw_key(w, "rounds_us");
	jw_arr(w);
	for (int k = 0; k < p->rounds; k++)
		jw_num(w, us[k]);
	jw_arr_end(w);
	jw_key(w, "blocks");
	jw_arr(w);
	for (int k = 0; k < p->rounds; k++) {
		jw_obj(w);
		jw_knum(w, "cpu_ns", b[k].cpu_ns);
		jw_ku64(w, "commands", b[k].cmds);
		jw_knum(w, "wall_s", b[k].wall_s);
		jw_ku64(w, "samples", b[k].samples);
		if (instr)
			jw_knum(w, "instructions", b[k].instructions);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* A comparison's figures (the time one beside an instructions verdict). */
static void cmp_obj(struct jw *w, const struct stats_ab *c)
{
	jw_obj(w);
	jw_knum(w, "a_median", c->a_median);
	jw_knum(w, "b_median", c->b_median);
	jw_knum(w, "ratio", c->ratio);
	jw_knum(w, "ci_low", c->ci_low);
	jw_knum(w, "ci_high", c->ci_high);
	jw_knum(w, "p", c->p);
	jw_knum(w, "mdd", c->mdd);
	jw_kstr(w, "verdict", stats_verdict_name(c->verdict));
	jw_obj_end(w);
}

/* Instructions per command of each side, median and every round. */
static void instr_obj(struct jw *w, const struct ab_phase *p)
{
	jw_key(w, "instructions");
	jw_obj(w);
	jw_knum(w, "a_per_cmd", p->cmp.a_median);
	jw_knum(w, "b_per_cmd", p->cmp.b_median);
	jw_key(w, "a_rounds");
	jw_arr(w);
	for (int k = 0; k < p->rounds; k++)
		jw_num(w, p->a_ins[k]);
	jw_arr_end(w);
	jw_key(w, "b_rounds");
	jw_arr(w);
	for (int k = 0; k < p->rounds; k++)
		jw_num(w, p->b_ins[k]);
	jw_arr_end(w);
	jw_obj_end(w);
}

int ab_json_write(FILE *f, const struct ab_result *r)
{
	const struct ab_opts *o = r->o;
	struct jw w;

	jw_init(&w, f, true);
	jw_obj(&w);
	jw_ku64(&w, "schema_version", AB_SCHEMA_VERSION);
	jw_kstr(&w, "tool", "muxbpf ab");
	jw_key(&w, "a");
	build_obj(&w, r, AB_A);
	jw_key(&w, "b");
	build_obj(&w, r, AB_B);
	jw_ku64(&w, "rounds", (uint64_t)o->rounds);
	jw_knum(&w, "scale", o->scale);
	jw_ku64(&w, "freq", (uint64_t)o->freq);
	jw_knum(&w, "wall_s", r->wall_s);
	jw_knum(&w, "alpha", STATS_ALPHA);
	jw_knum(&w, "min_effect", o->instructions ? AB_INSTR_MIN_EFFECT : 0.03);
	jw_kstr(&w, "cpu_source", "kernel runtime accounting (sum_exec_runtime), exact");
	jw_kstr(&w, "metric", o->instructions ? "instructions" : "time");
	if (o->instructions) {
		jw_kstr(&w, "instructions_source", icount_source_name(r->isrc));
		jw_kstr(&w, "instructions_source_why", r->isrc_why);
		jw_kstr(&w, "functions_unit", r->fns_instr ? "instructions" : "us");
	}
	jw_key(&w, "phases");
	jw_arr(&w);
	for (int i = 0; i < r->nphases; i++) {
		const struct ab_phase *p = &r->phases[i];
		const struct stats_ab *c = &p->cmp;

		jw_obj(&w);
		jw_kstr(&w, "name", phase_name(p->phase));
		jw_ku64(&w, "rounds", (uint64_t)p->rounds);
		jw_ku64(&w, "commands_per_block", p->rounds ? p->a[0].cmds : 0);
		jw_knum(&w, "ratio", c->ratio);
		jw_knum(&w, "ci_low", c->ci_low);
		jw_knum(&w, "ci_high", c->ci_high);
		jw_knum(&w, "p", c->p);
		jw_knum(&w, "best_ratio", c->best_ratio);
		jw_knum(&w, "mdd", c->mdd);
		jw_kstr(&w, "verdict", stats_verdict_name(c->verdict));
		side_obj(&w, "a", p, AB_A, o->instructions);
		side_obj(&w, "b", p, AB_B, o->instructions);
		if (o->instructions) {
			instr_obj(&w, p);
			jw_key(&w, "time");
			cmp_obj(&w, &p->cmp_time);
		}
		jw_key(&w, "b_first");
		jw_arr(&w);
		for (int k = 0; k < p->rounds; k++)
			jw_bool(&w, p->b_first[k]);
		jw_arr_end(&w);
		jw_key(&w, "functions");
		jw_arr(&w);
		for (size_t k = 0; k < p->nfns; k++) {
			jw_obj(&w);
			jw_kstr(&w, "name", p->fns[k].name);
			if (p->fns[k].only_in)
				jw_kstr(&w, "only_in", p->fns[k].only_in == AB_ONLY_A ? "a" : "b");
			delta_obj(&w, r->fns_instr ? "self_instructions" : "self_us",
				  &p->fns[k].self);
			delta_obj(&w, r->fns_instr ? "total_instructions" : "total_us",
				  &p->fns[k].total);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		jw_key(&w, "syscalls");
		jw_arr(&w);
		for (size_t k = 0; k < p->nsys; k++) {
			jw_obj(&w);
			jw_kstr(&w, "name", p->sys[k].name);
			delta_obj(&w, "cpu_us", &p->sys[k].cpu);
			delta_obj(&w, "calls", &p->sys[k].calls);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		{
			char svg[64];

			snprintf(svg, sizeof(svg), "%s.diff.svg", phase_name(p->phase));
			jw_kstr(&w, "flame_graph", svg);
		}
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	fputc('\n', f);
	return ferror(f) ? -5 : 0;
}
