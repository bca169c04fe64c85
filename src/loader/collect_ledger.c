// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Snapshot the ledger maps (bpf/ledger.bpf.c) into plain structs. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader/collect_ledger.h"
#include "base/grow.h"
#include "base/log.h"
#include "muxbpf.skel.h"

/*
 * Copy every {key, value} of a hash map into a malloc'd array of records of rec_size bytes
 * (key at offset 0, value at val_off).  Returns the count or -errno.
 */
static long dump_hash(int fd, size_t key_size, size_t val_off, size_t rec_size, void **out)
{
	char key[64], next[64], *recs = NULL;
	size_t n = 0, cap = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, key_size);
		prev = key;
		if (mb_grow((void **)&recs, &cap, n + 1, rec_size, 256)) {
			free(recs);
			return -ENOMEM;
		}
		memcpy(recs + n * rec_size, key, key_size);
		if (bpf_map_lookup_elem(fd, key, recs + n * rec_size + val_off) == 0)
			n++;
	}
	*out = recs;
	return n;
}

#define DUMP(map, arr, nfield)                                                                     \
	({                                                                                         \
		long n__ = dump_hash(bpf_map__fd(map), sizeof((arr)->k),                           \
				     offsetof(typeof(*(arr)), v), sizeof(*(arr)), (void **)&(arr)); \
		if (n__ >= 0)                                                                      \
			nfield = n__;                                                              \
		n__ < 0 ? (int)n__ : 0;                                                            \
	})

static int read_lost(struct profiler *p, struct mb_ledger_data *d)
{
	int fd = bpf_map__fd(profiler__skel(p)->maps.ledger_lost);
	int ncpu = libbpf_num_possible_cpus();
	__u64 *per_cpu;

	if (ncpu <= 0)
		return -EINVAL;
	per_cpu = calloc(ncpu, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	for (__u32 key = 0; key < MUXBPF_MAX_PHASES * MUXBPF_LMAP__COUNT; key++) {
		__u32 ph = key / MUXBPF_LMAP__COUNT, m = key % MUXBPF_LMAP__COUNT;

		if (bpf_map_lookup_elem(fd, &key, per_cpu))
			continue;
		for (int c = 0; c < ncpu; c++) {
			d->lost[ph] += per_cpu[c];
			d->lost_by[ph][m] += per_cpu[c];
		}
	}
	free(per_cpu);
	return 0;
}

/* Did a thread flush its table between the two reads (its cache_epoch moved)? */
static bool flushed_between(const struct mb_inflight *a, const struct mb_inflight *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (a->v[i].k == b->v[j].k && a->v[i].v.cache_epoch != b->v[j].v.cache_epoch)
				return true;
	return false;
}

/* The calls still in the threads' own tables (muxbpf_thread_state.cache), as syscalls rows. */
static int add_cached(struct mb_ledger_data *d, const struct mb_inflight *st)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct muxbpf_thread_state *s = &st->v[i].v;

		for (int j = 0; j < MUXBPF_SYS_CACHE; j++) {
			const struct muxbpf_sys_slot *c = &s->cache[j];
			void *grown;

			if (!c->count)
				continue;
			grown = realloc(d->sys, (d->nsys + 1) * sizeof(*d->sys));
			if (!grown)
				return -ENOMEM;
			d->sys = grown;
			d->sys[d->nsys].k = (struct muxbpf_sys_key){ .phase = s->cache_phase,
								     .tid = st->v[i].k, .nr = c->nr };
			d->sys[d->nsys].v = (struct muxbpf_sys_val){ .count = c->count,
								     .cpu_ns = c->cpu_ns,
								     .wall_ns = c->wall_ns,
								     .inexact = c->inexact,
								     .stolen_ns = c->stolen_ns };
			d->nsys++;
		}
	}
	return 0;
}

/*
 * Did a slot of a's tables move into the map before b was read, mid-window?  A slot moves when
 * another number takes it (its number changes, or its count starts again) or when the whole
 * table is flushed at a boundary.
 */
static bool moved_between(const struct mb_inflight *a, const struct mb_inflight *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++) {
			const struct muxbpf_thread_state *x = &a->v[i].v, *y = &b->v[j].v;

			if (a->v[i].k != b->v[j].k)
				continue;
			if (x->cache_epoch != y->cache_epoch)
				return true;
			for (int s = 0; s < MUXBPF_SYS_CACHE; s++)
				if (x->cache[s].count && (x->cache[s].nr != y->cache[s].nr ||
							  y->cache[s].count < x->cache[s].count))
					return true;
		}
	return false;
}

typedef bool (*moved_fn)(const struct mb_inflight *a, const struct mb_inflight *b);

/*
 * The syscalls map and the threads' tables.  A running target moves a table into the map at its
 * first return after the last boundary (the end of the last window): the map is read between two
 * reads of the tables, again until moved() finds no move in between, so nothing counts twice or
 * not at all.  At the end of a run later moves (slot reuse) concern only the time after the last
 * window; mid-window they count.  *tables (may be NULL) gets the tables of the last read.
 */
static int dump_syscalls(struct profiler *p, struct mb_ledger_data *d, moved_fn moved,
			 struct mb_inflight *tables)
{
	struct muxbpf_bpf *skel = profiler__skel(p);
	struct mb_inflight a = {}, b = {};
	int err = DUMP(skel->maps.thread_state, a.v, a.n);

	for (int tries = 0; !err; tries++) {
		free(d->sys);
		d->sys = NULL;
		d->nsys = 0;
		err = DUMP(skel->maps.syscalls, d->sys, d->nsys);
		if (!err)
			err = DUMP(skel->maps.thread_state, b.v, b.n);
		if (err || !moved(&a, &b) || tries == 9)
			break;
		inflight__free(&a);
		a = b;
		b = (struct mb_inflight){};
	}
	if (!err)
		err = add_cached(d, &b);
	inflight__free(&a);
	if (!err && tables) {
		*tables = b;
		b = (struct mb_inflight){};
	}
	inflight__free(&b);
	return err;
}

int collect_sys_mark(struct profiler *p, unsigned int phase, uint32_t pid,
		     const struct mb_boundary *from, uint64_t t_ns, const struct rt_snapshot *rt,
		     struct ledger_sys_row **rows, size_t *n)
{
	struct mb_ledger_data d = {};
	struct mb_inflight now = {};
	struct phase_ledger l = {};
	int err = dump_syscalls(p, &d, moved_between, &now);

	*rows = NULL;
	*n = 0;
	if (!err) {
		/* the tables as read: a call in flight now is counted to t_ns, as at a boundary */
		struct mb_boundary to = { .t_ns = t_ns, .rt = rt, .inflight = &now };

		err = ledger_build(&d, phase, pid, from, &to, &l);
	}
	ledger_data__free(&d);
	inflight__free(&now);
	if (err)
		return err;
	*rows = l.sys;
	*n = l.nsys;
	l.sys = NULL;
	l.nsys = 0;
	phase_ledger__free(&l);
	return 0;
}

int collect_ledger(struct profiler *p, struct mb_ledger_data *d)
{
	struct muxbpf_bpf *skel = profiler__skel(p);
	int err;

	memset(d, 0, sizeof(*d));
	err = dump_syscalls(p, d, flushed_between, NULL);
	if (!err)
		err = DUMP(skel->maps.sites, d->sites, d->nsites);
	if (!err)
		err = DUMP(skel->maps.wakeups, d->wakes, d->nwakes);
	if (!err)
		err = DUMP(skel->maps.threads, d->threads, d->nthreads);
	if (!err)
		err = read_lost(p, d);
	if (err) {
		pr_err("failed to read the ledger maps: %s", strerror(-err));
		ledger_data__free(d);
	}
	return err;
}

/*
 * The calls in flight at the last boundary (profiler__set_phase), however long after it this
 * runs: a thread whose state an event touched since has its boundary copy in boundary_state,
 * tagged with the boundary; one untouched since is read as it is.  The state is read before the
 * copy, the order bpf/ledger.bpf.c's at_boundary() writes them in reverse.
 */
int collect_inflight(struct profiler *p, struct mb_inflight *f)
{
	struct muxbpf_bpf *skel = profiler__skel(p);
	struct mb_inflight all = {}, copies = {};
	uint32_t ep = profiler__epoch(p);
	int err;

	memset(f, 0, sizeof(*f));
	err = DUMP(skel->maps.thread_state, all.v, all.n);
	if (!err)
		err = DUMP(skel->maps.boundary_state, copies.v, copies.n);
	if (err) {
		inflight__free(&all);
		return err;
	}
	for (size_t i = 0; i < all.n; i++) {
		const struct muxbpf_thread_state *copy = NULL;

		if (all.v[i].v.epoch != ep)
			continue; /* untouched since the boundary */
		for (size_t j = 0; j < copies.n && !copy; j++)
			if (copies.v[j].k == all.v[i].k && copies.v[j].v.epoch == ep)
				copy = &copies.v[j].v;
		if (copy)
			all.v[i].v = *copy;
		else
			all.v[i].v.nr = -1; /* not in a syscall at the boundary */
	}
	inflight__free(&copies);
	*f = all;
	return 0;
}
