// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Live sessions: attach to a running process, phases marked from outside, a quiet poll loop. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "base/clock.h"
#include "loader/collect_live.h"
#include "proc/control.h"
#include "session/live.h"
#include "base/log.h"
#include "base/phases.h"
#include "loader/preflight.h"
#include "session/reading.h"
#include "base/signals.h"
#include "proc/target.h"
#include "loader/unwind.h"

struct live {
	const struct opts *o;
	struct run *r;
	struct profiler *prof; /* NULL with --no-profile */
	pid_t pid;
	int pidfd;
	struct control *ctl;
	struct mapwatch *watch;
	uint64_t t0_ns;        /* the loop's start: t= in replies, interval names */
	uint64_t cpu0_ns;      /* muxbpf's CPU then */
	bool open;             /* r->windows[r->nwindows] is an open window */
	unsigned int next_id;  /* the next phase id to give */
	bool full_warned;      /* "no phase ids left" said once */
	unsigned int nintervals;
	bool gone;             /* the target exited */
	struct proc_times last_proc;
};

static double since(const struct live *l, uint64_t t)
{
	return (double)(t - l->t0_ns) / 1e9;
}

void live_interval_name(double interval, unsigned int k, char *buf, size_t size)
{
	snprintf(buf, size, "t+%gs", interval * k);
}

void live_unique_name(const struct run *r, const char *name, char *buf, size_t size)
{
	char base[PHASE_NAME_MAX + 1];

	snprintf(base, sizeof(base), "%s", name);
	snprintf(buf, size, "%s", base);
	for (int k = 2;; k++) {
		bool taken = !strcmp(buf, "outside");
		char suffix[16];
		int n;

		for (int i = 0; i < r->nwindows + 1 && i < MUXBPF_MAX_PHASES && !taken; i++)
			taken = r->windows[i].phase && !strcmp(phase_name(r->windows[i].phase), buf);
		if (!taken)
			return;
		n = snprintf(suffix, sizeof(suffix), ".%d", k);
		/* keep the whole within PHASE_NAME_MAX */
		snprintf(buf, size, "%.*s%s", (int)(PHASE_NAME_MAX - n), base, suffix);
	}
}

static bool target_alive(struct live *l)
{
	if (l->gone)
		return false;
	if (l->pidfd >= 0) {
		struct pollfd p = { .fd = l->pidfd, .events = POLLIN };

		l->gone = poll(&p, 1, 0) == 1;
	} else {
		l->gone = kill(l->pid, 0) && errno == ESRCH;
	}
	return !l->gone;
}

static void set_phase(struct live *l, unsigned int id)
{
	if (l->prof)
		profiler__set_phase(l->prof, id);
}

/*
 * The counters now, at a switch to phase id.  The target is given LIVE_QUIESCE_MS to be off the
 * CPU (then its runtime is exact); a target that stays busy is read anyway and counted.  The
 * time, then the switch (the ledger's boundary: calls in flight are read as of that moment), then
 * the counters.  Once the target has exited, the BPF side still knows every thread's final
 * runtime and the last /proc values stand in.
 */
static int take_reading(struct live *l, struct reading *rd, unsigned int id)
{
	int err = procstat_wait_sleeping(l->pid, LIVE_QUIESCE_MS);

	memset(rd, 0, sizeof(*rd));
	l->r->live.readings++;
	if (err == -ETIMEDOUT)
		l->r->live.readings_busy++;
	err = reading_collect(l->prof, rd, id);
	if (err)
		return err;
	cost_read(l->prof, &rd->cost);
	if (!target_alive(l) || procstat_read(l->pid, &rd->proc))
		rd->proc = l->last_proc;
	else
		l->last_proc = rd->proc;
	return 0;
}

/* The files mapped at a phase's end: its samples are symbolized from them. */
static void snapshot_maps(struct live *l, unsigned int id)
{
	if (target_alive(l))
		session_snapshot_maps(l->r, id);
}

/* Close the open window (if any) at reading rd, which it takes over. */
static void close_window(struct live *l, struct reading *rd)
{
	struct window *w = &l->r->windows[l->r->nwindows];

	w->after = *rd;
	w->result.phase = w->phase;
	w->result.ok = true;
	w->result.wall_s = (double)(w->after.t_ns - w->before.t_ns) / 1e9;
	l->r->nwindows++;
	l->open = false;
	snapshot_maps(l, w->phase);
}

/*
 * End the current window and/or start one named name (NULL: none), at one reading, so that
 * consecutive windows leave no gap.  0, -ENOSPC when no phase id is left (the current window
 * then continues), or -errno.
 */
static int switch_phase(struct live *l, const char *name, char *got, size_t got_size)
{
	struct reading rd, copy;
	unsigned int id = 0;
	int err;

	if (name) {
		/* a window is open in r->windows[nwindows]; the new one needs the next slot */
		int slots = l->r->nwindows + (l->open ? 2 : 1);

		if (l->next_id >= MUXBPF_MAX_PHASES || slots > MUXBPF_MAX_PHASES)
			return -ENOSPC;
	}
	/* from the reading on, samples count for the new phase (or outside) */
	err = take_reading(l, &rd, name ? l->next_id : 0);
	if (err) {
		set_phase(l, l->open ? l->r->windows[l->r->nwindows].phase : 0);
		return err;
	}
	if (name) {
		id = l->next_id++;
		live_unique_name(l->r, name, got, got_size);
		phase_set_name(id, got);
	}
	if (l->open) {
		err = name ? reading_copy(&copy, &rd) : 0;
		close_window(l, &rd); /* takes rd */
		if (!name)
			return 0;
		if (err) {
			set_phase(l, 0);
			return err;
		}
		rd = copy;
	} else if (!name) {
		reading_free(&rd);
		return 0;
	}
	memset(&l->r->windows[l->r->nwindows], 0, sizeof(l->r->windows[0]));
	l->r->windows[l->r->nwindows].phase = id;
	l->r->windows[l->r->nwindows].before = rd;
	l->open = true;
	return 0;
}

static const char *current_name(const struct live *l)
{
	return l->open ? phase_name(l->r->windows[l->r->nwindows].phase) : "-";
}

static uint64_t rss_kb(void)
{
	unsigned long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%lu %lu", &size, &resident);
	fclose(f);
	return n == 2 ? resident * (uint64_t)sysconf(_SC_PAGESIZE) / 1024 : 0;
}

/* The periodic check: map occupancy (warns at once), muxbpf's memory. */
static void check(struct live *l)
{
	uint64_t rss = rss_kb();

	if (l->watch && mapwatch__check(l->watch))
		pr_verbose("map occupancy check failed: %s", strerror(errno));
	if (rss > l->r->live.rss_peak_kb)
		l->r->live.rss_peak_kb = rss;
}

static void reply_status(struct live *l, const struct control_cmd *cmd)
{
	const struct window *w = &l->r->windows[l->r->nwindows];
	uint64_t now = mono_ns();
	char maps[1024] = "";

	if (l->watch)
		mapwatch__line(l->watch, maps, sizeof(maps));
	control__reply(l->ctl, cmd,
		       "ok status phase=%s t=%.3f phase_s=%.3f phases=%d pid=%d port=%d cpu_ms=%.1f "
		       "rss_kb=%" PRIu64 " maps: %s", current_name(l), since(l, now),
		       l->open ? (double)(now - w->before.t_ns) / 1e9 : 0.0,
		       l->r->nwindows + l->open, l->pid, l->r->port,
		       (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - l->cpu0_ns) / 1e6, rss_kb(), maps);
}

static void say_switch_error(struct live *l, const struct control_cmd *cmd, int err)
{
	if (err == -ENOSPC)
		control__reply(l->ctl, cmd, "error no phase left (at most %d per run); %s continues",
			       MUXBPF_MAX_PHASES - MUXBPF_PHASE__COUNT, current_name(l));
	else
		control__reply(l->ctl, cmd, "error %s", strerror(-err));
}

/* One command.  Returns 1 when the run must stop (the reply then waits for the end). */
static int handle(struct live *l, const struct control_cmd *cmd)
{
	char name[PHASE_NAME_MAX + 1], prev[PHASE_NAME_MAX + 1];
	int err;

	switch (cmd->verb) {
	case CONTROL_PHASE:
		err = switch_phase(l, cmd->name, name, sizeof(name));
		if (err)
			say_switch_error(l, cmd, err);
		else
			control__reply(l->ctl, cmd, "ok phase %s t=%.3f", name, since(l, mono_ns()));
		return 0;
	case CONTROL_END:
		if (!l->open) {
			control__reply(l->ctl, cmd, "error no phase is running");
			return 0;
		}
		snprintf(prev, sizeof(prev), "%s", current_name(l));
		err = switch_phase(l, NULL, NULL, 0);
		if (err)
			say_switch_error(l, cmd, err);
		else
			control__reply(l->ctl, cmd, "ok end %s t=%.3f", prev, since(l, mono_ns()));
		return 0;
	case CONTROL_STOP:
		return 1;
	case CONTROL_STATUS:
		reply_status(l, cmd);
		return 0;
	case CONTROL_PING:
		control__reply(l->ctl, cmd, "ok pong");
		return 0;
	}
	return 0;
}

static int next_interval(struct live *l)
{
	char name[32], got[PHASE_NAME_MAX + 1];
	int err;

	live_interval_name(l->o->interval, l->nintervals++, name, sizeof(name));
	err = switch_phase(l, name, got, sizeof(got));
	if (err == -ENOSPC && !l->full_warned) {
		l->full_warned = true;
		pr_warn("--interval: no phase left (at most %d per run): %s continues to the end",
			MUXBPF_MAX_PHASES - MUXBPF_PHASE__COUNT, current_name(l));
		return 0;
	}
	return err == -ENOSPC ? 0 : err;
}

static int ms_until(uint64_t now, uint64_t t)
{
	uint64_t ms = t > now ? (t - now + 999999) / 1000000 : 0;

	return ms > INT_MAX ? INT_MAX : (int)ms;
}

static int loop(struct live *l)
{
	const struct opts *o = l->o;
	uint64_t deadline = o->duration > 0 ? l->t0_ns + (uint64_t)(o->duration * 1e9) : 0;
	uint64_t next_check = l->t0_ns + LIVE_CHECK_MS * 1000000ull, next_win = 0;
	struct control_cmd stop_cmd = { .client = -1 };
	bool stop = false;
	int err = 0;

	if (o->interval > 0) {
		err = next_interval(l);
		/* windows count from the first one's opening reading: t+Ss starts S after it */
		if (!err && l->open)
			l->t0_ns = l->r->windows[l->r->nwindows].before.t_ns;
		next_win = l->t0_ns + (uint64_t)(o->interval * 1e9);
	} else if (!o->control) {
		char got[PHASE_NAME_MAX + 1];

		err = switch_phase(l, "session", got, sizeof(got));
	}
	while (!err && !stop) {
		struct pollfd pf[3] = { { .fd = signals_fd(), .events = POLLIN },
					{ .fd = l->ctl ? control__fd(l->ctl) : -1, .events = POLLIN },
					{ .fd = l->pidfd, .events = POLLIN } };
		uint64_t now = mono_ns(), wake = next_check;
		struct control_cmd cmd;

		if (deadline && deadline < wake)
			wake = deadline;
		if (next_win && next_win < wake)
			wake = next_win;
		/* without a pidfd, notice the target's exit at the next check */
		if (poll(pf, 3, ms_until(now, wake)) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (signals_pending()) {
			snprintf(l->r->live.stop_reason, sizeof(l->r->live.stop_reason), "%s",
				 signal_name(signals_pending()));
			break;
		}
		if (!target_alive(l)) {
			snprintf(l->r->live.stop_reason, sizeof(l->r->live.stop_reason),
				 "the target's exit (pid %d)", l->pid);
			break;
		}
		now = mono_ns();
		if (deadline && now >= deadline) {
			snprintf(l->r->live.stop_reason, sizeof(l->r->live.stop_reason),
				 "--duration %g s", o->duration);
			break;
		}
		if (next_win && now >= next_win) {
			err = next_interval(l);
			/* a late wake-up (a suspended machine) skips no names: t+ counts windows */
			next_win += (uint64_t)(o->interval * 1e9);
			if (next_win <= now)
				next_win = now + (uint64_t)(o->interval * 1e9);
		}
		while (!err && !stop && l->ctl && control__next(l->ctl, &cmd) == 1) {
			if (handle(l, &cmd)) {
				stop = true;
				stop_cmd = cmd;
				snprintf(l->r->live.stop_reason, sizeof(l->r->live.stop_reason),
					 "the stop command");
			}
		}
		if (now >= next_check) {
			check(l);
			next_check = now + LIVE_CHECK_MS * 1000000ull;
		}
	}
	/* the last window closes here; `stop` is answered once it has */
	if (l->open) {
		int cerr = switch_phase(l, NULL, NULL, 0);

		err = err ?: cerr;
	}
	check(l);
	if (stop_cmd.client >= 0)
		control__reply(l->ctl, &stop_cmd, "ok stop t=%.3f", since(l, mono_ns()));
	return err;
}

int live_phases(const struct opts *o, struct profiler *prof, struct run *r, int pidfd)
{
	struct live l = { .o = o, .r = r, .prof = prof, .pid = r->pid, .pidfd = pidfd,
			  .next_id = MUXBPF_PHASE__COUNT };
	int err = 0;

	/* the phases marked so far (a driven run) keep their ids */
	for (int i = 0; i < r->nwindows; i++)
		if (r->windows[i].phase >= l.next_id)
			l.next_id = r->windows[i].phase + 1;
	r->live.valid = true;
	r->live.interval_s = o->interval;
	r->live.duration_s = o->duration;
	if (o->control) {
		l.ctl = control__open(o->control);
		if (!l.ctl)
			return -errno;
		snprintf(r->live.control, sizeof(r->live.control), "%s", o->control);
		if (!o->quiet)
			fprintf(stderr, "muxbpf: control channel %s ready (pid %d): phase NAME, end, "
				"stop, status, ping\n", control__path(l.ctl), r->pid);
	}
	if (prof) {
		/* requests still come at once; rereading every maps file twice a second does not */
		unwinder__set_pace(profiler__unwinder(prof), LIVE_UNWIND_POLL_MS,
				   LIVE_UNWIND_RECHECK_MS);
		l.watch = mapwatch__new(prof);
		if (!l.watch)
			pr_warn("no map occupancy watch: %s", strerror(errno));
	}
	l.t0_ns = mono_ns();
	l.cpu0_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	check(&l);
	err = loop(&l);
	r->live.elapsed_s = since(&l, mono_ns());
	r->live.self_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - l.cpu0_ns;
	r->live.rss_kb = rss_kb();
	if (l.watch) {
		r->live.occ = *mapwatch__occ(l.watch);
		r->live.occ_valid = true;
	}
	mapwatch__free(l.watch);
	control__free(l.ctl);
	return err;
}

/* Where the target came from, for the report: "--port 4201: pid 123". */
static pid_t find_target(const struct opts *o, struct run *r)
{
	pid_t pid;

	if (o->attach_pid) {
		pid = o->attach_pid;
		if (kill(pid, 0) && errno == ESRCH) {
			pr_err("no process with pid %d", pid);
			return -ESRCH;
		}
		snprintf(r->live.how, sizeof(r->live.how), "--pid %d", pid);
	} else if (o->port) {
		pid = target_by_port(o->port);
		snprintf(r->live.how, sizeof(r->live.how), "--port %d: pid %d", o->port, pid);
	} else {
		pid = target_by_name(o->attach_name);
		snprintf(r->live.how, sizeof(r->live.how), "--name %s: pid %d", o->attach_name, pid);
	}
	return pid;
}

/* Seconds since the target started (/proc/PID/stat starttime, in clock ticks after boot). */
static double target_age(pid_t pid)
{
	char path[64], buf[2048], *p;
	unsigned long long start = 0;
	double uptime = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* after the comm: state is field 3, starttime field 22 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			 "%*d %*d %*d %llu", &start) != 1)
		return 0;
	f = fopen("/proc/uptime", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lf", &uptime) != 1)
		uptime = 0;
	fclose(f);
	return uptime - (double)start / sysconf(_SC_CLK_TCK);
}

/*
 * Wait (up to LIVE_WARMUP_MS) until every thread has entered a syscall since attach: a call in
 * flight at attach has no entry record, so the ledger could not split it at a boundary.  Threads
 * blocked for longer (a thread parked on a futex) are left as they are.
 */
static void warm_up(struct profiler *prof, pid_t pid)
{
	struct timespec step = { 0, 10 * 1000000 };

	if (!profiler__has_ledger(prof))
		return;
	for (int waited = 0; waited < LIVE_WARMUP_MS; waited += 10) {
		pid_t *tids;
		int n = target_threads(pid, &tids), known;

		if (n <= 0)
			return;
		known = ledger_known_threads(prof, tids, n);
		free(tids);
		if (known == n)
			return;
		nanosleep(&step, NULL);
	}
}

int live_session(const struct opts *o, struct run *r)
{
	struct profiler_opts popts = { .freq = o->freq, .running = true, .unwind = o->unwind,
				     .no_ledger = o->no_syscalls, .site_every = o->site_every,
				     .syscall_hook = o->syscall_hook,
				     .max_stacks = o->max_stacks, .max_samples = o->max_samples,
				     .no_stats = o->no_bpf_stats,
				     .bpf_stats = o->bpf_stats,
				     .fixed_period = o->fixed_period };
	struct profiler *prof = NULL;
	struct softcode *sc = NULL;
	struct sc_target sct;
	struct softcode_opts sco;
	char exe[4096], proc_exe[64];
	int err, cerr, pidfd;
	ssize_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->live.valid = true;
	r->live.attached = true;
	pid = find_target(o, r);
	if (pid < 0)
		return pid;
	if (pid == getpid()) {
		pr_err("muxbpf cannot profile itself");
		return -EINVAL;
	}
	r->pid = pid;
	r->port = o->port;
	target_comm(pid, r->live.comm, sizeof(r->live.comm));
	r->live.target_age_s = target_age(pid);
	snprintf(proc_exe, sizeof(proc_exe), "/proc/%d/exe", pid);
	n = readlink(proc_exe, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	snprintf(r->netmux, sizeof(r->netmux), "%s", n > 0 ? exe : proc_exe);
	snprintf(r->version, sizeof(r->version), "attached to pid %d (%s), running for %.0f s",
		 pid, r->live.comm, r->live.target_age_s);
	err = preflight_bpf();
	if (err)
		return err;
	/* a deleted or replaced binary is still readable through /proc/PID/exe */
	popts.pid = pid;
	popts.exe = n > 0 && access(exe, R_OK) == 0 ? exe : proc_exe;
	prof = profiler__new(&popts);
	if (!prof)
		return -errno;
	r->live.sampler_threads = profiler__sampler_threads(prof);
	if (o->unwind != MUXBPF_UNWIND_FP && unwinder__refresh(profiler__unwinder(prof), pid))
		pr_verbose("the unwind tables of pid %d load on the first sample", pid);
	/* symbolization needs the mappings even if the target exits before a phase ends */
	if (!maps__read(pid, &r->last_maps))
		mb_pins__add(&r->pins, pid, &r->last_maps);
	warm_up(prof, pid);
	sco = session_softcode_opts(o);
	sc = softcode__start(&sco, prof, pid, popts.exe, &sct, &r->softcode);
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	{
		struct live l = { .o = o, .r = r, .prof = prof, .pid = pid, .pidfd = pidfd };

		err = take_reading(&l, &r->start, 0);
	}
	if (!err)
		err = live_phases(o, prof, r, pidfd);
	if (!err && !r->nwindows)
		pr_err("no phase was marked (no `phase` command before the end): nothing to report");
	/* the closing reading: what happened after the last window is "outside" */
	if (r->nwindows) {
		struct live l = { .o = o, .r = r, .prof = prof, .pid = pid, .pidfd = pidfd };

		l.last_proc = r->windows[r->nwindows - 1].after.proc;
		if (take_reading(&l, &r->final, 0) == 0)
			r->final_taken = true;
	}
	/* a signal is attach mode's normal end (stop_reason says so), not an interruption */
	/* the target keeps running: its samples must not outrun the counters read below */
	profiler__pause(prof);
	cerr = session_collect(prof, r);
	r->live.threads_seen = (int)r->final.rt.n;
	softcode__finish(sc, &sct, pid, o->port, o->login, &r->softcode);
	profiler__free(prof);
	if (pidfd >= 0)
		close(pidfd);
	return err ?: cerr;
}
