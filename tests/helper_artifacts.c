// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every --out artifact of a fixture report, written into a directory (no root, no BPF):
 * report.txt, report.json, the folded stacks, the flame graphs, pprof, speedscope and
 * report.html, with the softcode views (--by command,softcode) on a small game's counts.  tests/e2e/artifacts_same.sh compares them with tests/expected/artifacts/: a
 * change that should not change what muxbpf writes must leave them byte-identical.
 *   helper_artifacts DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "loader/softcode_name.h"
#include "output/out.h"
#include "output/out_text.h"
#include "fold/sprof.h"
#include "report/flame.h"
#include "report/report.h"

static struct mb_sym fn(const char *name, uint64_t off)
{
	struct mb_sym s = { .dso = "/fixture/netmux", .build_id = "abcdef0123456789",
			    .offset = off, .name = name, .why = MB_NAMED };

	if (!name)
		s.why = MB_UNNAMED_NO_SYMBOL;
	return s;
}

/* profile.pb.gz holds the time it was written: this one, so that two writes compare equal. */
time_t time(time_t *t)
{
	if (t)
		*t = 1700000000;
	return 1700000000;
}

#define CHECK(x)                                                                           \
	do {                                                                               \
		if ((x) != 0) {                                                            \
			fprintf(stderr, "helper_artifacts: %s failed\n", #x);              \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

/* The stacks of test_out.c's fixture: phase 2 (create) main -> a -> b x5, main -> a -> c x3,
 * main -> d x2, an unnamed leaf x1; phase 3 (attrwrite) main -> e x5; kernel time at a site. */
static void fixture(struct sprof *sp)
{
	struct mb_sym s1[] = { fn("b", 0x300), fn("a", 0x200), fn("main", 0x100) };
	struct mb_sym s2[] = { fn("c", 0x400), fn("a", 0x210), fn("main", 0x100) };
	struct mb_sym s3[] = { fn("d", 0x500), fn("main", 0x110) };
	struct mb_sym s4[] = { fn(NULL, 0x999), fn("main", 0x120) };
	struct mb_sym s5[] = { fn("e", 0x600), fn("main", 0x130) };
	struct mb_sym site[] = { fn("a", 0x220), fn("main", 0x100) };

	sprof_init(sp, 1000);
	CHECK(sprof_add_sample(sp, 2, s1, 3, 5));
	CHECK(sprof_add_sample(sp, 2, s2, 3, 3));
	CHECK(sprof_add_sample(sp, 2, s3, 2, 2));
	CHECK(sprof_add_sample(sp, 2, s4, 2, 1));
	CHECK(sprof_add_sample(sp, 3, s5, 2, 4));
	CHECK(sprof_add_sample(sp, 3, s5, 2, 1));
	CHECK(sprof_add_site(sp, 2, "write", site, 2, 10, 2000000, 3000000,
			     (0.5e6 / 1.959964) * (0.5e6 / 1.959964)));
	CHECK(sprof_add_site(sp, 2, "read", NULL, 0, 5, 1000000, 9000000, 0));
	sp->nruns = 1;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		exit(1);
	return d;
}

/* A game: #1 types "slow" ($slow on SoftObj #13, whose action calls u(#12/fn_heavy)) and
 * "look"; samples and exact times of those commands in create and attrwrite. */
static void softcode_fixture(struct sc_data *d)
{
	static struct sc_cmd cmds[4];
	static struct sc_frame frames[1];
	static struct sc_path paths[1];
	static struct sc_count counts[6];
	static struct sc_time times[4];
	static struct sc_name names[3];
	static struct sc_attr attrs[1];
	static const struct { uint32_t phase, cmd, path; uint64_t n; } c[6] = {
		{ 2, 1, 0, 3 }, { 2, 2, 1, 5 }, { 2, 3, 0, 2 }, { 2, 0, 0, 1 },
		{ 3, 2, 1, 4 }, { 3, 3, 0, 1 },
	};

	memset(d, 0, sizeof(*d));
	d->valid = true;
	d->hit_ns = 420;
	d->ends = (struct probe_ends){ -1, -1, -1 };
	d->names_from = "the game";
	names[0] = (struct sc_name){ 1, xstrdup("Wizard") };
	names[1] = (struct sc_name){ 12, xstrdup("HeavyObj") };
	names[2] = (struct sc_name){ 13, xstrdup("SoftObj") };
	attrs[0] = (struct sc_attr){ 13, xstrdup("CMD_SLOW"), xstrdup("slow"),
				     xstrdup("@pemit %#=[u(#12/FN_HEAVY)]") };
	cmds[0] = (struct sc_cmd){ .id = 1, .executor = 1, .enactor = 1, .text = "slow" };
	cmds[1] = (struct sc_cmd){ .id = 2, .executor = 13, .enactor = 1,
				   .text = "@pemit %#=[u(#12/FN_HEAVY)]" };
	cmds[2] = (struct sc_cmd){ .id = 3, .executor = 1, .enactor = 1, .text = "look" };
	cmds[3] = (struct sc_cmd){ .id = 4, .executor = 1, .enactor = 1, .text = "" };
	frames[0] = (struct sc_frame){ .id = 1, .thing = 12, .executor = 13,
				       .text = "#12/fn_heavy" };
	paths[0] = (struct sc_path){ .id = 1, .frames = { 1 } };
	for (int i = 0; i < 6; i++) {
		counts[i].key.phase = c[i].phase;
		counts[i].key.cmd = c[i].cmd;
		counts[i].key.path = c[i].path;
		counts[i].count = c[i].n;
	}
	d->cmds = cmds;
	d->ncmds = 4;
	d->frames = frames;
	d->nframes = 1;
	d->paths = paths;
	d->npaths = 1;
	d->counts = counts;
	d->ncounts = 6;
	d->times = times;
	d->ntimes = 0;
	d->names = names;
	d->nnames = 3;
	d->attrs = attrs;
	d->nattrs = 1;
	d->stats.samples = 16;
	sc_label(d);
}

int main(int argc, char **argv)
{
	static struct sc_data sc;
	static struct report r;
	static const struct syscall_hook_info hook = {
		.hook = SYSCALL_HOOK_FENTRY, .why = "fentry: x64_sys_call traceable", .bystander_ns = 61.5
	};
	struct fold_row rows[2] = { { "b", 5, 5, 0 }, { "a", 0, 8, 0 } };
	struct fold_row rows3[1] = { { "e", 5, 5, 0 } };
	struct sprof sp;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: helper_artifacts DIR\n");
		return 2;
	}
	fixture(&sp);
	r.target = "/fixture/netmux";
	r.version = "MUX 2.12.0.10 #1";
	r.pid = 42;
	r.port = 4201;
	r.scale = 1;
	r.freq = 1000;
	r.top = 15;
	r.profiled = true;
	r.stacks = &sp;
	r.ledger = true;
	r.hook = &hook;
	r.site_every = 8;
	r.max_drop_pct = -1;
	r.by = FOLD_VIEW(FOLD_BY_FUNCTION) | FOLD_VIEWS_SOFTCODE;
	r.folded = FOLD_VIEW(FOLD_BY_FUNCTION);
	softcode_fixture(&sc);
	r.softcode = &sc;
	r.nphases = 3;
	r.phases[0] = (struct report_phase){ .id = 2, .measured = true, .ok = true, .wall_s = 0.5,
					     .commands = 1000, .oncpu_ns = 14000000,
					     .schedstat_ns = 14000000, .usr_ns = 10000000,
					     .sys_ns = 4000000 };
	r.phases[0].stats.recorded = 11;
	r.phases[0].fold.samples = 11;
	r.phases[0].fold.by[FOLD_BY_FUNCTION].rows = rows;
	r.phases[0].fold.by[FOLD_BY_FUNCTION].n = 2;
	r.phases[0].has_ledger = true;
	r.phases[0].ledger.user_ns = 11000000;
	r.phases[0].ledger.sys_cpu_ns = 3000000;
	r.phases[0].ledger.wall_ns = 500000000;
	r.phases[1] = (struct report_phase){ .id = 3, .measured = true, .ok = true, .wall_s = 0.25,
					     .commands = 500, .oncpu_ns = 5000000,
					     .schedstat_ns = 5100000 };
	r.phases[1].stats.recorded = 5;
	r.phases[1].fold.samples = 5;
	r.phases[1].fold.by[FOLD_BY_FUNCTION].rows = rows3;
	r.phases[1].fold.by[FOLD_BY_FUNCTION].n = 1;
	r.phases[2] = (struct report_phase){ .id = 0, .ok = true, .oncpu_ns = 1000000 };
	CHECK(report_figures(&r));

	f = open_memstream(&text, &len);
	if (!f)
		return 1;
	report_print(f, &r);
	fclose(f);
	CHECK(report_flames(&r));
	CHECK(out_write(argv[1], &r, NULL, text, len));
	report_flames_free(&r);
	free(text);
	sprof_free(&sp);
	return 0;
}
