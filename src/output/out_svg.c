// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Flame graph SVG writer: static frames laid out here, interactivity in src/assets/flame.js. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "output/assets.h"
#include "output/out_svg.h"
#include "base/phases.h"
#include "base/stats.h"

#define FRAME_H 16
#define XPAD 10
#define TOP 66
#define BOTTOM 34
/*
 * Narrower frames (and their children) are left out, as flamegraph.pl does, except the root's
 * children: a search's "Matched" adds up the frames drawn, and those few add up to the whole
 * graph ('.' matched 99.99% of a stripped target's phase once: a child of the root under 0.1 px
 * was left out, and no drawn frame covered it).
 */
#define MIN_PX 0.1

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* A differential frame's colour: red where it grew by d, blue where it shrank, deeper with |d|
 * up to full colour at |d| = 1 / gain. */
static void diff_colour(double d, double gain, char *buf, size_t size)
{
	double mag = fabs(d) * gain;
	int c = 255 - (int)(mag > 1 ? 210 : mag * 210);

	if (d >= 0)
		snprintf(buf, size, "rgb(255,%d,%d)", c, c);
	else
		snprintf(buf, size, "rgb(%d,%d,255)", c, c);
}

/* flamegraph.pl's "hot" palette for user code, blue for kernel, grey for unnamed frames. */
static void frame_colour(const struct flame *t, const struct flame_node *n,
			 const struct svg_opts *o, char *buf, size_t size)
{
	uint32_t h = hash_name(n->name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;

	if (o->diff && o->diff_abs) {
		double root = t->v[0].value > 0 ? t->v[0].value : 1;
		diff_colour((n->value - n->base) / root, 10, buf, size); /* 10% = full colour */
		return;
	}
	if (o->diff) {
		double share = t->v[0].value > 0 ? n->value / t->v[0].value : 0;
		double base = t->v[0].base > 0 ? n->base / t->v[0].base : 0;
		diff_colour(share - base, 4, buf, size); /* 25 points of share = full colour */
		return;
	}
	if (n->kind == FLAME_KERNEL)
		snprintf(buf, size, "rgb(%d,%d,%d)", 80 + (int)(40 * v1), 150 + (int)(40 * v2),
			 220);
	else if (n->kind == FLAME_UNNAMED)
		snprintf(buf, size, "rgb(%d,%d,%d)", 175 + (int)(25 * v1), 175 + (int)(25 * v1),
			 175 + (int)(25 * v1));
	else
		snprintf(buf, size, "rgb(%d,%d,%d)", 205 + (int)(50 * v2), (int)(230 * v1),
			 (int)(55 * v2));
}

/* "3.10% +-0.52": a share of k in n samples with its 95% interval ci (the node's figures) in
 * points, "?" after it when the interval is wider than the share. */
static int share_text(char *buf, size_t size, double k, double n, const struct stats_ci *ci)
{
	return snprintf(buf, size, "%.2f%% +-%.2f%s", 100 * k / n, 100 * stats_ci_half(ci),
			stats_ci_wide(ci) ? "?" : "");
}

/*
 * The hover text of a node, from its figures (flame_figures): its self and total shares with
 * their 95% intervals (Wilson on samples, widened by the phase's batch design factor), "?" where
 * one is wider than its share; a differential graph's change with the interval of the
 * difference, "?" where it is wider.
 */
static void frame_details(FILE *f, const struct flame *t, size_t i, const struct svg_opts *o)
{
	const struct flame_node *n = &t->v[i];
	double total = t->v[0].value > 0 ? t->v[0].value : 1;
	char buf[400], self[48], incl[48];

	xml_text(f, n->name);
	if (o->diff && o->diff_abs) {
		snprintf(buf, sizeof(buf), " (B %.3f %s, A %.3f: %+.3f %s, %+.2f%% of B's total)",
			 n->value, o->unit, n->base, n->value - n->base, o->unit,
			 100 * (n->value - n->base) / total);
	} else if (o->diff) {
		double base_total = t->v[0].base > 0 ? t->v[0].base : 1;
		double p1 = n->base / base_total, p2 = n->value / total, half = n->diff_half;

		snprintf(buf, sizeof(buf),
			 " (%.0f %s, %.2f%% now; %.0f, %.2f%% before: %+.2f points +-%.2f%s, 95%%)",
			 n->value, o->unit, 100 * p2, n->base, 100 * p1, 100 * (p2 - p1), half,
			 2 * half > fabs(100 * (p2 - p1)) ? "?" : "");
	} else if (n->kind == FLAME_KERNEL && n->cpu_var > 0) {
		snprintf(buf, sizeof(buf),
			 " (kernel: %.3f ms +-%.3f on-CPU in %.0f calls: the syscall's exact time "
			 "from the ledger, the part at this call site from a sample of its calls, "
			 "95%% = %.1f %s-equivalents, %.2f%%)", n->cpu_ns / 1e6,
			 n->cpu_half_ns / 1e6, n->calls, n->value, o->unit,
			 100 * n->value / total);
	} else if (n->kind == FLAME_KERNEL) {
		snprintf(buf, sizeof(buf),
			 " (kernel: %.3f ms on-CPU in %.0f calls, exact, from the ledger = %.1f "
			 "%s-equivalents, %.2f%%)", n->cpu_ns / 1e6, n->calls,
			 n->value, o->unit, 100 * n->value / total);
	} else {
		int len;

		share_text(self, sizeof(self), n->self, total, &n->self_ci);
		share_text(incl, sizeof(incl), n->value, total, &n->total_ci);
		len = snprintf(buf, sizeof(buf), " (%.1f %s, self %s, total %s", n->value, o->unit,
			       self, incl);
		if (o->unit_ns > 0 && len > 0 && (size_t)len < sizeof(buf))
			len += snprintf(buf + len, sizeof(buf) - len, ", ~%.2f ms",
					n->value * o->unit_ns / 1e6);
		if (len > 0 && (size_t)len < sizeof(buf))
			snprintf(buf + len, sizeof(buf) - len, ")");
	}
	fputs(buf, f);
}

int svg_write(FILE *f, const struct flame *t, const struct svg_opts *o)
{
	int width = o->width > 0 ? o->width : 1200;
	double fw = width - 2 * XPAD, total = t->n ? t->v[0].value : 0;
	int height = TOP + (t->max_depth + 1) * FRAME_H + BOTTOM;
	const char *id = o->id_prefix ? o->id_prefix : "";
	char colour[48];

	if (!o->embed)
		fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n", f);
	fprintf(f, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" "
		   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" data-fw=\"%.0f\" "
		   "data-xpad=\"%d\" data-total=\"%.6f\">\n",
		width, height, width, height, fw, XPAD, total);
	/* embedded in report.html, the page holds the CSS and the script once for all graphs */
	if (!o->embed)
		fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", asset_flame_css);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", width,
		height, o->diff ? "#fdfdfd" : "#f8f4ee");
	fprintf(f, "<text class=\"fg-title\" x=\"%d\" y=\"24\">", width / 2);
	xml_text(f, o->title ? o->title : "flame graph");
	fputs("</text>\n", f);
	fprintf(f, "<text class=\"fg-subtitle\" x=\"%d\" y=\"44\">", width / 2);
	xml_text(f, o->subtitle ? o->subtitle : "");
	fputs("</text>\n", f);
	fprintf(f, "<text class=\"ctl fg-unzoom hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n",
		XPAD);
	fprintf(f, "<text class=\"ctl fg-search\" x=\"%d\" y=\"24\" "
		   "text-anchor=\"end\">Search</text>\n", width - XPAD);
	fprintf(f, "<text class=\"ctl fg-reset-search hide\" x=\"%d\" y=\"44\" "
		   "text-anchor=\"end\">Reset Search</text>\n", width - XPAD);
	fprintf(f, "<text class=\"fg-details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD,
		height - 12);
	fprintf(f, "<text class=\"fg-matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		width - XPAD, height - 12);
	fputs("<g class=\"frames\">\n", f);
	for (size_t i = 0; i < t->n && total > 0; i++) {
		const struct flame_node *n = &t->v[i];
		double w = n->value / total, px = w * fw, x = XPAD + n->x * fw;
		int y = height - BOTTOM - (n->depth + 1) * FRAME_H;
		int chars = (int)((px - 6) / 6.6);
		size_t len = strlen(n->name);

		if (px < MIN_PX && n->depth > 1)
			continue;
		frame_colour(t, n, o, colour, sizeof(colour));
		fprintf(f, "<g class=\"f\" id=\"%sf%zu\" data-x=\"%.10f\" data-w=\"%.10f\" "
			   "data-d=\"%d\" data-n=\"", id, i, n->x, w, n->depth);
		xml_text(f, n->name);
		fputs("\"><title>", f);
		frame_details(f, t, i, o);
		fprintf(f, "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			   "fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%d\">",
			x, y, px, FRAME_H - 1, colour, x + 3, y + FRAME_H - 4);
		if (chars >= 3 && (size_t)chars >= len) {
			xml_text(f, n->name);
		} else if (chars >= 3) {
			char buf[512];

			snprintf(buf, sizeof(buf), "%.*s..", chars - 2, n->name);
			xml_text(f, buf);
		}
		fputs("</text></g>\n", f);
	}
	fputs("</g>\n", f);
	if (!o->embed)
		fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s"
			   "muxFlameStandalone();\n]]></script>\n", asset_flame_js);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* ---- PHASE.svg: a phase's flame graph, user samples and the ledger's kernel time ---------- */

static const struct report_phase *report_phase_of(const struct report *r, unsigned int id)
{
	for (int i = 0; i < r->nphases; i++)
		if (r->phases[i].id == id)
			return &r->phases[i];
	return NULL;
}

/* The subtitle's estimate without muxbpf's own time, labelled as one (the report's
 * corrected figures). */
static void corrected_title(char *sub, size_t size, const struct report_phase *rp)
{
	size_t n = strlen(sub);

	if (!rp || !rp->has_ledger || n >= size)
		return;
	if (rp->corrected.valid)
		snprintf(sub + n, size - n, "; corrected for muxbpf (estimate): on-CPU %.2f ms, "
			 "kernel %.2f ms", rp->corrected.oncpu_ns / 1e6, rp->corrected.sys_ns / 1e6);
}

/* Where the hover text's intervals come from (the tree's figures' factor). */
static void ci_title(char *sub, size_t size, double factor)
{
	size_t n = strlen(sub);

	if (n >= size)
		return;
	if (factor > 1)
		snprintf(sub + n, size - n, "; shares +- 95%%: Wilson x%.2f (the phase's batches)",
			 factor);
	else
		snprintf(sub + n, size - n, "; shares +- 95%%: Wilson");
}

static int phase_svg(FILE *f, const struct report *r, const struct sp_phase *p, bool embed)
{
	const struct sprof *sp = r->stacks;
	const struct report_phase *rp = report_phase_of(r, p->id);
	char title[512], sub[768];
	char runs[32] = "", prefix[64];
	struct svg_opts o = { .title = title, .subtitle = sub, .unit = "samples",
			      .embed = embed, .id_prefix = embed ? prefix : NULL };
	const struct flame *t = rp ? rp->flame : NULL;

	if (!sp || !t)
		return -EINVAL; /* no stacks, or report_flames() was not run */
	o.unit_ns = sprof_period_ns(sp);
	snprintf(prefix, sizeof(prefix), "%s-", phase_name(p->id));
	if (sp->nruns > 1)
		snprintf(runs, sizeof(runs), ", %d runs merged", sp->nruns);
	snprintf(title, sizeof(title), "%s: %s%s", phase_name(p->id),
		 r->version && *r->version ? r->version : "netmux", runs);
	snprintf(sub, sizeof(sub),
		 "%llu user samples at %d Hz%s + %.2f ms kernel time (exact, ledger) as "
		 "[sys] frames = %.1f sample-equivalents; on-CPU %.2f ms, wall %.3f s",
		 (unsigned long long)p->samples, sp->freq,
		 sp->nruns > 1 ? " (all runs)" : "", p->sys_cpu_ns / 1e6,
		 p->sys_cpu_ns * (double)sp->freq / 1e9, rp ? rp->oncpu_ns / 1e6 : 0,
		 rp && rp->measured ? rp->wall_s : 0);
	corrected_title(sub, sizeof(sub), rp);
	ci_title(sub, sizeof(sub), t->ci_factor);
	return svg_write(f, t, &o);
}

int phase_svg_write(FILE *f, const struct report *r, const struct sp_phase *p)
{
	return phase_svg(f, r, p, false);
}

int phase_svg_embed(FILE *f, const struct report *r, const struct sp_phase *p)
{
	return phase_svg(f, r, p, true);
}
