// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The softcode views' rows: a phase's samples and exact times folded by command and by softcode
 * path (pure).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "fold/rounds.h"
#include "report/softcode_rows.h"

static const struct sc_cmd *cmd_by_id(const struct sc_data *d, uint32_t id)
{
	for (size_t i = 0; id && i < d->ncmds; i++)
		if (d->cmds[i].id == id)
			return &d->cmds[i];
	return NULL;
}

static const struct sc_frame *frame_by_id(const struct sc_data *d, uint32_t id)
{
	for (size_t i = 0; id && i < d->nframes; i++)
		if (d->frames[i].id == id)
			return &d->frames[i];
	return NULL;
}

static const struct sc_path *path_by_id(const struct sc_data *d, uint32_t id)
{
	for (size_t i = 0; id && i < d->npaths; i++)
		if (d->paths[i].id == id)
			return &d->paths[i];
	return NULL;
}

static struct sc_row *row_get(struct sc_rows *r, const char *label, size_t *cap)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].label, label))
			return &r->v[i];
	if (mb_grow((void **)&r->v, cap, r->n + 1, sizeof(*r->v), 32))
		return NULL;
	memset(&r->v[r->n], 0, sizeof(r->v[0]));
	r->v[r->n].label = strdup(label);
	if (!r->v[r->n].label)
		return NULL;
	return &r->v[r->n++];
}

static int row_cmp(const void *a, const void *b)
{
	const struct sc_row *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->label, y->label);
}

static const char *cmd_label(const struct sc_cmd *c)
{
	return c && c->label ? c->label : "(between commands)";
}

/*
 * The cost of our probes inside an entry of sc_times: the task clock counts each hit's trap and
 * the user-mode samples cannot, so the exact times leave them out (probe_cost.h).  Its u() hits
 * whole, and for each segment the command probes' part on its side of the clock reads (inside
 * a command, or between two).  Never more than the entry's own time.
 */
static uint64_t probe_ns(const struct sc_data *d, const struct sc_time *t)
{
	double end = t->key.cmd ? d->ends.inside_ns : probe_ends_outside(&d->ends);
	double ns = d->hit_ns > 0 ? d->hit_ns * (double)t->val.hits : 0;

	if (d->ends.pair_ns >= 0 && end > 0)
		ns += end * (double)t->val.segs;
	return ns < (double)t->val.cpu_ns ? (uint64_t)(ns + 0.5) : t->val.cpu_ns;
}

int sc_command_rows(const struct sc_data *d, unsigned int phase, uint64_t oncpu_ns,
		    struct sc_rows *out)
{
	uint64_t clock = 0, between = 0, starts = 0, removed = 0;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < d->ncounts; i++) {
		const struct sc_count *k = &d->counts[i];
		struct sc_row *r;

		if (k->key.phase != phase)
			continue;
		r = row_get(out, cmd_label(cmd_by_id(d, k->key.cmd)), &cap);
		if (!r)
			goto out_nomem;
		r->samples += k->count;
		out->samples += k->count;
	}
	/* the time between commands: shared out by commands started (each costs the main loop
	 * and the queue alike), not by their own time.  Writing a command's reply also falls
	 * here: a command with a long reply leaves part of its cost to the others (README). */
	for (size_t i = 0; i < d->ntimes; i++) {
		const struct sc_time *t = &d->times[i];

		if (t->key.phase != phase)
			continue;
		if (t->key.cmd) {
			starts += t->val.count;
		} else {
			uint64_t probe = probe_ns(d, t);

			between += t->val.cpu_ns - probe;
			removed += probe;
		}
	}
	if (!starts)
		removed = 0; /* the time between commands stays out of the rows */
	for (size_t i = 0; i < d->ntimes; i++) {
		const struct sc_time *t = &d->times[i];
		const struct sc_cmd *c = cmd_by_id(d, t->key.cmd);
		uint64_t probe = probe_ns(d, t);
		struct sc_row *r;

		if (t->key.phase != phase || !t->key.cmd)
			continue;
		r = row_get(out, cmd_label(c), &cap);
		if (!r)
			goto out_nomem;
		if (c && c->primary)
			r->runs += t->val.count;
		r->probe_hits += t->val.hits;
		r->segments += t->val.segs;
		r->probe_ns += probe;
		/* the entry program's own work is in no segment, but in the kernel's runtime */
		removed += probe + t->val.own_ns;
		r->in_ns += t->val.cpu_ns - probe;
		r->clock_ns += t->val.cpu_ns - probe;
		if (starts)
			r->clock_ns += (uint64_t)((double)between * t->val.count / starts + 0.5);
	}
	for (size_t i = 0; i < out->n; i++)
		clock += out->v[i].clock_ns;
	out->between_ns = between;
	/* the kernel's runtime counts our probes' traps too: they are not shared out */
	out->scale = oncpu_ns && clock ? (double)oncpu_ns / (clock + removed) : 1.0;
	for (size_t i = 0; i < out->n; i++)
		out->v[i].cpu_ns = (uint64_t)(out->v[i].clock_ns * out->scale + 0.5);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), row_cmp);
	return 0;
out_nomem:
	sc_rows__free(out);
	return -ENOMEM;
}

void sc_cpu_per_cmd_ci(const struct sc_row *row, const struct stats_ci *share, uint64_t oncpu_ns,
		       struct stats_ci *out)
{
	double per = row->runs ? (double)oncpu_ns / row->runs : 0, lo;

	*out = (struct stats_ci){ .value = row->runs ? (double)row->cpu_ns / row->runs : 0,
				  .n = share->n };
	if (!row->runs || !share->valid)
		return;
	lo = out->value - (share->value - share->lo) * per;
	out->lo = lo < 0 ? 0 : lo;
	out->hi = out->value + (share->hi - share->value) * per;
	out->valid = true;
}

static const struct sc_row *row_find(const struct sc_rows *r, const char *label)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].label, label))
			return &r->v[i];
	return NULL;
}

void sc_row_batches_ci(const struct sc_rows *cum, int nb, const char *label,
		       struct stats_ci *share, bool *from, struct stats_ci *us)
{
	uint64_t k[ROUNDS_MAX + 1], n[ROUNDS_MAX + 1];
	double cpu[ROUNDS_MAX + 1], runs[ROUNDS_MAX + 1];
	uint64_t pk = 0, pn = 0, pr = 0, got = 0;
	double pc = 0;

	*share = *us = (struct stats_ci){ 0 };
	*from = false;
	if (nb < 2 || nb > ROUNDS_MAX + 1)
		return;
	for (int j = 0; j < nb; j++) {
		const struct sc_row *row = row_find(&cum[j], label);
		uint64_t ck = row ? row->samples : 0, cr = row ? row->runs : 0;
		uint64_t cn = cum[j].samples;
		double cc = row ? (double)row->cpu_ns : 0;

		/* cumulative counts only grow; the CPU is scaled per table, so a batch's may not */
		k[j] = ck > pk ? ck - pk : 0;
		n[j] = cn > pn ? cn - pn : 0;
		runs[j] = cr > pr ? (double)(cr - pr) : 0;
		cpu[j] = cc - pc;
		got += runs[j] > 0;
		pk = ck > pk ? ck : pk;
		pn = cn > pn ? cn : pn;
		pr = cr > pr ? cr : pr;
		pc = cc;
	}
	rounds_share_ci(k, n, nb, share, from);
	if (got >= 2)
		stats_ratio_rounds(cpu, runs, nb, us);
}

int sc_sample_frames(const struct sc_data *d, const struct muxbpf_sc_sample_key *k,
		     const char **labels, const char **objs, int max, int *ncmd)
{
	const struct sc_cmd *c = cmd_by_id(d, k->cmd);
	const struct sc_path *p = path_by_id(d, k->path);
	int n = 0;

	*ncmd = 0;
	if (c && c->frame && n < max) {
		labels[n] = c->frame;
		objs[n++] = c->obj;
		*ncmd = 1;
	}
	for (int i = 0; p && i < MUXBPF_SC_DEPTH && n < max; i++) {
		const struct sc_frame *f = frame_by_id(d, p->frames[i]);

		if (!p->frames[i])
			break;
		if (!f || !f->label)
			continue;
		labels[n] = f->label;
		objs[n++] = f->obj;
	}
	return n;
}

int sc_path_rows(const struct sc_data *d, unsigned int phase, struct sc_rows *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	out->scale = 1.0;
	for (size_t i = 0; i < d->ncounts; i++) {
		const struct sc_count *k = &d->counts[i];
		const char *labels[MUXBPF_SC_DEPTH + 1], *objs[MUXBPF_SC_DEPTH + 1];
		int ncmd, n = sc_sample_frames(d, &k->key, labels, objs, MUXBPF_SC_DEPTH + 1, &ncmd);
		char buf[2048] = "";
		size_t len = 0;
		struct sc_row *r;

		if (k->key.phase != phase)
			continue;
		out->samples += k->count;
		for (int j = 0; j < n && len < sizeof(buf); j++)
			len += snprintf(buf + len, sizeof(buf) - len, "%s%s", j ? " > " : "",
					labels[j]);
		r = row_get(out, n ? buf : "(no softcode frame)", &cap);
		if (!r) {
			sc_rows__free(out);
			return -ENOMEM;
		}
		r->samples += k->count;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), row_cmp);
	return 0;
}

void sc_rows__free(struct sc_rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].label);
	free(r->v);
	memset(r, 0, sizeof(*r));
}
