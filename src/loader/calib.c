// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The calibration window (calib.h): a thread that waits, reads, and ends it. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "loader/calib.h"
#include "base/clock.h"
#include "base/log.h"

struct calib {
	struct calib_ops ops;
	bool keep_stats;
	double floor_ns;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop, done, stats_on, joined;
	struct mb_calib_reading start;
	struct mb_calib result;
};

static uint64_t timed_enters(const struct mb_calib_reading *r)
{
	return r->counts.timed[MUXBPF_PROG_SYS_ENTER];
}

/* Read the end, close the window (the programs stop timing), drop the
 * statistics. */
static void finish(struct calib *c)
{
	struct mb_calib_reading end;
	struct mb_calib res;

	c->ops.read(c->ops.ctx, &end);
	c->ops.end(c->ops.ctx, c->keep_stats);
	calib_from(&c->start, &end, &res);
	res.floor_ns = c->floor_ns;
	pthread_mutex_lock(&c->lock);
	c->result = res;
	c->done = true;
	c->stats_on = c->keep_stats;
	pthread_mutex_unlock(&c->lock);
	pr_verbose("calibration: %.2f s, %llu target runs, %llu early exits; "
		   "sys_enter %.0f / %.0f "
		   "ns, sys_exit %.0f / %.0f ns per target run / early exit",
		   res.seconds, (unsigned long long)res.target_runs, (unsigned long long)res.exits,
		   res.run_ns[MUXBPF_PROG_SYS_ENTER], res.exit_ns[MUXBPF_PROG_SYS_ENTER],
		   res.run_ns[MUXBPF_PROG_SYS_EXIT], res.exit_ns[MUXBPF_PROG_SYS_EXIT]);
}

static void *calib_thread(void *arg)
{
	struct calib *c = arg;
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct timespec until;
		struct mb_calib_reading now;
		uint64_t ms = (clock_ns(CLOCK_MONOTONIC) - t0) / 1000000;

		if (c->stop || ms >= CALIB_MAX_MS)
			break;
		if (ms >= CALIB_MIN_MS) {
			pthread_mutex_unlock(&c->lock);
			c->ops.read(c->ops.ctx, &now);
			pthread_mutex_lock(&c->lock);
			if (timed_enters(&now) - timed_enters(&c->start) >= CALIB_MIN_RUNS)
				break;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 50 * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&c->cond, &c->lock, &until);
	}
	pthread_mutex_unlock(&c->lock);
	finish(c);
	return NULL;
}

struct calib *calib__start(const struct calib_ops *ops, bool keep_stats, double floor_ns)
{
	struct calib *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return NULL;
	c->ops = *ops;
	c->keep_stats = keep_stats;
	c->floor_ns = floor_ns;
	c->stats_on = true;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->ops.read(c->ops.ctx, &c->start);
	err = pthread_create(&c->thread, NULL, calib_thread, c);
	if (err) {
		pthread_cond_destroy(&c->cond);
		pthread_mutex_destroy(&c->lock);
		free(c);
		errno = err;
		return NULL;
	}
	return c;
}

void calib__get(struct calib *c, struct mb_calib *out)
{
	memset(out, 0, sizeof(*out));
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	if (c->done)
		*out = c->result;
	pthread_mutex_unlock(&c->lock);
}

bool calib__stats_on(struct calib *c)
{
	bool on;

	if (!c)
		return false;
	pthread_mutex_lock(&c->lock);
	on = c->stats_on;
	pthread_mutex_unlock(&c->lock);
	return on;
}

void calib__finish(struct calib *c)
{
	if (!c || c->joined)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	c->joined = true;
}

void calib__free(struct calib *c)
{
	if (!c)
		return;
	calib__finish(c);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
