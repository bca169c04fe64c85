// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The artifact writers on plain-data fixtures (no root): JSON writer and parser, folded stacks
 * round trip, flame graph trees with kernel frames, the SVG, pprof decoded back with
 * protobuf-c, speedscope, report.json of a fixture report, report.html's parts, --runs statistics
 * and merging, and diff's verdicts.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include "report/assemble.h"
#include "output/diff.h"
#include "report/flame.h"
#include "base/json.h"
#include "output/out.h"
#include "output/out_folded.h"
#include "output/out_html.h"
#include "output/out_pprof.h"
#include "output/out_speedscope.h"
#include "output/out_svg.h"
#include "output/out_text.h"
#include "profile.pb-c.h"
#include "report/runs.h"
#include "fold/sprof.h"

/* ---- fixtures -------------------------------------------------------------------------------- */

static struct mb_sym fn(const char *name, uint64_t off)
{
	struct mb_sym s = { .dso = "/fixture/netmux", .build_id = "abcdef0123456789",
			    .offset = off, .name = name, .why = MB_NAMED };

	if (!name)
		s.why = MB_UNNAMED_NO_SYMBOL;
	return s;
}

/* Phase 2: main -> a -> b x5, main -> a -> c x3, main -> d x2 (+ an unnamed leaf x1);
 * phase 3: main -> e x4; kernel: write at main -> a (2 ms), read without a stack (1 ms). */
static void fixture(struct sprof *sp)
{
	struct mb_sym s1[] = { fn("b", 0x300), fn("a", 0x200), fn("main", 0x100) };
	struct mb_sym s2[] = { fn("c", 0x400), fn("a", 0x210), fn("main", 0x100) };
	struct mb_sym s3[] = { fn("d", 0x500), fn("main", 0x110) };
	struct mb_sym s4[] = { fn(NULL, 0x999), fn("main", 0x120) };
	struct mb_sym s5[] = { fn("e", 0x600), fn("main", 0x130) };
	struct mb_sym site[] = { fn("a", 0x220), fn("main", 0x100) };

	sprof_init(sp, 1000);
	assert_int_equal(sprof_add_sample(sp, 2, s1, 3, 5), 0);
	assert_int_equal(sprof_add_sample(sp, 2, s2, 3, 3), 0);
	assert_int_equal(sprof_add_sample(sp, 2, s3, 2, 2), 0);
	assert_int_equal(sprof_add_sample(sp, 2, s4, 2, 1), 0);
	assert_int_equal(sprof_add_sample(sp, 3, s5, 2, 4), 0);
	/* the same stack again merges */
	assert_int_equal(sprof_add_sample(sp, 3, s5, 2, 1), 0);
	/* write's part at its site is a sample's (+-0.5 ms, 95%); read has no site: exact */
	assert_int_equal(sprof_add_site(sp, 2, "write", site, 2, 10, 2000000, 3000000,
					 (0.5e6 / 1.959964) * (0.5e6 / 1.959964)), 0);
	assert_int_equal(sprof_add_site(sp, 2, "read", NULL, 0, 5, 1000000, 9000000, 0), 0);
	sp->nruns = 1;
}

static void fixture_report(struct report *r, struct fold_row *rows2)
{
	memset(r, 0, sizeof(*r));
	r->target = "/fixture/netmux";
	r->version = "MUX 2.12.0.10 #1";
	r->pid = 42;
	r->port = 4201;
	r->scale = 1;
	r->freq = 1000;
	r->top = 15;
	r->profiled = true;
	r->ledger = true;
	r->site_every = 8;
	r->max_drop_pct = -1;
	r->nphases = 3;
	r->phases[0] = (struct report_phase){ .id = 2, .measured = true, .ok = true, .wall_s = 0.5,
					      .commands = 1000, .oncpu_ns = 14000000,
					      .schedstat_ns = 14000000 };
	r->phases[0].stats.recorded = 11;
	r->phases[0].fold.samples = 11;
	r->phases[0].fold.by[FOLD_BY_FUNCTION].rows = rows2;
	r->phases[0].fold.by[FOLD_BY_FUNCTION].n = 2;
	r->phases[0].has_ledger = true;
	r->phases[0].ledger.user_ns = 11000000;
	r->phases[0].ledger.sys_cpu_ns = 3000000;
	r->phases[0].ledger.wall_ns = 500000000;
	r->phases[1] = (struct report_phase){ .id = 3, .measured = true, .ok = true, .wall_s = 0.25,
					      .commands = 500, .oncpu_ns = 5000000 };
	r->phases[1].stats.recorded = 5;
	r->phases[1].fold.samples = 5;
	r->phases[2] = (struct report_phase){ .id = 0, .ok = true, .oncpu_ns = 1000000 };
}

static char *read_all(FILE *f, size_t *len)
{
	char *buf;

	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	buf[*len] = 0;
	return buf;
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static void test_json_roundtrip(void **state)
{
	char *text = NULL, err[128];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct jw w;
	struct jv *v;

	(void)state;
	jw_init(&w, f, true);
	jw_obj(&w);
	jw_kstr(&w, "s", "a\"b\\c\n\t\x01 \xc3\xa9");
	jw_kstr(&w, "bad", "x\xff\xfey");
	jw_ku64(&w, "big", 9007199254740991ull);
	jw_ki64(&w, "neg", -5);
	jw_knum(&w, "pi", 3.141592653589793);
	jw_knum(&w, "nan", NAN);
	jw_kbool(&w, "t", true);
	jw_key(&w, "arr");
	jw_arr(&w);
	jw_u64(&w, 1);
	jw_obj(&w);
	jw_obj_end(&w);
	jw_arr(&w);
	jw_arr_end(&w);
	jw_arr_end(&w);
	jw_obj_end(&w);
	fclose(f);
	v = json_parse(text, len, err, sizeof(err));
	assert_non_null(v);
	assert_string_equal(jv_str(jv_get(v, "s"), ""), "a\"b\\c\n\t\x01 \xc3\xa9");
	/* invalid UTF-8 never reaches the output */
	assert_string_equal(jv_str(jv_get(v, "bad"), ""), "x\xef\xbf\xbd\xef\xbf\xbdy");
	assert_true(jv_num(jv_get(v, "big"), 0) == 9007199254740991.0);
	assert_true(jv_num(jv_get(v, "neg"), 0) == -5);
	assert_true(jv_num(jv_get(v, "pi"), 0) == 3.141592653589793);
	assert_int_equal(jv_get(v, "nan")->type, JV_NULL);
	assert_true(jv_bool(jv_get(v, "t"), false));
	assert_int_equal(jv_get(v, "arr")->n, 3);
	assert_int_equal(jv_get(v, "arr")->v[1].type, JV_OBJ);
	jv_free(v);
	free(text);
}

static void test_json_rejects(void **state)
{
	static const char *const bad[] = {
		"{\"a\":1,}", "[1 2]", "{\"a\" 1}", "\"unterminated", "01", "1.", "-", "tru",
		"{\"a\":1} x", "[\"\\q\"]", "\"a\x01\"", "",
	};
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jv *v = json_parse(bad[i], strlen(bad[i]), err, sizeof(err));

		if (v)
			fail_msg("accepted malformed JSON '%s'", bad[i]);
		assert_true(strlen(err) > 0);
	}
	{
		const char *ok = " {\"u\":\"\\u00e9\\ud83d\\ude00\",\"e\":-1.5e3} ";
		struct jv *v = json_parse(ok, strlen(ok), err, sizeof(err));

		assert_non_null(v);
		assert_string_equal(jv_str(jv_get(v, "u"), ""), "\xc3\xa9\xf0\x9f\x98\x80");
		assert_true(jv_num(jv_get(v, "e"), 0) == -1500);
		jv_free(v);
	}
}

/* ---- folded ---------------------------------------------------------------------------------- */

static void test_folded_roundtrip(void **state)
{
	char path[] = "/tmp/muxbpf-test-folded.XXXXXX", err[256];
	struct folded fo;
	struct sprof sp;
	struct report r = { .stacks = &sp };
	uint64_t self_a = 0, total_a = 0, total_main = 0, self_b = 0;
	FILE *f;
	int fd;

	(void)state;
	fixture(&sp);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_int_equal(folded_write(f, &r, &sp.phases[2]), 0);
	fclose(f);
	assert_int_equal(folded_read(path, &fo, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(fo.n, 4);
	assert_int_equal(fo.total, 11);
	/* sorted by text, root first */
	for (size_t i = 1; i < fo.n; i++)
		assert_true(strcmp(fo.v[i - 1].stack, fo.v[i].stack) < 0);
	for (size_t i = 0; i < fo.n; i++) {
		const char *s = fo.v[i].stack, *leaf = strrchr(s, ';') ? strrchr(s, ';') + 1 : s;

		assert_true(!strncmp(s, "main;", 5));
		total_main += fo.v[i].count;
		if (strstr(s, ";a;") || strstr(s, ";a") == s + strlen(s) - 2)
			total_a += fo.v[i].count;
		if (!strcmp(leaf, "a"))
			self_a += fo.v[i].count;
		if (!strcmp(leaf, "b"))
			self_b += fo.v[i].count;
	}
	assert_int_equal(total_main, 11);
	assert_int_equal(total_a, 8);
	assert_int_equal(self_a, 0);
	assert_int_equal(self_b, 5);
	/* the unnamed leaf carries fold.c's label */
	assert_string_equal(fo.v[0].stack, "main;[netmux+0x999]");
	folded_free(&fo);
	sprof_free(&sp);
}

/*
 * A name longer than sprof's old 512-byte label: the folded stacks and the report's function
 * rows must name it alike, whole up to FOLD_LABEL_MAX and cut at the same byte past it (a
 * 600-byte C++ template name was a report row that no folded stack had).
 */
static void test_long_names_match_rows(void **state)
{
	static const size_t lens[] = { 700, FOLD_LABEL_MAX - 1, FOLD_LABEL_MAX + 300 };
	static const char part[] = "std::_Rb_tree<unsigned long long, Module*> ";

	(void)state;
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		char *name = malloc(lens[k] + 1), row[FOLD_LABEL_MAX];
		struct mb_sym st[2];
		struct sprof sp;

		assert_non_null(name);
		for (size_t i = 0; i < lens[k]; i++)
			name[i] = part[i % (sizeof(part) - 1)];
		name[lens[k]] = 0;
		st[0] = fn(name, 0x300);
		st[1] = fn("main", 0x100);
		sprof_init(&sp, 1000);
		assert_int_equal(sprof_add_sample(&sp, 2, st, 2, 1), 0);
		assert_int_equal(fold_frame_label(FOLD_BY_FUNCTION, &st[0], row, sizeof(row)), 0);
		assert_int_equal(strlen(row), lens[k] < FOLD_LABEL_MAX ? lens[k] : FOLD_LABEL_MAX - 1);
		assert_string_equal(sp.frames[sp.phases[2].stacks[0].frames[0]].label, row);
		sprof_free(&sp);
		free(name);
	}
}

static void test_folded_read_errors(void **state)
{
	char path[] = "/tmp/muxbpf-test-folded.XXXXXX", err[256];
	struct folded fo;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_true(write(fd, "a;b 3\na;c x\n", 12) == 12);
	close(fd);
	assert_int_equal(folded_read(path, &fo, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2:"));
	unlink(path);
}

/* ---- flame graphs ---------------------------------------------------------------------------- */

static const struct flame_node *child(const struct flame *t, long parent, const char *name)
{
	for (long c = t->v[parent].first; c >= 0; c = t->v[c].next)
		if (!strcmp(t->v[c].name, name))
			return &t->v[c];
	return NULL;
}

static void test_flame_kernel_frames(void **state)
{
	const struct flame_node *m, *a, *w, *r, *nostack;
	struct sprof sp;
	struct flame t;

	(void)state;
	fixture(&sp);
	assert_int_equal(flame_from_phase(&t, &sp, &sp.phases[2], true), 0);
	/* 11 samples + 3 ms of kernel time at 1000 Hz = 3 sample-equivalents */
	assert_true(fabs(t.v[0].value - 14.0) < 1e-9);
	m = child(&t, 0, "main");
	assert_non_null(m);
	a = child(&t, m - t.v, "a");
	assert_non_null(a);
	assert_true(fabs(a->value - 10.0) < 1e-9); /* 8 samples + write's 2 */
	w = child(&t, a - t.v, "[sys] write");
	assert_non_null(w);
	assert_int_equal(w->kind, FLAME_KERNEL);
	assert_true(fabs(w->value - 2.0) < 1e-9);
	assert_true(fabs(w->cpu_ns - 2e6) < 1);
	assert_true(fabs(w->calls - 10) < 1e-9);
	assert_true(fabs(1.959964 * sqrt(w->cpu_var) - 0.5e6) < 1);
	/* own values: a has none (b, c and write are all of it), b is a leaf */
	assert_true(fabs(flame_self(&t, (size_t)(a - t.v))) < 1e-9);
	assert_true(fabs(flame_self(&t, (size_t)(child(&t, a - t.v, "b") - t.v)) - 5.0) < 1e-9);
	nostack = child(&t, 0, "[no user stack]");
	assert_non_null(nostack);
	r = child(&t, nostack - t.v, "[sys] read");
	assert_non_null(r);
	/* children laid out left to right inside their parent, without overlap */
	for (size_t i = 1; i < t.n; i++) {
		const struct flame_node *n = &t.v[i], *p = &t.v[n->parent];
		double end = n->x + n->value / t.v[0].value, pend = p->x + p->value / t.v[0].value;

		assert_true(n->x >= p->x - 1e-12);
		assert_true(end <= pend + 1e-12);
	}
	flame_free(&t);
	/* user-only tree: no kernel frame at all */
	assert_int_equal(flame_from_phase(&t, &sp, &sp.phases[2], false), 0);
	assert_true(fabs(t.v[0].value - 11.0) < 1e-9);
	for (size_t i = 0; i < t.n; i++)
		assert_int_not_equal(t.v[i].kind, FLAME_KERNEL);
	flame_free(&t);
	sprof_free(&sp);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_svg(void **state)
{
	struct svg_opts o = { .title = "t <&>", .unit = "samples", .unit_ns = 1e6 };
	struct sprof sp;
	struct flame t;
	char *text;
	size_t len;
	FILE *f = tmpfile();

	(void)state;
	fixture(&sp);
	assert_int_equal(flame_from_phase(&t, &sp, &sp.phases[2], true), 0);
	flame_figures(&t, 1);
	assert_int_equal(svg_write(f, &t, &o), 0);
	text = read_all(f, &len);
	fclose(f);
	/* one <g> per node (none is narrower than 0.1 px here) */
	assert_int_equal(count(text, "<g class=\"f\""), t.n);
	assert_int_equal(count(text, "<g class=\"f\""), count(text, "</g>") - 1);
	assert_non_null(strstr(text, "t &lt;&amp;&gt;"));
	assert_non_null(strstr(text, "data-n=\"[sys] write\""));
	assert_non_null(strstr(text, "kernel: 2.000 ms +-0.500 on-CPU in 10 calls"));
	assert_non_null(strstr(text, "kernel: 1.000 ms on-CPU in 5 calls, exact"));
	/* every user frame's hover text has its self and total share with an interval */
	assert_int_equal(count(text, ", self "), count(text, ", total "));
	assert_true(count(text, ", self ") > 0);
	{
		struct stats_ci ci;
		char want[128];

		/* b: a leaf, 5 of the 14 samples and sample-equivalents, self = total */
		stats_share(5, 14, &ci);
		snprintf(want, sizeof(want), "b (5.0 samples, self 35.71%% +-%.2f?, total 35.71%% "
			 "+-%.2f?, ~5.00 ms)", 100 * stats_ci_half(&ci), 100 * stats_ci_half(&ci));
		assert_true(stats_ci_wide(&ci)); /* 5 of 14: wider than the share, so the ? */
		assert_non_null(strstr(text, want));
		/* a: all of its 10 under its children, 0 of its own: an interval wider than 0 */
		assert_non_null(strstr(text, "a (10.0 samples, self 0.00% +-"));
		assert_non_null(strstr(strstr(text, "a (10.0 samples, self 0.00% +-"), "?, total"));
	}
	/* self-contained: the script is inline, nothing is fetched */
	assert_int_equal(count(text, "<script"), 1);
	assert_null(strstr(text, "src="));
	assert_null(strstr(text, "href"));
	assert_int_equal(count(text, "http"), 1); /* the SVG namespace, nothing else */
	assert_non_null(strstr(text, "function zoom("));
	assert_non_null(strstr(text, "function search("));
	assert_non_null(strstr(text, "location.hash"));
	free(text);
	/* widened by a design factor of 2: b's interval twice Wilson's (away from 0 and 1) */
	flame_figures(&t, 2);
	f = tmpfile();
	assert_int_equal(svg_write(f, &t, &o), 0);
	text = read_all(f, &len);
	fclose(f);
	{
		struct stats_ci ci;
		char want[128];

		stats_share(5, 14, &ci);
		stats_share_widen(&ci, 2);
		snprintf(want, sizeof(want), "b (5.0 samples, self 35.71%% +-%.2f?,",
			 100 * stats_ci_half(&ci));
		assert_non_null(strstr(text, want));
		/* the figures the writer formatted, stored in b's node by flame_figures */
		for (size_t i = 0; i < t.n; i++)
			if (!strcmp(t.v[i].name, "b")) {
				assert_true(fabs(t.v[i].self - 5) < 1e-12);
				assert_true(fabs(t.v[i].self_ci.lo - ci.lo) < 1e-12);
				assert_true(fabs(t.v[i].self_ci.hi - ci.hi) < 1e-12);
			}
		assert_true(t.ci_factor == 2);
	}
	free(text);
	flame_free(&t);
	/*
	 * 100 ns of close() under a root frame of its own: 1e-4 of a sample-equivalent, under
	 * 0.1 px of the graph.  Deeper it would be left out; a child of the root is drawn, so
	 * that a search's "Matched" adds up to the whole graph.  Its own child is left out.
	 */
	{
		struct mb_sym tiny[] = { fn("tiny_root", 0x700) };

		assert_int_equal(sprof_add_site(&sp, 2, "close", tiny, 1, 1, 100, 100, 0), 0);
		assert_int_equal(flame_from_phase(&t, &sp, &sp.phases[2], true), 0);
		flame_figures(&t, 2);
		f = tmpfile();
		assert_int_equal(svg_write(f, &t, &o), 0);
		text = read_all(f, &len);
		fclose(f);
		assert_non_null(strstr(text, "data-d=\"1\" data-n=\"tiny_root\""));
		assert_null(strstr(text, "data-n=\"[sys] close\""));
		free(text);
		flame_free(&t);
	}
	sprof_free(&sp);
}

static void test_svg_diff(void **state)
{
	struct folded fo = {}, fn = {};
	struct folded_line lo[] = { { "main;a", 50 }, { "main;b", 50 } };
	struct folded_line ln[] = { { "main;a", 90 }, { "main;b", 10 } };
	struct svg_opts o = { .title = "diff", .unit = "samples", .diff = true };
	struct flame t;
	char *text;
	size_t len;
	FILE *f = tmpfile();

	(void)state;
	fo.v = lo;
	fo.n = 2;
	fn.v = ln;
	fn.n = 2;
	assert_int_equal(flame_init(&t, "all"), 0);
	assert_int_equal(folded_to_flame(&fn, &t, false), 0);
	assert_int_equal(folded_to_flame(&fo, &t, true), 0);
	flame_layout(&t);
	flame_figures(&t, 1);
	assert_int_equal(svg_write(f, &t, &o), 0);
	text = read_all(f, &len);
	fclose(f);
	/* a grew from 50% to 90%: red; b shrank: blue */
	assert_non_null(strstr(text, "data-n=\"a\""));
	assert_non_null(strstr(strstr(text, "data-n=\"a\""), "fill=\"rgb(255,"));
	assert_non_null(strstr(strstr(text, "data-n=\"b\""), "-40.00 points"));
	assert_non_null(strstr(strstr(text, "data-n=\"b\""), ",255)\""));
	free(text);
	flame_free(&t);
}

/* ---- pprof ----------------------------------------------------------------------------------- */

static const char *pstr(const Perftools__Profiles__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static void test_pprof(void **state)
{
	Perftools__Profiles__Profile *p;
	struct fold_row rows[2] = { { "b", 5, 5, 0 }, { "a", 0, 8, 0 } };
	struct report r;
	struct sprof sp;
	unsigned char *buf;
	size_t len;
	int64_t samples = 0, cpu = 0, kernel_cpu = 0, phase3 = 0;

	(void)state;
	fixture(&sp);
	fixture_report(&r, rows);
	r.stacks = &sp;
	assert_int_equal(pprof_encode(&r, &buf, &len), 0);
	p = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	assert_non_null(p);
	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 2);
	assert_string_equal(pstr(p, p->sample_type[0]->type), "samples");
	assert_string_equal(pstr(p, p->sample_type[0]->unit), "count");
	assert_string_equal(pstr(p, p->sample_type[1]->type), "cpu");
	assert_string_equal(pstr(p, p->sample_type[1]->unit), "nanoseconds");
	assert_int_equal(p->period, 1000000);
	/* 4 + 1 stacks, 2 kernel sites */
	assert_int_equal(p->n_sample, 7);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const char *phase = NULL;

		assert_int_equal(s->n_value, 2);
		samples += s->value[0];
		cpu += s->value[1];
		for (size_t l = 0; l < s->n_label; l++)
			if (!strcmp(pstr(p, s->label[l]->key), "phase"))
				phase = pstr(p, s->label[l]->str);
		assert_non_null(phase);
		if (!strcmp(phase, "attrwrite"))
			phase3 += s->value[0];
		if (!s->value[0])
			kernel_cpu += s->value[1];
		for (size_t k = 0; k < s->n_location_id; k++)
			assert_true(s->location_id[k] >= 1 && s->location_id[k] <= p->n_location);
	}
	assert_int_equal(samples, 16);
	assert_int_equal(phase3, 5);
	assert_int_equal(kernel_cpu, 3000000);
	assert_int_equal(cpu, 16 * 1000000 + 3000000);
	/* one mapping, with its build-id; functions named; locations inside their mapping */
	assert_int_equal(p->n_mapping, 1);
	assert_string_equal(pstr(p, p->mapping[0]->filename), "/fixture/netmux");
	assert_string_equal(pstr(p, p->mapping[0]->build_id), "abcdef0123456789");
	assert_true(p->mapping[0]->has_functions);
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];

		assert_int_equal(l->n_line, 1);
		assert_true(l->line[0]->function_id >= 1);
		assert_true(l->line[0]->function_id <= p->n_function);
		if (l->mapping_id) {
			assert_true(l->address >= p->mapping[0]->memory_start);
			assert_true(l->address < p->mapping[0]->memory_limit);
		}
	}
	/* main at 4 offsets is 4 locations but one function */
	{
		int mains = 0;

		for (size_t i = 0; i < p->n_function; i++)
			mains += !strcmp(pstr(p, p->function[i]->name), "main");
		assert_int_equal(mains, 1);
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	sprof_free(&sp);
}

/*
 * An inline chain (c inlined into b at one address, b's own frames elsewhere) is one location with
 * the chain in its line list, innermost first, so that pprof's -noinlines folds c into b; frames
 * at other addresses keep a location each.
 */
static void test_pprof_inline(void **state)
{
	struct mb_sym leaf[] = { fn("c", 0x300), fn("b", 0x300), fn("main", 0x100) };
	struct mb_sym own[] = { fn("b", 0x310), fn("main", 0x100) };
	struct fold_row rows[1] = { { "b", 1, 1, 0 } };
	Perftools__Profiles__Profile *p;
	uint64_t folded[8] = { 0 };
	struct report r;
	struct sprof sp;
	unsigned char *buf;
	size_t len, chains = 0;

	(void)state;
	leaf[0].inline_depth = 1;
	sprof_init(&sp, 1000);
	assert_int_equal(sprof_add_sample(&sp, 2, leaf, 3, 6), 0);
	assert_int_equal(sprof_add_sample(&sp, 2, own, 2, 4), 0);
	sp.nruns = 1;
	fixture_report(&r, rows);
	r.stacks = &sp;
	assert_int_equal(pprof_encode(&r, &buf, &len), 0);
	p = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	assert_non_null(p);
	/* c+b at 0x300, b at 0x310, main at 0x100 */
	assert_int_equal(p->n_location, 3);
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];

		if (l->n_line == 1)
			continue;
		chains++;
		assert_int_equal(l->n_line, 2);
		assert_string_equal(pstr(p, p->function[l->line[0]->function_id - 1]->name), "c");
		assert_string_equal(pstr(p, p->function[l->line[1]->function_id - 1]->name), "b");
	}
	assert_int_equal(chains, 1);
	/* -noinlines: a sample's self goes to its leaf location's last line (the physical
	 * function): all 10 samples are b's, none c's */
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Location *l = p->location[p->sample[i]->location_id[0] - 1];

		assert_int_equal(p->sample[i]->n_location_id, 2);
		folded[l->line[l->n_line - 1]->function_id] += p->sample[i]->value[0];
	}
	for (size_t i = 0; i < p->n_function; i++)
		assert_int_equal(folded[p->function[i]->id],
				 !strcmp(pstr(p, p->function[i]->name), "b") ? 10 : 0);
	perftools__profiles__profile__free_unpacked(p, NULL);
	sprof_free(&sp);
}

/* ---- speedscope ------------------------------------------------------------------------------ */

static void test_speedscope(void **state)
{
	struct fold_row rows[2] = { { "b", 5, 5, 0 }, { "a", 0, 8, 0 } };
	const struct jv *frames, *profiles;
	struct report r;
	struct sprof sp;
	char *text, err[128];
	size_t len;
	struct jv *v;
	FILE *f = tmpfile();

	(void)state;
	fixture(&sp);
	fixture_report(&r, rows);
	r.stacks = &sp;
	assert_int_equal(speedscope_write(f, &r), 0);
	text = read_all(f, &len);
	fclose(f);
	v = json_parse(text, len, err, sizeof(err));
	assert_non_null(v);
	frames = jv_get(jv_get(v, "shared"), "frames");
	profiles = jv_get(v, "profiles");
	assert_non_null(frames);
	assert_int_equal(profiles->n, 2);
	for (size_t i = 0; i < profiles->n; i++) {
		const struct jv *p = &profiles->v[i], *s = jv_get(p, "samples"),
				*w = jv_get(p, "weights");
		double sum = 0;

		assert_string_equal(jv_str(jv_get(p, "type"), ""), "sampled");
		assert_string_equal(jv_str(jv_get(p, "unit"), ""), "nanoseconds");
		assert_int_equal(s->n, w->n);
		for (size_t k = 0; k < w->n; k++) {
			sum += w->v[k].num;
			for (size_t j = 0; j < s->v[k].n; j++)
				assert_true(s->v[k].v[j].num >= 0 && s->v[k].v[j].num < frames->n);
			/* root first */
			if (s->v[k].n > 1)
				assert_string_equal(
					jv_str(jv_get(&frames->v[(size_t)s->v[k].v[0].num], "name"),
					       ""),
					"main");
		}
		assert_true(sum == jv_num(jv_get(p, "endValue"), -1));
		if (i == 0)
			assert_true(sum == 11 * 1e6 + 3e6);
	}
	/* frames merged by label: "main" once */
	{
		int mains = 0;

		for (size_t i = 0; i < frames->n; i++)
			mains += !strcmp(jv_str(jv_get(&frames->v[i], "name"), ""), "main");
		assert_int_equal(mains, 1);
	}
	jv_free(v);
	free(text);
	sprof_free(&sp);
}

/* ---- report.json ----------------------------------------------------------------------------- */

static void test_report_json(void **state)
{
	struct fold_row rows[2] = { { "b", 5, 5, 0 }, { "a", 0, 8, 0 } };
	const struct jv *ph, *p0, *row;
	struct report r;
	char *text, err[128];
	size_t len;
	struct jv *v;
	FILE *f = tmpfile();

	(void)state;
	fixture_report(&r, rows);
	assert_int_equal(report_figures(&r), 0);
	assert_int_equal(report_json_write(f, &r, NULL), 0);
	text = read_all(f, &len);
	fclose(f);
	v = json_parse(text, len, err, sizeof(err));
	if (!v)
		fail_msg("report.json does not parse: %s", err);
	assert_true(jv_num(jv_get(v, "schema_version"), 0) == REPORT_JSON_SCHEMA_VERSION);
	assert_true(jv_num(jv_get(v, "runs"), 0) == 1);
	ph = jv_get(v, "phases");
	assert_int_equal(ph->n, 3);
	p0 = &ph->v[0];
	assert_string_equal(jv_str(jv_get(p0, "name"), ""), "create");
	assert_true(jv_num(jv_get(p0, "oncpu_ns"), 0) == 14000000);
	assert_true(jv_num(jv_get(p0, "cmd_per_s"), 0) == 2000);
	assert_true(jv_num(jv_get(p0, "usr_ns"), 0) == 11000000);
	assert_string_equal(jv_str(jv_get(p0, "usr_sys_source"), ""), "ledger");
	assert_int_equal(jv_get(jv_get(p0, "functions"), "rows")->n, 2);
	row = &jv_get(jv_get(p0, "functions"), "rows")->v[1];
	assert_true(jv_num(jv_get(row, "total_pct"), 0) == 100.0 * 8 / 11);
	assert_int_equal(jv_get(p0, "spread")->type, JV_NULL);
	/* outside: no wall, no rate */
	assert_string_equal(jv_str(jv_get(&ph->v[2], "name"), ""), "outside");
	assert_int_equal(jv_get(&ph->v[2], "wall_s")->type, JV_NULL);
	assert_int_equal(jv_get(&ph->v[2], "ledger")->type, JV_NULL);
	jv_free(v);
	free(text);
	report_figures_free(&r);
}

/* report.html: report.json embedded (a "<" in a name cannot end the script), the graphs inline
 * with their own frame ids, the page's scripts once, nothing fetched. */
static void test_report_html(void **state)
{
	struct fold_row rows[2] = { { "b</script><!--", 5, 5, 0 }, { "a", 0, 8, 0 } };
	const char *files[] = { "report.json", "create.svg" };
	const char *start, *end;
	struct report r;
	struct sprof sp;
	char *text, *json, err[128];
	size_t len;
	struct jv *v;
	FILE *f = tmpfile();

	(void)state;
	fixture(&sp);
	fixture_report(&r, rows);
	r.nphases = 2;
	r.stacks = &sp;
	assert_int_equal(report_figures(&r), 0);
	assert_int_equal(report_flames(&r), 0);
	assert_int_equal(html_run_write(f, &r, NULL, files, 2), 0);
	text = read_all(f, &len);
	fclose(f);
	assert_int_equal(strncmp(text, "<!DOCTYPE html>", 15), 0);
	/* the data, up to the first "</script>": the whole JSON */
	start = strstr(text, "<script type=\"application/json\" id=\"mb-data\">");
	assert_non_null(start);
	start = strchr(start, '>') + 1;
	end = strstr(start, "</script>");
	assert_non_null(end);
	json = strndup(start, end - start);
	v = json_parse(json, strlen(json), err, sizeof(err));
	if (!v)
		fail_msg("the embedded JSON does not parse: %s", err);
	assert_string_equal(jv_str(jv_get(v, "kind"), ""), "run");
	assert_int_equal(jv_get(v, "files")->n, 2);
	assert_string_equal(jv_str(jv_get(&jv_get(jv_get(&jv_get(jv_get(v, "data"), "phases")->v[0],
							"functions"), "rows")->v[0], "name"), ""),
			    "b</script><!--");
	jv_free(v);
	free(json);
	/* phases 2 and 3 (create, attrwrite) have stacks: one inline graph each, ids prefixed */
	assert_int_equal(count(text, "<svg version"), 2);
	assert_int_equal(count(text, "data-flame=\"create\""), 1);
	assert_non_null(strstr(text, "id=\"create-f0\""));
	assert_non_null(strstr(text, "id=\"attrwrite-f0\""));
	assert_null(strstr(text, "<?xml"));
	/* the viewer and the page script once each, every resource inline */
	assert_int_equal(count(text, "function muxFlame("), 1);
	assert_int_equal(count(text, "<script"), 3);
	assert_null(strstr(text, "src="));
	assert_null(strstr(text, "<link"));
	assert_null(strstr(text, "url("));
	assert_int_equal(count(text, "http"), 2); /* the SVG namespace of each graph */
	free(text);
	sprof_free(&sp);
	report_flames_free(&r);
	report_figures_free(&r);
}

static void keep_issue(void *ctx, bool error, const char *msg)
{
	(void)error;
	if (strstr(msg, "lock step"))
		snprintf(ctx, 512, "%s", msg);
}

/* A phase whose rounds disagree (lock step): one sentence, in the text report and the issues. */
static void test_lockstep_warning(void **state)
{
	struct fold_row rows[2] = { { "b", 5, 5, 0 }, { "a", 0, 8, 0 } };
	struct report r;
	char issue[512] = "", *text;
	size_t len;
	FILE *f = tmpfile();

	(void)state;
	fixture_report(&r, rows);
	r.phases[0].rounds.n = 12;
	r.phases[0].rounds.homog = (struct rounds_homog){ .chi2 = 250, .df = 110, .p = 2e-12,
							  .dispersion = 2.3, .inconsistent = true };
	assert_int_equal(report_figures(&r), 0);
	report_print(f, &r);
	report_issues(&r, keep_issue, issue);
	text = read_all(f, &len);
	fclose(f);
	assert_non_null(strstr(issue, "phase create: its rows' shares disagree between its 12 rounds"));
	assert_non_null(strstr(issue, "chi-square 250 on 110 df, p 2e-12, 2.3 times"));
	assert_non_null(strstr(text, issue)); /* "warning: " + the same sentence */
	/* report.json's warnings: the same line, kept once by report_figures */
	assert_int_equal(r.nissues, 1);
	assert_false(r.issues[0].error);
	assert_string_equal(r.issues[0].msg, issue);
	r.phases[0].rounds.homog.inconsistent = false;
	issue[0] = '\0';
	report_issues(&r, keep_issue, issue);
	assert_string_equal(issue, "");
	free(text);
	report_figures_free(&r);
}

/* Lines of text from the first one starting with from up to (not with) the next "\n== ". */
static int section_lines(const char *text, const char *from, int *rows, const char *row_mark)
{
	const char *p = strstr(text, from), *end;
	int n = 0;

	assert_non_null(p);
	end = strstr(p + 1, "\n== ");
	if (!end)
		end = p + strlen(p);
	*rows = 0;
	for (const char *q = p; q < end; q = strchr(q, '\n') + 1) {
		n++;
		*rows += !strncmp(q, row_mark, strlen(row_mark));
		if (!strchr(q, '\n') || strchr(q, '\n') >= end)
			break;
	}
	return n;
}

/*
 * The terminal's summary: per phase SUMMARY_ROWS rows of the first view and SUMMARY_SYSCALLS
 * syscalls however many the report holds, one ledger line, the phase table and rounds as in the
 * whole report; the whole report keeps --top rows.
 */
static void test_summary(void **state)
{
	struct fold_row rows[40];
	struct ledger_sys_row sys[20];
	char names[40][16];
	struct report r;
	char *full, *sum;
	size_t len;
	int n, frows;
	FILE *f = tmpfile(), *g = tmpfile();

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		rows[i] = (struct fold_row){ names[i], 40 - i, 40 - i, 0 };
	}
	for (int i = 0; i < 20; i++)
		sys[i] = (struct ledger_sys_row){ .nr = i, .count = 10, .cpu_ns = 1000 * (20 - i),
						  .wall_ns = 2000 * (20 - i) };
	fixture_report(&r, rows);
	r.phases[0].fold.by[FOLD_BY_FUNCTION].n = 40;
	r.phases[0].fold.samples = 820;
	r.phases[0].ledger.sys = sys;
	r.phases[0].ledger.nsys = 20;
	r.by = FOLD_VIEW(FOLD_BY_FUNCTION);
	assert_int_equal(report_figures(&r), 0);
	report_print(f, &r);
	report_print_summary(g, &r);
	full = read_all(f, &len);
	sum = read_all(g, &len);
	fclose(f);
	fclose(g);
	/* the same front: the header and the phase table up to the first phase's section */
	assert_non_null(strstr(full, "\n== "));
	assert_memory_equal(full, sum, (size_t)(strstr(full, "\n== ") - full));
	n = section_lines(sum, "== create:", &frows, "  ");
	assert_non_null(strstr(sum, "  f9\n"));
	assert_null(strstr(sum, "  f10\n"));
	assert_non_null(strstr(full, "  f14\n"));
	assert_null(strstr(full, "  f15\n"));
	/* head 2 + view 1 + 10 + syscalls 2 + 5 + ledger 1 */
	assert_true(n <= 2 + 1 + SUMMARY_ROWS + 2 + SUMMARY_SYSCALLS + 1 + 1);
	assert_non_null(strstr(sum, "  ledger (0 threads): wall"));
	assert_null(strstr(sum, "runqueue wait"));
	assert_non_null(strstr(full, "runqueue wait"));
	{
		int shown = 0;

		for (int i = 0; i < 20; i++) {
			char want[32];

			snprintf(want, sizeof(want), "\n  %-20s ", syscall_name(i));
			shown += strstr(sum, want) != NULL;
		}
		assert_int_equal(shown, SUMMARY_SYSCALLS);
	}
	free(full);
	free(sum);
	report_figures_free(&r);
}

/* ---- --runs ---------------------------------------------------------------------------------- */

static void test_run_stat(void **state)
{
	double odd[] = { 30, 10, 20 }, even[] = { 4, 1, 3, 2 }, zero[] = { 0, 0 };
	struct run_stat s;

	(void)state;
	s = run_stat_of(odd, 3);
	assert_true(s.min == 10 && s.median == 20 && s.max == 30 && s.spread == 1.0);
	s = run_stat_of(even, 4);
	assert_true(s.median == 2.5 && fabs(s.spread - 3 / 2.5) < 1e-12);
	s = run_stat_of(zero, 2);
	assert_true(s.spread == 0);
}

static void test_runs_merge(void **state)
{
	struct fold_row r1[2] = { { "b", 5, 5, 0 }, { "a", 0, 8, 0 } };
	struct fold_row r2[2] = { { "c", 4, 4, 0 }, { "a", 1, 6, 0 } };
	struct fold_row r3[1] = { { "b", 2, 2, 0 } };
	struct report in[3], out;
	struct runs_summary *rs = calloc(1, sizeof(*rs));
	const struct fold_view *fv;

	(void)state;
	fixture_report(&in[0], r1);
	fixture_report(&in[1], r2);
	fixture_report(&in[2], r3);
	in[2].phases[0].fold.by[FOLD_BY_FUNCTION].n = 1;
	in[0].phases[0].oncpu_ns = 10000000;
	in[1].phases[0].oncpu_ns = 12000000;
	in[2].phases[0].oncpu_ns = 11000000;
	in[1].phases[0].wall_s = 1.0;
	for (int k = 0; k < 3; k++)
		in[k].phases[0].has_ledger = false;
	assert_int_equal(runs_merge(&out, in, 3, rs), 0);
	assert_int_equal(rs->nruns, 3);
	assert_int_equal(out.phases[0].oncpu_ns, 11000000);
	assert_true(out.phases[0].wall_s == 0.5);
	assert_true(fabs(rs->phases[0].oncpu.spread - 2.0 / 11) < 1e-12);
	assert_true(rs->phases[0].wall.max == 1.0);
	assert_int_equal(out.phases[0].stats.recorded, 33);
	fv = &out.phases[0].fold.by[FOLD_BY_FUNCTION];
	assert_int_equal(fv->n, 3);
	/* summed by name, sorted by self */
	assert_string_equal(fv->rows[0].name, "b");
	assert_int_equal(fv->rows[0].self, 7);
	assert_string_equal(fv->rows[2].name, "a");
	assert_int_equal(fv->rows[2].total, 14);
	/*
	 * Each run a batch: b's self share, 5, 0 and 2 of 11, swings far beyond its binomial noise:
	 * t(2) 4.303 on the spread of the runs, wider than Wilson on the 33 samples together.
	 */
	{
		const struct report_rounds *rr = &out.phases[0].rounds;
		struct stats_ci w;

		assert_true(rr->runs);
		assert_int_equal(rr->batches, 3);
		assert_int_equal(rr->v[1].oncpu_ns, 12000000);
		assert_int_equal(rr->v[2].samples, 11);
		stats_share(7, 33, &w);
		assert_true(rr->from_rounds[FOLD_BY_FUNCTION][0][0]);
		assert_true(stats_ci_half(&rr->ci[FOLD_BY_FUNCTION][0][0]) > 2 * stats_ci_half(&w));
		assert_true(fabs(rr->ci[FOLD_BY_FUNCTION][0][0].value - 7.0 / 33) < 1e-12);
		assert_true(rr->design > 1);
		/* 10, 12, 11 ms for 1000 commands each: 11 us +- t(2) sqrt(1e12 / 3) / 1000 ns */
		assert_true(rr->cpu_per_cmd.valid);
		assert_true(fabs(rr->cpu_per_cmd.value - 11000) < 1e-6);
		assert_true(fabs(stats_ci_half(&rr->cpu_per_cmd) -
				 stats_t975(2) * sqrt(1e12 / 3) / 1000) < 1e-6);
		/* the report prints the runs' interval for b */
		report_share_ci(&out.phases[0], FOLD_BY_FUNCTION, 0, false, &w);
		assert_true(fabs(w.hi - rr->ci[FOLD_BY_FUNCTION][0][0].hi) < 1e-12);
	}
	/* phases that differ do not merge */
	in[2].phases[1].id = 7;
	{
		struct report bad;

		assert_int_equal(runs_merge(&bad, in, 3, rs), -EINVAL);
	}
	report_figures_free(&out);
	for (int by = 0; by < FOLD_BY__COUNT; by++) {
		for (size_t i = 0; i < out.phases[0].fold.by[by].n; i++)
			free(out.phases[0].fold.by[by].rows[i].name);
		free(out.phases[0].fold.by[by].rows);
	}
	free(out.phases[0].fold.dsos);
	for (int i = 0; i < out.nphases; i++) {
		struct report_rounds *rr = &out.phases[i].rounds;

		free(rr->v);
		for (int by = 0; by < FOLD_BY__COUNT; by++)
			for (int t = 0; t < 2; t++) {
				free(rr->ci[by][t]);
				free(rr->from_rounds[by][t]);
			}
	}
	free(rs);
}

/*
 * --runs, the syscalls: each run a batch.  write's CPU 1, 2 and 3 ms of 10, 12 and 11 ms on-CPU,
 * 100 calls each: share 6/33 with the runs' t interval, us/call the wall's 2, 3 and 4 ms over the
 * calls; read only in runs 1 and 3 (0 in run 2).  The text report says the runs give it.
 */
/*
 * A call site's share: its syscall's exact share of the syscall time, split among the
 * syscall's sites by their walked calls, the interval that split's scaled by the exact share.
 * A syscall with one walked site keeps its exact share, whatever its walked calls cost against
 * another syscall's (here getppid's walked calls cost 13 times less than write's, and the
 * two syscalls the same exact time).  The text report lists the sites by that share.
 */
static void test_site_share_stratified(void **state)
{
	struct fold_row rows[2] = { { "a", 5, 5, 0 }, { "b", 6, 6, 0 } };
	/* write and getppid (the build's numbers: the names come from them): 2 ms each, exact */
	struct ledger_sys_row sys[2] = {
		{ .nr = SYS_write, .count = 800, .cpu_ns = 2000000, .wall_ns = 2000000 },
		{ .nr = SYS_getppid, .count = 800, .cpu_ns = 2000000, .wall_ns = 2000000 },
	};
	/* write's walked calls: 60 at one site, 40 at another; getppid's 100 at one site, cheap */
	struct ledger_site_row sites[3] = {
		{ .nr = SYS_write, .stack_id = 1, .count = 60, .cpu_ns = 240000,
		  .cpu_sq = 60 * (4000 >> 4) * (4000 >> 4) },
		{ .nr = SYS_write, .stack_id = 2, .count = 40, .cpu_ns = 160000,
		  .cpu_sq = 40 * (4000 >> 4) * (4000 >> 4) },
		{ .nr = SYS_getppid, .stack_id = 3, .count = 100, .cpu_ns = 31250,
		  .cpu_sq = 100 * (312 >> 4) * (312 >> 4) },
	};
	struct stats_ci ci, split;
	double x = 400000, q = 100.0 * 4000 * 4000;
	const char *a, *b, *c;
	struct report r;
	FILE *f = tmpfile();
	char *text;
	size_t len;

	(void)state;
	fixture_report(&r, rows);
	r.phases[0].ledger.sys = sys;
	r.phases[0].ledger.nsys = 2;
	r.phases[0].ledger.sites = sites;
	r.phases[0].ledger.nsites = 3;
	r.phases[0].ledger.site_cpu_ns = 431250;
	/* the first write site: 60% of write's walked CPU, write 50% of the syscalls' time */
	report_site_ci(&r, &r.phases[0], 0, &ci);
	stats_share_sampled(240000, 60.0 * 4000 * 4000, 60, x, q, 1.0 / 8, &split);
	assert_true(ci.valid && split.valid);
	assert_true(fabs(ci.value - 0.5 * 0.6) < 1e-12);
	assert_true(fabs(ci.lo - 0.5 * split.lo) < 1e-12);
	assert_true(fabs(ci.hi - 0.5 * split.hi) < 1e-12);
	assert_true(ci.lo < ci.value && ci.hi > ci.value);
	/* getppid: its one site has its exact 50% (its walked calls are 7% of all walked CPU) */
	report_site_ci(&r, &r.phases[0], 2, &ci);
	assert_true(ci.valid);
	assert_true(fabs(ci.value - 0.5) < 1e-12);
	assert_true(fabs(ci.hi - ci.lo) < 1e-12);
	/* the sites of a syscall add up to its exact share */
	report_site_ci(&r, &r.phases[0], 1, &split);
	report_site_ci(&r, &r.phases[0], 0, &ci);
	assert_true(fabs(ci.value + split.value - 0.5) < 1e-12);
	/* the text lists getppid's site first, then write's two */
	assert_non_null(f);
	r.phases[0].ledger.site_walk_ns = 300000;
	assert_int_equal(report_figures(&r), 0);
	/* the order, walks and us per walk the report stores for the text */
	assert_non_null(r.phases[0].site_order);
	assert_int_equal(r.phases[0].site_order[0], 2);
	assert_int_equal(r.phases[0].site_order[1], 0);
	assert_int_equal(r.phases[0].site_order[2], 1);
	assert_int_equal(r.phases[0].site_walks, 200);
	assert_true(fabs(r.phases[0].site_walk_us - 1.5) < 1e-12);
	report_print(f, &r);
	text = read_all(f, &len);
	assert_non_null(strstr(text, "the 200 walks took 0.300 ms (1.5 us each)"));
	a = strstr(text, "  50.0%");
	b = strstr(text, "  30.0%");
	c = strstr(text, "  20.0%");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_true(a < b && b < c);
	assert_non_null(strstr(a, "getppid <- "));
	free(text);
	fclose(f);
	report_figures_free(&r);
}

/* The figures corrected for muxbpf's cost: computed once by report_figures and stored (the
 * phase's, each syscall row's, per call), as cost_correct() gives them; none without a cost. */
static void test_corrected_stored(void **state)
{
	struct fold_row rows[2] = { { "a", 5, 5, 0 }, { "b", 6, 6, 0 } };
	struct ledger_sys_row sys[2] = {
		{ .nr = SYS_write, .count = 1500, .cpu_ns = 3000000, .wall_ns = 3000000 },
		{ .nr = SYS_getppid, .count = 500, .cpu_ns = 30000, .wall_ns = 30000 },
	};
	struct report r;

	(void)state;
	fixture_report(&r, rows);
	r.phases[0].ledger.sys = sys;
	r.phases[0].ledger.nsys = 2;
	r.phases[0].ledger.oncpu_ns = 10000000;
	r.phases[0].ledger.sys_cpu_ns = 4000000;
	r.phases[0].ledger.sys_count = 2000;
	assert_int_equal(report_figures(&r), 0);
	assert_false(r.phases[0].corrected.valid); /* no cost measured */
	assert_null(r.phases[0].sys_corrected);
	report_figures_free(&r);

	r.phases[0].cost.valid = true;
	r.phases[0].cost.calib.floor_ns = 200;
	r.phases[0].cost.est.valid = true;
	r.phases[0].cost.est.in_ctx_ns = 400000;
	r.phases[0].cost.est.call_ns = 100;
	assert_int_equal(report_figures(&r), 0);
	assert_true(r.phases[0].corrected.valid);
	/* 10 ms less the programs' 0.4 ms and 2000 x 200 ns of hook path */
	assert_true(fabs(r.phases[0].corrected.oncpu_ns - 9200000) < 1e-6);
	assert_true(fabs(r.phases[0].corrected.sys_ns - 3800000) < 1e-6);
	assert_non_null(r.phases[0].sys_corrected);
	/* write: 3 ms less 1500 x 100 ns, 1.9 us a call; getppid never below 0 */
	assert_true(fabs(r.phases[0].sys_corrected[0].cpu_ns - 2850000) < 1e-6);
	assert_true(fabs(r.phases[0].sys_corrected[0].us_per_call - 1.9) < 1e-9);
	assert_true(fabs(r.phases[0].sys_corrected[1].cpu_ns) < 1e-9);
	assert_true(fabs(r.phases[0].sys_corrected[1].us_per_call) < 1e-9);
	report_figures_free(&r);
}

/* The rates and means the writers print (the phase table's, the stacks', the cost line's, the
 * live maps' checks), computed once by report_figures and stored. */
static void test_rates_stored(void **state)
{
	struct fold_row rows[2] = { { "a", 5, 5, 0 }, { "b", 6, 6, 0 } };
	struct mb_unwind_summary u = { .valid = true, .sampler_runs = 4, .sampler_run_ns = 1000 };
	struct mb_live_info live = {};
	struct report r;

	(void)state;
	fixture_report(&r, rows);
	r.unwind = &u;
	r.phases[0].stats.walks = 4;
	r.phases[0].stats.frames = 10;
	r.phases[1].schedstat_ns = 4000000; /* on-CPU 5 ms: 25% above it */
	r.phases[0].stats.taken = 20;
	r.phases[0].stats.dropped[MUXBPF_DROP_STACK_FAILED] = 3;
	r.phases[0].ledger.sys_off_ns = 5000;
	r.phases[0].ledger.preempt_user_ns = 7000;
	/* the statistics on: 1 us of BPF, estimated 1.1 us; 10 early exits cost 50 ns */
	r.phases[0].cost = (struct mb_cost){ .valid = true, .stats = true, .bpf_ns = 1000 };
	r.phases[0].cost.est = (struct mb_cost_est){ .valid = true, .bpf_ns = 1100, .exits = 10,
						    .bystander_ns = 50 };
	r.phases[1].cost.est = (struct mb_cost_est){ .valid = true, .bpf_ns = 700 };
	live.occ.checks = 4;
	live.occ.check_ns = 10000;
	r.live = &live;
	assert_int_equal(report_figures(&r), 0);
	assert_true(fabs(r.live_check_us - 2.5) < 1e-12);
	assert_true(fabs(r.phases[0].cost_bpf_ns - 1000) < 1e-12);
	assert_true(fabs(r.phases[0].cost_est_vs_stats_pct - 10) < 1e-9);
	assert_true(fabs(r.phases[0].bystander_ns_each - 5) < 1e-12);
	assert_true(fabs(r.phases[1].cost_bpf_ns - 700) < 1e-12); /* no statistics: the estimate */
	assert_true(fabs(r.phases[1].cost_est_vs_stats_pct) < 1e-12);
	assert_true(r.phases[0].design_factor == 1); /* no batches */
	assert_int_equal(r.phases[0].dropped, 3);
	assert_int_equal(r.phases[0].recorded_whole, 17);
	assert_int_equal(r.phases[0].off_cpu_ns, 12000);
	assert_true(fabs(r.sampler_ns_per_sample - 250) < 1e-12);
	assert_true(fabs(r.phases[0].cmd_per_s - 2000) < 1e-9);
	assert_true(fabs(r.phases[0].check_pct) < 1e-12);
	assert_true(fabs(r.phases[0].frames_per_walk - 2.5) < 1e-12);
	assert_true(fabs(r.phases[1].cmd_per_s - 2000) < 1e-9);
	assert_true(fabs(r.phases[1].check_pct - 25) < 1e-9);
	assert_true(fabs(r.phases[1].frames_per_walk) < 1e-12); /* no walks */
	assert_true(fabs(r.phases[2].cmd_per_s) < 1e-12);     /* no wall */
	report_figures_free(&r);
}

static void test_runs_merge_syscalls(void **state)
{
	struct fold_row rows[3][2] = { { { "b", 5, 5, 0 }, { "a", 0, 8, 0 } },
				       { { "c", 4, 4, 0 }, { "a", 1, 6, 0 } },
				       { { "b", 2, 2, 0 }, { "a", 1, 3, 0 } } };
	struct ledger_sys_row sys[3][2] = {
		{ { .nr = 1, .count = 100, .cpu_ns = 1000000, .wall_ns = 2000000 },
		  { .nr = 0, .count = 10, .cpu_ns = 500000, .wall_ns = 600000 } },
		{ { .nr = 1, .count = 100, .cpu_ns = 2000000, .wall_ns = 3000000 } },
		{ { .nr = 1, .count = 100, .cpu_ns = 3000000, .wall_ns = 4000000 },
		  { .nr = 0, .count = 30, .cpu_ns = 700000, .wall_ns = 900000 } },
	};
	uint64_t oncpu[3] = { 10000000, 12000000, 11000000 };
	struct report in[3], out;
	struct runs_summary *rs = calloc(1, sizeof(*rs));
	struct report_sys_ci ci, want;
	struct rounds_sys_batch b[3];
	char *text;
	size_t len;
	FILE *f = tmpfile();

	(void)state;
	for (int k = 0; k < 3; k++) {
		fixture_report(&in[k], rows[k]);
		in[k].phases[0].oncpu_ns = oncpu[k];
		in[k].phases[0].ledger.sys = sys[k];
		in[k].phases[0].ledger.nsys = k == 1 ? 1 : 2;
	}
	assert_int_equal(runs_merge(&out, in, 3, rs), 0);
	assert_int_equal(out.phases[0].ledger.nsys, 2);
	assert_int_equal(out.phases[0].ledger.sys[0].nr, 1); /* sorted by CPU: write first */
	assert_int_equal(report_sys_ci(&out.phases[0], 0, &ci), REPORT_SYS_BATCHES);
	assert_true(fabs(ci.share.value - 6.0 / 33) < 1e-12);
	for (int k = 0; k < 3; k++)
		b[k] = (struct rounds_sys_batch){ .cpu_ns = 1e6 * (k + 1), .wall_ns = 1e6 * (k + 2),
						  .calls = 100, .phase_ns = (double)oncpu[k] };
	rounds_sys_ci(b, 3, &want.share, &want.us_per_call);
	assert_true(ci.share.valid && ci.us_per_call.valid);
	assert_true(fabs(ci.share.lo - want.share.lo) < 1e-12);
	assert_true(fabs(ci.us_per_call.hi - want.us_per_call.hi) < 1e-9);
	assert_true(fabs(ci.us_per_call.value - 30.0) < 1e-9);
	/* read: 0.5, 0 and 0.7 ms of CPU, calls in 2 of the 3 runs */
	assert_int_equal(report_sys_ci(&out.phases[0], 1, &ci), REPORT_SYS_BATCHES);
	assert_true(fabs(ci.share.value - 1.2 / 33) < 1e-12);
	assert_true(ci.share.lo < ci.share.value && ci.share.hi > ci.share.value);
	/* a phase without syscall rows gets no intervals for them */
	assert_null(out.phases[1].rounds.sys);
	report_print(f, &out);
	text = read_all(f, &len);
	fclose(f);
	assert_non_null(strstr(text, "spread between the 3 runs (t)"));
	free(text);
	report_free(&out);
	/* two runs: the median halfway between 10000001 and 12000000 ns rounds, not truncates */
	in[0].phases[0].oncpu_ns = 10000001;
	assert_int_equal(runs_merge(&out, in, 2, rs), 0);
	assert_int_equal(out.phases[0].oncpu_ns, 11000001);
	report_free(&out);
	free(rs);
}

/* ---- diff ------------------------------------------------------------------------------------ */

static struct jv *report_text(double oncpu, double spread, double self_a, double samples)
{
	char buf[2048], err[128];
	struct jv *v;

	snprintf(buf, sizeof(buf),
		 "{\"schema_version\":1,\"tool\":\"muxbpf\",\"target\":\"t\",\"runs\":3,"
		 "\"phases\":[{\"name\":\"create\",\"oncpu_ns\":%.0f,\"usr_ns\":1,\"sys_ns\":1,"
		 "\"cmd_per_s\":100,\"wall_s\":1,"
		 "\"spread\":%s,"
		 "\"functions\":{\"samples\":%.0f,\"rows\":[{\"name\":\"a\",\"self\":%.0f},"
		 "{\"name\":\"b\",\"self\":%.0f}]}}]}",
		 oncpu, spread >= 0 ? "{\"oncpu_ns\":{\"spread\":SPREAD}}" : "null", samples,
		 self_a, samples - self_a);
	if (spread >= 0) {
		char tail[2048], *p = strstr(buf, "SPREAD");

		snprintf(tail, sizeof(tail), "%s", p + 6);
		snprintf(p, sizeof(buf) - (p - buf), "%g%s", spread, tail);
	}
	v = json_parse(buf, strlen(buf), err, sizeof(err));
	if (!v)
		fail_msg("fixture does not parse: %s: %s", err, buf);
	return v;
}

static int diff_of(struct jv *a, struct jv *b, char **text)
{
	struct diff_opts o = { .top = 5 };
	size_t len;
	FILE *f = open_memstream(text, &len);
	int n = diff_reports(f, a, b, &o);

	fclose(f);
	return n;
}

static void test_diff_verdicts(void **state)
{
	struct jv *base = report_text(100e6, 0.05, 500, 1000);
	struct jv *same = report_text(100e6, 0.05, 500, 1000);
	struct jv *noisy = report_text(103e6, 0.05, 510, 1000);
	struct jv *slower = report_text(120e6, 0.05, 500, 1000);
	struct jv *shifted = report_text(100e6, 0.05, 800, 1000);
	struct jv *nospread = report_text(150e6, -1, 500, 1000);
	struct jv *nospread_up = report_text(200e6, -1, 500, 1000);
	struct jv *onlya = report_text(100e6, 0.05, 1000, 1000);
	struct jv *notours;
	char *text = NULL, err[64];

	(void)state;
	assert_int_equal(diff_of(base, same, &text), 0);
	assert_non_null(strstr(text, "no change beyond noise"));
	free(text);
	/* 3% against a 5% spread; 1 point of share against sigma 2.2 points */
	assert_int_equal(diff_of(base, noisy, &text), 0);
	free(text);
	assert_int_equal(diff_of(base, slower, &text), 1);
	assert_non_null(strstr(text, "UP, beyond noise"));
	free(text);
	/* a: 50% -> 80% of 1000 samples, b the other way: both beyond 3 sigma */
	assert_int_equal(diff_of(base, shifted, &text), 2);
	assert_non_null(strstr(text, "+30.00 pts"));
	free(text);
	/* a change of a third without spread on either side: no verdict, said so on its line */
	assert_int_equal(diff_of(nospread, nospread_up, &text), 0);
	assert_non_null(strstr(text, "+33.3%        ?  no spread (--runs)"));
	assert_null(strstr(text, ", beyond noise"));
	free(text);
	/* b: 50% -> 0% self, still a row of the new run (on others' stacks): listed once */
	assert_int_equal(diff_of(base, onlya, &text), 2);
	assert_non_null(strstr(text, " b\n"));
	assert_null(strstr(strstr(text, " b\n") + 1, " b\n"));
	free(text);
	notours = json_parse("{\"tool\":\"perf\"}", 15, err, sizeof(err));
	assert_int_equal(diff_of(base, notours, &text), -EINVAL);
	free(text);
	jv_free(base);
	jv_free(same);
	jv_free(noisy);
	jv_free(slower);
	jv_free(shifted);
	jv_free(nospread);
	jv_free(nospread_up);
	jv_free(onlya);
	jv_free(notours);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_rejects),
		cmocka_unit_test(test_folded_roundtrip),
		cmocka_unit_test(test_folded_read_errors),
		cmocka_unit_test(test_long_names_match_rows),
		cmocka_unit_test(test_flame_kernel_frames),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_svg_diff),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_pprof_inline),
		cmocka_unit_test(test_speedscope),
		cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_report_html),
		cmocka_unit_test(test_run_stat),
		cmocka_unit_test(test_lockstep_warning),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_runs_merge),
		cmocka_unit_test(test_runs_merge_syscalls),
		cmocka_unit_test(test_site_share_stratified),
		cmocka_unit_test(test_corrected_stored),
		cmocka_unit_test(test_rates_stored),
		cmocka_unit_test(test_diff_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
