/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report.html, one self-contained page: the JSON of the run (report.json) or of a comparison
 * embedded as <script type="application/json" id="mb-data"> {"kind", "files", "data"}, the flame
 * graphs inline in <div id="mb-flames"> (one <div data-flame="KEY"> each), and the CSS and
 * scripts that render them (src/assets/).  Writers of other pages (diff) use the same parts.
 */
#ifndef MUXBPF_OUT_HTML_H
#define MUXBPF_OUT_HTML_H

#include <stdio.h>
#include "report/report.h"

struct runs_summary;

/* Writes the page's JSON ("data") to f.  0 or -errno. */
typedef int (*html_json_fn)(FILE *f, const void *a, const void *b, const void *c);

/* The parts, in this order: begin, data, flames_begin, (flame_begin, an svg_write with .embed,
 * flame_end) per graph, end.  files: the names beside the page that it links to. */
void html_begin(FILE *f, const char *title);
int html_data(FILE *f, const char *kind, const char *const *files, int nfiles,
	      html_json_fn fn, const void *a, const void *b, const void *c);
void html_flames_begin(FILE *f);
void html_flame_begin(FILE *f, const char *key);
void html_flame_end(FILE *f);
int html_end(FILE *f); /* 0 or -EIO */

/* The page of one run (or of --runs merged): kind "run", data = report.json. */
int html_run_write(FILE *f, const struct report *r, const struct runs_summary *rs,
		   const char *const *files, int nfiles);

#endif /* MUXBPF_OUT_HTML_H */
