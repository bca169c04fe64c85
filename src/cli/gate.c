// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* muxbpf gate save / check (gate.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/ab.h"
#include "cli/gate.h"
#include "base/json.h"
#include "base/log.h"
#include "output/out.h"
#include "base/phases.h"
#include "base/signals.h"
#include "base/stats.h"

#define GATE_DEFAULT_ROUNDS 3
#define GATE_MAX_ROUNDS 20

static void usage(FILE *f)
{
	fprintf(f,
		"usage: muxbpf gate save FILE [options] NETMUX    measure NETMUX, write the baseline\n"
		"       muxbpf gate check FILE [options] NETMUX   measure NETMUX, compare with FILE\n"
		"  --metric M          save: instructions (default; a hardware counter, else\n"
		"                      callgrind; instructions:pmu, instructions:callgrind) or time\n"
		"  --phase LIST        save: the phases (as for muxbpf ab; default all)\n"
		"  --scale F           save: work per block (default 0.2)\n"
		"  --rounds N          fresh games measured (default %d, 1-%d; check: the file's)\n"
		"  --threshold [PHASE=]PCT  the change allowed, in %% (repeatable; save: stored in\n"
		"                      the file; check: overrides it; default per phase: the larger\n"
		"                      of 1%% (instructions) or 10%% (time) and 3x the rounds' range)\n"
		"  --top N             functions listed per phase that moved (default 10)\n"
		"  --env VAR=VALUE, --game DIR, --netmux-user USER, -q   as for muxbpf ab\n"
		"Exit status: 0 within every threshold, 1 a phase beyond its threshold, 2 error.\n",
		GATE_DEFAULT_ROUNDS, GATE_MAX_ROUNDS);
}

double gate_default_threshold(const double *rounds, int n, bool instructions, double *noise)
{
	double med = stats_median(rounds, (size_t)n), lo = rounds[0], hi = rounds[0];
	double floor = instructions ? GATE_FLOOR_INSTRUCTIONS : GATE_FLOOR_TIME;

	for (int k = 1; k < n; k++) {
		lo = fmin(lo, rounds[k]);
		hi = fmax(hi, rounds[k]);
	}
	*noise = med > 0 ? (hi - lo) / med : 0;
	return fmax(floor, 3 * *noise);
}

static const struct gate_fn *fn_find(const struct gate_phase *p, const char *name)
{
	for (size_t i = 0; i < p->nfns; i++)
		if (!strcmp(p->fns[i].name, name))
			return &p->fns[i];
	return NULL;
}

static double moved_size(const struct gate_moved_fn *m)
{
	return fabs(m->new_self - m->base_self);
}

static int cmp_moved(const void *x, const void *y)
{
	double a = moved_size(x), b = moved_size(y);

	return a < b ? 1 : a > b ? -1 : strcmp(((const struct gate_moved_fn *)x)->name,
					       ((const struct gate_moved_fn *)y)->name);
}

void gate_compare(const struct gate_phase *base, const struct gate_phase *now,
		  struct gate_result *out)
{
	struct gate_moved_fn *all;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->phase = base->name;
	out->base = base->per_cmd;
	out->now = now->per_cmd;
	out->threshold = base->threshold;
	out->change = base->per_cmd > 0 ? now->per_cmd / base->per_cmd - 1 : 0;
	out->moved = fabs(out->change) > out->threshold;
	/* functions in either, by the change of their self cost */
	all = calloc(base->nfns + now->nfns + 1, sizeof(*all));
	if (!all)
		return;
	for (size_t i = 0; i < now->nfns; i++) {
		const struct gate_fn *b = fn_find(base, now->fns[i].name);

		all[n++] = (struct gate_moved_fn){ now->fns[i].name, b ? b->self : 0,
						   now->fns[i].self, b ? b->total : 0,
						   now->fns[i].total };
	}
	for (size_t i = 0; i < base->nfns; i++)
		if (!fn_find(now, base->fns[i].name))
			all[n++] = (struct gate_moved_fn){ base->fns[i].name, base->fns[i].self, 0,
							   base->fns[i].total, 0 };
	qsort(all, n, sizeof(*all), cmp_moved);
	/* a caller whose own cost did not move is not news: its total moved with a callee's */
	for (size_t i = 0; i < n && out->nfns < 16; i++)
		if (all[i].new_self != all[i].base_self)
			out->fns[out->nfns++] = all[i];
	free(all);
}

/* ---- the file ---- */

int gate_write(FILE *f, const struct gate_baseline *b)
{
	struct jw w;

	jw_init(&w, f, true);
	jw_obj(&w);
	jw_ku64(&w, "schema_version", GATE_SCHEMA_VERSION);
	jw_kstr(&w, "tool", "muxbpf gate");
	jw_kstr(&w, "metric", b->metric);
	jw_kstr(&w, "source", b->source);
	jw_kstr(&w, "functions_unit", b->fn_unit);
	jw_kstr(&w, "netmux", b->netmux);
	jw_kstr(&w, "version", b->version);
	jw_kstr(&w, "created", b->created);
	jw_knum(&w, "scale", b->scale);
	jw_ku64(&w, "rounds", (uint64_t)b->rounds);
	jw_key(&w, "phases");
	jw_arr(&w);
	for (int i = 0; i < b->nphases; i++) {
		const struct gate_phase *p = &b->phases[i];

		jw_obj(&w);
		jw_kstr(&w, "name", p->name);
		jw_ku64(&w, "commands_per_block", p->commands);
		jw_knum(&w, "per_cmd", p->per_cmd);
		jw_key(&w, "rounds");
		jw_arr(&w);
		for (int k = 0; k < p->nrounds; k++)
			jw_num(&w, p->rounds[k]);
		jw_arr_end(&w);
		jw_knum(&w, "noise", p->noise);
		jw_knum(&w, "threshold", p->threshold);
		jw_knum(&w, "cpu_per_cmd_us", p->cpu_us);
		jw_key(&w, "functions");
		jw_arr(&w);
		for (size_t k = 0; k < p->nfns; k++) {
			jw_obj(&w);
			jw_kstr(&w, "name", p->fns[k].name);
			jw_knum(&w, "self", p->fns[k].self);
			jw_knum(&w, "total", p->fns[k].total);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

static void copy_str(char *dst, size_t n, const struct jv *v)
{
	snprintf(dst, n, "%s", jv_str(v, ""));
}

int gate_read(const char *path, struct gate_baseline *b)
{
	char err[256];
	struct jv *j = json_parse_file(path, err, sizeof(err));
	const struct jv *ph;
	int e = 0;

	memset(b, 0, sizeof(*b));
	if (!j) {
		pr_err("gate: %s: %s", path, err);
		return -EINVAL;
	}
	if (jv_num(jv_get(j, "schema_version"), 0) != GATE_SCHEMA_VERSION ||
	    strcmp(jv_str(jv_get(j, "tool"), ""), "muxbpf gate")) {
		pr_err("gate: %s is not a muxbpf gate baseline of schema version %d", path,
		       GATE_SCHEMA_VERSION);
		jv_free(j);
		return -EINVAL;
	}
	copy_str(b->metric, sizeof(b->metric), jv_get(j, "metric"));
	copy_str(b->source, sizeof(b->source), jv_get(j, "source"));
	copy_str(b->fn_unit, sizeof(b->fn_unit), jv_get(j, "functions_unit"));
	copy_str(b->netmux, sizeof(b->netmux), jv_get(j, "netmux"));
	copy_str(b->version, sizeof(b->version), jv_get(j, "version"));
	copy_str(b->created, sizeof(b->created), jv_get(j, "created"));
	b->scale = jv_num(jv_get(j, "scale"), 0);
	b->rounds = (int)jv_num(jv_get(j, "rounds"), 0);
	ph = jv_get(j, "phases");
	if ((strcmp(b->metric, "instructions") && strcmp(b->metric, "time")) ||
	    !(b->scale > 0) || b->rounds < 1 || b->rounds > GATE_MAX_ROUNDS || !ph ||
	    ph->type != JV_ARR || !ph->n || ph->n > MUXBPF_PHASE__COUNT) {
		pr_err("gate: %s: metric, scale, rounds or phases missing or out of range", path);
		jv_free(j);
		return -EINVAL;
	}
	for (size_t i = 0; i < ph->n && !e; i++) {
		const struct jv *o = &ph->v[i], *fns = jv_get(o, "functions"),
				*rounds = jv_get(o, "rounds");
		struct gate_phase *p = &b->phases[b->nphases++];
		unsigned int id;

		copy_str(p->name, sizeof(p->name), jv_get(o, "name"));
		p->commands = (unsigned long long)jv_num(jv_get(o, "commands_per_block"), 0);
		p->per_cmd = jv_num(jv_get(o, "per_cmd"), -1);
		p->noise = jv_num(jv_get(o, "noise"), 0);
		p->threshold = jv_num(jv_get(o, "threshold"), -1);
		p->cpu_us = jv_num(jv_get(o, "cpu_per_cmd_us"), 0);
		if (phases_parse(p->name, &id, 1) != 1 || !(p->per_cmd > 0) ||
		    !(p->threshold >= 0)) {
			pr_err("gate: %s: phase %zu: name, per_cmd or threshold missing or invalid",
			       path, i);
			e = -EINVAL;
			break;
		}
		for (size_t k = 0; rounds && rounds->type == JV_ARR && k < rounds->n && k < 64; k++)
			p->rounds[p->nrounds++] = jv_num(&rounds->v[k], 0);
		if (fns && fns->type == JV_ARR && fns->n) {
			p->fns = calloc(fns->n, sizeof(*p->fns));
			if (!p->fns) {
				e = -ENOMEM;
				break;
			}
			for (size_t k = 0; k < fns->n; k++) {
				struct gate_fn *f = &p->fns[p->nfns];

				f->name = strdup(jv_str(jv_get(&fns->v[k], "name"), ""));
				if (!f->name) {
					e = -ENOMEM;
					break;
				}
				f->self = jv_num(jv_get(&fns->v[k], "self"), 0);
				f->total = jv_num(jv_get(&fns->v[k], "total"), 0);
				p->nfns++;
			}
		}
	}
	jv_free(j);
	if (e)
		gate_baseline_free(b);
	return e;
}

void gate_baseline_free(struct gate_baseline *b)
{
	for (int i = 0; i < b->nphases; i++) {
		for (size_t k = 0; k < b->phases[i].nfns; k++)
			free(b->phases[i].fns[k].name);
		free(b->phases[i].fns);
	}
	memset(b, 0, sizeof(*b));
}

/* ---- the subcommand ---- */

struct gate_opts {
	bool check;
	const char *file;
	int rounds;
	bool rounds_given;
	const char *thr_phase[MUXBPF_PHASE__COUNT + 1]; /* NULL: every phase */
	double thr[MUXBPF_PHASE__COUNT + 1];
	int nthr;
	int top;
	const char *abv[64]; /* what ab_parse reads: "ab", options, NETMUX NETMUX */
	int abc;
};

static int parse_threshold(struct gate_opts *g, const char *v)
{
	const char *eq = strchr(v, '=');
	char *end;
	double pct = strtod(eq ? eq + 1 : v, &end);
	static char names[MUXBPF_PHASE__COUNT + 1][32];

	if (*end || !(pct >= 0) || pct > 1000 || g->nthr > MUXBPF_PHASE__COUNT) {
		pr_err("invalid --threshold %s ([PHASE=]PERCENT)", v);
		return -EINVAL;
	}
	if (eq) {
		unsigned int id;

		snprintf(names[g->nthr], sizeof(names[0]), "%.*s", (int)(eq - v), v);
		if (phases_parse(names[g->nthr], &id, 1) != 1)
			return -EINVAL;
		g->thr_phase[g->nthr] = phase_name(id);
	}
	g->thr[g->nthr++] = pct / 100;
	return 0;
}

/* gate's own options out of argv, the rest (ab's) into g->abv. */
static int gate_parse(int argc, char **argv, struct gate_opts *g)
{
	const char *netmux = NULL;

	memset(g, 0, sizeof(*g));
	g->rounds = GATE_DEFAULT_ROUNDS;
	g->top = 10;
	if (argc < 2 || (strcmp(argv[1], "save") && strcmp(argv[1], "check"))) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			return 1;
		}
		pr_err("gate wants save or check");
		usage(stderr);
		return -EINVAL;
	}
	g->check = !strcmp(argv[1], "check");
	g->abv[g->abc++] = "ab";
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		bool has_arg = i + 1 < argc;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(a, "--rounds") && has_arg) {
			char *end;

			g->rounds_given = true;
			g->rounds = (int)strtol(argv[++i], &end, 10);
			if (*end || g->rounds < 1 || g->rounds > GATE_MAX_ROUNDS) {
				pr_err("--rounds wants 1 to %d", GATE_MAX_ROUNDS);
				return -EINVAL;
			}
		} else if (!strcmp(a, "--threshold") && has_arg) {
			if (parse_threshold(g, argv[++i]))
				return -EINVAL;
		} else if (!strcmp(a, "--top") && has_arg) {
			char *end;

			g->top = (int)strtol(argv[++i], &end, 10);
			if (*end || g->top < 1 || g->top > 16) {
				pr_err("--top wants 1 to 16");
				return -EINVAL;
			}
		} else if ((!strcmp(a, "--env") || !strcmp(a, "--game")) && has_arg) {
			if (g->abc > 56)
				goto too_many;
			g->abv[g->abc++] = !strcmp(a, "--env") ? "--env-a" : "--game-a";
			g->abv[g->abc++] = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			bool valued = strcmp(a, "-q") && strcmp(a, "--quiet");

			if (g->check && (!strcmp(a, "--metric") || !strcmp(a, "--phase") ||
					 !strcmp(a, "--scale"))) {
				pr_err("gate check: %s comes from the baseline file", a);
				return -EINVAL;
			}
			if (!strcmp(a, "--out") || !strcmp(a, "--env-b") ||
			    !strcmp(a, "--game-b")) {
				pr_err("gate: unknown option %s", a);
				usage(stderr);
				return -EINVAL;
			}
			if (g->abc > 56)
				goto too_many;
			g->abv[g->abc++] = a;
			if (valued && has_arg)
				g->abv[g->abc++] = argv[++i];
		} else if (!g->file) {
			g->file = a;
		} else if (!netmux) {
			netmux = a;
		} else {
			pr_err("gate %s wants FILE and NETMUX, not also %s", argv[1], a);
			return -EINVAL;
		}
	}
	if (!g->file || !netmux) {
		pr_err("gate %s wants FILE and NETMUX", argv[1]);
		usage(stderr);
		return -EINVAL;
	}
	g->abv[g->abc++] = netmux;
	g->abv[g->abc++] = netmux;
	g->abv[g->abc] = NULL;
	return 0;
too_many:
	pr_err("gate: too many options");
	return -EINVAL;
}

/* ab's result (one side) into per-phase figures. */
static int fill_phases(const struct ab_result *r, struct gate_baseline *b)
{
	b->nphases = r->nphases;
	for (int i = 0; i < r->nphases; i++) {
		const struct ab_phase *ap = &r->phases[i];
		struct gate_phase *p = &b->phases[i];
		bool instr = r->o->instructions;
		size_t n = 0;

		snprintf(p->name, sizeof(p->name), "%s", phase_name(ap->phase));
		p->commands = ap->rounds ? ap->a[0].cmds : 0;
		p->nrounds = ap->rounds;
		for (int k = 0; k < ap->rounds; k++)
			p->rounds[k] = instr ? ap->a_ins[k] : ap->a_us[k];
		p->per_cmd = stats_median(p->rounds, (size_t)p->nrounds);
		p->cpu_us = stats_median(ap->a_us, (size_t)ap->rounds);
		p->threshold = gate_default_threshold(p->rounds, p->nrounds, instr, &p->noise);
		p->fns = calloc(ap->nfns ? ap->nfns : 1, sizeof(*p->fns));
		if (!p->fns)
			return -ENOMEM;
		/* by self, largest first (ab sorted them by the difference, here -A) */
		for (size_t k = 0; k < ap->nfns; k++) {
			size_t at = n;

			while (at > 0 && p->fns[at - 1].self < ap->fns[k].self.a) {
				p->fns[at] = p->fns[at - 1];
				at--;
			}
			p->fns[at] = (struct gate_fn){ strdup(ap->fns[k].name), ap->fns[k].self.a,
						       ap->fns[k].total.a };
			if (!p->fns[at].name)
				return -ENOMEM;
			n++;
		}
		while (n > GATE_MAX_FNS)
			free(p->fns[--n].name);
		p->nfns = n;
	}
	return 0;
}

static void apply_thresholds(const struct gate_opts *g, struct gate_baseline *b)
{
	for (int t = 0; t < g->nthr; t++)
		for (int i = 0; i < b->nphases; i++)
			if (!g->thr_phase[t] || !strcmp(g->thr_phase[t], b->phases[i].name))
				b->phases[i].threshold = g->thr[t];
}

static int measure(const struct gate_opts *g, struct ab_opts *o, int rounds,
		   struct ab_result *r)
{
	int err;

	(void)g;
	o->one_side = true;
	o->rounds = rounds;
	if (o->rounds * o->nphases > MUXBPF_MAX_PHASES - 1) {
		pr_err("--rounds %d x %d phases is more than the %d blocks one profile keeps apart",
		       o->rounds, o->nphases, MUXBPF_MAX_PHASES - 1);
		return -EINVAL;
	}
	err = signals_install();
	if (err) {
		pr_err("failed to install signal handlers: %s", strerror(-err));
		return err;
	}
	err = ab_run(o, r);
	if (err && err != -EINTR)
		pr_err("gate: run failed: %s", strerror(-err));
	return err;
}

static void describe(FILE *f, const struct gate_baseline *b, const char *what)
{
	fprintf(f, "muxbpf gate %s: %s (%s)\n  metric %s per command (source %s; functions in %s), "
		   "scale %g, %d rounds\n",
		what, b->netmux, b->version, b->metric, b->source, b->fn_unit, b->scale,
		b->rounds);
}

static int gate_save(const struct gate_opts *g, struct ab_opts *o)
{
	static struct ab_result r;
	struct gate_baseline b = {};
	time_t now = time(NULL);
	char tmp[4096];
	FILE *f;
	int err;

	if (!o->instructions && !o->metric_given)
		o->instructions = true; /* the gate's default: instructions */
	if (!o->scale_given)
		o->scale = 0.2;
	/* somewhere to write before minutes of measuring */
	snprintf(tmp, sizeof(tmp), "%s.tmp", g->file);
	f = fopen(tmp, "we");
	if (!f) {
		err = -errno;
		pr_err("failed to create %s: %s", tmp, strerror(-err));
		return err;
	}
	err = measure(g, o, g->rounds, &r);
	if (err) {
		fclose(f);
		unlink(tmp);
		goto out;
	}
	snprintf(b.metric, sizeof(b.metric), "%s", o->instructions ? "instructions" : "time");
	snprintf(b.source, sizeof(b.source), "%s",
		 o->instructions ? icount_source_name(r.isrc) : "runtime");
	snprintf(b.fn_unit, sizeof(b.fn_unit), "%s", r.fns_instr ? "instructions" : "us");
	snprintf(b.netmux, sizeof(b.netmux), "%s", o->netmux[AB_A]);
	snprintf(b.version, sizeof(b.version), "%s", r.version[AB_A]);
	strftime(b.created, sizeof(b.created), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	b.scale = o->scale;
	b.rounds = o->rounds;
	err = fill_phases(&r, &b);
	if (err) {
		fclose(f);
		unlink(tmp);
		goto out;
	}
	apply_thresholds(g, &b);
	err = gate_write(f, &b);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, g->file))
		err = -errno;
	if (err) {
		pr_err("failed to write %s: %s", g->file, strerror(-err));
		unlink(tmp);
		goto out;
	}
	if (!o->quiet) {
		describe(stdout, &b, "save");
		printf("%-15s %14s %9s %10s %9s\n", "phase", "per cmd", "noise", "threshold",
		       "us/cmd");
		for (int i = 0; i < b.nphases; i++)
			printf("%-15s %14.1f %8.3f%% %9.2f%% %9.2f\n", b.phases[i].name,
			       b.phases[i].per_cmd, 100 * b.phases[i].noise,
			       100 * b.phases[i].threshold, b.phases[i].cpu_us);
		printf("  written to %s\n", g->file);
	}
out:
	gate_baseline_free(&b);
	ab_result_free(&r);
	return err;
}

static int gate_check(const struct gate_opts *g, struct ab_opts *o)
{
	static struct ab_result r;
	struct gate_baseline base, now = {};
	char list[512] = "";
	bool moved = false;
	int err;

	err = gate_read(g->file, &base);
	if (err)
		return err;
	o->instructions = !strcmp(base.metric, "instructions");
	o->isrc = ICOUNT_AUTO;
	if (o->instructions)
		icount_source_parse(base.source, &o->isrc);
	o->scale = base.scale;
	for (int i = 0; i < base.nphases; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? "," : "",
			 base.phases[i].name);
	err = ab_parse_phase_list(o, list);
	if (!err)
		err = measure(g, o, g->rounds_given ? g->rounds : base.rounds, &r);
	if (!err)
		err = fill_phases(&r, &now);
	if (err)
		goto out;
	apply_thresholds(g, &base);
	if (o->instructions && strcmp(icount_source_name(r.isrc), base.source))
		pr_warn("the baseline's instructions came from %s, these from %s: the counts "
			"differ by what the sources count",
			base.source, icount_source_name(r.isrc));
	snprintf(now.netmux, sizeof(now.netmux), "%s", o->netmux[AB_A]);
	snprintf(now.version, sizeof(now.version), "%s", r.version[AB_A]);
	printf("muxbpf gate check: %s (%s)\n  against %s: %s (%s), saved %s\n  %s per command "
	       "(source %s), scale %g, %d rounds\n\n",
	       now.netmux, now.version, g->file, base.netmux, base.version, base.created,
	       base.metric, o->instructions ? icount_source_name(r.isrc) : "runtime", base.scale,
	       o->rounds);
	printf("%-15s %14s %14s %9s %10s  %s\n", "phase", "baseline", "now", "change",
	       "threshold", "verdict");
	for (int i = 0; i < base.nphases; i++) {
		struct gate_result res;

		gate_compare(&base.phases[i], &now.phases[i], &res);
		moved |= res.moved;
		printf("%-15s %14.1f %14.1f %+8.2f%% %9.2f%%  %s\n", res.phase, res.base, res.now,
		       100 * res.change, 100 * res.threshold,
		       !res.moved ? "ok" : res.change > 0 ? "SLOWER" : "FASTER");
	}
	for (int i = 0; i < base.nphases; i++) {
		struct gate_result res;

		gate_compare(&base.phases[i], &now.phases[i], &res);
		if (!res.moved)
			continue;
		printf("\n== %s moved %+.2f%% (threshold %.2f%%): functions, %s per command, "
		       "baseline -> now\n",
		       res.phase, 100 * res.change, 100 * res.threshold, base.fn_unit);
		printf("  %12s %12s %12s   %12s %12s  %s\n", "self", "", "change", "total", "",
		       "function");
		for (int k = 0; k < res.nfns && k < g->top; k++) {
			const struct gate_moved_fn *m = &res.fns[k];

			printf("  %12.2f %12.2f %+12.2f   %12.2f %12.2f  %s\n", m->base_self,
			       m->new_self, m->new_self - m->base_self, m->base_total,
			       m->new_total, m->name);
		}
	}
	printf("\n%s\n", moved ? "gate: beyond the threshold (exit 1); if the change is "
				 "intended, save a new baseline"
			       : "gate: every phase within its threshold");
	err = moved ? 1 : 0;
out:
	gate_baseline_free(&now);
	gate_baseline_free(&base);
	ab_result_free(&r);
	return err;
}

int gate_main(int argc, char **argv)
{
	struct gate_opts g;
	struct ab_opts o;
	int err = gate_parse(argc, argv, &g);

	if (err)
		return err > 0 ? 0 : 2;
	/* ab reads the shared options; its minimum of 8 rounds is for its paired test only */
	err = ab_parse(g.abc, (char **)g.abv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	err = g.check ? gate_check(&g, &o) : gate_save(&g, &o);
	if (err < 0)
		return signals_pending() ? signals_exit_code(signals_pending()) : 2;
	return err;
}
