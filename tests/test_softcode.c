// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The softcode views' pure stages: verbs, $-patterns, labels, command and softcode rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fold/fold.h"
#include "loader/probe_cost.h"
#include "symbols/resolve.h"
#include "loader/softcode.h"
#include "loader/softcode_name.h"
#include "report/report.h"
#include "report/softcode_rows.h"
#include "report/softcode_stacks.h"

static void test_verb(void **state)
{
	char v[32];

	(void)state;
	sc_verb("look here", v, sizeof(v));
	assert_string_equal(v, "look");
	sc_verb("@pemit me=[add(1,2)]", v, sizeof(v));
	assert_string_equal(v, "@pemit");
	sc_verb("@pemit/noeval me=x", v, sizeof(v));
	assert_string_equal(v, "@pemit");
	sc_verb("  WHO", v, sizeof(v));
	assert_string_equal(v, "who");
	sc_verb("a/b c", v, sizeof(v));
	assert_string_equal(v, "a/b");
	sc_verb("averyveryverylongcommandname", v, 8);
	assert_string_equal(v, "averyve");
}

static void test_match(void **state)
{
	(void)state;
	assert_true(sc_match("slow", "slow"));
	assert_true(sc_match("slow", "SLOW"));
	assert_false(sc_match("slow", "slower"));
	assert_true(sc_match("+who *", "+who all"));
	assert_true(sc_match("+w?o", "+woo"));
	assert_false(sc_match("+who *", "+who"));
	assert_true(sc_match("*", ""));
}

static void add_cmd(struct sc_data *d, uint32_t id, int32_t executor, int32_t enactor,
		    const char *text)
{
	d->cmds = realloc(d->cmds, (d->ncmds + 1) * sizeof(*d->cmds));
	memset(&d->cmds[d->ncmds], 0, sizeof(d->cmds[0]));
	d->cmds[d->ncmds].id = id;
	d->cmds[d->ncmds].executor = executor;
	d->cmds[d->ncmds].enactor = enactor;
	snprintf(d->cmds[d->ncmds].text, sizeof(d->cmds[0].text), "%s", text);
	d->ncmds++;
}

static void add_name(struct sc_data *d, int32_t dbref, const char *name)
{
	d->names = realloc(d->names, (d->nnames + 1) * sizeof(*d->names));
	d->names[d->nnames].dbref = dbref;
	d->names[d->nnames++].name = strdup(name);
}

static void add_attr(struct sc_data *d, int32_t obj, const char *attr, const char *pattern,
		     const char *action)
{
	d->attrs = realloc(d->attrs, (d->nattrs + 1) * sizeof(*d->attrs));
	d->attrs[d->nattrs].obj = obj;
	d->attrs[d->nattrs].attr = strdup(attr);
	d->attrs[d->nattrs].pattern = strdup(pattern);
	d->attrs[d->nattrs++].action = strdup(action);
}

static void add_count(struct sc_data *d, uint32_t phase, uint32_t cmd, uint32_t path,
		      uint64_t n)
{
	d->counts = realloc(d->counts, (d->ncounts + 1) * sizeof(*d->counts));
	memset(&d->counts[d->ncounts], 0, sizeof(d->counts[0]));
	d->counts[d->ncounts].key.phase = phase;
	d->counts[d->ncounts].key.cmd = cmd;
	d->counts[d->ncounts].key.path = path;
	d->counts[d->ncounts++].count = n;
}

static void add_time(struct sc_data *d, uint32_t phase, uint32_t cmd, uint64_t count,
		     uint64_t ns)
{
	d->times = realloc(d->times, (d->ntimes + 1) * sizeof(*d->times));
	d->times[d->ntimes].key.phase = phase;
	d->times[d->ntimes].key.cmd = cmd;
	d->times[d->ntimes].val.count = count;
	d->times[d->ntimes].val.hits = 0;
	d->times[d->ntimes].val.segs = 0;
	d->times[d->ntimes].val.own_ns = 0;
	d->times[d->ntimes++].val.cpu_ns = ns;
}

/*
 * A game: wizard #1 types "slow" (matches $slow on SoftObj #13, whose action runs as #13),
 * "look" (a built-in), and SoftObj's $ufn action calls u(#12/fn_heavy) on HeavyObj #12; #14
 * runs an action with no known attribute.
 */
static void fixture(struct sc_data *d)
{
	memset(d, 0, sizeof(*d));
	d->valid = true;
	add_name(d, 1, "Wizard");
	add_name(d, 12, "HeavyObj");
	add_name(d, 13, "SoftObj");
	add_name(d, 14, "Other");
	add_attr(d, 13, "CMD_SLOW", "slow", "@pemit %#=[iter(lnum(200),mul(##,2))]");
	add_attr(d, 13, "CMD_UFN", "ufn", "think x;@pemit %#=[u(#12/FN_HEAVY)]");
	add_cmd(d, 1, 1, 1, "slow");
	add_cmd(d, 2, 13, 1, "@pemit %#=[iter(lnum(200),mul(##,2))]");
	add_cmd(d, 3, 1, 1, "look");
	add_cmd(d, 4, 13, 1, "@pemit %#=[u(#12/FN_HEAVY)]");
	add_cmd(d, 5, 1, 1, "");
	add_cmd(d, 6, 14, 1, "@emit hi");
	d->frames = calloc(1, sizeof(*d->frames));
	d->frames[0].id = 1;
	d->frames[0].thing = 12;
	d->frames[0].executor = 13;
	snprintf(d->frames[0].text, sizeof(d->frames[0].text), "#12/fn_heavy");
	d->nframes = 1;
	d->paths = calloc(1, sizeof(*d->paths));
	d->paths[0].id = 1;
	d->paths[0].frames[0] = 1;
	d->npaths = 1;
}

static const struct sc_cmd *cmd(const struct sc_data *d, uint32_t id)
{
	for (size_t i = 0; i < d->ncmds; i++)
		if (d->cmds[i].id == id)
			return &d->cmds[i];
	return NULL;
}

static void test_label(void **state)
{
	struct sc_data d;

	(void)state;
	fixture(&d);
	sc_label(&d);
	/* the typed command that matched, and the action it queued: one row, the action counts */
	assert_string_equal(cmd(&d, 1)->label, "$slow SoftObj(#13)/CMD_SLOW");
	assert_false(cmd(&d, 1)->primary);
	assert_string_equal(cmd(&d, 2)->label, "$slow SoftObj(#13)/CMD_SLOW");
	assert_true(cmd(&d, 2)->primary);
	assert_string_equal(cmd(&d, 2)->frame, "SoftObj(#13)/CMD_SLOW");
	assert_string_equal(cmd(&d, 2)->obj, "#13");
	assert_string_equal(cmd(&d, 3)->label, "look");
	/* the second command of an action "think x;@pemit ..." */
	assert_string_equal(cmd(&d, 4)->label, "$ufn SoftObj(#13)/CMD_UFN");
	assert_string_equal(cmd(&d, 5)->label, "(between commands)");
	assert_string_equal(cmd(&d, 6)->label, "Other(#14): @emit hi");
	assert_string_equal(d.frames[0].label, "HeavyObj(#12)/FN_HEAVY");
	assert_string_equal(d.frames[0].obj, "#12");
	sc_data__free(&d);
}

static void test_command_rows(void **state)
{
	struct sc_data d;
	struct sc_rows rows;

	(void)state;
	fixture(&d);
	sc_label(&d);
	add_count(&d, 1, 2, 0, 30);
	add_count(&d, 1, 1, 0, 2);
	add_count(&d, 1, 3, 0, 8);
	add_count(&d, 2, 3, 0, 99); /* another phase */
	/* slow: typed 10 times (1 ms), its action 10 times (20 ms); look 30 times (3 ms); and
	 * 6 ms between commands, shared out by the 50 commands started */
	add_time(&d, 1, 1, 10, 1000000);
	add_time(&d, 1, 2, 10, 20000000);
	add_time(&d, 1, 3, 30, 3000000);
	add_time(&d, 1, 0, 0, 6000000);
	assert_int_equal(sc_command_rows(&d, 1, 0, &rows), 0);
	assert_int_equal(rows.n, 2);
	assert_int_equal(rows.samples, 40);
	assert_string_equal(rows.v[0].label, "$slow SoftObj(#13)/CMD_SLOW");
	assert_int_equal(rows.v[0].samples, 32);
	assert_int_equal(rows.v[0].runs, 10);
	assert_int_equal(rows.v[0].in_ns, 21000000);
	assert_int_equal(rows.v[0].clock_ns, 21000000 + 6000000 * 20 / 50);
	assert_int_equal(rows.v[1].runs, 30);
	assert_int_equal(rows.v[1].clock_ns, 3000000 + 6000000 * 30 / 50);
	assert_int_equal(rows.between_ns, 6000000);
	assert_true(rows.scale == 1.0);
	sc_rows__free(&rows);
	/* scaled to the phase's exact on-CPU: the rows share out 15 ms */
	assert_int_equal(sc_command_rows(&d, 1, 15000000, &rows), 0);
	assert_int_equal(rows.v[0].cpu_ns + rows.v[1].cpu_ns, 15000000);
	sc_rows__free(&rows);
	sc_data__free(&d);
}

/* The row labelled label (rows are sorted by time: a test that changes the times looks). */
static const struct sc_row *find_row(const struct sc_rows *rows, const char *label)
{
	for (size_t i = 0; i < rows->n; i++)
		if (!strcmp(rows->v[i].label, label))
			return &rows->v[i];
	fail_msg("no row %s", label);
	return NULL;
}

/* The last time entry's u() probe hits and segments. */
static void set_probes(struct sc_data *d, uint64_t hits, uint64_t segs)
{
	d->times[d->ntimes - 1].val.hits = hits;
	d->times[d->ntimes - 1].val.segs = segs;
}

/*
 * Phase 1's exact times with the probes inside them: slow typed 10 times (1 ms), its action
 * 10 times (20 ms, 20 u() hits), look 30 times (3 ms, look_own_ns of the entry program's own
 * work between its reads), 6 ms between commands (50 segments, one after each command).
 */
static void add_probed_times(struct sc_data *d, uint64_t look_own_ns)
{
	add_time(d, 1, 1, 10, 1000000);
	set_probes(d, 0, 10);
	add_time(d, 1, 2, 10, 20000000);
	set_probes(d, 20, 10);
	add_time(d, 1, 3, 30, 3000000);
	set_probes(d, 0, 30);
	d->times[d->ntimes - 1].val.own_ns = look_own_ns;
	add_time(d, 1, 0, 0, 6000000);
	set_probes(d, 0, 50);
}

/*
 * Our uprobes inside the exact times: the task clock counts each hit's trap and user-mode
 * samples never see it.  A u() hit costs hit_ns whole; each segment holds the command probes'
 * part on its side of their clock reads: ends.inside_ns in a command, the rest of the pair
 * between commands.  Both leave the rows, the time between commands and the on-CPU they share.
 */
static void test_command_rows_probes(void **state)
{
	struct sc_data d;
	struct sc_rows rows;

	(void)state;
	fixture(&d);
	sc_label(&d);
	d.hit_ns = 500;
	d.ends = (struct probe_ends){ .pair_ns = 350, .inside_ns = 100, .own_ns = 50 };
	add_probed_times(&d, 1500);
	assert_int_equal(sc_command_rows(&d, 1, 0, &rows), 0);
	assert_int_equal(rows.n, 2);
	assert_int_equal(rows.v[0].probe_hits, 20);
	assert_int_equal(rows.v[0].segments, 20);
	assert_int_equal(rows.v[0].probe_ns, 20 * 500 + 20 * 100);
	assert_int_equal(rows.v[0].in_ns, 21000000 - 12000);
	assert_int_equal(rows.between_ns, 6000000 - 50 * 200);
	assert_int_equal(rows.v[0].clock_ns, 21000000 - 12000 + (6000000 - 50 * 200) * 20 / 50);
	assert_int_equal(rows.v[1].segments, 30);
	assert_int_equal(rows.v[1].in_ns, 3000000 - 30 * 100);
	sc_rows__free(&rows);
	/* scaled to the on-CPU, which counts the probes (and the entry program's own work, in no
	 * segment) too: they are not shared out */
	assert_int_equal(sc_command_rows(&d, 1, 30000000, &rows), 0);
	/* (each row rounds to the ns) */
	assert_in_range(rows.v[0].cpu_ns + rows.v[1].cpu_ns, 30000000 - 26500 - 1,
			30000000 - 26500 + 1);
	sc_rows__free(&rows);
	/* a cost above an entry's own time takes the whole of it, no more (the action's 20 ms;
	 * the typed command has no u() hit and nothing of the pair inside) */
	d.hit_ns = 1e6 + 1;
	d.ends = (struct probe_ends){ .pair_ns = 1e6, .inside_ns = 0, .own_ns = 0 };
	assert_int_equal(sc_command_rows(&d, 1, 0, &rows), 0);
	assert_int_equal(find_row(&rows, "$slow SoftObj(#13)/CMD_SLOW")->in_ns, 1000000);
	assert_int_equal(find_row(&rows, "$slow SoftObj(#13)/CMD_SLOW")->probe_ns, 20000000);
	assert_int_equal(find_row(&rows, "look")->in_ns, 3000000);
	assert_int_equal(rows.between_ns, 0);
	sc_rows__free(&rows);
	/* the command probes not measured (negative): only the u() hits leave */
	d.hit_ns = 500;
	d.ends = (struct probe_ends){ -1, -1, -1 };
	assert_int_equal(sc_command_rows(&d, 1, 0, &rows), 0);
	assert_int_equal(rows.v[0].in_ns, 21000000 - 20 * 500);
	assert_int_equal(rows.v[1].in_ns, 3000000);
	assert_int_equal(rows.between_ns, 6000000);
	sc_rows__free(&rows);
	/* nothing measured (a negative errno): nothing removed */
	d.hit_ns = -2;
	assert_int_equal(sc_command_rows(&d, 1, 0, &rows), 0);
	assert_int_equal(rows.v[0].in_ns, 21000000);
	assert_int_equal(rows.v[0].probe_ns, 0);
	assert_int_equal(rows.v[0].probe_hits, 20);
	sc_rows__free(&rows);
	sc_data__free(&d);
}

/*
 * The softcode figures report_figures stores for the writers: the command rows' probe cost
 * summed, each row's us per command and ms estimate, and the run's probe cost (u() hits x
 * hit_ns, a pair of command probes per command x pair_ns).
 */
static void test_report_figures(void **state)
{
	static struct report r;
	struct report_phase *p = &r.phases[0];
	struct sc_data d;

	(void)state;
	fixture(&d);
	sc_label(&d);
	d.exact = true;
	d.hit_ns = 500;
	d.ends = (struct probe_ends){ .pair_ns = 350, .inside_ns = 100, .own_ns = 50 };
	d.stats.ufun_enter = d.stats.ufun_exit = 10;
	d.stats.cmd_starts = d.stats.cmd_ends = 50;
	add_count(&d, 1, 2, 0, 30);
	add_count(&d, 1, 1, 0, 2);
	add_count(&d, 1, 3, 0, 8);
	add_probed_times(&d, 0);
	r.softcode = &d;
	r.by = FOLD_VIEWS_SOFTCODE;
	r.top = 10;
	r.nphases = 1;
	*p = (struct report_phase){ .id = 1, .measured = true, .ok = true, .oncpu_ns = 30000000 };
	assert_int_equal(report_figures(&r), 0);
	assert_true(fabs(r.sc_ufun_probes_ns - 20 * 500) < 1e-9);
	assert_true(fabs(r.sc_cmd_probes_ns - 50 * 350) < 1e-9);
	assert_int_equal(p->sc_commands.n, 2);
	assert_int_equal(p->sc_probe_ns, 20 * 500 + 20 * 100 + 30 * 100);
	for (size_t j = 0; j < p->sc_commands.n; j++) {
		const struct sc_row *row = &p->sc_commands.v[j];

		assert_true(fabs(p->sc_command_ci[j].us_per_cmd -
				 row->cpu_ns / 1e3 / row->runs) < 1e-12);
	}
	/* $slow: 32 of the 40 samples of a 30 ms phase */
	assert_true(fabs(p->sc_command_ci[0].est_ms - 24) < 1e-9);
	assert_true(p->sc_command_ci[0].est_half_ms > 0);
	report_figures_free(&r);
	sc_data__free(&d);
}

/* The command probes' parts: never negative, never more than the pair leaves. */
static void test_probe_ends_from(void **state)
{
	struct probe_ends e;

	(void)state;
	probe_ends_from(12000, 6000, 1000, &e);
	assert_true(e.pair_ns == 12000 && e.inside_ns == 6000 && e.own_ns == 1000);
	assert_true(probe_ends_outside(&e) == 5000);
	probe_ends_from(12000, 15000, 1000, &e);
	assert_true(e.inside_ns == 12000 && e.own_ns == 0 && probe_ends_outside(&e) == 0);
	probe_ends_from(12000, -5, 13000, &e);
	assert_true(e.inside_ns == 0 && e.own_ns == 12000);
	probe_ends_from(-3, 100, 100, &e);
	assert_true(e.pair_ns == 0 && e.inside_ns == 0 && e.own_ns == 0);
}

/* Two measurements: the lower, part by part; one not measured (negative) does not count. */
static void test_probe_cost_lower(void **state)
{
	struct probe_ends a = { 12000, 6000, 400 }, b = { 14000, 5000, 500 }, none = { -1, -1, -1 };
	struct probe_ends e;

	(void)state;
	assert_true(probe_cost_lower(6000, 9000) == 6000);
	assert_true(probe_cost_lower(9000, 6000) == 6000);
	assert_true(probe_cost_lower(-2, 6000) == 6000);
	assert_true(probe_cost_lower(6000, -2) == 6000);
	assert_true(probe_cost_lower(-2, -5) < 0);
	probe_ends_lower(&a, &b, &e);
	assert_true(e.pair_ns == 12000 && e.inside_ns == 5000 && e.own_ns == 400);
	probe_ends_lower(&none, &b, &e);
	assert_true(e.pair_ns == 14000 && e.inside_ns == 5000 && e.own_ns == 500);
	probe_ends_lower(&a, &none, &e);
	assert_true(e.pair_ns == 12000 && e.inside_ns == 6000);
	probe_ends_lower(&none, &none, &e);
	assert_true(e.pair_ns < 0);
}

/* The cost per hit: the medians' difference, never negative. */
static void test_probe_cost_from(void **state)
{
	double bare[5] = { 3, 2, 9, 2.5, 2 }, probed[5] = { 900, 1000, 700, 20000, 800 };
	double b2[3] = { 5, 5, 5 }, p2[3] = { 4, 4, 6 };

	(void)state;
	assert_true(probe_cost_from(bare, probed, 5) == 900 - 2.5);
	assert_true(probe_cost_from(b2, p2, 3) == 0);
	assert_true(probe_cost_from(b2, p2, 0) == 0);
}

/* Leaf-first frames named by names[] (NULL: an unnamed frame). */
static void frames_of(struct mb_sym *f, const char *const *names, uint32_t n)
{
	memset(f, 0, n * sizeof(*f));
	for (uint32_t i = 0; i < n; i++)
		f[i].name = names[i];
}

/*
 * The stack rule: a stack walked up to main is whole, and without process_command on it the
 * sample is between commands.  A stack cut short keeps its command.
 */
static void test_stack_between(void **state)
{
	static const char *const queue[] = { "free", "Task_RunQueueEntry(void*, int)",
					     "CScheduler::RunTasks(int)", "shovechars(int, PortInfo*)",
					     "main", "__libc_start_call_main", "_start" };
	static const char *const cmd[] = { "mux_exec(...)", "process_command(int, int, int)",
					   "Task_RunQueueEntry(void*, int)", "main", "_start" };
	static const char *const cut[] = { "free", "Task_RunQueueEntry(void*, int)", NULL };
	static const char *const lookalike[] = { "process_commands_of_mine", "main", "_start" };
	static const char *const mainish[] = { "free", "main_loop", "_start" };
	struct mb_sym f[8];

	(void)state;
	frames_of(f, queue, 7);
	assert_true(sc_stack_between(f, 7));
	frames_of(f, cmd, 5);
	assert_false(sc_stack_between(f, 5));
	/* the leaf alone (a failed walk), or a walk that stopped short of main */
	assert_false(sc_stack_between(f, 1));
	frames_of(f, cut, 3);
	assert_false(sc_stack_between(f, 3));
	assert_false(sc_stack_between(f, 0));
	/* names are matched whole: another function that starts alike is not process_command */
	frames_of(f, lookalike, 3);
	assert_true(sc_stack_between(f, 3));
	frames_of(f, mainish, 3);
	assert_false(sc_stack_between(f, 3));
	/* the anchors the artifacts' softcode frames go above, by the same test */
	frames_of(f, cmd, 5);
	assert_true(sc_frame_is(&f[1], SC_ANCHOR_COMMAND));
	assert_false(sc_frame_is(&f[0], SC_ANCHOR_COMMAND));
	frames_of(f, lookalike, 3);
	assert_false(sc_frame_is(&f[0], SC_ANCHOR_COMMAND));
	f[0].name = "do_ufun(char*, char**, dbref, dbref, dbref, int, int, char const**, int)";
	assert_true(sc_frame_is(&f[0], SC_ANCHOR_UFUN));
	f[0].name = "do_ufunc";
	assert_false(sc_frame_is(&f[0], SC_ANCHOR_UFUN));
	f[0].name = NULL;
	assert_false(sc_frame_is(&f[0], SC_ANCHOR_UFUN));
}

/* Between commands by stack id: odd ids. */
static bool odd_stack(const struct sc_count *c, void *ctx)
{
	(*(int *)ctx)++;
	return c->key.stack_id % 2 == 1;
}

/*
 * The rule moves a command's counts to command 0, leaves the counts already there and the even
 * stacks alone, and the rows follow: "(between commands)" gains what the commands lose.
 */
static void test_move_between(void **state)
{
	struct sc_data d;
	struct sc_rows rows;
	int asked = 0;

	(void)state;
	fixture(&d);
	sc_label(&d);
	add_count(&d, 1, 2, 0, 30);
	d.counts[d.ncounts - 1].key.stack_id = 4;
	add_count(&d, 1, 2, 0, 5); /* the action's command still set, its stack in the main loop */
	d.counts[d.ncounts - 1].key.stack_id = 7;
	add_count(&d, 1, 3, 0, 3);
	d.counts[d.ncounts - 1].key.stack_id = 9;
	add_count(&d, 1, 0, 0, 2); /* no command: not asked */
	d.counts[d.ncounts - 1].key.stack_id = 11;
	assert_int_equal(sc_move_between(d.counts, d.ncounts, odd_stack, &asked), 8);
	assert_int_equal(asked, 3);
	assert_int_equal(d.counts[0].key.cmd, 2);
	assert_int_equal(d.counts[1].key.cmd, 0);
	assert_int_equal(d.counts[2].key.cmd, 0);
	assert_int_equal(d.counts[3].key.cmd, 0);
	assert_int_equal(sc_command_rows(&d, 1, 0, &rows), 0);
	assert_int_equal(rows.samples, 40);
	assert_int_equal(find_row(&rows, "$slow SoftObj(#13)/CMD_SLOW")->samples, 30);
	assert_int_equal(find_row(&rows, "(between commands)")->samples, 10);
	for (size_t i = 0; i < rows.n; i++)
		assert_string_not_equal(rows.v[i].label, "look");
	sc_rows__free(&rows);
	/* again: nothing left to move */
	assert_int_equal(sc_move_between(d.counts, d.ncounts, odd_stack, &asked), 0);
	sc_data__free(&d);
}

/*
 * A count finds its samples' resolved stack by (phase, stack) among the command thread's
 * samples: not another thread's with the same stack, not another phase's.  A count without a
 * stack (a failed walk) finds the sample of its leaf alone.
 */
static void test_count_stack(void **state)
{
	uint64_t a[] = { 0x10, 0x20, 0x30 }, b[] = { 0x11, 0x20, 0x30 }, leaf[] = { 0x99 };
	struct mb_stack st[] = { { .id = 3, .nr = 3, .ips = a }, { .id = 5, .nr = 3, .ips = b } };
	struct mb_sample smp[] = {
		{ .phase = 1, .pid = 100, .tid = 101, .nr = 3, .ips = a, .count = 1 },
		{ .phase = 1, .pid = 100, .tid = 100, .nr = 3, .ips = a, .count = 1 },
		{ .phase = 2, .pid = 100, .tid = 100, .nr = 3, .ips = b, .count = 1 },
		{ .phase = 1, .pid = 100, .tid = 100, .nr = 1, .ips = leaf, .count = 1 },
	};
	struct mb_rstack rs[4] = { { NULL, 0 }, { NULL, 1 }, { NULL, 2 }, { NULL, 3 } };
	struct mb_profile prof = { .samples = smp, .n = 4, .stacks = { st, 2 } };
	struct mb_resolved res = { rs, 4 };
	struct sc_count c = { .key = { .phase = 1, .stack_id = 3 } };
	struct sample_index ix;

	(void)state;
	assert_int_equal(sample_index_build(&ix, &prof, 100, 100), 0);
	assert_ptr_equal(sc_count_stack(&c, &prof, &res, &ix), &rs[1]);
	c.key.stack_id = 5;
	assert_null(sc_count_stack(&c, &prof, &res, &ix)); /* stack 5 is phase 2's */
	c.key.phase = 2;
	assert_ptr_equal(sc_count_stack(&c, &prof, &res, &ix), &rs[2]);
	c.key.stack_id = 8; /* not in the table */
	assert_null(sc_count_stack(&c, &prof, &res, &ix));
	c.key.phase = 1;
	c.key.stack_id = -1;
	c.key.ip = 0x99;
	assert_ptr_equal(sc_count_stack(&c, &prof, &res, &ix), &rs[3]);
	sample_index_free(&ix);
}

static void test_path_rows(void **state)
{
	const char *labels[4], *objs[4];
	struct sc_data d;
	struct sc_rows rows;
	int ncmd, n;

	(void)state;
	fixture(&d);
	sc_label(&d);
	add_count(&d, 1, 4, 1, 5); /* $ufn's action inside u(#12/fn_heavy) */
	add_count(&d, 1, 4, 0, 2); /* $ufn's action itself */
	add_count(&d, 1, 3, 0, 1); /* look: no softcode frame */
	assert_int_equal(sc_path_rows(&d, 1, &rows), 0);
	assert_int_equal(rows.n, 3);
	assert_string_equal(rows.v[0].label, "SoftObj(#13)/CMD_UFN > HeavyObj(#12)/FN_HEAVY");
	assert_int_equal(rows.v[0].samples, 5);
	assert_string_equal(rows.v[1].label, "SoftObj(#13)/CMD_UFN");
	assert_string_equal(rows.v[2].label, "(no softcode frame)");
	sc_rows__free(&rows);
	n = sc_sample_frames(&d, &d.counts[0].key, labels, objs, 4, &ncmd);
	assert_int_equal(n, 2);
	assert_int_equal(ncmd, 1);
	assert_string_equal(objs[0], "#13");
	assert_string_equal(labels[1], "HeavyObj(#12)/FN_HEAVY");
	sc_data__free(&d);
}

/*
 * A row's us/cmd interval: its exact value, each side of the share's interval times the phase's
 * on-CPU / runs.  20% of the samples of a 100 ms phase, 1000 runs, 19 ms exact: 19 us per
 * command, give or take the share's width times 100 us.
 */
static void test_cpu_per_cmd_ci(void **state)
{
	struct sc_row row = { .samples = 20, .runs = 1000, .cpu_ns = 19000000 };
	struct stats_ci share, us;

	(void)state;
	stats_share(20, 100, &share);
	sc_cpu_per_cmd_ci(&row, &share, 100000000, &us);
	assert_true(us.valid);
	assert_true(fabs(us.value - 19000) < 1e-9);
	assert_true(fabs(us.lo - (19000 - (0.2 - share.lo) * 1e5)) < 1e-6);
	assert_true(fabs(us.hi - (19000 + (share.hi - 0.2) * 1e5)) < 1e-6);
	assert_false(stats_ci_wide(&us));
	/* 2 of 10 samples, 5 us exact: the interval is wider than the value, and lo stops at 0 */
	row.cpu_ns = 5000000;
	stats_share(2, 10, &share);
	sc_cpu_per_cmd_ci(&row, &share, 100000000, &us);
	assert_true(us.valid);
	assert_true(us.lo == 0);
	assert_true(stats_ci_wide(&us));
	/* a row with no samples of its own, Wilson's share of 0 of 3 (whose lo came out a rounding
	 * above 0): the interval still holds the exact value (a real run gave lo
	 * 2103.9832500000007 for 2103.98325) */
	row.cpu_ns = 2103983250;
	stats_share(0, 3, &share);
	sc_cpu_per_cmd_ci(&row, &share, 100000000, &us);
	assert_true(us.valid);
	assert_true(us.lo <= us.value && us.value <= us.hi);
	/* no runs (not exact): no interval */
	row.runs = 0;
	sc_cpu_per_cmd_ci(&row, &share, 100000000, &us);
	assert_false(us.valid);
}

/*
 * A command row's intervals from the phase's batches: 10, 20 and 10 of 100 samples, and 10, 20
 * and 10 us per command in 100 runs each.  Its share swings far beyond Wilson's on 40 of 300;
 * by hand the ratio of sums is 13.33 us, its residuals -1/3, +2/3, -1/3 ms, so +- t(2) 4.303 x
 * sqrt(2/3 ms^2 / 2 / 3) / 100.
 */
static void test_row_batches_ci(void **state)
{
	struct sc_row x[3] = { { .label = "x", .samples = 10, .runs = 100, .cpu_ns = 1000000 },
			       { .label = "x", .samples = 30, .runs = 200, .cpu_ns = 3000000 },
			       { .label = "x", .samples = 40, .runs = 300, .cpu_ns = 4000000 } };
	struct sc_rows cum[3];
	struct stats_ci share, us, w;
	bool from;

	(void)state;
	for (int j = 0; j < 3; j++)
		cum[j] = (struct sc_rows){ .v = &x[j], .n = 1, .samples = 100 * (j + 1) };
	sc_row_batches_ci(cum, 3, "x", &share, &from, &us);
	stats_share(40, 300, &w);
	assert_true(share.valid && from);
	assert_true(fabs(share.value - 40.0 / 300) < 1e-12);
	assert_true(share.hi - share.value > 3 * (w.hi - w.value));
	/* the lower side stops at 0: the upper one has the t half-width */
	assert_true(share.lo == 0);
	assert_true(fabs(share.hi - share.value - stats_t975(2) * sqrt(200.0 / 3 / 6) / 100) < 1e-9);
	assert_true(us.valid);
	assert_true(fabs(us.value - 4000000.0 / 300) < 1e-6);
	assert_true(fabs(stats_ci_half(&us) - stats_t975(2) * sqrt(2e12 / 3 / 6) / 100) < 1e-3);
	/* a row in no batch: no share to speak of, no runs */
	sc_row_batches_ci(cum, 3, "nothing", &share, &from, &us);
	assert_false(us.valid);
	assert_false(from);
	/* one batch: nothing from batches */
	sc_row_batches_ci(cum, 1, "x", &share, &from, &us);
	assert_false(share.valid || us.valid);
}

static void test_by_parse(void **state)
{
	unsigned int v;

	(void)state;
	assert_int_equal(fold_by_parse("function,command,softcode", &v), 0);
	assert_int_equal(v, FOLD_VIEW(FOLD_BY_FUNCTION) | FOLD_VIEW_COMMAND | FOLD_VIEW_SOFTCODE);
	assert_int_equal(fold_by_parse("command", &v), 0);
	assert_int_equal(v, FOLD_VIEW_COMMAND);
	assert_int_equal(fold_by_parse("commands", &v), -22);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verb),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_command_rows),
		cmocka_unit_test(test_command_rows_probes),
		cmocka_unit_test(test_report_figures),
		cmocka_unit_test(test_stack_between),
		cmocka_unit_test(test_move_between),
		cmocka_unit_test(test_count_stack),
		cmocka_unit_test(test_probe_cost_from),
		cmocka_unit_test(test_probe_ends_from),
		cmocka_unit_test(test_probe_cost_lower),
		cmocka_unit_test(test_path_rows),
		cmocka_unit_test(test_by_parse),
		cmocka_unit_test(test_cpu_per_cmd_ci),
		cmocka_unit_test(test_row_batches_ci),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
