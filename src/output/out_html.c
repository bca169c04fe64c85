// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report.html: one self-contained page (no network, no external fonts) for a run or a
 * comparison.  The numbers are not formatted here: the page embeds the JSON the other artifacts
 * are (report.json for a run, the comparison's own JSON for diff and ab) and renders it with
 * inline JavaScript (src/assets/page.js); the flame graphs are svg_write's, inline, driven by the
 * same viewer as the standalone SVGs (src/assets/flame.js).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/assets.h"
#include "base/json.h"
#include "output/out_json.h"
#include "output/out_html.h"
#include "output/out_svg.h"
#include "base/phases.h"
#include "fold/sprof.h"

/* JSON inside <script>: "<" only occurs in strings, where \u003c reads back the same; so no
 * "</script>" or "<!--" in a function name can end the element early. */
static void script_json(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '<')
			fputs("\\u003c", f);
		else
			fputc(s[i], f);
	}
}

void html_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>", f);
	for (const char *s = title; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
	fprintf(f, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n<div id=\"app\"></div>\n",
		asset_page_css, asset_flame_css);
}

int html_data(FILE *f, const char *kind, const char *const *files, int nfiles,
	      html_json_fn fn, const void *a, const void *b, const void *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int err;

	if (!mem)
		return -ENOMEM;
	err = fn(mem, a, b, c);
	if (fclose(mem) && !err)
		err = -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	fputs("<script type=\"application/json\" id=\"mb-data\">{\"kind\":", f);
	json_write_string(f, kind);
	fputs(",\"files\":[", f);
	for (int i = 0; i < nfiles; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, files[i]);
	}
	fputs("],\"data\":", f);
	script_json(f, buf, len);
	fputs("}</script>\n", f);
	free(buf);
	return 0;
}

void html_flames_begin(FILE *f)
{
	fputs("<div id=\"mb-flames\" hidden>\n", f);
}

void html_flame_begin(FILE *f, const char *key)
{
	fprintf(f, "<div data-flame=\"%s\">\n", key);
}

void html_flame_end(FILE *f)
{
	fputs("</div>\n", f);
}

int html_end(FILE *f)
{
	fprintf(f, "</div>\n<script>\n%s</script>\n<script>\n%s</script>\n</body>\n</html>\n",
		asset_flame_js, asset_page_js);
	return ferror(f) ? -EIO : 0;
}

static int run_json(FILE *f, const void *r, const void *rs, const void *unused)
{
	(void)unused;
	return report_json_emit(f, r, rs, false);
}

int html_run_write(FILE *f, const struct report *r, const struct runs_summary *rs,
		   const char *const *files, int nfiles)
{
	const struct sprof *sp = r->stacks;
	char title[256];
	int err;

	snprintf(title, sizeof(title), "muxbpf: %s",
		 r->version && *r->version ? r->version : r->target ? r->target : "netmux");
	html_begin(f, title);
	err = html_data(f, "run", files, nfiles, run_json, r, rs, NULL);
	if (err)
		return err;
	html_flames_begin(f);
	for (int i = 0; sp && r->profiled && i < r->nphases; i++) {
		unsigned int id = r->phases[i].id;

		if (id >= MUXBPF_MAX_PHASES || !sp->has[id])
			continue;
		html_flame_begin(f, phase_name(id));
		err = phase_svg_embed(f, r, &sp->phases[id]);
		if (err)
			return err;
		html_flame_end(f);
	}
	return html_end(f);
}
