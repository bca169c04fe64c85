// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --out DIR: write every artifact, each through a temporary file renamed into place. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "base/clock.h"
#include "report/flame.h"
#include "base/log.h"
#include "output/out.h"
#include "output/out_pprof.h"
#include "output/out_speedscope.h"
#include "output/out_folded.h"
#include "output/out_html.h"
#include "output/out_svg.h"
#include "output/out_text.h"
#include "base/phases.h"
#include "fold/sprof.h"
#include "base/progress.h"
#include "report/runs.h"

int out_mkdir_p(const char *dir)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);

	if (!len || len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

#define OUT_MAX_FILES (2 * MUXBPF_MAX_PHASES + 8)

struct out_ctx {
	const char *dir;
	int files;
	uint64_t bytes;
	int err;
	char names[OUT_MAX_FILES][64]; /* what was written, for report.html's links */
	const char *list[OUT_MAX_FILES];
};

static void wrote(struct out_ctx *ctx, const char *name)
{
	if (ctx->files < OUT_MAX_FILES) {
		snprintf(ctx->names[ctx->files], sizeof(ctx->names[0]), "%s", name);
		ctx->list[ctx->files] = ctx->names[ctx->files];
	}
	ctx->files++;
}

typedef int (*write_fn)(FILE *f, const void *a, const void *b, const void *c);

/* dir/name through dir/.name.tmp; the first failure is reported and kept in ctx->err. */
static void write_file(struct out_ctx *ctx, const char *name, write_fn fn, const void *a,
		       const void *b, const void *c)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	struct stat st;
	FILE *f;
	int err;

	if (ctx->err)
		return;
	snprintf(path, sizeof(path), "%s/%s", ctx->dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", ctx->dir, name);
	f = fopen(tmp, "w");
	if (!f) {
		ctx->err = -errno;
		pr_err("failed to create %s: %s", tmp, strerror(errno));
		return;
	}
	err = fn(f, a, b, c);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		pr_err("failed to write %s: %s", path, strerror(-err));
		ctx->err = err;
		return;
	}
	if (!stat(path, &st))
		ctx->bytes += st.st_size;
	wrote(ctx, name);
	pr_verbose("wrote %s", path);
}

static int w_text(FILE *f, const void *text, const void *len, const void *unused)
{
	(void)unused;
	return fwrite(text, 1, *(const size_t *)len, f) == *(const size_t *)len ? 0 : -EIO;
}

static int w_json(FILE *f, const void *r, const void *rs, const void *unused)
{
	(void)unused;
	return report_json_write(f, r, rs);
}

static int w_folded(FILE *f, const void *r, const void *p, const void *unused)
{
	(void)unused;
	return folded_write(f, r, p);
}

static int w_svg(FILE *f, const void *r, const void *p, const void *unused)
{
	(void)unused;
	return phase_svg_write(f, r, p);
}

static int w_speedscope(FILE *f, const void *r, const void *unused1, const void *unused2)
{
	(void)unused1;
	(void)unused2;
	return speedscope_write(f, r);
}

struct html_args {
	const struct report *r;
	const struct runs_summary *rs;
	const char *const *files;
	int nfiles;
};

static int w_html(FILE *f, const void *args, const void *unused1, const void *unused2)
{
	const struct html_args *a = args;

	(void)unused1;
	(void)unused2;
	return html_run_write(f, a->r, a->rs, a->files, a->nfiles);
}

int out_write(const char *dir, const struct report *r, const struct runs_summary *rs,
	      const char *text, size_t len)
{
	const struct sprof *sp = r->profiled ? r->stacks : NULL;
	struct out_ctx ctx = { .dir = dir };
	struct html_args hp;
	double t0 = mono_ms();
	char name[64];
	int err;

	err = out_mkdir_p(dir);
	if (err) {
		pr_err("failed to create %s: %s", dir, strerror(-err));
		return err;
	}
	write_file(&ctx, "report.txt", w_text, text, &len, NULL);
	write_file(&ctx, "report.json", w_json, r, rs, NULL);
	if (!sp)
		goto out_done;
	for (int i = 0; i < r->nphases; i++) {
		unsigned int id = r->phases[i].id;

		if (id >= MUXBPF_MAX_PHASES || !sp->has[id])
			continue;
		snprintf(name, sizeof(name), "%s.folded", phase_name(id));
		write_file(&ctx, name, w_folded, r, &sp->phases[id], NULL);
		snprintf(name, sizeof(name), "%s.svg", phase_name(id));
		write_file(&ctx, name, w_svg, r, &sp->phases[id], NULL);
	}
	write_file(&ctx, "speedscope.json", w_speedscope, r, NULL, NULL);
	if (!ctx.err) {
		char path[PATH_MAX];
		struct stat st;

		snprintf(path, sizeof(path), "%s/profile.pb.gz", dir);
		ctx.err = pprof_write(path, r);
		if (!ctx.err && !stat(path, &st)) {
			ctx.bytes += st.st_size;
			wrote(&ctx, "profile.pb.gz");
		}
	}
out_done:
	/* last, so that it links to every file written beside it */
	hp.r = r;
	hp.rs = rs;
	hp.files = ctx.list;
	hp.nfiles = ctx.files < OUT_MAX_FILES ? ctx.files : OUT_MAX_FILES;
	write_file(&ctx, "report.html", w_html, &hp, NULL, NULL);
	if (!ctx.err)
		pr_verbose("artifacts: %d files, %.1f KiB in %s, written in %.1f ms", ctx.files,
			   ctx.bytes / 1024.0, dir, mono_ms() - t0);
	return ctx.err;
}

static void print_summary(const struct report *r, const struct runs_summary *rs,
			  const char *dir)
{
	report_print_summary(stdout, r);
	if (rs)
		runs_print(stdout, rs);
	if (dir)
		printf("\n(a summary: the whole report is in %s/report.txt, and on the terminal "
		       "with --full)\n", dir);
	else
		printf("\n(a summary: the whole report with --full, or in report.txt beside the "
		       "page with --out DIR)\n");
}

int out_report(const struct opts *o, const struct report *r, const struct runs_summary *rs)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	double t0 = mono_ms();
	int err = 0;

	progress_clear();
	if (!mem) {
		/* the report still gets out; only the artifacts need the copy */
		if (!o->full) {
			print_summary(r, rs, o->out_dir);
			return o->out_dir ? -ENOMEM : 0;
		}
		report_print(stdout, r);
		if (rs)
			runs_print(stdout, rs);
		return o->out_dir ? -ENOMEM : 0;
	}
	report_print(mem, r);
	if (rs)
		runs_print(mem, rs);
	fclose(mem);
	/* the terminal gets the summary; report.txt (and --full) the whole */
	if (o->full)
		fwrite(text, 1, len, stdout);
	else
		print_summary(r, rs, o->out_dir);
	fflush(stdout);
	if (o->out_dir) {
		err = out_write(o->out_dir, r, rs, text, len);
		if (!err && !o->quiet)
			fprintf(stderr, "muxbpf: artifacts written to %s in %.0f ms; the whole "
				"report: %s/report.txt; the page: %s/report.html\n", o->out_dir,
				mono_ms() - t0, o->out_dir, o->out_dir);
	}
	free(text);
	return err;
}
