// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Snapshot the ledger maps (bpf/ledger.bpf.c) into plain structs. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collect_ledger.h"
#include "log.h"
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
		if (n == cap) {
			char *v = realloc(recs, (cap = cap ? cap * 2 : 256) * rec_size);

			if (!v) {
				free(recs);
				return -ENOMEM;
			}
			recs = v;
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

int collect_ledger(struct profiler *p, struct mb_ledger_data *d)
{
	struct muxbpf_bpf *skel = profiler__skel(p);
	int err;

	memset(d, 0, sizeof(*d));
	err = DUMP(skel->maps.syscalls, d->sys, d->nsys);
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
