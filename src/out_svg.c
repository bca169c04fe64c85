// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Flame graph SVG writer: static frames laid out here, interactivity in an inline script. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "out_svg.h"

#define FRAME_H 16
#define XPAD 10
#define TOP 66
#define BOTTOM 34
#define MIN_PX 0.1 /* narrower frames (and their children) are left out, as flamegraph.pl does */

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

/* flamegraph.pl's "hot" palette for user code, blue for kernel, grey for unnamed frames. */
static void frame_colour(const struct flame *t, const struct flame_node *n,
			 const struct svg_opts *o, char *buf, size_t size)
{
	uint32_t h = hash_name(n->name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;

	if (o->diff) {
		double share = t->v[0].value > 0 ? n->value / t->v[0].value : 0;
		double base = t->v[0].base > 0 ? n->base / t->v[0].base : 0;
		double d = share - base, mag = fabs(d) * 4; /* 25 points of share = full colour */
		int c = 255 - (int)(mag > 1 ? 210 : mag * 210);

		if (d >= 0)
			snprintf(buf, size, "rgb(255,%d,%d)", c, c);
		else
			snprintf(buf, size, "rgb(%d,%d,255)", c, c);
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

/* The hover text of a node. */
static void frame_details(FILE *f, const struct flame *t, const struct flame_node *n,
			  const struct svg_opts *o)
{
	double total = t->v[0].value > 0 ? t->v[0].value : 1;
	char buf[256];

	xml_text(f, n->name);
	if (o->diff) {
		double base_total = t->v[0].base > 0 ? t->v[0].base : 1;

		snprintf(buf, sizeof(buf),
			 " (%.0f %s, %.2f%% now; %.0f, %.2f%% before: %+.2f points)", n->value,
			 o->unit, 100 * n->value / total, n->base, 100 * n->base / base_total,
			 100 * n->value / total - 100 * n->base / base_total);
	} else if (n->kind == FLAME_KERNEL) {
		snprintf(buf, sizeof(buf),
			 " (kernel: %.3f ms on-CPU in %.0f calls, exact, from the ledger = %.1f "
			 "%s-equivalents, %.2f%%)", n->cpu_ns / 1e6, n->calls,
			 n->value, o->unit, 100 * n->value / total);
	} else if (o->unit_ns > 0) {
		snprintf(buf, sizeof(buf), " (%.1f %s, %.2f%%, ~%.2f ms)", n->value, o->unit,
			 100 * n->value / total, n->value * o->unit_ns / 1e6);
	} else {
		snprintf(buf, sizeof(buf), " (%.1f %s, %.2f%%)", n->value, o->unit,
			 100 * n->value / total);
	}
	fputs(buf, f);
}

static const char css[] =
	"text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
	"#title{font-size:17px;text-anchor:middle}\n"
	"#subtitle{fill:#555;text-anchor:middle}\n"
	"g.f{cursor:pointer}\n"
	"g.f:hover rect{stroke:#000;stroke-width:0.5}\n"
	"g.f text{font-size:11px;pointer-events:none}\n"
	"g.parent{opacity:0.5}\n"
	".ctl{cursor:pointer;fill:#333}\n"
	".ctl:hover{fill:#c00}\n"
	".hide{display:none}\n";

/*
 * The script: frames carry their layout as data-x/data-w (fractions of the root) and data-d
 * (depth); zoom rescales the frames inside the clicked one, widens its ancestors (dimmed) and
 * hides the rest; search colours matching frames and sums the share of the outermost matches.
 */
static const char script[] =
	"\"use strict\";\n"
	"var svg = document.documentElement;\n"
	"var W = +svg.getAttribute('data-fw'), XP = +svg.getAttribute('data-xpad'), CW = 6.6;\n"
	"var details = document.getElementById('details');\n"
	"var matched = document.getElementById('matched');\n"
	"var unzoomBtn = document.getElementById('unzoom');\n"
	"var resetBtn = document.getElementById('reset-search');\n"
	"var frames = Array.prototype.map.call(document.querySelectorAll('g.f'), function (g) {\n"
	"  return { g: g, x: +g.getAttribute('data-x'), w: +g.getAttribute('data-w'),\n"
	"    d: +g.getAttribute('data-d'), name: g.getAttribute('data-n'),\n"
	"    rect: g.querySelector('rect'), text: g.querySelector('text'),\n"
	"    title: g.querySelector('title').textContent };\n"
	"});\n"
	"var byId = {};\n"
	"frames.forEach(function (e) { byId[e.g.id] = e; });\n"
	"function fit(e, x, w) {\n"
	"  e.rect.setAttribute('x', x.toFixed(2));\n"
	"  e.rect.setAttribute('width', Math.max(w, 0).toFixed(2));\n"
	"  e.text.setAttribute('x', (x + 3).toFixed(2));\n"
	"  var n = Math.floor((w - 6) / CW), s = e.name;\n"
	"  e.text.textContent = n < 3 ? '' : s.length <= n ? s : s.substring(0, n - 2) + '..';\n"
	"}\n"
	"function zoom(id) {\n"
	"  var z = byId[id], eps = 1e-9;\n"
	"  if (!z) return false;\n"
	"  frames.forEach(function (e) {\n"
	"    var inside = e.x >= z.x - eps && e.x + e.w <= z.x + z.w + eps;\n"
	"    var above = e.x <= z.x + eps && e.x + e.w >= z.x + z.w - eps;\n"
	"    if (e.d >= z.d && inside) {\n"
	"      e.g.classList.remove('hide'); e.g.classList.remove('parent');\n"
	"      fit(e, XP + (e.x - z.x) / z.w * W, e.w / z.w * W);\n"
	"    } else if (e.d < z.d && above) {\n"
	"      e.g.classList.remove('hide'); e.g.classList.add('parent');\n"
	"      fit(e, XP, W);\n"
	"    } else {\n"
	"      e.g.classList.add('hide');\n"
	"    }\n"
	"  });\n"
	"  svg.setAttribute('data-zoom', id);\n"
	"  unzoomBtn.classList.remove('hide');\n"
	"  return true;\n"
	"}\n"
	"function unzoom() {\n"
	"  frames.forEach(function (e) {\n"
	"    e.g.classList.remove('hide'); e.g.classList.remove('parent');\n"
	"    fit(e, XP + e.x * W, e.w * W);\n"
	"  });\n"
	"  svg.removeAttribute('data-zoom');\n"
	"  unzoomBtn.classList.add('hide');\n"
	"}\n"
	"function resetSearch() {\n"
	"  frames.forEach(function (e) {\n"
	"    if (e.fill) { e.rect.setAttribute('fill', e.fill); e.fill = null; }\n"
	"  });\n"
	"  matched.textContent = ''; resetBtn.classList.add('hide');\n"
	"  svg.removeAttribute('data-search'); svg.removeAttribute('data-matched');\n"
	"}\n"
	"function search(term) {\n"
	"  var re, hits = [], sum = 0, end = -1;\n"
	"  resetSearch();\n"
	"  if (!term) return;\n"
	"  try { re = new RegExp(term); }\n"
	"  catch (err) { matched.textContent = 'bad regex'; return; }\n"
	"  frames.forEach(function (e) {\n"
	"    if (e.d > 0 && re.test(e.name)) {\n"
	"      e.fill = e.rect.getAttribute('fill');\n"
	"      e.rect.setAttribute('fill', 'rgb(230,0,230)');\n"
	"      hits.push(e);\n"
	"    }\n"
	"  });\n"
	"  hits.sort(function (a, b) { return a.x - b.x || a.d - b.d; });\n"
	"  hits.forEach(function (e) {\n"
	"    if (e.x >= end - 1e-9) { sum += e.w; end = e.x + e.w; }\n"
	"    else if (e.x + e.w > end) { sum += e.x + e.w - end; end = e.x + e.w; }\n"
	"  });\n"
	"  var pct = (100 * sum).toFixed(2);\n"
	"  matched.textContent = 'Matched: ' + pct + '% (' + hits.length + ' frames)';\n"
	"  resetBtn.classList.remove('hide');\n"
	"  svg.setAttribute('data-search', term); svg.setAttribute('data-matched', pct);\n"
	"}\n"
	"frames.forEach(function (e) {\n"
	"  e.g.addEventListener('click', function () { zoom(e.g.id); });\n"
	"  e.g.addEventListener('mouseover', function () { details.textContent = e.title; });\n"
	"  e.g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"});\n"
	"unzoomBtn.addEventListener('click', unzoom);\n"
	"resetBtn.addEventListener('click', resetSearch);\n"
	"document.getElementById('search').addEventListener('click', function () {\n"
	"  var t = prompt('Search frames (regular expression):',\n"
	"                 svg.getAttribute('data-search') || '');\n"
	"  if (t !== null) search(t);\n"
	"});\n"
	"window.addEventListener('keydown', function (ev) {\n"
	"  if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') {\n"
	"    ev.preventDefault();\n"
	"    document.getElementById('search').dispatchEvent(new Event('click'));\n"
	"  } else if (ev.key === 'Escape') { unzoom(); resetSearch(); }\n"
	"});\n"
	"function applyHash() {\n"
	"  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {\n"
	"    var i = kv.indexOf('='), k = kv.substring(0, i);\n"
	"    var v = decodeURIComponent(kv.substring(i + 1));\n"
	"    if (k === 'click') zoom(v);\n"
	"    else if (k === 'search') search(v);\n"
	"  });\n"
	"}\n"
	"window.addEventListener('hashchange', applyHash);\n"
	"applyHash();\n";

int svg_write(FILE *f, const struct flame *t, const struct svg_opts *o)
{
	int width = o->width > 0 ? o->width : 1200;
	double fw = width - 2 * XPAD, total = t->n ? t->v[0].value : 0;
	int height = TOP + (t->max_depth + 1) * FRAME_H + BOTTOM;
	char colour[48];

	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		   "height=\"%d\" viewBox=\"0 0 %d %d\" data-fw=\"%.0f\" data-xpad=\"%d\" "
		   "data-total=\"%.6f\">\n",
		width, height, width, height, fw, XPAD, total);
	fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", css);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", width,
		height, o->diff ? "#fdfdfd" : "#f8f4ee");
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\">", width / 2);
	xml_text(f, o->title ? o->title : "flame graph");
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"subtitle\" x=\"%d\" y=\"44\">", width / 2);
	xml_text(f, o->subtitle ? o->subtitle : "");
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"unzoom\" class=\"ctl hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n",
		XPAD);
	fprintf(f, "<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"24\" "
		   "text-anchor=\"end\">Search</text>\n", width - XPAD);
	fprintf(f, "<text id=\"reset-search\" class=\"ctl hide\" x=\"%d\" y=\"44\" "
		   "text-anchor=\"end\">Reset Search</text>\n", width - XPAD);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD, height - 12);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		width - XPAD, height - 12);
	fputs("<g id=\"frames\">\n", f);
	for (size_t i = 0; i < t->n && total > 0; i++) {
		const struct flame_node *n = &t->v[i];
		double w = n->value / total, px = w * fw, x = XPAD + n->x * fw;
		int y = height - BOTTOM - (n->depth + 1) * FRAME_H;
		int chars = (int)((px - 6) / 6.6);
		size_t len = strlen(n->name);

		if (px < MIN_PX)
			continue;
		frame_colour(t, n, o, colour, sizeof(colour));
		fprintf(f, "<g class=\"f\" id=\"f%zu\" data-x=\"%.10f\" data-w=\"%.10f\" "
			   "data-d=\"%d\" data-n=\"", i, n->x, w, n->depth);
		xml_text(f, n->name);
		fputs("\"><title>", f);
		frame_details(f, t, n, o);
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
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n", script);
	return ferror(f) ? -EIO : 0;
}
