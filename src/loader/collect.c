// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Snapshot the BPF maps into plain structs for the pure stages downstream. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/grow.h"
#include "base/clock.h"
#include "loader/collect.h"
#include "base/log.h"
#include "muxbpf.skel.h"
#include "loader/unwind.h"

static int rt_push(struct rt_snapshot *s, size_t *cap, const struct muxbpf_task_rt *rt)
{
	if (mb_grow((void **)&s->v, cap, s->n + 1, sizeof(*s->v), 64))
		return -ENOMEM;
	s->v[s->n++] = *rt;
	return 0;
}

static bool rt_has(const struct rt_snapshot *s, uint32_t tid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].tid == tid)
			return true;
	return false;
}

static int read_iter(struct profiler *p, struct rt_snapshot *out, size_t *cap)
{
	struct muxbpf_task_rt rt;
	int fd, err = 0;
	ssize_t n;

	fd = bpf_iter_create(profiler__iter_fd(p));
	if (fd < 0) {
		pr_err("failed to create task iterator: %s", strerror(errno));
		return -errno;
	}
	/* The iterator writes whole records; a short read only happens at the end. */
	while ((n = read(fd, &rt, sizeof(rt))) == sizeof(rt)) {
		err = rt_push(out, cap, &rt);
		if (err)
			break;
	}
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

/*
 * An exited thread's record, once its runtime is final.  A thread runs on after
 * sched_process_exit: through exit_notify, where the kernel releases it (its task directory goes,
 * the process's CPU clock takes its time), to its last switch-out.  A reading between the two
 * would book less than the process clock already holds: milliseconds once in a TCG guest whose
 * vCPU stalled there.  So wait for the switch-out, briefly: it is microseconds away on a machine
 * that runs.
 */
#define RT_EXIT_WAIT_MS 100 /* an exit without its last switch-out by then: as it stands */

static void exited_final(int map_fd, __u32 tid, struct muxbpf_task_rt *rt)
{
	bool waited = false;

	/* (by its exit's time, not per reading: a switch-out missed once costs one wait) */
	while (!rt->dead_ns && mono_ns() - rt->exit_ns < RT_EXIT_WAIT_MS * 1000000ull) {
		struct timespec ts = { 0, 1000000 };

		waited = true;
		nanosleep(&ts, NULL);
		if (bpf_map_lookup_elem(map_fd, &tid, rt))
			return;
	}
	if (waited && !rt->dead_ns)
		pr_verbose("thread %u: no last switch-out %d ms after its exit; its runtime is as of "
			   "then", tid, RT_EXIT_WAIT_MS);
}

int collect_runtime(struct profiler *p, struct rt_snapshot *out)
{
	int map_fd = bpf_map__fd(profiler__skel(p)->maps.exited);
	struct muxbpf_task_rt rt;
	__u32 key, next;
	__u32 *prev = NULL;
	size_t cap = 0;
	int err;

	memset(out, 0, sizeof(*out));
	err = read_iter(p, out, &cap);
	while (!err && bpf_map_get_next_key(map_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(map_fd, &key, &rt) || rt_has(out, rt.tid))
			continue;
		exited_final(map_fd, key, &rt);
		err = rt_push(out, &cap, &rt);
	}
	if (err)
		rt_snapshot__free(out);
	return err;
}

static int read_stats(struct profiler *p, struct mb_profile *out)
{
	int fd = bpf_map__fd(profiler__skel(p)->maps.sample_stats);
	int ncpu = libbpf_num_possible_cpus();
	struct muxbpf_phase_stats *per_cpu;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	per_cpu = calloc(ncpu, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	for (__u32 ph = 0; ph < MUXBPF_MAX_PHASES; ph++) {
		struct muxbpf_phase_stats *sum = &out->stats[ph];

		if (bpf_map_lookup_elem(fd, &ph, per_cpu))
			continue;
		for (int c = 0; c < ncpu; c++) {
			sum->taken += per_cpu[c].taken;
			sum->recorded += per_cpu[c].recorded;
			for (int d = 0; d < MUXBPF_DROP__COUNT; d++)
				sum->dropped[d] += per_cpu[c].dropped[d];
			sum->walks += per_cpu[c].walks;
			sum->frames += per_cpu[c].frames;
			sum->fp_frames += per_cpu[c].fp_frames;
			for (int e = 0; e < MUXBPF_WALK_END__COUNT; e++)
				sum->walk_end[e] += per_cpu[c].walk_end[e];
		}
	}
	free(per_cpu);
	return 0;
}

/* Fill one sample from its key: the stack from the stack maps, or the leaf ip alone. */
static int fill_sample(const struct mb_stack_table *stacks, const struct muxbpf_sample_key *k,
		       __u64 count, __u64 *stack_buf, struct mb_sample *s)
{
	uint32_t nr = 0;

	s->phase = k->phase;
	s->pid = k->pid;
	s->tid = k->tid;
	s->count = count;
	s->stack_err = k->stack_id < 0 ? k->stack_id : 0;
	if (k->stack_id >= 0) {
		const struct mb_stack *st = stack_table__find(stacks, k->stack_id);

		if (st) {
			nr = st->nr;
			memcpy(stack_buf, st->ips, nr * sizeof(*stack_buf));
		}
		if (nr == 0)
			s->stack_err = -ENOENT;
	}
	if (nr == 0) {
		stack_buf[0] = k->ip;
		nr = k->ip ? 1 : 0;
	}
	s->nr = nr;
	s->ips = malloc((nr ? nr : 1) * sizeof(*s->ips));
	if (!s->ips)
		return -ENOMEM;
	memcpy(s->ips, stack_buf, nr * sizeof(*s->ips));
	return 0;
}

/* The sampler's run count and time so far (zero without bpf_enable_stats). */
static void sampler_cost(struct muxbpf_bpf *skel, struct mb_unwind_summary *u)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.mb_sample), &info, &len))
		return;
	u->sampler_runs = info.run_cnt;
	u->sampler_run_ns = info.run_time_ns;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct mb_stack *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Read the content-addressed bucket maps (fds in MUXBPF_STACK_BUCKET_DEPTHS order).  0 or -errno. */
static int stack_table__read(const int fds[MUXBPF_STACK_BUCKETS], struct mb_stack_table *out)
{
	static const int depths[MUXBPF_STACK_BUCKETS] = MUXBPF_STACK_BUCKET_DEPTHS;
	__u64 key[MUXBPF_MAX_STACK_DEPTH], next[MUXBPF_MAX_STACK_DEPTH];
	struct muxbpf_stack_val val;
	size_t cap = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (int b = 0; b < MUXBPF_STACK_BUCKETS && !err; b++) {
		void *prev = NULL;

		while (bpf_map_get_next_key(fds[b], prev, next) == 0) {
			struct mb_stack *s;
			uint32_t nr = 0;

			memcpy(key, next, depths[b] * sizeof(__u64));
			prev = key;
			if (bpf_map_lookup_elem(fds[b], key, &val))
				continue;
			err = mb_grow((void **)&out->v, &cap, out->n + 1, sizeof(*out->v), 1024);
			if (err)
				break;
			while (nr < (uint32_t)depths[b] && key[nr])
				nr++;
			s = &out->v[out->n];
			s->id = val.id;
			s->end = val.end;
			s->nr = nr;
			s->ips = malloc((nr ? nr : 1) * sizeof(*s->ips));
			if (!s->ips) {
				err = -ENOMEM;
				break;
			}
			memcpy(s->ips, key, nr * sizeof(*s->ips));
			out->n++;
		}
	}
	if (err) {
		stack_table__free(out);
		return err;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_stack);
	return 0;
}

int collect_profile(struct profiler *p, struct mb_profile *out)
{
	struct muxbpf_bpf *skel = profiler__skel(p);
	int samples_fd = bpf_map__fd(skel->maps.samples);
	int stack_fds[MUXBPF_STACK_BUCKETS] = {
		bpf_map__fd(skel->maps.ustacks_16), bpf_map__fd(skel->maps.ustacks_32),
		bpf_map__fd(skel->maps.ustacks_64), bpf_map__fd(skel->maps.ustacks_127) };
	struct muxbpf_sample_key key, next, *prev = NULL;
	struct mb_stack_table stacks;
	__u64 stack_buf[MUXBPF_MAX_STACK_DEPTH];
	size_t cap = 0;
	__u64 count;
	int err;

	memset(out, 0, sizeof(*out));
	err = read_stats(p, out);
	out->exits_lost = skel->bss->exits_lost;
	profiler__period_stats(p, out);
	unwinder__summary(profiler__unwinder(p), &out->unwind);
	sampler_cost(skel, &out->unwind);
	if (!err)
		err = stack_table__read(stack_fds, &stacks);
	if (err) {
		profile__free(out);
		return err;
	}
	while (!err && bpf_map_get_next_key(samples_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(samples_fd, &key, &count))
			continue;
		err = mb_grow((void **)&out->samples, &cap, out->n + 1, sizeof(*out->samples),
			      1024);
		if (err)
			break;
		err = fill_sample(&stacks, &key, count, stack_buf, &out->samples[out->n]);
		if (!err)
			out->n++;
	}
	out->stacks = stacks;
	if (err)
		profile__free(out);
	return err;
}
