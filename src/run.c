// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The session: game, profiler and driver glued by phase hooks that read the kernel's counters
 * at every boundary while netmux sleeps. */
#include <errno.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include "attach.h"
#include "collect.h"
#include "collect_ledger.h"
#include "game.h"
#include "log.h"
#include "phases.h"
#include "run.h"

#define BOOT_TIMEOUT_MS 20000
#define QUIESCE_TIMEOUT_MS 2000
#define SHUTDOWN_TIMEOUT_MS 10000

struct session {
	const struct opts *o;
	struct run *r;
	struct game *game;
	struct profiler *prof;
	struct driver *drv;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	/* The clock bpf_ktime_get_ns() reads: ledger timestamps compare with it. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int take_reading(struct session *s, struct reading *rd)
{
	int err = procstat_wait_sleeping(s->r->pid, QUIESCE_TIMEOUT_MS);

	/* A server still busy after 2 s is a finding, not a failure: read anyway. */
	if (err == -ETIMEDOUT)
		pr_warn("netmux still running %d ms after its last reply; reading anyway",
			QUIESCE_TIMEOUT_MS);
	else if (err)
		return err;
	if (s->prof) {
		err = collect_runtime(s->prof, &rd->rt);
		if (!err && profiler__has_ledger(s->prof))
			err = collect_inflight(s->prof, &rd->inflight);
		if (err)
			return err;
	}
	rd->t_ns = now_ns();
	return procstat_read(s->r->pid, &rd->proc);
}

static void set_phase(struct session *s, unsigned int phase)
{
	if (s->prof)
		profiler__set_phase(s->prof, phase);
}

static int hook_begin(void *ctx, unsigned int phase)
{
	struct session *s = ctx;
	struct window *w = &s->r->windows[s->r->nwindows];
	int err;

	w->phase = phase;
	err = take_reading(s, &w->before);
	if (err)
		return err;
	set_phase(s, phase);
	return 0;
}

static int snapshot_maps(struct session *s, unsigned int phase)
{
	struct mb_maps *m = &s->r->maps[phase];
	int err;

	maps__free(m);
	err = maps__read(s->r->pid, m);
	if (err) {
		pr_err("failed to read /proc/%d/maps: %s", s->r->pid, strerror(-err));
		return err;
	}
	maps__free(&s->r->last_maps);
	return maps__read(s->r->pid, &s->r->last_maps);
}

static int hook_end(void *ctx, unsigned int phase)
{
	struct session *s = ctx;
	struct window *w = &s->r->windows[s->r->nwindows];
	int err;

	err = take_reading(s, &w->after);
	set_phase(s, MUXBPF_PHASE_NONE);
	if (err)
		return err;
	s->r->nwindows++;
	return snapshot_maps(s, phase);
}

static bool wants(const struct opts *o, unsigned int phase)
{
	for (int i = 0; i < o->nphases; i++)
		if (o->phases[i] == phase)
			return true;
	return false;
}

static int start_game(struct session *s)
{
	struct game_opts gopts = { .netmux = s->o->netmux, .template = s->o->game,
				   .keep = s->o->keep };
	struct attach_opts aopts = { .freq = s->o->freq, .enable_on_exec = true,
				     .no_ledger = s->o->no_syscalls, .unwind = s->o->unwind,
				     .exe = s->o->netmux };
	int err;

	s->game = game__new(&gopts);
	if (!s->game)
		return -errno;
	err = game__spawn_paused(s->game);
	if (err)
		return err;
	s->r->pid = game__pid(s->game);
	s->r->port = game__port(s->game);
	if (s->o->no_profile)
		return 0;
	aopts.pid = s->r->pid;
	s->prof = profiler__new(&aopts);
	return s->prof ? 0 : -errno;
}

/* Boot: from exec (the sampler starts there) until the port answers. */
static int boot(struct session *s)
{
	bool measured = wants(s->o, MUXBPF_PHASE_BOOT);
	struct phase_result *res;
	struct timespec t0, t1;
	int err;

	if (measured && (err = hook_begin(s, MUXBPF_PHASE_BOOT)))
		return err;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = game__release(s->game);
	if (!err)
		err = game__wait_ready(s->game, BOOT_TIMEOUT_MS);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (err || !measured)
		return err;
	res = &s->r->windows[s->r->nwindows].result;
	res->phase = MUXBPF_PHASE_BOOT;
	res->ok = true;
	res->wall_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return hook_end(s, MUXBPF_PHASE_BOOT);
}

static int drive(struct session *s)
{
	struct drive_opts dopts = { .scale = s->o->scale, .idle_seconds = s->o->idle_seconds,
				    .chunk = 256, .timeout_ms = 30000 };
	struct phase_hooks hooks = { .begin = hook_begin, .end = hook_end, .ctx = s };
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
	for (int i = 0; i < n && first + i < s->r->nwindows; i++)
		s->r->windows[first + i].result = results[i];
	return err;
}

static void stop(struct session *s)
{
	if (s->drv && !game__exited(s->game))
		driver__shutdown(s->drv);
	driver__free(s->drv);
	s->drv = NULL;
	if (s->game)
		game__stop(s->game, SHUTDOWN_TIMEOUT_MS);
}

int run_session(const struct opts *o, struct run *r)
{
	struct session s = { .o = o, .r = r };
	int err, cerr;

	memset(r, 0, sizeof(*r));
	snprintf(r->netmux, sizeof(r->netmux), "%s", o->netmux);
	err = start_game(&s);
	if (!err)
		err = take_reading(&s, &r->start);
	if (!err)
		err = boot(&s);
	if (!err)
		err = drive(&s);
	if (r->pid && !game__exited(s.game) && take_reading(&s, &r->final) == 0 && !r->last_maps.n)
		snapshot_maps(&s, MUXBPF_PHASE_NONE);
	if (s.prof) {
		cerr = collect_profile(s.prof, &r->profile);
		r->ledger = profiler__has_ledger(s.prof);
		if (!cerr && r->ledger)
			cerr = collect_ledger(s.prof, &r->ledger_data);
		if (cerr && !err)
			err = cerr;
	}
	stop(&s);
	profiler__free(s.prof);
	game__free(s.game);
	return err;
}

static void reading_free(struct reading *rd)
{
	rt_snapshot__free(&rd->rt);
	inflight__free(&rd->inflight);
}

void run__free(struct run *r)
{
	for (int i = 0; i < MUXBPF_PHASE__COUNT; i++) {
		reading_free(&r->windows[i].before);
		reading_free(&r->windows[i].after);
	}
	reading_free(&r->start);
	reading_free(&r->final);
	for (int i = 0; i < MUXBPF_MAX_PHASES; i++)
		maps__free(&r->maps[i]);
	maps__free(&r->last_maps);
	profile__free(&r->profile);
	ledger_data__free(&r->ledger_data);
}
