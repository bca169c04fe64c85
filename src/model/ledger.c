// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The per-phase time ledger from the ledger maps and the boundary readings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/ledger.h"
#include "syscall_names.h"

const char *const ledger_progs[LEDGER_NPROGS] = {
	"mb_sys_enter",	    "mb_sys_exit",	"mb_sched_switch",  "mb_sched_waking",
	"mb_hrtimer_entry", "mb_hrtimer_exit", "mb_softirq_entry", "mb_softirq_exit",
};

const char *const ledger_fentry_progs[2] = { "mb_sys_fentry", "mb_sys_fexit" };

int ledger_prog_slot(const char *name)
{
	for (int i = 0; i < LEDGER_NPROGS; i++)
		if (!strcmp(name, ledger_progs[i]))
			return i;
	for (int i = 0; i < 2; i++)
		if (!strcmp(name, ledger_fentry_progs[i]))
			return MUXBPF_PROG_SYS_ENTER + i;
	return -1;
}

const char *syscall_name(uint32_t nr)
{
	static char buf[8][24];
	static unsigned int next;
	char *b;

	if (nr < sizeof(syscall_names) / sizeof(syscall_names[0]) && syscall_names[nr])
		return syscall_names[nr];
	b = buf[next++ % 8];
	snprintf(b, sizeof(buf[0]), "syscall_%u", nr);
	return b;
}

const char *waker_name(uint32_t kind)
{
	static const char *const names[MUXBPF_WAKER__COUNT] = {
		[MUXBPF_WAKER_TIMER] = "timer",
		[MUXBPF_WAKER_SOFTIRQ] = "softirq",
		[MUXBPF_WAKER_TASK] = "task",
		[MUXBPF_WAKER_SELF] = "own thread",
	};

	return kind < MUXBPF_WAKER__COUNT ? names[kind] : "unknown";
}

const char *softirq_name(uint32_t vec)
{
	/* include/linux/interrupt.h's order, stable since 2.6.x */
	static const char *const names[] = { "hi",	"timer",   "net_tx", "net_rx", "block",
					     "irq_poll", "tasklet", "sched",  "hrtimer", "rcu" };

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "softirq?";
}

void ledger_data__free(struct mb_ledger_data *d)
{
	free(d->sys);
	free(d->sites);
	free(d->wakes);
	free(d->threads);
	memset(d, 0, sizeof(*d));
}

void inflight__free(struct mb_inflight *f)
{
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

double ledger_site_cpu_sq(const struct ledger_site_row *s)
{
	return 256.0 * (double)s->cpu_sq;
}

void ledger_site_sums(const struct phase_ledger *l, uint32_t nr, double *cpu, double *cpu_sq)
{
	*cpu = *cpu_sq = 0;
	for (size_t i = 0; i < l->nsites; i++)
		if (l->sites[i].nr == nr) {
			*cpu += (double)l->sites[i].cpu_ns;
			*cpu_sq += ledger_site_cpu_sq(&l->sites[i]);
		}
}

void phase_ledger__free(struct phase_ledger *l)
{
	free(l->sys);
	free(l->sites);
	free(l->wakes);
	memset(l, 0, sizeof(*l));
}

/* Grow an array of rows by one zeroed element; NULL on ENOMEM. */
static void *push(void **arr, size_t *n, size_t size)
{
	char *v = realloc(*arr, (*n + 1) * size);

	if (!v)
		return NULL;
	memset(v + *n * size, 0, size);
	*arr = v;
	return v + (*n)++ * size;
}

static struct ledger_sys_row *sys_row(struct phase_ledger *l, uint32_t nr)
{
	struct ledger_sys_row *r;

	for (size_t i = 0; i < l->nsys; i++)
		if (l->sys[i].nr == nr)
			return &l->sys[i];
	r = push((void **)&l->sys, &l->nsys, sizeof(*r));
	if (r)
		r->nr = nr;
	return r;
}

static struct ledger_site_row *site_row(struct phase_ledger *l, uint32_t nr, int32_t stack_id)
{
	struct ledger_site_row *r;

	for (size_t i = 0; i < l->nsites; i++)
		if (l->sites[i].nr == nr && l->sites[i].stack_id == stack_id)
			return &l->sites[i];
	r = push((void **)&l->sites, &l->nsites, sizeof(*r));
	if (r) {
		r->nr = nr;
		r->stack_id = stack_id;
	}
	return r;
}

static const struct muxbpf_task_rt *rt_of(const struct rt_snapshot *s, uint32_t tid)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->v[i].tid == tid)
			return &s->v[i];
	return NULL;
}

static const struct muxbpf_thread_state *inflight_of(const struct mb_inflight *f, uint32_t tid)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].k == tid && f->v[i].v.nr >= 0)
			return &f->v[i].v;
	return NULL;
}

#define DELTA(field) (b->field - (a ? a->field : 0))

/* Per-thread kernel counters over the window. */
/* The part of [t0, t1] the thread existed in: from its creation to its exit. */
static uint64_t thread_wall(const struct muxbpf_task_rt *t, uint64_t t0, uint64_t t1)
{
	uint64_t from = t->start_ns > t0 ? t->start_ns : t0;
	uint64_t to = t->exit_ns && t->exit_ns < t1 ? t->exit_ns : t1;

	return to > from ? to - from : 0;
}

static void add_threads(struct phase_ledger *l, uint32_t pid, const struct mb_boundary *from,
			const struct mb_boundary *to)
{
	uint64_t wall;

	for (size_t i = 0; i < to->rt->n; i++) {
		const struct muxbpf_task_rt *b = &to->rt->v[i], *a;

		if (b->pid != pid)
			continue;
		a = rt_of(from->rt, b->tid);
		wall = thread_wall(b, from->t_ns, to->t_ns);
		if (!wall && !DELTA(runtime_ns))
			continue; /* exited before the window, or born after it */
		l->threads++;
		l->thread_wall_ns += wall;
		l->oncpu_ns += DELTA(runtime_ns);
		l->run_delay_ns += DELTA(run_delay_ns);
		l->pcount += DELTA(pcount);
		l->nvcsw += DELTA(nvcsw);
		l->nivcsw += DELTA(nivcsw);
		l->min_flt += DELTA(min_flt);
		l->maj_flt += DELTA(maj_flt);
	}
}

static uint64_t sub_clamp(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * CPU a call in flight had used by the reading b (taken at t; the thread may be on CPU then).
 * A state that says "on CPU" while the thread's switch count has moved past the switch-outs
 * seen lost a switch-out: it would count the sleep since then as CPU, so the kernel's runtime
 * since entry stands in (at most a tick old, like the sys_exit fallback).
 */
static uint64_t inflight_cpu(const struct muxbpf_thread_state *s, uint32_t tid,
			     const struct mb_boundary *b)
{
	const struct muxbpf_task_rt *rt = rt_of(b->rt, tid);
	uint64_t t = b->t_ns;

	if (s->off)
		return s->cpu_ns;
	if (rt && rt->nvcsw + rt->nivcsw != s->csw + s->outs) {
		uint64_t est = sub_clamp(rt->runtime_ns, s->rt_enter);

		return est < t - s->enter_ns ? est : t - s->enter_ns;
	}
	return s->cpu_ns + (t > s->run_ns ? t - s->run_ns : 0);
}

/*
 * Move a part of a call (wall, time on a CPU, of which stolen) into (sign > 0) or out of
 * (sign < 0) the window.  Only the syscall table: a call's site is walked at its exit, and
 * booked whole to the phase it returns in.
 */
static int adjust(struct phase_ledger *l, const struct muxbpf_thread_state *s, int sign,
		  uint64_t wall, uint64_t cpu, uint64_t stolen)
{
	struct ledger_sys_row *r = sys_row(l, (uint32_t)s->nr);

	if (!r)
		return -ENOMEM;
	stolen = stolen < cpu ? stolen : cpu;
	cpu -= stolen;
	if (sign > 0) {
		r->wall_ns += wall;
		r->cpu_ns += cpu;
		r->stolen_ns += stolen;
	} else {
		r->wall_ns = sub_clamp(r->wall_ns, wall);
		r->cpu_ns = sub_clamp(r->cpu_ns, cpu);
		r->stolen_ns = sub_clamp(r->stolen_ns, stolen);
	}
	return 0;
}

/*
 * A call is booked whole to the phase it returns in.  Trim the part of a call that was in flight
 * when the window opened (before T0) and add the part of the one in flight when it closed.  A
 * thread that exited in the window is in flight in exit(), which never returns: that call ends
 * where the thread does, not at T1 (else the time from its death to T1 counts as blocked in
 * exit(): milliseconds in a slow VM, a negative leftover).
 */
static int fix_inflight(struct phase_ledger *l, uint32_t tid, const struct mb_boundary *from,
			const struct mb_boundary *to)
{
	const struct muxbpf_thread_state *f0 = inflight_of(from->inflight, tid);
	const struct muxbpf_thread_state *f1 = inflight_of(to->inflight, tid);
	const struct muxbpf_task_rt *rt = rt_of(to->rt, tid);
	uint64_t t0 = from->t_ns, t1 = to->t_ns;
	int err = 0;

	if (rt && rt->exit_ns && rt->exit_ns < t1)
		t1 = rt->exit_ns > t0 ? rt->exit_ns : t0;

	/* stolen_in: as of the call's last switch (a part running at the boundary has none) */
	if (f0 && f1 && f0->enter_ns == f1->enter_ns)
		return adjust(l, f1, 1, t1 - t0,
			      sub_clamp(inflight_cpu(f1, tid, to), inflight_cpu(f0, tid, from)),
			      sub_clamp(f1->stolen_in, f0->stolen_in));
	if (f0)
		err = adjust(l, f0, -1, sub_clamp(t0, f0->enter_ns), inflight_cpu(f0, tid, from),
			     f0->stolen_in);
	if (f1 && !err)
		err = adjust(l, f1, 1, t1 - (f1->enter_ns > t0 ? f1->enter_ns : t0),
			     inflight_cpu(f1, tid, to), f1->stolen_in);
	return err;
}

static int add_syscalls(struct phase_ledger *l, const struct mb_ledger_data *d,
			unsigned int phase)
{
	for (size_t i = 0; i < d->nsys; i++) {
		struct ledger_sys_row *r;

		if (d->sys[i].k.phase != phase)
			continue;
		r = sys_row(l, d->sys[i].k.nr);
		if (!r)
			return -ENOMEM;
		r->count += d->sys[i].v.count;
		r->cpu_ns += d->sys[i].v.cpu_ns;
		r->wall_ns += d->sys[i].v.wall_ns;
		r->inexact += d->sys[i].v.inexact;
		r->stolen_ns += d->sys[i].v.stolen_ns;
	}
	for (size_t i = 0; i < d->nsites; i++) {
		struct ledger_site_row *r;

		if (d->sites[i].k.phase != phase)
			continue;
		r = site_row(l, d->sites[i].k.nr, d->sites[i].k.stack_id);
		if (!r)
			return -ENOMEM;
		r->count += d->sites[i].v.count;
		r->cpu_ns += d->sites[i].v.cpu_ns;
		r->wall_ns += d->sites[i].v.wall_ns;
		r->cpu_sq += d->sites[i].v.cpu_sq;
		r->walk_ns += d->sites[i].v.walk_ns;
	}
	return 0;
}

static int add_wakes(struct phase_ledger *l, const struct mb_ledger_data *d, unsigned int phase)
{
	for (size_t i = 0; i < d->nwakes; i++) {
		const struct muxbpf_wake_key *k = &d->wakes[i].k;
		struct ledger_wake_row *r = NULL;

		if (k->phase != phase)
			continue;
		/* Other processes are grouped by name: 32 slave processes are one row. */
		for (size_t j = 0; j < l->nwakes && !r; j++)
			if (l->wakes[j].kind == k->kind && l->wakes[j].detail == k->detail &&
			    (k->kind == MUXBPF_WAKER_TASK
				     ? !strncmp(l->wakes[j].comm, d->wakes[i].v.comm,
						sizeof(l->wakes[j].comm) - 1)
				     : l->wakes[j].pid == k->waker_pid))
				r = &l->wakes[j];
		if (!r) {
			r = push((void **)&l->wakes, &l->nwakes, sizeof(*r));
			if (!r)
				return -ENOMEM;
			r->kind = k->kind;
			r->pid = k->waker_pid;
			r->pids = 1;
			r->detail = k->detail;
			memcpy(r->comm, d->wakes[i].v.comm, sizeof(r->comm));
			r->comm[sizeof(r->comm) - 1] = 0;
		}
		if (r->pid != k->waker_pid)
			r->pids++;
		r->count += d->wakes[i].v.count;
		l->wakeups += d->wakes[i].v.count;
	}
	return 0;
}

static int cmp_sys(const void *a, const void *b)
{
	const struct ledger_sys_row *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	if (x->wall_ns != y->wall_ns)
		return x->wall_ns < y->wall_ns ? 1 : -1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static int cmp_site(const void *a, const void *b)
{
	const struct ledger_site_row *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	if (x->wall_ns != y->wall_ns)
		return x->wall_ns < y->wall_ns ? 1 : -1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static int cmp_wake(const void *a, const void *b)
{
	const struct ledger_wake_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static void totals(struct phase_ledger *l, const struct mb_ledger_data *d, unsigned int phase)
{
	for (size_t i = 0; i < l->nsites; i++) {
		l->site_cpu_ns += l->sites[i].cpu_ns;
		l->site_walk_ns += l->sites[i].walk_ns;
	}
	for (size_t i = 0; i < l->nsys; i++) {
		l->sys_cpu_ns += l->sys[i].cpu_ns;
		l->sys_wall_ns += l->sys[i].wall_ns;
		l->sys_count += l->sys[i].count;
		l->sys_inexact += l->sys[i].inexact;
		l->sys_stolen_ns += l->sys[i].stolen_ns;
	}
	for (size_t i = 0; i < d->nthreads; i++) {
		if (d->threads[i].k.phase != phase)
			continue;
		l->preempt_user_ns += d->threads[i].v.preempt_user_ns;
		l->switch_path_ns += (int64_t)d->threads[i].v.switch_path_ns;
		l->stolen_ns += d->threads[i].v.stolen_ns;
		l->rt_before_in_ns += d->threads[i].v.rt_before_in_ns;
		l->switch_in_missed += d->threads[i].v.missed_in;
	}
	/* a call's wall: its CPU, the time stolen from it, and the rest off the CPU */
	l->sys_off_ns = sub_clamp(l->sys_wall_ns, l->sys_cpu_ns + l->sys_stolen_ns);
	l->user_ns = sub_clamp(l->oncpu_ns, l->sys_cpu_ns + l->site_walk_ns);
	l->leftover_ns = (int64_t)l->thread_wall_ns - (int64_t)l->oncpu_ns -
			 (int64_t)l->sys_off_ns - (int64_t)l->preempt_user_ns - l->switch_path_ns -
			 (int64_t)l->stolen_ns + (int64_t)l->rt_before_in_ns;
	l->lost = phase < MUXBPF_MAX_PHASES ? d->lost[phase] : 0;
	for (int m = 0; m < MUXBPF_LMAP__COUNT && phase < MUXBPF_MAX_PHASES; m++)
		l->lost_by[m] = d->lost_by[phase][m];
}

int ledger_build(const struct mb_ledger_data *d, unsigned int phase, uint32_t pid,
		 const struct mb_boundary *from, const struct mb_boundary *to,
		 struct phase_ledger *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	out->wall_ns = to->t_ns > from->t_ns ? to->t_ns - from->t_ns : 0;
	add_threads(out, pid, from, to);
	err = add_syscalls(out, d, phase);
	for (size_t i = 0; !err && i < to->rt->n; i++)
		if (to->rt->v[i].pid == pid)
			err = fix_inflight(out, to->rt->v[i].tid, from, to);
	if (!err)
		err = add_wakes(out, d, phase);
	if (err) {
		phase_ledger__free(out);
		return err;
	}
	totals(out, d, phase);
	if (out->nsys)
		qsort(out->sys, out->nsys, sizeof(*out->sys), cmp_sys);
	if (out->nsites)
		qsort(out->sites, out->nsites, sizeof(*out->sites), cmp_site);
	if (out->nwakes)
		qsort(out->wakes, out->nwakes, sizeof(*out->wakes), cmp_wake);
	return 0;
}
