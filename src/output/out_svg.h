/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Self-contained interactive flame graphs (SVG with inline CSS and JavaScript, no external
 * resource): hover shows a frame's details, click zooms, Ctrl-F or "Search" highlights frames
 * by regular expression and shows the matched share.  A URL fragment drives the same actions
 * (#click=f12, #search=REGEX), so a headless browser can test them.
 */
#ifndef MUXBPF_OUT_SVG_H
#define MUXBPF_OUT_SVG_H

#include <stdbool.h>
#include <stdio.h>
#include "report/flame.h"
#include "report/report.h"
#include "fold/sprof.h"

struct svg_opts {
	const char *title;
	const char *subtitle;  /* one line under the title, may be NULL */
	const char *unit;      /* what a node's value counts: "samples" */
	double unit_ns;        /* ns one unit stands for (0: no time estimate in the details) */
	bool diff;             /* differential: colour by share in value vs share in base */
	bool diff_abs;         /* with diff: colour by value - base, both in unit (muxbpf ab:
				* µs per command), as a share of the root's value */
	int width;             /* pixels (0: 1200) */
	bool embed;            /* inline in report.html: no XML prolog, CSS or script (the page's) */
	const char *id_prefix; /* before each frame's id "fN" (unique ids in one page), or NULL */
};

/* Write t (laid out by flame_layout, its figures by flame_figures) as an SVG document.  0 or
 * -EIO. */
int svg_write(FILE *f, const struct flame *t, const struct svg_opts *o);

/* PHASE.svg: the flame graph of phase p of r->stacks, titled from the report. */
int phase_svg_write(FILE *f, const struct report *r, const struct sp_phase *p);
/* The same graph for report.html: frame ids "PHASE-fN", no prolog, CSS or script. */
int phase_svg_embed(FILE *f, const struct report *r, const struct sp_phase *p);

#endif /* MUXBPF_OUT_SVG_H */
