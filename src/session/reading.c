// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Boundary readings and the end of a session, shared by run.c and live.c; ab.c takes its
 * block readings with reading_collect too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "loader/calib.h"
#include "base/clock.h"
#include "loader/collect.h"
#include "loader/collect_ledger.h"
#include "base/log.h"
#include "symbols/resolve.h"
#include "symbols/symbolize.h"
#include "session/opts.h"
#include "session/reading.h"

void reading_free(struct reading *rd)
{
	rt_snapshot__free(&rd->rt);
	inflight__free(&rd->inflight);
}

int reading_collect(struct profiler *p, struct reading *rd, unsigned int phase)
{
	int err = 0;

	reading_free(rd);
	/* the clock bpf_ktime_get_ns() reads: ledger timestamps compare with it */
	rd->t_ns = mono_ns();
	if (p) {
		/* the boundary: calls in flight are read as of this switch, however long it takes */
		profiler__set_phase(p, phase);
		err = collect_runtime(p, &rd->rt);
		if (!err && profiler__has_ledger(p))
			err = collect_inflight(p, &rd->inflight);
		if (err) {
			reading_free(rd);
			return err;
		}
	}
	return 0;
}

int reading_copy(struct reading *to, const struct reading *from)
{
	*to = *from;
	to->rt.v = NULL;
	to->inflight.v = NULL;
	if (from->rt.n && !(to->rt.v = malloc(from->rt.n * sizeof(*from->rt.v))))
		return -ENOMEM;
	if (from->rt.n)
		memcpy(to->rt.v, from->rt.v, from->rt.n * sizeof(*from->rt.v));
	if (from->inflight.n && !(to->inflight.v = malloc(from->inflight.n *
							  sizeof(*from->inflight.v)))) {
		reading_free(to);
		return -ENOMEM;
	}
	if (from->inflight.n)
		memcpy(to->inflight.v, from->inflight.v,
		       from->inflight.n * sizeof(*from->inflight.v));
	return 0;
}

int session_snapshot_maps(struct run *r, unsigned int id)
{
	int err;

	maps__free(&r->maps[id]);
	err = maps__read(r->pid, &r->maps[id]);
	if (err)
		return err;
	/* the files mapped now stay readable after a dlclose or the target's exit */
	if (mb_pins__add(&r->pins, r->pid, &r->maps[id]))
		pr_warn("failed to hold the files mapped by pid %d open: out of memory", r->pid);
	maps__free(&r->last_maps);
	return maps__read(r->pid, &r->last_maps);
}

int session_fold_phase(struct profiler *p, struct symbolizer *sym, const struct run *r,
		       unsigned int phase, unsigned int views, struct fold_table *out)
{
	struct mb_profile all, mine = {};
	struct mb_resolved res = {};
	int err;

	memset(out, 0, sizeof(*out));
	err = collect_profile(p, &all);
	if (err)
		return err;
	/* only this phase's samples are symbolized: the others are not needed yet */
	mine.samples = malloc((all.n ? all.n : 1) * sizeof(*mine.samples));
	if (!mine.samples) {
		profile__free(&all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < all.n; i++)
		if (all.samples[i].phase == phase && all.samples[i].pid == (uint32_t)r->pid)
			mine.samples[mine.n++] = all.samples[i];
	err = resolve_profile(sym, r->maps, &r->last_maps, &mine, r->pid, &res);
	if (!err)
		err = fold_phase(&mine, &res, phase, r->pid, views, out);
	resolve_free(&res);
	free(mine.samples); /* the ips belong to all */
	profile__free(&all);
	return err;
}

int session_collect(struct profiler *p, struct run *r)
{
	int err = collect_profile(p, &r->profile);

	r->ledger = profiler__has_ledger(p);
	if (r->ledger)
		profiler__syscall_hook(p, &r->hook);
	/* the window's result for every phase, also those that ended before it did */
	calib__finish(profiler__calib(p));
	calib__get(profiler__calib(p), &r->calib);
	if (!err && r->ledger)
		err = collect_ledger(p, &r->ledger_data);
	return err;
}

unsigned int session_views(const struct opts *o)
{
	return o->by | (o->out_dir ? (FOLD_VIEW(FOLD_BY__COUNT) - 1) : 0);
}

struct symbolizer *session_symbolizer(const struct opts *o, const struct run *run)
{
	const char *dirs[sizeof(o->debug_dirs) / sizeof(o->debug_dirs[0]) + 1];
	struct symbolizer *sym = symbolizer__new();
	int n = 0, err;

	if (!sym)
		return NULL;
	for (int i = 0; i < o->ndebug_dirs; i++)
		dirs[n++] = o->debug_dirs[i];
	dirs[n++] = "/usr/lib/debug";
	err = symbolizer__set_debug_dirs(sym, dirs, (size_t)n);
	if (err) {
		symbolizer__free(sym);
		errno = -err;
		return NULL;
	}
	symbolizer__use_pins(sym, &run->pins);
	return sym;
}

struct softcode_opts session_softcode_opts(const struct opts *o)
{
	return (struct softcode_opts){ .on = o->by & FOLD_VIEWS_SOFTCODE, .exact = o->exact_commands,
				       .debug_dirs = o->debug_dirs, .ndebug_dirs = o->ndebug_dirs };
}

void run__free(struct run *r)
{
	for (int i = 0; i < MUXBPF_MAX_PHASES; i++) {
		reading_free(&r->windows[i].before);
		reading_free(&r->windows[i].after);
		for (unsigned int j = 0; j < r->windows[i].nmarks; j++) {
			fold_table__free(&r->windows[i].marks[j].fold);
			free(r->windows[i].marks[j].sys);
			sc_data__free(&r->windows[i].marks[j].sc);
		}
		free(r->windows[i].marks);
	}
	reading_free(&r->start);
	reading_free(&r->final);
	for (int i = 0; i < MUXBPF_MAX_PHASES; i++)
		maps__free(&r->maps[i]);
	maps__free(&r->last_maps);
	mb_pins__free(&r->pins);
	profile__free(&r->profile);
	sc_data__free(&r->softcode);
	ledger_data__free(&r->ledger_data);
}
