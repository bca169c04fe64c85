// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The text report (report.txt, and with --full the terminal's): header, phase table, ledgers,
 * views; and the terminal's default summary of it. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/phases.h"
#include "output/out_softcode.h"
#include "output/out_text.h"
#include "output/out_text_live.h"
#include "fold/rounds.h"
#include "base/stats.h"

/* the frame pointer register the unwinder's zero end reads: the build's architecture's */
#if defined(__aarch64__)
#define FP_REG "x29"
#else
#define FP_REG "rbp"
#endif

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static const char *const unwind_names[] = { "fp", "dwarf", "auto" };

/* How stacks were walked, and the CFI tables' size and build time. */
static void print_unwind_header(FILE *f, const struct report *r)
{
	const struct mb_unwind_summary *u = r->unwind;

	if (!r->profiled)
		return;
	/* An empty summary (mode 0 is fp) must not claim a walk that never ran. */
	if (!u || !u->valid || u->mode < 0 || u->mode > MUXBPF_UNWIND_AUTO) {
		fprintf(f, "  user stacks: none (the BPF programs were not loaded)\n");
		return;
	}
	if (u->sampler_runs)
		fprintf(f, "  sampler cost: %.0f ns per sample (%" PRIu64 " runs, BPF run-time "
			"statistics)\n", r->sampler_ns_per_sample, u->sampler_runs);
	if (u->mode == MUXBPF_UNWIND_FP) {
		fprintf(f, "  user stacks: frame pointers (--unwind fp)\n");
		return;
	}
	fprintf(f, "  user stacks: CFI in BPF (--unwind %s); tables: %u files, %" PRIu64
		" rows + %" PRIu64 " rules + page index = %.0f KiB (capacity %" PRIu64 " rows), "
		"compiled in "
		"%.1f ms (slowest %.1f ms)%s\n", unwind_names[u->mode], u->loaded, u->rows,
		u->infos, u->bytes / 1024.0, u->rows_cap, u->build_ms, u->build_max_ms,
		u->full ? "; TABLES FULL: some mappings unwound without CFI" : "");
}

/* Share of a phase's stack walks that reached the outermost frame, and why the others stopped. */
static void print_walks(FILE *f, const struct report_phase *p)
{
	static const char *const why[MUXBPF_WALK_END__COUNT] = {
		[MUXBPF_WALK_NO_PROC] = "no tables yet", [MUXBPF_WALK_NO_TABLE] = "no CFI",
		[MUXBPF_WALK_NO_ROW] = "no row", [MUXBPF_WALK_UNSUPPORTED] = "unsupported rule",
		[MUXBPF_WALK_READ_FAULT] = "read fault", [MUXBPF_WALK_BAD_FRAME] = "bad frame",
		[MUXBPF_WALK_DEPTH] = "depth limit",
	};
	const struct muxbpf_phase_stats *st = &p->stats;

	if (!st->walks)
		return;
	fprintf(f, "  stacks: %.1f%% reach the outermost frame (%.1f%% by CFI end mark, %.1f%% by "
		"a zero " FP_REG "/return address), %.1f frames on average",
		stats_pct(st->walk_end[MUXBPF_WALK_OUTERMOST] + st->walk_end[MUXBPF_WALK_ZERO_END],
		    st->walks),
		stats_pct(st->walk_end[MUXBPF_WALK_OUTERMOST], st->walks),
		stats_pct(st->walk_end[MUXBPF_WALK_ZERO_END], st->walks),
		p->frames_per_walk);
	if (st->fp_frames)
		fprintf(f, ", %.1f%% of steps by frame pointer",
			stats_pct(st->fp_frames, st->frames));
	fprintf(f, "\n");
	for (int e = MUXBPF_WALK_ZERO_END + 1; e < MUXBPF_WALK_END__COUNT; e++)
		if (st->walk_end[e])
			fprintf(f, "    truncated, %s: %" PRIu64 " (%.1f%%)\n", why[e],
				(uint64_t)st->walk_end[e], stats_pct(st->walk_end[e], st->walks));
}

static void print_header(FILE *f, const struct report *r)
{
	fprintf(f, "muxbpf: %s\n", r->target);
	fprintf(f, "  version  %s\n", r->version && *r->version ? r->version : "(unknown)");
	fprintf(f, "  pid %d, port %d, scale %g", r->pid, r->port, r->scale);
	if (r->profiled)
		fprintf(f, ", %d Hz user-only cpu-clock sampling\n", r->freq);
	else
		fprintf(f, ", not profiled (--no-profile)\n");
	print_unwind_header(f, r);
	if (r->hook)
		fprintf(f, "  syscall hook: %s (%s); another process's syscall pays %.0f ns more "
			"(measured at attach)\n", syscall_hook_where(r->hook->hook), r->hook->why,
			r->hook->bystander_ns > 0 ? r->hook->bystander_ns : 0);
	fprintf(f, "  sources: on-CPU from the kernel's runtime accounting (exact); usr/sys %s\n\n",
		r->ledger ? "from the syscall ledger (exact: sys = on-CPU inside syscalls)"
			  : "from /proc/PID/stat ticks (10 ms granular; --no-syscalls)");
}

static void print_phase_row(FILE *f, const struct report *r, const struct report_phase *p)
{
	char cmds[32] = "-", rate[32] = "-", wall[32] = "-", wake[32] = "-", off[32] = "-";
	uint64_t usr = p->usr_ns, sys = p->sys_ns;

	if (p->measured) {
		snprintf(wall, sizeof(wall), "%.3f", p->wall_s);
		if (p->commands) {
			snprintf(cmds, sizeof(cmds), "%" PRIu64, p->commands);
			snprintf(rate, sizeof(rate), "%.0f", p->cmd_per_s);
		}
	}
	fprintf(f, "%-15s %8s %8s %9s %10.2f", phase_name(p->id), wall, cmds, rate,
		ms(p->oncpu_ns));
	if (!p->has_ledger && r->ledger)
		/* outside the windows there is no exact split; ticks would not compare */
		fprintf(f, " %9s %9s", "-", "-");
	else
		fprintf(f, " %9.2f %9.2f", ms(p->has_ledger ? p->ledger.user_ns : usr),
			ms(p->has_ledger ? p->ledger.sys_cpu_ns : sys));
	fprintf(f, " %8" PRIu64, (uint64_t)p->stats.recorded);
	if (p->has_ledger) {
		const struct phase_ledger *l = &p->ledger;

		snprintf(wake, sizeof(wake), "%.0f",
			 l->wall_ns ? l->wakeups / (l->wall_ns / 1e9) : 0);
		snprintf(off, sizeof(off), "%.1f", ms(l->sys_off_ns + l->preempt_user_ns));
	}
	if (r->ledger)
		fprintf(f, " %8s %10s", wake, off);
	fprintf(f, "%s\n", p->ok ? "" : p->partial ? "  PARTIAL" : "  FAILED");
}

static void print_table(FILE *f, const struct report *r)
{
	fprintf(f, "%-15s %8s %8s %9s %10s %9s %9s %8s", "phase", "wall s", "cmds", "cmd/s",
		"on-CPU ms", "usr ms", "sys ms", "samples");
	if (r->ledger)
		fprintf(f, " %8s %10s", "wake/s", "off-CPU ms");
	fprintf(f, "\n");
	for (int i = 0; i < r->nphases; i++)
		print_phase_row(f, r, &r->phases[i]);
}

/* What a phase's rounds were, and why no more: "11, time cap", "1, does not repeat". */
static const char *stop_text(const struct report_phase *p)
{
	switch (p->rounds.stop) {
	case ROUND_STOP_ONCE:
		return p->id == MUXBPF_PHASE_IDLE ? "once: --idle-seconds long"
						  : "once: the work does not repeat unchanged";
	case ROUND_STOP_PRECISE:
		return "top rows within +-1 point";
	case ROUND_STOP_CAP:
		return "time cap (--max-phase-seconds)";
	case ROUND_STOP_LIMIT:
		return "round limit";
	case ROUND_STOP_SINGLE:
		return "once: --max-phase-seconds 0";
	case ROUND_STOP_UNPROFILED:
		return "once: not profiled";
	default:
		return "cut short";
	}
}

/*
 * Per driven phase: its rounds, why they stopped, the widest interval among its top rows, and
 * its CPU per command with the interval from the rounds; a lock-step warning where the rounds
 * disagree.
 */
static void print_rounds(FILE *f, const struct report *r)
{
	bool any = false, runs = false;

	/* the driven phases (those marked from outside have ids from MUXBPF_PHASE__COUNT on) */
	for (int i = 0; i < r->nphases; i++) {
		any |= r->phases[i].measured && r->phases[i].id < MUXBPF_PHASE__COUNT &&
		       r->phases[i].rounds.n > 0;
		runs |= r->phases[i].rounds.runs;
	}
	if (!any)
		return;
	if (runs)
		fprintf(f, "\nrounds over the runs: each run is one batch (a fresh game, the same "
			   "work); the intervals are the wider of Wilson and the t interval over the "
			   "runs (each run's own batches are not used); rounds: all runs' together; "
			   "stopped: the last run's:\n");
	else
		fprintf(f, "\nrounds: a phase whose work repeats runs it again until its top %d rows "
			   "are within +-%.0f point, or until another round would end after %g s; "
			   "the intervals come from batches of rounds at least %.1f s long (a phase "
			   "of one round: batches of %.2f s inside it, from %d on):\n",
			ROUNDS_TOP, ROUNDS_HALF_PCT, r->max_phase_seconds, ROUNDS_BATCH_S,
			ROUNDS_INROUND_BATCH_S, ROUNDS_MIN_BATCH_MEANS);
	fprintf(f, "%-15s %6s %7s %8s %9s %-8s %9s %7s  %s\n", "phase", "rounds",
		runs ? "runs" : "batches", "samples", "widest +-", "of view", "us/cmd", "+-",
		"stopped");
	for (int i = 0; i < r->nphases; i++) {
		const struct report_phase *p = &r->phases[i];
		const struct report_rounds *rr = &p->rounds;
		char widest[16] = "-", cpc[16] = "-", cpc_ci[16] = "-";

		if (!p->measured || p->id >= MUXBPF_PHASE__COUNT)
			continue;
		if (rr->v)
			snprintf(widest, sizeof(widest), "%.2f", 100 * rr->top_half);
		if (p->commands)
			snprintf(cpc, sizeof(cpc), "%.2f", p->oncpu_ns / 1e3 / p->commands);
		if (rr->cpu_per_cmd.valid)
			snprintf(cpc_ci, sizeof(cpc_ci), "%.2f", stats_ci_half(&rr->cpu_per_cmd) / 1e3);
		fprintf(f, "%-15s %6u %7u %8" PRIu64 " %9s %-8s %9s %7s  %s\n", phase_name(p->id),
			rr->n, rr->batches, p->fold.samples, widest,
			rr->v ? fold_by_name(rr->judged_by) : "-", cpc, cpc_ci, stop_text(p));
	}
	for (int i = 0; i < r->nphases; i++) {
		char text[512];

		if (report_lockstep_text(&r->phases[i], text, sizeof(text)))
			fprintf(f, "warning: %s\n", text);
	}
}

static void print_check(FILE *f, const struct report *r)
{
	double worst = r->check_max_diff_pct;

	fprintf(f, "\non-CPU cross-check against /proc/PID/task/*/schedstat: max |diff| %.2f%%\n",
		worst);
	if (r->stopped && *r->stopped)
		fprintf(f, "run stopped early: %s; phases after it were not run\n", r->stopped);
}

/*
 * Every sample the BPF program ran for: taken = recorded whole + dropped, and each drop's reason
 * and fate (lost, or kept without its stack or phase).
 */
static void print_accounting(FILE *f, const struct report_phase *p)
{
	static const char *const why[MUXBPF_DROP__COUNT] = {
		[MUXBPF_DROP_STACK_FAILED] = "kept as the leaf alone, stack walk failed",
		[MUXBPF_DROP_COUNTS_FULL] = "lost, counts map full (raise --max-samples)",
		[MUXBPF_DROP_PHASE_RANGE] = "kept under outside, phase id out of range",
		[MUXBPF_DROP_STACK_FULL] = "kept as the leaf alone, stack map full (raise --max-stacks)",
	};
	const struct muxbpf_phase_stats *st = &p->stats;
	uint64_t dropped = p->dropped;
	const char *sep = " (";

	fprintf(f, "  samples: taken %" PRIu64 " = recorded whole %" PRIu64 " + dropped %" PRIu64,
		(uint64_t)st->taken, p->recorded_whole, dropped);
	for (int d = 0; d < MUXBPF_DROP__COUNT; d++) {
		if (!st->dropped[d])
			continue;
		fprintf(f, "%s%s: %" PRIu64, sep, why[d], (uint64_t)st->dropped[d]);
		sep = "; ";
	}
	fprintf(f, "%s\n", dropped ? ")" : "");
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "[no mapping]";
}

/* The target's own leaf frames in a table (the DSO mapped from the --netmux file). */
static const struct fold_dso *target_dso(const struct report *r, const struct fold_table *t)
{
	char real[PATH_MAX];

	if (!r->target || !realpath(r->target, real))
		return NULL;
	for (size_t i = 0; i < t->ndsos; i++)
		if (t->dsos[i].dso && !strcmp(t->dsos[i].dso, real))
			return &t->dsos[i];
	return NULL;
}

/*
 * One view's rows: at most --top, with self samples, at least --min-pct of them.  Each share has
 * its 95% interval (the wider of Wilson and the rounds' one, rounds.c): a "?" marks one wider
 * than the share itself.
 */
static void print_view(FILE *f, const struct report *r, const struct report_phase *p,
		       enum fold_by by, int top)
{
	const struct fold_table *t = &p->fold;
	static const char *const title[FOLD_BY__COUNT] = {
		[FOLD_BY_FUNCTION] = "function", [FOLD_BY_SRCFILE] = "source file",
		[FOLD_BY_LINE] = "source line", [FOLD_BY_DSO] = "dso",
	};
	const struct fold_view *v = &t->by[by];
	char sci[16], tci[16];

	fprintf(f, "  %7s %6s %7s %6s  %s\n", "self%", "+-", "total%", "+-", title[by]);
	for (size_t i = 0; i < v->n && (int)i < top; i++) {
		if (!v->rows[i].self || stats_pct(v->rows[i].self, t->samples) < r->min_pct)
			break;
		stats_ci_pts(sci, sizeof(sci), &p->share_ci[by][0][i]);
		stats_ci_pts(tci, sizeof(tci), &p->share_ci[by][1][i]);
		fprintf(f, "  %6.1f%% %7s %6.1f%% %7s  %s\n",
			stats_pct(v->rows[i].self, t->samples), sci,
			stats_pct(v->rows[i].total, t->samples), tci, v->rows[i].name);
	}
}

/* Unnamed leaves in one line: where and why ("netmux: stripped, no debuginfo 98.5%"). */
static void print_unnamed(FILE *f, const struct fold_table *t)
{
	const char *sep = "  unnamed leaves:";

	if (!t->unnamed)
		return;
	for (size_t i = 0; i < t->ndsos; i++)
		for (int w = 1; w < MB_UNNAMED__COUNT; w++) {
			if (!t->dsos[i].why[w])
				continue;
			fprintf(f, "%s %.1f%% %s (%s)", sep,
				stats_pct(t->dsos[i].why[w], t->samples), base_name(t->dsos[i].dso),
				mb_unnamed_str(w));
			sep = ",";
		}
	fprintf(f, "\n");
}

/* Where separate debuginfo was looked for, for the symbols section. */
static void print_searched(FILE *f, const struct report *r, const struct mb_dso_info *in)
{
	fprintf(f, "looked for build-id %.12s%s", in->build_id[0] ? in->build_id : "(none)",
		strlen(in->build_id) > 12 ? "..." : "");
	if (in->debuglink)
		fprintf(f, " and debuglink %s", in->debuglink);
	fprintf(f, " in");
	for (int i = 0; i < r->ndebug_dirs; i++)
		fprintf(f, " %s", r->debug_dirs[i]);
	fprintf(f, " /usr/lib/debug");
}

/*
 * Per leaf DSO over the whole run: the share of samples, how many are named and have a source
 * line, where names and lines come from, and why not: one line per DSO.
 */
static void print_symbols(FILE *f, const struct report *r)
{
	const struct fold_table *t = &r->symbols;
	/* muxbpf attach profiles any process: name it (a throwaway run's target is netmux) */
	const char *who = r->live && r->live->attached && r->live->comm[0] ? r->live->comm
									    : "netmux";

	if (!t->samples)
		return;
	fprintf(f, "\nsymbols (leaf frames of %s's %" PRIu64 " samples, all phases):\n", who,
		t->samples);
	for (size_t i = 0; i < t->ndsos && i < 12; i++) {
		const struct fold_dso *d = &t->dsos[i];
		const struct mb_dso_info *in = d->info;

		fprintf(f, "  %-22s %5.1f%%  ", base_name(d->dso),
			stats_pct(d->samples, t->samples));
		if (!in) {
			fprintf(f, "unnamed: %s\n",
				!d->dso ? "in no mapping snapshot"
					: "anonymous memory (JIT code or a special mapping)");
			continue;
		}
		if (!in->symbols && !in->dwarf) {
			fprintf(f, "STRIPPED, no debuginfo (");
			print_searched(f, r, in);
			fprintf(f, "; --debug-dir DIR to add one): named by DSO+offset only\n");
			continue;
		}
		fprintf(f, "named %5.1f%%, file:line %5.1f%%  names from %s%s%s",
			stats_pct(d->named, d->samples), stats_pct(d->with_line, d->samples),
			in->symbols ? in->symbols : "nowhere",
			in->full_symtab ? "" : " (exported functions only)",
			in->dwarf ? ", lines from DWARF" : "");
		if (in->debug_file)
			fprintf(f, " (%s)", in->debug_file);
		if (!in->dwarf) {
			fprintf(f, "; no debuginfo: ");
			print_searched(f, r, in);
		}
		fprintf(f, "\n");
	}
}

/* A phase's first lines: its samples, what they name, and what the +- columns are. */
static void print_phase_head(FILE *f, const struct report *r, const struct report_phase *p)
{
	const struct fold_table *t = &p->fold;
	uint64_t lost = p->stats.dropped[MUXBPF_DROP_COUNTS_FULL];
	const struct fold_dso *own;

	fprintf(f, "\n== %s: %" PRIu64 " user samples, %.1f%% unnamed, %.1f%% with file:line",
		phase_name(p->id), t->samples, stats_pct(t->unnamed, t->samples),
		stats_pct(t->with_line, t->samples));
	if ((own = target_dso(r, t)) && own->samples)
		fprintf(f, " (in %s: %.1f%% of %" PRIu64 ")", base_name(own->dso),
			stats_pct(own->with_line, own->samples), own->samples);
	if (t->no_stack)
		fprintf(f, ", %" PRIu64 " without stack", t->no_stack);
	if (lost)
		fprintf(f, ", %" PRIu64 " LOST (map full)", lost);
	if (p->other_pid_samples)
		fprintf(f, ", %" PRIu64 " in child processes", p->other_pid_samples);
	fprintf(f, "%s\n", p->partial ? " (PARTIAL: interrupted)" : "");
	if (t->samples && p->rounds.v)
		fprintf(f, "  shares: +- = 95%% interval in points, the wider of Wilson (%" PRIu64
			   " samples) and the spread between %u %s; ? = the interval is "
			   "wider than the share\n", t->samples, p->rounds.batches,
			p->rounds.runs	    ? "runs"
			: p->rounds.n > 1 ? "batches of its rounds"
					  : "batches of its one round");
	else if (t->samples)
		fprintf(f, "  shares: +- = 95%% interval in points (Wilson, from %" PRIu64
			   " samples); ? = the interval is wider than the share\n", t->samples);
}

static void print_functions(FILE *f, const struct report *r, const struct report_phase *p)
{
	print_phase_head(f, r, p);
	print_accounting(f, p);
	print_walks(f, p);
	if (!p->fold.samples)
		return;
	for (int by = 0; by < FOLD_BY__COUNT; by++)
		if (r->by & FOLD_VIEW(by))
			print_view(f, r, p, by, r->top);
	print_unnamed(f, &p->fold);
}

/*
 * The ledger's balance: wall = on-CPU + off-CPU in syscalls + preempted in user + switch path +
 * stolen - runtime before switch-in (counted in on-CPU by the kernel and off the CPU by the
 * tracepoints) + leftover.
 */
static void print_ledger_line(FILE *f, const struct report_phase *p)
{
	const struct phase_ledger *l = &p->ledger;
	double lpct = stats_pct(l->leftover_ns, l->thread_wall_ns);

	fprintf(f, "  ledger (%u thread%s): wall %.2f ms = on-CPU %.2f (user %.2f + syscalls %.2f"
		   " + call-site walks %.2f) + off-CPU in syscalls %.2f + preempted in user mode %.2f"
		   " + switch path %.2f + stolen %.2f (%.2f in syscalls) - runtime before switch-in"
		   " %.2f; leftover %+.3f ms (%+.3f%%)\n",
		l->threads, l->threads == 1 ? "" : "s", ms(l->thread_wall_ns), ms(l->oncpu_ns),
		ms(l->user_ns), ms(l->sys_cpu_ns), ms(l->site_walk_ns), ms(l->sys_off_ns),
		ms(l->preempt_user_ns), l->switch_path_ns / 1e6, ms(l->stolen_ns),
		ms(l->sys_stolen_ns), ms(l->rt_before_in_ns), l->leftover_ns / 1e6, lpct);
}

static void print_balance(FILE *f, const struct report_phase *p)
{
	const struct phase_ledger *l = &p->ledger;

	print_ledger_line(f, p);
	fprintf(f, "  runqueue wait %.2f ms (sched_info, exact); switches: %" PRIu64
		   " voluntary, %" PRIu64 " involuntary; page faults: %" PRIu64 " minor, %" PRIu64
		   " major (handled in user time)\n",
		ms(l->run_delay_ns), l->nvcsw, l->nivcsw, l->min_flt, l->maj_flt);
	fprintf(f, "  kernel's counters: on-CPU %+.2f%% vs schedstat; /proc ticks usr %.0f ms, "
		   "sys %.0f ms\n",
		p->check_pct, ms(p->proc_usr_ns), ms(p->proc_sys_ns));
	if (l->sys_inexact || l->lost || l->switch_in_missed)
		fprintf(f, "  %" PRIu64 " syscalls with a missing sched_switch (CPU estimated), %" PRIu64
			   " switch-ins the kernel did not report (repaired from its counters), %" PRIu64
			   " ledger entries lost (map full)\n",
			l->sys_inexact, l->switch_in_missed, l->lost);
	if (l->lost) {
		static const char *const map[MUXBPF_LMAP__COUNT] = {
			"thread_state", "syscalls", "sites", "wakeups", "threads" };

		fprintf(f, "    lost by map:");
		for (int m = 0; m < MUXBPF_LMAP__COUNT; m++)
			if (l->lost_by[m])
				fprintf(f, " %s %" PRIu64, map[m], l->lost_by[m]);
		fprintf(f, "\n");
	}
}

static void print_wakeups(FILE *f, const struct phase_ledger *l)
{
	if (!l->wakeups)
		return;
	fprintf(f, "  wakeups %" PRIu64 " (%.1f/s), %.1f us on-CPU per wakeup; woken by:", l->wakeups,
		l->wall_ns ? l->wakeups / (l->wall_ns / 1e9) : 0, l->oncpu_ns / 1e3 / l->wakeups);
	for (size_t i = 0; i < l->nwakes && i < 5; i++) {
		const struct ledger_wake_row *w = &l->wakes[i];

		if (w->kind == MUXBPF_WAKER_TASK && w->pids > 1)
			fprintf(f, "%s %s (%u processes) %.0f%%", i ? "," : "", w->comm, w->pids,
				stats_pct(w->count, l->wakeups));
		else if (w->kind == MUXBPF_WAKER_TASK)
			fprintf(f, "%s %s[%u] %.0f%%", i ? "," : "", w->comm, w->pid,
				stats_pct(w->count, l->wakeups));
		else if (w->kind == MUXBPF_WAKER_SOFTIRQ)
			fprintf(f, "%s softirq %s %.0f%%", i ? "," : "", softirq_name(w->detail),
				stats_pct(w->count, l->wakeups));
		else
			fprintf(f, "%s %s %.0f%%", i ? "," : "", waker_name(w->kind),
				stats_pct(w->count, l->wakeups));
	}
	fprintf(f, "\n");
}

/* A syscall figure's +- column: its half-width ("?": wider than the figure, or none from the
 * batches), or how it is known. */
static void format_sys_ci(char *buf, size_t size, enum report_sys_from from,
			  const struct stats_ci *ci, double scale, int decimals)
{
	if (from == REPORT_SYS_BATCHES && !ci->valid)
		snprintf(buf, size, "?"); /* calls in one batch only: no spread to go by */
	else if (from == REPORT_SYS_BATCHES)
		snprintf(buf, size, "+-%.*f%s", decimals, scale * stats_ci_half(ci),
			 stats_ci_wide(ci) ? "?" : "");
	else
		snprintf(buf, size, "%s", from == REPORT_SYS_ONCE ? "once" : "-");
}

/* The legend of the syscall table: what the share is and where its interval comes from. */
static void print_sys_legend(FILE *f, const struct report_phase *p, enum report_sys_from from)
{
	if (from == REPORT_SYS_BATCHES && p->rounds.runs)
		fprintf(f, "  syscalls: calls and ms per run; share = %% of the runs' on-CPU; +- = "
			   "95%% interval from the spread between the %u runs (t); ? = wider than "
			   "the figure\n", p->rounds.batches);
	else if (from == REPORT_SYS_BATCHES)
		fprintf(f, "  syscalls: share = %% of the phase's on-CPU; +- = 95%% interval from "
			   "the spread between %u batches of %s (t, batch means); ? = wider than "
			   "the figure\n", p->rounds.batches,
			p->rounds.n > 1 ? "its rounds" : "its one round");
	else if (from == REPORT_SYS_ONCE)
		fprintf(f, "  syscalls: share = %% of the phase's on-CPU; once = exact for this "
			   "one window, no interval (the phase ran no batches)\n");
	else
		fprintf(f, "  syscalls: share = %% of the phase's on-CPU; - = no interval (one "
			   "run, or figures per run over the runs)\n");
}

static void print_syscalls(FILE *f, const struct report_phase *p, int top)
{
	const struct phase_ledger *l = &p->ledger;
	char sci[16], uci[16];

	if (!l->nsys)
		return;
	print_sys_legend(f, p, p->sys_from);
	fprintf(f, "  %-20s %9s %11s %11s %7s %7s %10s %8s\n", "syscall", "calls", "on-CPU ms",
		"wall ms", "share", "+-", "us/call", "+-");
	for (size_t i = 0; i < l->nsys && (int)i < top; i++) {
		const struct ledger_sys_row *y = &l->sys[i];
		const struct report_sys_ci ci = p->sys_ci[i];

		format_sys_ci(sci, sizeof(sci), p->sys_from, &ci.share, 100, 2);
		format_sys_ci(uci, sizeof(uci), p->sys_from, &ci.us_per_call, 1, 1);
		fprintf(f, "  %-20s %9" PRIu64 " %11.3f %11.3f %6.2f%% %7s %10.1f %8s\n",
			syscall_name(y->nr), y->count, ms(y->cpu_ns), ms(y->wall_ns),
			100 * ci.share.value, sci, ci.us_per_call.value, uci);
	}
}

/*
 * The call sites: a random sample of the calls (1 in site_every), each site's share of the
 * syscalls' on-CPU (its syscall's exact time split by the walked calls: the report's site_ci,
 * report_site_ci()) with the split's 95% interval, largest first (the report's site_order); the
 * walks' own time, which the ledger keeps out of the calls and out of user time.
 */
static void print_sites(FILE *f, const struct report *r, const struct report_phase *p)
{
	const struct phase_ledger *l = &p->ledger;
	int shown = 0;

	if (!l->site_cpu_ns || !l->nsites || !p->site_order)
		return;
	fprintf(f, "  kernel time by user call site: share = %% of the syscalls' on-CPU, each "
		   "syscall's exact time split among its sites by its walked calls (the stacks of "
		   "1 call in %u at random); +- = 95%% interval of that split; ? = wider than the "
		   "share; the %" PRIu64 " walks took %.3f ms (%.1f us each), outside the calls "
		   "and user time\n",
		r->site_every, p->site_walks, ms(l->site_walk_ns), p->site_walk_us);
	for (size_t k = 0; k < l->nsites && shown < r->top; k++) {
		size_t i = p->site_order[k];
		const struct ledger_site_row *y = &l->sites[i];
		const struct stats_ci *ci = &p->site_ci[i];
		char c[16];

		if (!y->cpu_ns || ci->value <= 0)
			break;
		stats_ci_pts(c, sizeof(c), ci);
		fprintf(f, "  %6.1f%% %7s  %s <- %s\n", 100 * ci->value, ci->valid ? c : "-",
			syscall_name(y->nr),
			p->site_labels && p->site_labels[i] ? p->site_labels[i] : "[no stack]");
		shown++;
	}
}

static void print_ledger(FILE *f, const struct report *r, const struct report_phase *p)
{
	if (!p->has_ledger)
		return;
	print_balance(f, p);
	print_wakeups(f, &p->ledger);
	print_syscalls(f, p, r->top);
	print_sites(f, r, p);
}

/* The parts before the phases' sections, the same in the full report and the summary. */
static void print_front(FILE *f, const struct report *r)
{
	print_header(f, r);
	report_print_live(f, r);
	print_table(f, r);
	print_check(f, r);
	print_rounds(f, r);
}

void report_print(FILE *f, const struct report *r)
{
	print_front(f, r);
	print_symbols(f, r);
	report_print_softcode_header(f, r);
	if (!r->profiled)
		return;
	for (int i = 0; i < r->nphases; i++) {
		print_functions(f, r, &r->phases[i]);
		report_print_softcode(f, r, &r->phases[i]);
		print_ledger(f, r, &r->phases[i]);
		report_print_cost(f, &r->phases[i]);
	}
}

static int at_most(int a, int b)
{
	return a < b ? a : b;
}

/*
 * A phase in the summary: its head, the first view asked for (the softcode views when no
 * other is) in at most SUMMARY_ROWS rows, the top SUMMARY_SYSCALLS syscalls, the ledger's
 * balance and the profiler's cost, one line each.
 */
static void print_phase_summary(FILE *f, const struct report *r, const struct report_phase *p)
{
	int by = 0;

	print_phase_head(f, r, p);
	while (by < FOLD_BY__COUNT && !(r->by & FOLD_VIEW(by)))
		by++;
	if (p->fold.samples && by < FOLD_BY__COUNT)
		print_view(f, r, p, by, at_most(r->top, SUMMARY_ROWS));
	else if (by == FOLD_BY__COUNT)
		report_print_softcode(f, r, p);
	if (p->has_ledger) {
		print_syscalls(f, p, at_most(r->top, SUMMARY_SYSCALLS));
		print_ledger_line(f, p);
	}
	report_print_cost_line(f, p);
}

void report_print_summary(FILE *f, const struct report *r)
{
	print_front(f, r);
	report_print_softcode_header(f, r);
	if (!r->profiled)
		return;
	for (int i = 0; i < r->nphases; i++)
		print_phase_summary(f, r, &r->phases[i]);
}
