// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* muxbpf diff: compare two runs' report.json. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "output/diff.h"
#include "base/stats.h"
#include "report/flame.h"
#include "base/log.h"
#include "output/out.h"
#include "output/out_folded.h"
#include "output/out_html.h"
#include "output/out_svg.h"
#include "base/stats.h"

#define SIGMAS 3.0 /* a share moved beyond sampling noise: |change| > 3 standard errors */

static const struct jv *phase_by_name(const struct jv *report, const char *name)
{
	const struct jv *ph = jv_get(report, "phases");

	for (size_t i = 0; ph && ph->type == JV_ARR && i < ph->n; i++)
		if (!strcmp(jv_str(jv_get(&ph->v[i], "name"), ""), name))
			return &ph->v[i];
	return NULL;
}

/* Relative run-to-run spread of a metric in a phase, or NAN when the report has none. */
static double spread_of(const struct jv *phase, const char *metric)
{
	const struct jv *s = jv_get(jv_get(phase, "spread"), metric);

	return s ? jv_num(jv_get(s, "spread"), NAN) : NAN;
}

struct metric {
	const char *key, *label, *spread_key;
	double scale; /* to the unit printed */
	const char *fmt;
};

static const struct metric metrics[] = {
	{ "oncpu_ns", "on-CPU ms", "oncpu_ns", 1e-6, "%10.2f" },
	{ "usr_ns", "usr ms", "usr_ns", 1e-6, "%10.2f" },
	{ "sys_ns", "sys ms", "sys_ns", 1e-6, "%10.2f" },
	{ "cmd_per_s", "cmd/s", "cmd_per_s", 1, "%10.0f" },
	{ "wall_s", "wall s", "wall_s", 1, "%10.3f" },
};

/* One metric line (and its object in j, when not NULL); returns 1 when the change is beyond
 * the noise. */
static int diff_metric(FILE *f, struct jw *j, const char *phase, const struct metric *m,
		       const struct jv *po, const struct jv *pn, bool *first)
{
	const struct jv *vo = jv_get(po, m->key), *vn = jv_get(pn, m->key);
	double a, b, rel, noise;
	char verdict[64], nbuf[32];
	int beyond = 0;

	if (!vo || !vn || vo->type != JV_NUM || vn->type != JV_NUM)
		return 0;
	a = vo->num;
	b = vn->num;
	rel = a != 0 ? (b - a) / a : (b != 0 ? INFINITY : 0);
	noise = fmax(spread_of(po, m->spread_key), spread_of(pn, m->spread_key));
	if (isnan(spread_of(po, m->spread_key)) && isnan(spread_of(pn, m->spread_key)))
		noise = NAN;
	if (isnan(noise)) {
		snprintf(nbuf, sizeof(nbuf), "%8s", "?");
		snprintf(verdict, sizeof(verdict), rel == 0 ? "same" : "no spread (--runs)");
	} else {
		snprintf(nbuf, sizeof(nbuf), "%7.1f%%", 100 * noise);
		beyond = fabs(rel) > noise;
		snprintf(verdict, sizeof(verdict), "%s",
			 !beyond ? "within noise" : rel > 0 ? "UP, beyond noise"
							    : "DOWN, beyond noise");
	}
	fprintf(f, "%-15s %-10s ", *first ? phase : "", m->label);
	fprintf(f, m->fmt, a * m->scale);
	fprintf(f, " ");
	fprintf(f, m->fmt, b * m->scale);
	if (isinf(rel))
		fprintf(f, " %8s", "new");
	else
		fprintf(f, " %+7.1f%%", 100 * rel);
	fprintf(f, " %s  %s\n", nbuf, verdict);
	*first = false;
	if (j) {
		jw_obj(j);
		jw_kstr(j, "key", m->key);
		jw_kstr(j, "label", m->label);
		/* old and new in the key's unit; times scale: the label's */
		jw_knum(j, "scale", m->scale);
		jw_knum(j, "old", a);
		jw_knum(j, "new", b);
		jw_knum(j, "change_pct", 100 * rel); /* null: from zero */
		jw_knum(j, "noise_pct", 100 * noise); /* null: no spread in either input */
		jw_kstr(j, "verdict", verdict);
		jw_kbool(j, "beyond", beyond);
		jw_obj_end(j);
	}
	return beyond;
}

/* A phase's CPU per command (or its on-CPU time, for phases without commands) in every run. */
static size_t per_run_cpu(const struct jv *phase, double *v, size_t max)
{
	const struct jv *runs = jv_get(jv_get(phase, "spread"), "per_run");
	size_t n = 0;

	for (size_t i = 0; runs && runs->type == JV_ARR && i < runs->n && n < max; i++) {
		double cpu = jv_num(jv_get(&runs->v[i], "oncpu_ns"), NAN);
		double cmds = jv_num(jv_get(&runs->v[i], "commands"), 0);

		if (!isnan(cpu))
			v[n++] = cmds > 0 ? cpu / cmds : cpu;
	}
	return n;
}

/*
 * With --runs on both sides, the statistics of muxbpf ab over the runs: new/old of the median
 * CPU per command with a bootstrap interval, Mann-Whitney (runs of separate processes are not
 * paired), the smallest detectable difference, a verdict.  Returns 1 for faster or slower.
 */
static int diff_runs(FILE *f, struct jw *j, const struct jv *po, const struct jv *pn)
{
	double a[64], b[64];
	size_t na = per_run_cpu(po, a, 64), nb = per_run_cpu(pn, b, 64);
	struct stats_ab r;

	if (na < 2 || nb < 2 || stats_ab_compare_unpaired(a, na, b, nb, NULL, &r))
		return 0;
	if (j) {
		jw_key(j, "runs_cpu_per_cmd");
		jw_obj(j);
		jw_knum(j, "ratio", r.ratio);
		jw_knum(j, "ci_low", r.ci_low);
		jw_knum(j, "ci_high", r.ci_high);
		jw_knum(j, "p", r.p);
		jw_knum(j, "best_ratio", r.best_ratio);
		jw_knum(j, "mdd", r.mdd);
		jw_kstr(j, "verdict", stats_verdict_name(r.verdict));
		jw_obj_end(j);
	}
	fprintf(f, "%-15s %-10s new/old %.3f [%.3f, %.3f] over %zu and %zu runs, best %.3f, "
		   "Mann-Whitney p %.2g, mdd %.1f%%: %s%s\n",
		"", "CPU/cmd", r.ratio, r.ci_low, r.ci_high, na, nb, r.best_ratio, r.p, 100 * r.mdd,
		stats_verdict_name(r.verdict),
		r.mdd >= 1 ? " (too few runs to call any difference)" : "");
	return r.verdict != STATS_SAME;
}

struct fn_delta {
	const char *name;
	double old_pct, new_pct, delta, sigma;
	double old_half, new_half; /* the rows' 95% half-widths, points */
};

static int cmp_delta(const void *a, const void *b)
{
	const struct fn_delta *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The row of the function NAME in a report's rows, or NULL. */
static const struct jv *rows_row(const struct jv *rows, const char *name)
{
	for (size_t i = 0; rows && rows->type == JV_ARR && i < rows->n; i++)
		if (!strcmp(jv_str(jv_get(&rows->v[i], "name"), ""), name))
			return &rows->v[i];
	return NULL;
}

static double rows_self(const struct jv *rows, const char *name)
{
	return jv_num(jv_get(rows_row(rows, name), "self"), 0);
}

/* Half the 95% interval, in points, of a share of k in n samples. */
static double share_half(double k, double n)
{
	struct stats_ci ci;

	stats_share((uint64_t)llround(k), (uint64_t)llround(n), &ci);
	return 100 * stats_ci_half(&ci);
}

/*
 * Half the 95% interval, in points, of a row's self share as its report gives it (self_ci_pct:
 * the wider of Wilson and the rounds' spread), or Wilson on k of n for a report without it or
 * a row it does not list.
 */
static double row_half(const struct jv *rows, const char *name, double n)
{
	for (size_t i = 0; rows && rows->type == JV_ARR && i < rows->n; i++) {
		const struct jv *ci = jv_get(&rows->v[i], "self_ci_pct");

		if (strcmp(jv_str(jv_get(&rows->v[i], "name"), ""), name))
			continue;
		if (ci && ci->type == JV_ARR && ci->n == 2)
			return (jv_num(&ci->v[1], 0) - jv_num(&ci->v[0], 0)) / 2;
		return share_half(jv_num(jv_get(&rows->v[i], "self"), 0), n);
	}
	return share_half(0, n);
}

/*
 * CPU per command with the intervals the rounds give each side (rounds.cpu_per_cmd_us): the
 * change is beyond them when it exceeds the two half-widths combined.  Returns 1 then.
 */
static int diff_cpu_per_cmd(FILE *f, struct jw *j, const struct jv *po, const struct jv *pn)
{
	const struct jv *co = jv_get(jv_get(po, "rounds"), "cpu_per_cmd_us");
	const struct jv *cn = jv_get(jv_get(pn, "rounds"), "cpu_per_cmd_us");
	double a, b, ha, hb, half, rel;
	bool beyond;

	if (!co || !cn || co->type != JV_OBJ || cn->type != JV_OBJ)
		return 0;
	a = jv_num(jv_get(co, "value"), NAN);
	b = jv_num(jv_get(cn, "value"), NAN);
	ha = (jv_num(jv_get(co, "hi"), NAN) - jv_num(jv_get(co, "lo"), NAN)) / 2;
	hb = (jv_num(jv_get(cn, "hi"), NAN) - jv_num(jv_get(cn, "lo"), NAN)) / 2;
	if (isnan(a) || isnan(b) || isnan(ha) || isnan(hb) || a <= 0)
		return 0;
	half = sqrt(ha * ha + hb * hb);
	rel = (b - a) / a;
	beyond = fabs(b - a) > half;
	fprintf(f, "%-15s %-10s %10.2f %10.2f %+7.1f%% %7.1f%%  %s\n", "", "us/cmd", a, b, 100 * rel,
		100 * half / a,
		!beyond ? "within the rounds' intervals"
		: rel > 0 ? "UP, beyond the rounds' intervals" : "DOWN, beyond the rounds' intervals");
	if (j) {
		jw_key(j, "cpu_per_cmd_us");
		jw_obj(j);
		jw_knum(j, "old", a);
		jw_knum(j, "old_ci_half", ha);
		jw_knum(j, "new", b);
		jw_knum(j, "new_ci_half", hb);
		jw_knum(j, "change_pct", 100 * rel);
		jw_knum(j, "delta_ci_half", half);
		jw_kbool(j, "beyond", beyond);
		jw_obj_end(j);
	}
	return beyond;
}

/* The functions whose self share moved most (the top of them also as j's "functions"); returns
 * those beyond sampling noise. */
static int diff_functions(FILE *f, struct jw *j, const struct jv *po, const struct jv *pn,
			  int top)
{
	const struct jv *fo = jv_get(po, "functions"), *fn = jv_get(pn, "functions");
	const struct jv *ro = jv_get(fo, "rows"), *rn = jv_get(fn, "rows");
	double no = jv_num(jv_get(fo, "samples"), 0), nn = jv_num(jv_get(fn, "samples"), 0);
	size_t cap = (ro ? ro->n : 0) + (rn ? rn->n : 0), n = 0;
	struct fn_delta *d;
	int beyond = 0, shown = 0;

	if (j) {
		jw_key(j, "functions");
		jw_obj(j);
		jw_knum(j, "old_samples", no);
		jw_knum(j, "new_samples", nn);
		jw_key(j, "rows");
		jw_arr(j);
	}
	d = !no || !nn || !cap ? NULL : calloc(cap, sizeof(*d));
	if (!d)
		goto out_json;
	for (int side = 0; side < 2; side++) {
		const struct jv *rows = side ? ro : rn;

		for (size_t i = 0; rows && rows->type == JV_ARR && i < rows->n; i++) {
			const char *name = jv_str(jv_get(&rows->v[i], "name"), "");
			double so, sn, p1, p2;

			/*
			 * names of the new run first, then those only in the old one: a name the
			 * new run has a row for (self 0: only on others' stacks) is done already
			 */
			if (side && rows_row(rn, name))
				continue;
			so = rows_self(ro, name);
			sn = rows_self(rn, name);
			if (!so && !sn)
				continue;
			p1 = so / no;
			p2 = sn / nn;
			d[n].name = name;
			d[n].old_pct = 100 * p1;
			d[n].new_pct = 100 * p2;
			d[n].delta = 100 * (p2 - p1);
			/* the rows' own intervals: they hold for samples correlated in a round */
			d[n].old_half = row_half(ro, name, no);
			d[n].new_half = row_half(rn, name, nn);
			d[n].sigma = sqrt(d[n].old_half * d[n].old_half +
					  d[n].new_half * d[n].new_half) / 1.96;
			n++;
		}
	}
	if (n > 1)
		qsort(d, n, sizeof(*d), cmp_delta);
	for (size_t i = 0; i < n; i++) {
		bool b = fabs(d[i].delta) > SIGMAS * d[i].sigma && d[i].delta != 0;

		beyond += b;
		if (shown >= top || d[i].delta == 0)
			continue;
		if (!shown)
			fprintf(f, "  self share, old -> new (%.0f -> %.0f samples; +- = 95%% "
				   "interval, the reports' own: Wilson, or the rounds' spread where "
				   "wider; * = beyond %.0f sigma of sampling noise):\n", no, nn,
				SIGMAS);
		double old_half = d[i].old_half, new_half = d[i].new_half;

		fprintf(f, "  %+7.2f pts +-%.2f  %6.2f%% +-%.1f -> %6.2f%% +-%.1f  (sigma %.2f)%s %s\n",
			d[i].delta, 1.96 * d[i].sigma, d[i].old_pct, old_half, d[i].new_pct,
			new_half, d[i].sigma, b ? " *" : "  ", d[i].name);
		shown++;
		if (j) {
			jw_obj(j);
			jw_kstr(j, "name", d[i].name);
			jw_knum(j, "old_pct", d[i].old_pct);
			jw_knum(j, "old_ci_half_pts", old_half);
			jw_knum(j, "new_pct", d[i].new_pct);
			jw_knum(j, "new_ci_half_pts", new_half);
			jw_knum(j, "delta_pts", d[i].delta);
			jw_knum(j, "delta_ci_half_pts", 1.96 * d[i].sigma);
			jw_knum(j, "sigma_pts", d[i].sigma);
			jw_kbool(j, "beyond", b);
			jw_obj_end(j);
		}
	}
	free(d);
out_json:
	if (j) {
		jw_arr_end(j);
		jw_obj_end(j);
	}
	return beyond;
}

/* A syscall row of a phase's ledger by name, or NULL. */
static const struct jv *sys_row(const struct jv *phase, const char *name)
{
	const struct jv *rows = jv_get(jv_get(phase, "ledger"), "syscalls");

	for (size_t i = 0; rows && rows->type == JV_ARR && i < rows->n; i++)
		if (!strcmp(jv_str(jv_get(&rows->v[i], "name"), ""), name))
			return &rows->v[i];
	return NULL;
}

/* A figure of a syscall row, half its 95% interval (NAN: none) and where that comes from. */
struct sys_fig {
	double v, half;
	const char *from; /* report.json's ci_from: batches, once, none */
};

static struct sys_fig sys_fig(const struct jv *row, const char *key, const char *ci_key)
{
	const struct jv *ci = jv_get(row, ci_key);
	struct sys_fig f = { jv_num(jv_get(row, key), NAN), NAN,
			     jv_str(jv_get(row, "ci_from"), "none") };

	if (!strcmp(f.from, "batches") && ci && ci->type == JV_ARR && ci->n == 2)
		f.half = (jv_num(&ci->v[1], NAN) - jv_num(&ci->v[0], NAN)) / 2;
	return f;
}

/* Beyond the two intervals, as the self shares: the change exceeds SIGMAS of their sigma. */
static bool sys_beyond(struct sys_fig a, struct sys_fig b)
{
	double sigma = sqrt(a.half * a.half + b.half * b.half) / 1.96;

	return !isnan(sigma) && b.v != a.v && fabs(b.v - a.v) > SIGMAS * sigma;
}

/* "+-0.40", or how a figure without an interval is known ("once", "-", "?"). */
static const char *sys_half(char *buf, size_t size, struct sys_fig f, int decimals)
{
	if (isnan(f.half) && !strcmp(f.from, "batches"))
		snprintf(buf, size, "?"); /* calls in fewer than 2 batches */
	else if (isnan(f.half))
		snprintf(buf, size, "%s", strcmp(f.from, "once") ? "-" : "once");
	else
		snprintf(buf, size, "+-%.*f", decimals, f.half);
	return buf;
}

static void sys_json(struct jw *j, const char *name, const char *key, struct sys_fig a,
		     struct sys_fig b, bool beyond)
{
	jw_obj(j);
	jw_kstr(j, "name", name);
	jw_kstr(j, "figure", key);
	jw_knum(j, "old", a.v);
	jw_knum(j, "old_ci_half", a.half); /* null: no interval (once, a merged report of one run) */
	jw_knum(j, "new", b.v);
	jw_knum(j, "new_ci_half", b.half);
	jw_kbool(j, "beyond", beyond);
	jw_obj_end(j);
}

static void sys_line(FILE *f, const char *name, const struct sys_fig *a, const struct sys_fig *b,
		     const bool *out, bool *header)
{
	char h[4][24];

	if (!*header)
		fprintf(f, "  syscalls, old -> new (share of on-CPU and us/call; +- = 95%% "
			   "interval from each report's batches or runs; once = one window, no "
			   "interval: not judged; * = beyond %.0f sigma of the intervals):\n", SIGMAS);
	*header = true;
	sys_half(h[0], sizeof(h[0]), a[0], 2);
	sys_half(h[1], sizeof(h[1]), b[0], 2);
	sys_half(h[2], sizeof(h[2]), a[1], 1);
	sys_half(h[3], sizeof(h[3]), b[1], 1);
	fprintf(f, "  %-16s %6.2f%% %7s -> %6.2f%% %7s%s  %8.1f %7s -> %8.1f %7s us/call%s\n", name,
		a[0].v, h[0], b[0].v, h[1], out[0] ? " *" : "  ", a[1].v, h[2], b[1].v, h[3],
		out[1] ? " *" : "");
}

/*
 * The new report's top syscalls against the old's: share of on-CPU and us/call differ only
 * when both sides have intervals (batches) and the change is beyond them.  Returns the changes
 * beyond.
 */
static int diff_syscalls(FILE *f, struct jw *j, const struct jv *po, const struct jv *pn, int top)
{
	static const char *const keys[2][2] = { { "oncpu_pct", "oncpu_ci_pct" },
						{ "us_per_call", "us_per_call_ci" } };
	const struct jv *rows = jv_get(jv_get(pn, "ledger"), "syscalls");
	bool header = false;
	int beyond = 0;

	if (j) {
		jw_key(j, "syscalls");
		jw_arr(j);
	}
	for (size_t i = 0; rows && rows->type == JV_ARR && i < rows->n && (int)i < top; i++) {
		const char *name = jv_str(jv_get(&rows->v[i], "name"), "?");
		const struct jv *old = sys_row(po, name);
		struct sys_fig a[2], b[2];
		bool out[2];

		if (!old)
			continue;
		for (int k = 0; k < 2; k++) {
			a[k] = sys_fig(old, keys[k][0], keys[k][1]);
			b[k] = sys_fig(&rows->v[i], keys[k][0], keys[k][1]);
			out[k] = sys_beyond(a[k], b[k]);
			beyond += out[k];
			if (j)
				sys_json(j, name, keys[k][0], a[k], b[k], out[k]);
		}
		if (a[0].v != b[0].v || a[1].v != b[1].v)
			sys_line(f, name, a, b, out, &header);
	}
	if (j)
		jw_arr_end(j);
	return beyond;
}

static void json_side(struct jw *j, const char *key, const struct jv *r)
{
	jw_key(j, key);
	jw_obj(j);
	jw_kstr(j, "target", jv_str(jv_get(r, "target"), NULL));
	jw_kstr(j, "netmux_version", jv_str(jv_get(r, "netmux_version"), NULL));
	jw_knum(j, "runs", jv_num(jv_get(r, "runs"), 1));
	jw_knum(j, "freq_hz", jv_num(jv_get(r, "freq_hz"), 0));
	jw_knum(j, "scale", jv_num(jv_get(r, "scale"), 0));
	jw_obj_end(j);
}

static void json_only(struct jw *j, const char *name, const char *side)
{
	jw_obj(j);
	jw_kstr(j, "name", name);
	jw_kstr(j, "only_in", side);
	jw_obj_end(j);
}

int diff_reports(FILE *f, const struct jv *old, const struct jv *new, const struct diff_opts *o)
{
	const struct jv *phases = jv_get(new, "phases");
	struct jw *j = o->json;
	int beyond = 0;

	for (int side = 0; side < 2; side++) {
		const struct jv *r = side ? new : old;
		double v = jv_num(jv_get(r, "schema_version"), -1);

		if (strcmp(jv_str(jv_get(r, "tool"), ""), "muxbpf") || v < 1) {
			pr_err("the %s input is not a muxbpf report.json", side ? "new" : "old");
			return -EINVAL;
		}
		if (v > REPORT_JSON_SCHEMA_VERSION) {
			pr_err("the %s input has schema_version %.0f; this muxbpf reads up to %d",
			       side ? "new" : "old", v, REPORT_JSON_SCHEMA_VERSION);
			return -EINVAL;
		}
	}
	fprintf(f, "muxbpf diff: old %s (%s, %.0f run%s) -> new %s (%s, %.0f run%s)\n",
		jv_str(jv_get(old, "target"), "?"), jv_str(jv_get(old, "netmux_version"), "?"),
		jv_num(jv_get(old, "runs"), 1), jv_num(jv_get(old, "runs"), 1) == 1 ? "" : "s",
		jv_str(jv_get(new, "target"), "?"), jv_str(jv_get(new, "netmux_version"), "?"),
		jv_num(jv_get(new, "runs"), 1), jv_num(jv_get(new, "runs"), 1) == 1 ? "" : "s");
	fprintf(f, "noise: the larger run-to-run spread (max - min) / median of the two inputs "
		   "(needs --runs >= 2)\n\n");
	fprintf(f, "%-15s %-10s %10s %10s %8s %8s  %s\n", "phase", "metric", "old", "new", "change",
		"noise", "verdict");
	if (j) {
		jw_obj(j);
		jw_kstr(j, "tool", "muxbpf");
		jw_kstr(j, "kind", "diff");
		jw_knum(j, "sigmas", SIGMAS);
		json_side(j, "old", old);
		json_side(j, "new", new);
		jw_key(j, "phases");
		jw_arr(j);
	}
	for (size_t i = 0; phases && phases->type == JV_ARR && i < phases->n; i++) {
		const struct jv *pn = &phases->v[i];
		const char *name = jv_str(jv_get(pn, "name"), "?");
		const struct jv *po = phase_by_name(old, name);
		bool first = true;

		if (!po) {
			fprintf(f, "%-15s only in the new report\n", name);
			if (j)
				json_only(j, name, "new");
			continue;
		}
		if (j) {
			jw_obj(j);
			jw_kstr(j, "name", name);
			jw_key(j, "metrics");
			jw_arr(j);
		}
		for (size_t m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++)
			beyond += diff_metric(f, j, name, &metrics[m], po, pn, &first);
		if (j)
			jw_arr_end(j);
		beyond += diff_cpu_per_cmd(f, j, po, pn);
		beyond += diff_runs(f, j, po, pn);
		beyond += diff_functions(f, j, po, pn, o->top);
		beyond += diff_syscalls(f, j, po, pn, o->top);
		if (j)
			jw_obj_end(j);
	}
	for (size_t i = 0; (phases = jv_get(old, "phases")) && i < phases->n; i++) {
		const char *name = jv_str(jv_get(&phases->v[i], "name"), "?");

		if (!phase_by_name(new, name)) {
			fprintf(f, "%-15s only in the old report\n", name);
			if (j)
				json_only(j, name, "old");
		}
	}
	if (beyond)
		fprintf(f, "\n%d change%s beyond noise\n", beyond, beyond == 1 ? "" : "s");
	else
		fprintf(f, "\nno change beyond noise\n");
	if (j) {
		jw_arr_end(j);
		jw_ku64(j, "beyond", beyond);
		jw_obj_end(j);
	}
	return beyond;
}

/* path, or path/report.json when path is a directory; dir gets the directory. */
static void input_paths(const char *arg, char *json, char *dir, size_t size)
{
	struct stat st;

	if (!stat(arg, &st) && S_ISDIR(st.st_mode)) {
		snprintf(json, size, "%s/report.json", arg);
		snprintf(dir, size, "%s", arg);
		return;
	}
	snprintf(json, size, "%s", arg);
	snprintf(dir, size, "%s", arg);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = 0;
	else
		snprintf(dir, size, ".");
}

/* PHASE.diff.svg for every phase with folded stacks on both sides, each also inline in the
 * page when page is not NULL.  The number written, or -errno. */
static int diff_flames(const struct jv *new, const char *dir_old, const char *dir_new,
		       const char *out_dir, FILE *page)
{
	const struct jv *phases = jv_get(new, "phases");
	int written = 0;

	for (size_t i = 0; phases && i < phases->n; i++) {
		const char *name = jv_str(jv_get(&phases->v[i], "name"), "?");
		char po[PATH_MAX + 128], pn[PATH_MAX + 128], out[PATH_MAX + 128];
		char err[PATH_MAX + 256], title[256], sub[512];
		struct folded fo, fn;
		struct flame t;
		struct svg_opts so = { .title = title, .subtitle = sub, .unit = "samples",
				       .diff = true };
		FILE *f;
		int rc;

		snprintf(po, sizeof(po), "%s/%s.folded", dir_old, name);
		snprintf(pn, sizeof(pn), "%s/%s.folded", dir_new, name);
		if (folded_read(po, &fo, err, sizeof(err))) {
			pr_warn("no differential flame graph for %s: %s", name, err);
			continue;
		}
		if (folded_read(pn, &fn, err, sizeof(err))) {
			pr_warn("no differential flame graph for %s: %s", name, err);
			folded_free(&fo);
			continue;
		}
		snprintf(title, sizeof(title), "%s: differential flame graph", name);
		snprintf(sub, sizeof(sub),
			 "widths: new (%llu samples); colour: share change vs old (%llu samples), "
			 "red grew, blue shrank", (unsigned long long)fn.total,
			 (unsigned long long)fo.total);
		rc = flame_init(&t, "all");
		if (!rc)
			rc = folded_to_flame(&fn, &t, false);
		if (!rc)
			rc = folded_to_flame(&fo, &t, true);
		folded_free(&fo);
		folded_free(&fn);
		if (rc) {
			flame_free(&t);
			return rc;
		}
		flame_layout(&t);
		flame_figures(&t, 1);
		snprintf(out, sizeof(out), "%s/%s.diff.svg", out_dir, name);
		f = fopen(out, "w");
		if (!f) {
			rc = -errno;
			pr_err("failed to create %s: %s", out, strerror(errno));
			flame_free(&t);
			return rc;
		}
		rc = svg_write(f, &t, &so);
		if (fclose(f) && !rc)
			rc = -EIO;
		if (!rc && page) {
			char prefix[128];

			snprintf(prefix, sizeof(prefix), "%s-", name);
			so.embed = true;
			so.id_prefix = prefix;
			html_flame_begin(page, name);
			rc = svg_write(page, &t, &so);
			html_flame_end(page);
		}
		flame_free(&t);
		if (rc) {
			pr_err("failed to write %s: %s", out, strerror(-rc));
			return rc;
		}
		written++;
	}
	return written;
}

static int write_all(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		pr_err("failed to write %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

static int w_buf(FILE *f, const void *buf, const void *len, const void *unused)
{
	(void)unused;
	return fwrite(buf, 1, *(const size_t *)len, f) == *(const size_t *)len ? 0 : -EIO;
}

/* --out: diff.txt, diff.json, the differential flame graphs and report.html (the page of
 * diff.json with the graphs inline).  The number of graphs, or -errno. */
static int diff_write(const struct diff_opts *o, const struct jv *new, const char *dold,
		      const char *dnew, const char *text, size_t len, const char *json,
		      size_t jlen)
{
	static const char *const files[] = { "diff.txt", "diff.json" };
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
	FILE *page;
	int n, err;

	if (out_mkdir_p(o->out_dir)) {
		pr_err("failed to create %s: %s", o->out_dir, strerror(errno));
		return -EIO;
	}
	snprintf(path, sizeof(path), "%s/diff.txt", o->out_dir);
	if (write_all(path, text, len))
		return -EIO;
	snprintf(path, sizeof(path), "%s/diff.json", o->out_dir);
	if (write_all(path, json, jlen))
		return -EIO;
	snprintf(path, sizeof(path), "%s/report.html", o->out_dir);
	snprintf(tmp, sizeof(tmp), "%s/.report.html.tmp", o->out_dir);
	page = fopen(tmp, "w");
	if (!page) {
		err = -errno;
		pr_err("failed to create %s: %s", tmp, strerror(-err));
		return err;
	}
	html_begin(page, "muxbpf diff");
	err = html_data(page, "diff", files, 2, w_buf, json, &jlen, NULL);
	html_flames_begin(page);
	n = err ? err : diff_flames(new, dold, dnew, o->out_dir, page);
	err = n < 0 ? n : html_end(page);
	if (fclose(page) && !err)
		err = -EIO;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		if (n >= 0)
			pr_err("failed to write %s: %s", path, strerror(-err));
		return err;
	}
	return n;
}

static const char diff_usage[] =
	"usage: muxbpf diff OLD NEW [--out DIR] [--top N] [-q]\n"
	"Compare two runs: OLD and NEW are report.json files or the --out directories holding\n"
	"them.  Exit status 0: no change beyond noise, 1: changes, 2: error.\n"
	"  --out DIR   write diff.txt, diff.json, PHASE.diff.svg (differential flame graphs\n"
	"              from the PHASE.folded files next to the reports) and report.html\n"
	"  --top N     functions listed per phase (default 10)\n"
	"  -q, --quiet no summary of the files written\n";

int diff_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' }, { "top", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },     { "help", no_argument, NULL, 'h' },
		{},
	};
	struct diff_opts o = { .top = 10 };
	char jo[PATH_MAX], jn[PATH_MAX], dold[PATH_MAX], dnew[PATH_MAX], err[512];
	struct jv *old = NULL, *new = NULL;
	char *text = NULL, *json = NULL;
	size_t len = 0, jlen = 0;
	FILE *mem, *jmem;
	struct jw jw;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", lo, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'o':
			o.out_dir = optarg;
			break;
		case 't':
			o.top = (int)strtol(optarg, &end, 10);
			if (*end || o.top < 1) {
				pr_err("invalid --top '%s' (expected a whole number from 1)",
				       optarg);
				return 2;
			}
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(diff_usage, stdout);
			return 0;
		default:
			pr_err("diff: bad option '%s' (see muxbpf diff --help)", argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind != 2) {
		pr_err("diff: expected two inputs, OLD and NEW (see muxbpf diff --help)");
		return 2;
	}
	input_paths(argv[optind], jo, dold, sizeof(jo));
	input_paths(argv[optind + 1], jn, dnew, sizeof(jn));
	old = json_parse_file(jo, err, sizeof(err));
	if (!old) {
		pr_err("failed to read %s: %s", jo, err);
		return 2;
	}
	new = json_parse_file(jn, err, sizeof(err));
	if (!new) {
		pr_err("failed to read %s: %s", jn, err);
		jv_free(old);
		return 2;
	}
	mem = open_memstream(&text, &len);
	jmem = o.out_dir ? open_memstream(&json, &jlen) : NULL;
	if (!mem || (o.out_dir && !jmem)) {
		if (mem)
			fclose(mem);
		free(text);
		jv_free(old);
		jv_free(new);
		return 2;
	}
	if (jmem) {
		jw_init(&jw, jmem, true);
		o.json = &jw;
	}
	rc = diff_reports(mem, old, new, &o);
	fclose(mem);
	if (jmem) {
		fputc('\n', jmem);
		fclose(jmem);
	}
	if (rc >= 0)
		fwrite(text, 1, len, stdout);
	if (rc >= 0 && o.out_dir) {
		int n = diff_write(&o, new, dold, dnew, text, len, json, jlen);

		if (n < 0) {
			rc = n;
			goto out_free;
		}
		if (!o.quiet)
			fprintf(stderr,
				"muxbpf: diff.txt, diff.json, %d differential flame graph%s and "
				"the page %s/report.html\n", n, n == 1 ? "" : "s", o.out_dir);
	}
out_free:
	free(text);
	free(json);
	jv_free(old);
	jv_free(new);
	return rc < 0 ? 2 : rc > 0 ? 1 : 0;
}
