// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Cost readings (BPF run-time statistics, muxbpf's CPU) and the map occupancy watch. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader/calib.h"
#include "base/clock.h"
#include "loader/collect_live.h"
#include "base/log.h"
#include "muxbpf.h"
#include "mapcount.skel.h"
#include "muxbpf.skel.h"
#include "loader/preflight.h"

void cost_read(struct profiler *p, struct mb_cost_reading *out)
{
	struct bpf_program *prog;

	memset(out, 0, sizeof(*out));
	out->valid = true;
	out->self_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	out->t_ns = clock_ns(CLOCK_MONOTONIC);
	if (!p)
		return;
	out->stats_on = calib__stats_on(profiler__calib(p));
	calib__get(profiler__calib(p), &out->calib);
	out->phase_old = profiler__prev_phase(p);
	out->phase_new = profiler__phase(p);
	out->counted =
		!profiler__run_counts(p, out->phase_old, &out->old_counts, &out->old_samples) &&
		!profiler__run_counts(p, out->phase_new, &out->new_counts, &out->new_samples);
	bpf_object__for_each_program(prog, profiler__skel(p)->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || out->nprogs == MB_COST_PROGS ||
		    bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		snprintf(out->progs[out->nprogs].name, MB_COST_NAME, "%s",
			 bpf_program__name(prog));
		out->progs[out->nprogs].runs = info.run_cnt;
		out->progs[out->nprogs].run_ns = info.run_time_ns;
		out->nprogs++;
	}
}

struct mapwatch {
	struct profiler *p;
	struct mapcount_bpf *mc; /* bpf/mapcount.bpf.c, or NULL: walk the keys */
	struct bpf_link *iter;
	struct mb_maps_occ occ;
	int fds[MB_MAX_WATCHED];
	uint32_t key_size[MB_MAX_WATCHED];
	uint64_t said[4];    /* drop counts last warned about, by kind */
	uint64_t said_ns[4]; /* and when */
	void *batch; /* per-CPU values of one drop counter entry */
	size_t batch_size;
	uint64_t drops[MUXBPF_MAX_PHASES][3]; /* samples lost, stacks full, ledger lost */
	uint32_t prev_phase;
};

/* The map iterator of bpf/mapcount.bpf.c, in a skeleton of its own so that its kfunc extern can
 * break nothing: loaded only where vmlinux has the kfunc, and a failure only means walking keys.
 * NULL if not. */
static struct bpf_link *open_iter(struct mapwatch *w)
{
	struct bpf_link *link;
	int err;

	if (!mapcount_supported()) {
		pr_verbose("map occupancy by walking keys: the kernel has no "
			   "bpf_map_sum_elem_count (Linux 6.6+)");
		return NULL;
	}
	w->mc = mapcount_bpf__open_and_load();
	if (!w->mc) {
		pr_verbose("map occupancy by walking keys: cannot load the map iterator: %s",
			   strerror(errno));
		return NULL;
	}
	link = bpf_program__attach_iter(w->mc->progs.mb_map_count, NULL);
	if (!link) {
		err = errno;
		pr_verbose("map occupancy by walking keys: cannot attach the map iterator: %s",
			   strerror(err));
		mapcount_bpf__destroy(w->mc);
		w->mc = NULL;
	}
	return link;
}

struct mapwatch *mapwatch__new(struct profiler *p)
{
	struct muxbpf_bpf *skel = profiler__skel(p);
	struct mapwatch *w = calloc(1, sizeof(*w));
	struct bpf_map *map;

	if (!w)
		return NULL;
	w->p = p;
	bpf_object__for_each_map(map, skel->obj) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		struct mb_map_occ *o;
		int fd = bpf_map__fd(map);

		if (bpf_map__type(map) != BPF_MAP_TYPE_HASH || fd < 0 ||
		    w->occ.n == MB_MAX_WATCHED || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		o = &w->occ.v[w->occ.n];
		snprintf(o->name, sizeof(o->name), "%s", bpf_map__name(map));
		o->id = info.id;
		o->max_entries = info.max_entries;
		w->fds[w->occ.n] = fd;
		w->key_size[w->occ.n] = info.key_size;
		w->occ.n++;
	}
	w->iter = open_iter(w);
	w->occ.kernel_count = w->iter != NULL;
	return w;
}

/* Count by the kernel's element counters: one iterator read for every map on the system. */
static int count_by_iter(struct mapwatch *w)
{
	struct muxbpf_map_count rec;
	int fd = bpf_iter_create(bpf_link__fd(w->iter));
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, &rec, sizeof(rec))) == sizeof(rec))
		for (int i = 0; i < w->occ.n; i++)
			if (w->occ.v[i].id == rec.id)
				w->occ.v[i].elements = rec.elements;
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Without the kfunc: walk the keys (cost grows with the entries). */
static int count_by_walk(struct mapwatch *w)
{
	char key[256], next[256];

	for (int i = 0; i < w->occ.n; i++) {
		int64_t n = 0;
		void *prev = NULL;

		if (w->key_size[i] > sizeof(key))
			continue;
		while (bpf_map_get_next_key(w->fds[i], prev, next) == 0) {
			memcpy(key, next, w->key_size[i]);
			prev = key;
			n++;
		}
		w->occ.v[i].elements = n;
	}
	return 0;
}

/* One entry of a per-CPU array, field offs[f] summed over the CPUs into sums[f].  0 or -errno. */
static int sum_percpu(struct mapwatch *w, struct bpf_map *map, uint32_t key, const size_t *offs,
		      int nfields, uint64_t *sums)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t stride = (bpf_map__value_size(map) + 7) / 8 * 8, need;

	if (ncpu <= 0)
		return -EINVAL;
	need = (size_t)ncpu * stride;
	if (w->batch_size < need) {
		void *g = realloc(w->batch, need);

		if (!g)
			return -ENOMEM;
		w->batch = g;
		w->batch_size = need;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(map), &key, w->batch))
		return -errno;
	memset(sums, 0, nfields * sizeof(*sums));
	for (int c = 0; c < ncpu; c++)
		for (int f = 0; f < nfields; f++) {
			uint64_t x;

			memcpy(&x, (const char *)w->batch + c * stride + offs[f], sizeof(x));
			sums[f] += x;
		}
	return 0;
}

/*
 * The drop counters of one phase into the per-phase cache.  Only the phase running now, the one
 * before it and "outside" can still change, so a check reads those and sums the cache: a few
 * lookups instead of every phase's entries.
 */
static void read_phase_drops(struct mapwatch *w, uint32_t ph)
{
	struct muxbpf_bpf *skel = profiler__skel(w->p);
	const size_t sample_offs[] = {
		offsetof(struct muxbpf_phase_stats, dropped[MUXBPF_DROP_COUNTS_FULL]),
		offsetof(struct muxbpf_phase_stats, dropped[MUXBPF_DROP_STACK_FULL]) };
	const size_t lost_off[] = { 0 };
	uint64_t s[2], l, lost = 0;

	if (ph >= MUXBPF_MAX_PHASES)
		return;
	if (!sum_percpu(w, skel->maps.sample_stats, ph, sample_offs, 2, s)) {
		w->drops[ph][0] = s[0];
		w->drops[ph][1] = s[1];
	}
	if (!profiler__has_ledger(w->p))
		return;
	for (uint32_t m = 0; m < MUXBPF_LMAP__COUNT; m++)
		if (!sum_percpu(w, skel->maps.ledger_lost, ph * MUXBPF_LMAP__COUNT + m, lost_off, 1,
				&l))
			lost += l;
	w->drops[ph][2] = lost;
}

static void read_drops(struct mapwatch *w)
{
	uint32_t ph = profiler__phase(w->p);

	read_phase_drops(w, 0);
	if (ph)
		read_phase_drops(w, ph);
	if (w->prev_phase != ph && w->prev_phase)
		read_phase_drops(w, w->prev_phase);
	w->prev_phase = ph;
	w->occ.samples_lost = w->occ.stacks_full = w->occ.ledger_lost = 0;
	for (int p = 0; p < MUXBPF_MAX_PHASES; p++) {
		w->occ.samples_lost += w->drops[p][0];
		w->occ.stacks_full += w->drops[p][1];
		w->occ.ledger_lost += w->drops[p][2];
	}
	w->occ.exits_lost = profiler__skel(w->p)->bss->exits_lost;
}

/* Warn the moment a drop counter first moves, then at most once a minute while it grows. */
#define DROP_REPEAT_NS (60 * 1000000000ull)

static bool drop_news(struct mapwatch *w, int kind, uint64_t count)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);

	if (count <= w->said[kind] || (w->said[kind] && now - w->said_ns[kind] < DROP_REPEAT_NS))
		return false;
	w->said[kind] = count;
	w->said_ns[kind] = now;
	return true;
}

int mapwatch__check(struct mapwatch *w)
{
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int err = w->iter ? count_by_iter(w) : count_by_walk(w);

	if (err)
		return err;
	read_drops(w);
	for (int i = 0; i < w->occ.n; i++) {
		struct mb_map_occ *o = &w->occ.v[i];

		if (o->elements > o->peak)
			o->peak = o->elements;
		if (!o->warned && o->max_entries &&
		    100.0 * o->elements / o->max_entries >= MB_MAP_WARN_PCT) {
			o->warned = true;
			pr_warn("BPF map %s is %.0f%% full (%" PRId64 " of %u entries): entries that "
				"do not fit are dropped and counted (see --max-stacks, "
				"--max-samples)", o->name, 100.0 * o->elements / o->max_entries,
				o->elements, o->max_entries);
		}
	}
	if (drop_news(w, 0, w->occ.samples_lost))
		pr_warn("the samples map is full: %" PRIu64 " samples lost so far (raise "
			"--max-samples)", w->occ.samples_lost);
	if (drop_news(w, 1, w->occ.stacks_full))
		pr_warn("a stack map is full: %" PRIu64 " samples recorded without their stack so "
			"far (raise --max-stacks)", w->occ.stacks_full);
	if (drop_news(w, 2, w->occ.ledger_lost))
		pr_warn("a ledger map is full: %" PRIu64 " ledger entries lost so far",
			w->occ.ledger_lost);
	if (drop_news(w, 3, w->occ.exits_lost))
		pr_warn("the exited-threads map is full: %" PRIu64 " thread exits lost so far",
			w->occ.exits_lost);
	w->occ.checks++;
	w->occ.check_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return 0;
}

const struct mb_maps_occ *mapwatch__occ(const struct mapwatch *w)
{
	return &w->occ;
}

const char *mapwatch__line(const struct mapwatch *w, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < w->occ.n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s=%" PRId64 "/%u", i ? " " : "",
				w->occ.v[i].name, w->occ.v[i].elements, w->occ.v[i].max_entries);
	if (len < size)
		snprintf(buf + len, size - len, " lost=%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64,
			 w->occ.samples_lost, w->occ.stacks_full, w->occ.ledger_lost,
			 w->occ.exits_lost);
	return buf;
}

void mapwatch__free(struct mapwatch *w)
{
	if (!w)
		return;
	bpf_link__destroy(w->iter);
	mapcount_bpf__destroy(w->mc);
	free(w->batch);
	free(w);
}

int ledger_known_threads(struct profiler *p, const pid_t *tids, int n)
{
	int fd = bpf_map__fd(profiler__skel(p)->maps.thread_state), known = 0;
	struct muxbpf_thread_state st;

	for (int i = 0; i < n; i++) {
		__u32 tid = tids[i];

		known += bpf_map_lookup_elem(fd, &tid, &st) == 0;
	}
	return known;
}
