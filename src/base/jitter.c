// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Re-draw the sampler events' periods at random, from a thread of muxbpf's own.
 *
 * What the kernel does (kernel/events/core.c, 6.x): a cpu-clock event opened with freq is turned
 * into a fixed period in ns at init, and its hrtimer re-arms itself with hw.sample_period at
 * each expiry.  PERF_EVENT_IOC_PERIOD sets that period and zeroes period_left; on an active
 * event it stops and restarts the timer, on an inactive one (the task is off CPU) the timer
 * starts afresh at the next switch-in.  Either way the new period runs from the ioctl, and the
 * CPU time since the last sample is thrown away.  The ioctl reaches only the event of its fd,
 * not the inherited events of threads and children created later: those keep the first period.
 * On a running task it costs an IPI to the task's CPU.
 *
 * Throwing time away at a random moment would leave a dead zone after every redraw, and a
 * redraw while the target sleeps would put that dead zone at the start of its next burst of
 * work: a bias against what netmux does first when a command arrives.  So a period is re-drawn
 * only right after a sample of its thread (the sampler program stores the last sample's tid and
 * time in .bss): what is thrown away is then the time from that sample to the ioctl, at most
 * 0.1 ms, measured, and made up for by slightly shorter periods.  It is measured in
 * wall time, so on a loaded machine, where the target may be preempted in between, the rate
 * comes out slightly high (bpf_perf_prog_read_value would give the event's own time, but the
 * kernel refuses it on inherited events).
 *
 * Every 8-24 samples a new period is drawn uniformly from 0.5-1.5 times the mean, each draw
 * fresh: a sample's phase in a cycle of the work moves by a random amount at every redraw, and
 * no cycle can hold the samples at one point of it for longer than a segment.  (Antithetic
 * pairs of draws would keep the rate steadier but make the phase advance over two segments
 * fixed: lock step again, measured at +1.5 points on tests/targets/synth 'a'.)
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <linux/perf_event.h>
#include "base/clock.h"
#include "base/jitter.h"

/* Periods drawn from mean * [1 - WIDTH, 1 + WIDTH]. */
#define JITTER_WIDTH 0.5
/* A redraw after 8-24 periods (16 on average): each costs an IPI and ~0.1 ms of sampling. */
#define JITTER_MIN_SAMPLES 8
#define JITTER_MAX_SAMPLES 24
/*
 * Wake this long after the sample we expect; redraw only if the sample is under
 * min(JITTER_WINDOW_NS, mean period / 8) old.  The window must not depend on the period drawn:
 * a short period's window would be missed more often on a loaded machine, its segment would
 * run longer, and the rate would come out high (+10-19% measured with a quarter period).
 */
#define JITTER_WAKE_NS 20000
#define JITTER_WINDOW_NS 100000
/* No sample for this long: the target sleeps; look again every half of it. */
#define JITTER_IDLE_NS 20000000ull

struct jitter_event {
	int fd;
	pid_t tid;
	uint64_t period_ns;  /* the period in force */
	uint64_t redraw_ns;  /* CLOCK_MONOTONIC of the last redraw */
	uint64_t due_ns;     /* redraw at the first sample after this */
	double debt_ns;      /* time the drawn periods ran over their mean, to pay back */
};

struct jitter {
	pthread_t thread;
	struct jitter_event *ev;
	int nev;
	int freq;
	struct jitter_sample last;
	uint64_t state;
	uint64_t redraws;
	uint64_t failed;   /* redraws the kernel refused */
	int err;           /* the last refusal's errno */
	double lost_ns;    /* time from a sample to the redraw after it, summed */
	uint64_t window_ns;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
};

uint64_t jitter_period_ns(int freq, double u, double lost_ns, int n)
{
	double mean_ns = 1e9 / (freq > 0 ? freq : 1);
	/* n periods and the time thrown away at the redraw make n mean periods */
	double base = mean_ns - lost_ns / (n > 0 ? n : 1);
	double ns = base * (1 - JITTER_WIDTH + 2 * JITTER_WIDTH * u);

	return ns > 10000 ? (uint64_t)ns : 10000; /* the kernel's floor for hrtimer events */
}

/* xorshift64*: uniform in [0, 1). */
static double draw(struct jitter *j)
{
	j->state ^= j->state >> 12;
	j->state ^= j->state << 25;
	j->state ^= j->state >> 27;
	return (double)((j->state * 2685821657736338717ull) >> 11) / (double)(1ull << 53);
}

/* Right after the sample at sample_ns of e's thread: a new period for the next n samples. */
static void redraw(struct jitter *j, struct jitter_event *e, uint64_t sample_ns)
{
	int n = JITTER_MIN_SAMPLES + (int)(draw(j) * (JITTER_MAX_SAMPLES - JITTER_MIN_SAMPLES + 1));
	double mean_ns = 1e9 / j->freq, lost;
	int64_t ns;

	/* the whole window per redraw (the most it can be) until one is measured */
	lost = j->redraws ? j->lost_ns / j->redraws : (double)j->window_ns;
	/* the time the periods drawn so far ran over their mean is paid back over a few redraws */
	ns = (int64_t)jitter_period_ns(j->freq, draw(j), lost, n) - (int64_t)(e->debt_ns / (4.0 * n));
	if (ns < 10000)
		ns = 10000;
	if (ioctl(e->fd, PERF_EVENT_IOC_PERIOD, &(uint64_t){ (uint64_t)ns }) < 0) {
		/* the period in force stays: counted, and tried again after n more of its samples */
		__atomic_store_n(&j->err, errno, __ATOMIC_RELAXED);
		__atomic_store_n(&j->failed, j->failed + 1, __ATOMIC_RELAXED);
		e->redraw_ns = mono_ns();
		e->due_ns = e->redraw_ns + (n - 1) * e->period_ns + e->period_ns / 2;
		return;
	}
	e->debt_ns += n * ((double)ns - (mean_ns - lost / n));
	e->period_ns = ns;
	e->redraw_ns = mono_ns();
	j->lost_ns += e->redraw_ns > sample_ns ? e->redraw_ns - sample_ns : 0;
	e->due_ns = e->redraw_ns + (n - 1) * ns + ns / 2;
	__atomic_store_n(&j->redraws, j->redraws + 1, __ATOMIC_RELAXED);
}

/* The last sample, read consistently (the program stores tid, then time). */
static void last_sample(struct jitter *j, pid_t *tid, uint64_t *ns)
{
	uint32_t a, b;

	do {
		a = __atomic_load_n(j->last.tid, __ATOMIC_ACQUIRE);
		*ns = __atomic_load_n(j->last.ns, __ATOMIC_ACQUIRE);
		b = __atomic_load_n(j->last.tid, __ATOMIC_ACQUIRE);
	} while (a != b);
	*tid = (pid_t)a;
}

/* Sleep until CLOCK_MONOTONIC reaches t or we are stopped; false when stopped. */
static bool sleep_until(struct jitter *j, uint64_t t)
{
	struct timespec until = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

	while (!j->stop && pthread_cond_timedwait(&j->cond, &j->lock, &until) != ETIMEDOUT)
		;
	return !j->stop;
}

/* Wake just after the next sample expected of an event that is due, or poll while idle. */
static uint64_t next_wake(struct jitter *j, pid_t tid, uint64_t ns)
{
	uint64_t now = mono_ns(), next = UINT64_MAX;

	if (ns > now)
		now = ns;
	for (int i = 0; i < j->nev; i++) {
		const struct jitter_event *d = &j->ev[i];
		uint64_t at = d->due_ns;

		if (d->tid == tid && ns + d->period_ns > at)
			at = ns + d->period_ns;
		if (at < next)
			next = at;
	}
	if (now - ns > JITTER_IDLE_NS)
		return now + JITTER_IDLE_NS / 2;
	next += JITTER_WAKE_NS;
	return next > now ? next : now + (uint64_t)(1e9 / j->freq);
}

static void *jitter_main(void *arg)
{
	struct jitter *j = arg;
	uint64_t wake = mono_ns();

	/* wake within µs of the time asked for: the default 50 µs slack is a fifth of the window */
	prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0);
	pthread_mutex_lock(&j->lock);
	while (sleep_until(j, wake)) {
		uint64_t now = mono_ns(), ns;
		struct jitter_event *e = NULL;
		pid_t tid;

		last_sample(j, &tid, &ns);
		for (int i = 0; i < j->nev; i++)
			if (j->ev[i].tid == tid)
				e = &j->ev[i];
		if (ns > now)
			now = ns; /* a sample between the two reads */
		if (e && ns > e->redraw_ns && ns >= e->due_ns && now - ns < j->window_ns)
			redraw(j, e, ns);
		wake = next_wake(j, tid, ns);
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

struct jitter *jitter__new(const struct jitter_opts *o)
{
	struct jitter *j = calloc(1, sizeof(*j));
	pthread_condattr_t ca;
	uint64_t t = mono_ns();
	int err;

	if (!j)
		return NULL;
	j->ev = calloc(o->nfds ? o->nfds : 1, sizeof(*j->ev));
	if (!j->ev) {
		free(j);
		return NULL;
	}
	j->nev = o->nfds;
	j->freq = o->freq > 0 ? o->freq : 1;
	j->window_ns = 1e9 / j->freq / 8 < JITTER_WINDOW_NS ? 1e9 / j->freq / 8 : JITTER_WINDOW_NS;
	for (int i = 0; i < o->nfds; i++)
		j->ev[i] = (struct jitter_event){ .fd = o->fds[i], .tid = o->tids[i],
						  .period_ns = 1e9 / j->freq, .redraw_ns = t,
						  .due_ns = t };
	j->last = o->last;
	if (getrandom(&j->state, sizeof(j->state), 0) != sizeof(j->state))
		j->state = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	j->state |= 1;
	pthread_mutex_init(&j->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cond, &ca);
	pthread_condattr_destroy(&ca);
	err = pthread_create(&j->thread, NULL, jitter_main, j);
	if (err) {
		pthread_cond_destroy(&j->cond);
		pthread_mutex_destroy(&j->lock);
		free(j->ev);
		free(j);
		errno = err;
		return NULL;
	}
	return j;
}

void jitter__free(struct jitter *j)
{
	if (!j)
		return;
	pthread_mutex_lock(&j->lock);
	j->stop = true;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	pthread_join(j->thread, NULL);
	pthread_cond_destroy(&j->cond);
	pthread_mutex_destroy(&j->lock);
	free(j->ev);
	free(j);
}

void jitter__stats(const struct jitter *j, struct jitter_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!j)
		return;
	st->redraws = __atomic_load_n(&j->redraws, __ATOMIC_RELAXED);
	st->failed = __atomic_load_n(&j->failed, __ATOMIC_RELAXED);
	st->err = __atomic_load_n(&j->err, __ATOMIC_RELAXED);
	st->lost_ns = st->redraws ? j->lost_ns / st->redraws : 0;
}
