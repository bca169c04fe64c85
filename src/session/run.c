// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The session: game, profiler and driver glued by phase hooks that read the kernel's counters
 * at every boundary while netmux sleeps. */
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/clock.h"
#include "loader/collect.h"
#include "loader/collect_ledger.h"
#include "loader/collect_live.h"
#include "proc/game.h"
#include "session/live.h"
#include "base/log.h"
#include "base/phases.h"
#include "loader/preflight.h"
#include "loader/profiler.h"
#include "base/progress.h"
#include "session/reading.h"
#include "fold/rounds.h"
#include "session/run.h"
#include "base/signals.h"

#define BOOT_TIMEOUT_MS 20000
#define QUIESCE_TIMEOUT_MS 2000
#define SHUTDOWN_TIMEOUT_MS 10000

struct session {
	const struct opts *o;
	struct run *r;
	struct game *game;
	struct profiler *prof;
	struct driver *drv;
	const char *stage;	      /* what the run is doing, for the stop message */
	bool released;		      /* netmux was let exec: its death is the target's failure */
	struct proc_times last_proc; /* the last /proc reading, stands in once netmux is gone */
	struct symbolizer *sym;	      /* names the rounds' samples (the report's own names) */
	struct softcode *sc;	      /* --by command's probes and maps, or NULL */
};

/* Has netmux exited?  Gives a process that just closed its sockets wait_ms to become a zombie. */
static bool target_gone(struct session *s, int wait_ms)
{
	int fd = s->game ? game__pidfd(s->game) : -1;

	if (!s->game || !s->r->pid)
		return false;
	if (fd >= 0 && wait_ms > 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		poll(&p, 1, wait_ms);
	}
	return game__exited(s->game);
}

/*
 * A reading once netmux is gone: the BPF side still knows every thread's final runtime (the exit
 * handler kept it); /proc does not, so the last /proc values stand in (nothing counted after).
 */
static int take_dead_reading(struct session *s, struct reading *rd, unsigned int phase)
{
	int err = reading_collect(s->prof, rd, phase);

	rd->t_ns = mono_ns();
	rd->proc = s->last_proc;
	return err;
}

/*
 * A boundary: once netmux sleeps, the time, then the switch to phase (the ledger's boundary:
 * calls in flight are read as of that moment however long the reading takes), then the
 * counters.
 */
static int take_reading(struct session *s, struct reading *rd, unsigned int phase)
{
	int err = procstat_wait_sleeping(s->r->pid, QUIESCE_TIMEOUT_MS);

	/* A server still busy after 2 s is a finding, not a failure: read anyway. */
	if (err == -ETIMEDOUT)
		pr_warn("netmux still running %d ms after its last reply; reading anyway",
			QUIESCE_TIMEOUT_MS);
	else if (err)
		return target_gone(s, 200) ? take_dead_reading(s, rd, phase) : err;
	err = reading_collect(s->prof, rd, phase);
	if (err)
		return err;
	cost_read(s->prof, &rd->cost);
	err = procstat_read(s->r->pid, &rd->proc);
	if (err)
		return target_gone(s, 200) ? take_dead_reading(s, rd, phase) : err;
	s->last_proc = rd->proc;
	return 0;
}

static int snapshot_maps(struct session *s, unsigned int phase);

/*
 * Before the idle window: the 32 logins leave work behind (netmux's slave processes finish
 * their lookups and netmux reaps and restarts them for a second or so).  Wait until netmux has
 * used no CPU for IDLE_SETTLE_MS, up to IDLE_SETTLE_MAX_MS, so the window shows the event
 * loop's floor, not the tail of the logins.
 */
#define IDLE_SETTLE_MS 500
#define IDLE_SETTLE_MAX_MS 5000

static void settle(struct session *s)
{
	struct timespec step = { 0, 50 * 1000000 };
	struct proc_times t;
	uint64_t last = 0;
	int quiet = 0;

	for (int waited = 0; waited < IDLE_SETTLE_MAX_MS && quiet < IDLE_SETTLE_MS; waited += 50) {
		if (procstat_read(s->r->pid, &t))
			return;
		quiet = t.schedstat_ns == last ? quiet + 50 : 0;
		last = t.schedstat_ns;
		nanosleep(&step, NULL);
	}
	if (quiet < IDLE_SETTLE_MS)
		pr_warn("netmux was still busy %d ms after the idle players logged in",
			IDLE_SETTLE_MAX_MS);
}

static int hook_begin(void *ctx, unsigned int phase)
{
	struct session *s = ctx;
	struct window *w = &s->r->windows[s->r->nwindows];
	int err;

	w->phase = phase;
	if (phase == MUXBPF_PHASE_IDLE)
		settle(s);
	err = take_reading(s, &w->before, phase);
	if (err)
		return err;
	/* should netmux die inside the window, its mappings are known (not at boot: not exec'd) */
	if (phase != MUXBPF_PHASE_BOOT && !s->r->last_maps.n && snapshot_maps(s, phase))
		return -ESRCH;
	s->stage = phase_name(phase);
	progress_phase(phase);
	return 0;
}

static int snapshot_maps(struct session *s, unsigned int phase)
{
	int err = session_snapshot_maps(s->r, phase);

	if (err)
		pr_err("failed to read /proc/%d/maps: %s", s->r->pid, strerror(-err));
	return err;
}

static int hook_end(void *ctx, unsigned int phase)
{
	struct session *s = ctx;
	struct window *w = &s->r->windows[s->r->nwindows];
	int err;

	err = take_reading(s, &w->after, MUXBPF_PHASE_NONE);
	progress_phase_end();
	/* a window cut short stays the stage the stop message names */
	if (!signals_pending() && !game__exited(s->game))
		s->stage = "set-up between phases";
	if (err)
		return err;
	s->r->nwindows++;
	/* netmux gone: the snapshots taken so far symbolize what it ran */
	return game__exited(s->game) ? 0 : snapshot_maps(s, phase);
}

/* The view the precision rule reads: the report's first table, by function without one. */
static enum fold_by rule_view(const struct opts *o)
{
	return rounds_rule_view(o->by);
}

/*
 * The ledger's syscalls at a mark, exact as at a boundary (the threads' tables of returned calls
 * included, a call in flight counted to the mark): the batches' figures are differences of
 * marks, so they add up to the window's ledger.  0 or -errno.
 */
static int mark_syscalls(struct session *s, const struct window *w, unsigned int phase,
			 struct round_mark *m, const struct rt_snapshot *rt)
{
	struct mb_boundary from = { .t_ns = w->before.t_ns, .rt = &w->before.rt,
				    .inflight = &w->before.inflight };

	return collect_sys_mark(s->prof, phase, (uint32_t)s->r->pid, &from, m->t_ns, rt, &m->sys,
				&m->nsys);
}

/* Mark the end of a batch: the counters now, cumulative from the window's start.  0 or -errno. */
static int mark_batch(struct session *s, struct window *w, unsigned int phase,
		      unsigned int rounds, uint64_t commands)
{
	struct rt_snapshot rt;
	struct round_mark *m;
	int err;

	if (!s->sym && !(s->sym = session_symbolizer(s->o, s->r)))
		return -errno;
	m = realloc(w->marks, (w->nmarks + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	w->marks = m;
	m = &w->marks[w->nmarks];
	memset(m, 0, sizeof(*m));
	m->t_ns = mono_ns();
	m->rounds = rounds;
	m->commands = commands;
	err = collect_runtime(s->prof, &rt);
	if (err)
		return err;
	m->oncpu_ns = rt_delta(&w->before.rt, &rt, s->r->pid);
	if (profiler__has_ledger(s->prof))
		err = mark_syscalls(s, w, phase, m, &rt);
	rt_snapshot__free(&rt);
	if (err) {
		free(m->sys);
		return err;
	}
	err = session_fold_phase(s->prof, s->sym, s->r, phase,
				 session_views(s->o) | FOLD_VIEW(rule_view(s->o)) |
					 FOLD_VIEW(FOLD_BY_FUNCTION),
				 &m->fold);
	if (err) {
		free(m->sys); /* fold_phase freed what it had */
		return err;
	}
	w->nmarks++;
	return 0;
}

/*
 * The softcode counts at the batch just marked (--by command): its command rows get their
 * intervals from the batches too.  Best effort: a batch without them leaves the rows Wilson's.
 */
static void mark_softcode(struct session *s, struct window *w, unsigned int phase)
{
	if (!s->sc || !(s->o->by & FOLD_VIEW_COMMAND) || !w->nmarks)
		return;
	if (softcode__snapshot(s->sc, phase, &w->marks[w->nmarks - 1].sc))
		pr_debug("%s: the softcode counts of batch %u were not read", phase_name(phase),
			 w->nmarks);
}

/*
 * After each chunk of a window: the progress line, and for a phase whose work does not repeat
 * (one round) a batch mark every ROUNDS_INROUND_BATCH_S, for batch means.  netmux may be answering the
 * next chunk meanwhile: the counts are read as they are (nothing is lost, a sample near the
 * mark may count in the batch after), the runtime of a running thread as of its last update,
 * the ledger's syscalls reread until no thread's table moved into the map during the read.
 */
static void hook_progress(void *ctx, unsigned int phase, uint64_t done, uint64_t total)
{
	struct session *s = ctx;
	struct window *w = &s->r->windows[s->r->nwindows];
	uint64_t now = mono_ns(), last = w->nmarks ? w->marks[w->nmarks - 1].t_ns : w->before.t_ns;

	progress_commands(ctx, phase, done, total);
	if (!s->prof || s->o->max_phase_seconds <= 0 || driver_phase_repeats(phase) ||
	    done >= total || w->nmarks >= ROUNDS_MAX || now - last < ROUNDS_INROUND_BATCH_S * 1e9)
		return;
	if (mark_batch(s, w, phase, 0, done))
		pr_warn("%s: failed to read a batch's counters: its intervals are Wilson's",
			phase_name(phase));
	else
		mark_softcode(s, w, phase);
}

/*
 * A round of a repeating phase was answered.  Stop at the time cap; else, once the batch has
 * lasted ROUNDS_BATCH_S, mark the counters (the samples folded as the report folds them, the
 * exact on-CPU time) and stop when the top rows are precise.  Reading the sample map between
 * rounds, rather than keying the BPF side by round, keeps the map's keys per phase (rounds
 * would multiply them against --max-samples) and costs one map walk per batch while netmux
 * sleeps, outside the CPU time measured.
 */
static int hook_round(void *ctx, unsigned int phase, unsigned int rounds, uint64_t commands)
{
	struct session *s = ctx;
	struct window *w = &s->r->windows[s->r->nwindows];
	struct round_rule rule = { .by = rule_view(s->o), .top = ROUNDS_TOP,
				   .half = ROUNDS_HALF_PCT / 100, .min_rounds = ROUNDS_MIN,
				   .max_rounds = ROUNDS_MAX, .cap_s = s->o->max_phase_seconds };
	const struct fold_table *cum[ROUNDS_MAX];
	uint64_t now = mono_ns();
	double t0 = mono_ms();
	struct round_mark *m;
	int err;

	if (!s->prof || s->o->max_phase_seconds <= 0) {
		w->round_stop = s->prof ? ROUND_STOP_SINGLE : ROUND_STOP_UNPROFILED;
		return 0;
	}
	w->round_stop = rounds_decide(NULL, 0, &rule, (now - w->before.t_ns) / 1e9, rounds);
	if (w->round_stop)
		return 0;
	if (w->nmarks && now - w->marks[w->nmarks - 1].t_ns < ROUNDS_BATCH_S * 1e9)
		return 1;
	err = mark_batch(s, w, phase, rounds, commands);
	if (err)
		return err;
	mark_softcode(s, w, phase);
	m = &w->marks[w->nmarks - 1];
	for (unsigned int i = 0; i < w->nmarks; i++)
		cum[i] = &w->marks[i].fold;
	w->round_stop = rounds_decide(cum, (int)w->nmarks, &rule, (now - w->before.t_ns) / 1e9,
				      rounds);
	/* what the rule judged: the report's own figure also counts the samples after this mark */
	w->stop_judged = w->nmarks >= (unsigned int)rule.min_rounds;
	if (w->stop_judged)
		w->stop_half = rounds_top_half(
			cum, (int)w->nmarks, rounds_judged_view(cum[w->nmarks - 1], rule.by),
			rule.top);
	pr_debug("%s: round %u, batch %u, %llu samples, widest top interval +-%.2f points, "
		 "marked in %.1f ms%s%s", phase_name(phase), rounds, w->nmarks,
		 (unsigned long long)m->fold.samples, 100 * w->stop_half, mono_ms() - t0,
		 w->round_stop ? ": stop, " : "", w->round_stop ? round_stop_name(w->round_stop) : "");
	return w->round_stop ? 0 : 1;
}

static bool wants(const struct opts *o, unsigned int phase)
{
	for (int i = 0; i < o->nphases; i++)
		if (o->phases[i] == phase)
			return true;
	return false;
}

/* As root, netmux runs unprivileged: --netmux-user, else the muxbpf user (make deps creates
 * it), else nobody.  Otherwise it runs as we do. */
static const char *netmux_user(const struct opts *o)
{
	if (o->netmux_user || geteuid() != 0)
		return o->netmux_user;
	return getpwnam("muxbpf") ? "muxbpf" : "nobody";
}

static int start_game(struct session *s)
{
	struct game_opts gopts = { .netmux = s->o->netmux, .template = s->o->game,
				   .keep = s->o->keep, .user = netmux_user(s->o),
				   .port = s->o->port };
	struct profiler_opts popts = { .freq = s->o->freq, .enable_on_exec = true,
				     .no_ledger = s->o->no_syscalls,
				     .site_every = s->o->site_every, .unwind = s->o->unwind,
				     .syscall_hook = s->o->syscall_hook,
				     .exe = s->o->netmux, .max_stacks = s->o->max_stacks,
				     .max_samples = s->o->max_samples,
				     .no_stats = s->o->no_bpf_stats,
				     .bpf_stats = s->o->bpf_stats,
				     .fixed_period = s->o->fixed_period };
	int err;

	s->stage = "the game's set-up";
	s->game = game__new(&gopts);
	if (!s->game)
		return -errno;
	/* privileges and kernel features, before netmux exists */
	if (!s->o->no_profile && (err = preflight_bpf()))
		return err;
	err = game__spawn_paused(s->game);
	s->r->pid = game__pid(s->game);
	s->r->port = game__port(s->game);
	if (err)
		return err;
	if (s->o->no_profile || signals_pending())
		return signals_pending() ? -EINTR : 0;
	s->stage = "loading BPF";
	popts.pid = s->r->pid;
	s->prof = profiler__new(&popts);
	if (!s->prof)
		return -errno;
	return signals_pending() ? -EINTR : 0;
}

/* Boot: from exec (the sampler starts there) until the port answers. */
static int boot(struct session *s)
{
	bool measured = wants(s->o, MUXBPF_PHASE_BOOT);
	struct phase_result *res;
	uint64_t t0, t1;
	int err;

	s->stage = "boot";
	if (measured && (err = hook_begin(s, MUXBPF_PHASE_BOOT)))
		return err;
	t0 = mono_ns();
	err = game__release(s->game);
	s->released = !err;
	if (!err)
		err = game__wait_ready(s->game, BOOT_TIMEOUT_MS);
	t1 = mono_ns();
	if (!measured)
		return err;
	/* A boot cut short still closes its window: what netmux did so far is reported. */
	res = &s->r->windows[s->r->nwindows].result;
	res->phase = MUXBPF_PHASE_BOOT;
	res->ok = !err;
	res->rounds = !err;
	if (err)
		snprintf(res->error, sizeof(res->error), "boot: %s",
			 err == -EINTR ? "interrupted" : strerror(-err));
	s->r->windows[s->r->nwindows].partial = err == -EINTR;
	res->wall_s = (t1 - t0) / 1e9;
	return hook_end(s, MUXBPF_PHASE_BOOT) ?: err;
}

static int drive(struct session *s)
{
	struct drive_opts dopts = { .scale = s->o->scale, .idle_seconds = s->o->idle_seconds,
				    .chunk = 256, .timeout_ms = 30000, .stop_fd = signals_fd(),
				    .pidfd = game__pidfd(s->game) };
	struct phase_hooks hooks = { .begin = hook_begin, .end = hook_end,
				     .progress = hook_progress, .round = hook_round, .ctx = s };
	struct phase_result results[MUXBPF_PHASE__COUNT] = {};
	unsigned int todo[MUXBPF_PHASE__COUNT];
	int n = 0, first = s->r->nwindows, err;

	for (int i = 0; i < s->o->nphases; i++)
		if (s->o->phases[i] != MUXBPF_PHASE_BOOT)
			todo[n++] = s->o->phases[i];
	s->drv = driver__new(s->r->port, &dopts);
	if (!s->drv)
		return -errno;
	snprintf(s->r->version, sizeof(s->r->version), "%s", driver__version(s->drv));
	if (!n)
		return 0;
	err = driver__run(s->drv, todo, n, &hooks, results);
	/* Results come in phase order; windows were opened in the same order. */
	for (int i = 0; i < n && first + i < s->r->nwindows; i++) {
		struct window *w = &s->r->windows[first + i];

		w->result = results[i];
		w->partial = !results[i].ok && err == -EINTR;
		if (!results[i].ok)
			w->round_stop = ROUND_STOP_CUT;
	}
	return err;
}

/*
 * @shutdown when the session is healthy; after a signal (the driver's loop stops on it) or a
 * failed @shutdown, SIGTERM at once: netmux dumps cleanly on it, and nobody waits 10 s.
 */
static void stop(struct session *s)
{
	bool asked = false;

	if (s->drv && !game__exited(s->game) && !signals_pending())
		asked = driver__shutdown(s->drv) == 0;
	driver__free(s->drv);
	s->drv = NULL;
	if (s->game)
		game__stop(s->game, asked ? SHUTDOWN_TIMEOUT_MS : 0);
}

/* Why the run stopped early, for the report and the exit code. */
static void note_stop(struct session *s, int err)
{
	struct run *r = s->r;
	char why[96];

	r->signal = signals_pending();
	if (r->signal) {
		snprintf(r->stopped, sizeof(r->stopped), "interrupted by %s during %s",
			 signal_name(r->signal), s->stage ? s->stage : "start-up");
		return;
	}
	if (err && s->game && s->released && target_gone(s, 200)) {
		r->target_died = true;
		snprintf(r->stopped, sizeof(r->stopped), "netmux (pid %d) %s during %s", r->pid,
			 game__describe_exit(s->game, why, sizeof(why)),
			 s->stage ? s->stage : "start-up");
		/* the window it died in names the death, not the lost connection */
		for (int i = 0; i < r->nwindows; i++)
			if (!r->windows[i].result.ok && r->windows[i].result.error[0] &&
			    strcmp(r->windows[i].result.error, "not run"))
				snprintf(r->windows[i].result.error,
					 sizeof(r->windows[i].result.error), "netmux %s",
					 game__describe_exit(s->game, why, sizeof(why)));
	}
}

int run_session(const struct opts *o, struct run *r)
{
	struct session s = { .o = o, .r = r };
	struct softcode *sc = NULL;
	struct sc_target sct;
	int err, cerr;

	memset(r, 0, sizeof(*r));
	snprintf(r->netmux, sizeof(r->netmux), "%s", o->netmux);
	err = start_game(&s);
	if (!err)
		err = take_reading(&s, &r->start, MUXBPF_PHASE_NONE);
	if (!err)
		err = boot(&s);
	if (!err)
		err = game__check_loopback(s.game);
	if (!err && signals_pending())
		err = -EINTR;
	if (!err) {
		struct softcode_opts sco = session_softcode_opts(o);

		sc = s.sc = softcode__start(&sco, s.prof, r->pid, o->netmux, &sct, &r->softcode);
	}
	if (!err) {
		s.stage = "login";
		err = drive(&s);
	}
	/* --control, --interval, --duration: phases marked from outside (src/live.c) */
	if (!err && !signals_pending() && (o->control || o->interval > 0 || o->duration > 0)) {
		s.stage = "the live phases";
		err = live_phases(o, s.prof, r, game__pidfd(s.game));
	}
	if (!err && signals_pending())
		err = -EINTR;
	note_stop(&s, err);
	s.stage = "collection";
	if (r->pid && r->nwindows && take_reading(&s, &r->final, MUXBPF_PHASE_NONE) == 0) {
		r->final_taken = true;
		if (!r->last_maps.n && !game__exited(s.game))
			snapshot_maps(&s, MUXBPF_PHASE_NONE);
	}
	if (s.prof) {
		cerr = session_collect(s.prof, r);
		if (cerr && !err)
			err = cerr;
	}
	/* naming asks the game: only while it still runs */
	if (sc && s.game && !game__exited(s.game))
		softcode__finish(sc, &sct, r->pid, r->port, o->login ?: "connect wizard potrzebie",
				 &r->softcode);
	else
		softcode__free(sc);
	s.sc = NULL;
	stop(&s);
	symbolizer__free(s.sym);
	profiler__free(s.prof);
	game__free(s.game);
	return err;
}
