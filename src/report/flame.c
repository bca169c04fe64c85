// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Flame graph trees from stacks, and their nodes' figures. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "report/flame.h"
#include "report/report.h"
#include "fold/sprof.h"

static long node_new(struct flame *t, const char *name, uint8_t kind, long parent)
{
	struct flame_node *n;

	if (mb_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v), 256))
		return -ENOMEM;
	n = &t->v[t->n];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	if (!n->name)
		return -ENOMEM;
	n->kind = kind;
	n->parent = parent;
	n->first = n->next = -1;
	if (parent >= 0) {
		n->depth = t->v[parent].depth + 1;
		n->next = t->v[parent].first;
		t->v[parent].first = (long)t->n;
		if (n->depth > t->max_depth)
			t->max_depth = n->depth;
	}
	return (long)t->n++;
}

int flame_init(struct flame *t, const char *root_name)
{
	memset(t, 0, sizeof(*t));
	return node_new(t, root_name, FLAME_USER, -1) < 0 ? -ENOMEM : 0;
}

void flame_free(struct flame *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int flame_add(struct flame *t, const char *const *names, const uint8_t *kinds, size_t n,
	      double value, double base)
{
	long cur = 0;

	t->v[0].value += value;
	t->v[0].base += base;
	for (size_t i = 0; i < n; i++) {
		uint8_t kind = kinds ? kinds[i] : FLAME_USER;
		long c;

		for (c = t->v[cur].first; c >= 0; c = t->v[c].next)
			if (t->v[c].kind == kind && !strcmp(t->v[c].name, names[i]))
				break;
		if (c < 0) {
			c = node_new(t, names[i], kind, cur);
			if (c < 0)
				return -ENOMEM;
		}
		t->v[c].value += value;
		t->v[c].base += base;
		cur = c;
	}
	t->last = cur;
	return 0;
}

double flame_self(const struct flame *t, size_t i)
{
	double self = t->v[i].value;

	for (long c = t->v[i].first; c >= 0; c = t->v[c].next)
		self -= t->v[c].value;
	return self > 0 ? self : 0;
}

static int name_cmp(const void *a, const void *b)
{
	const struct flame_node *x = *(struct flame_node *const *)a;
	const struct flame_node *y = *(struct flame_node *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->kind - (int)y->kind;
}

void flame_layout(struct flame *t)
{
	struct flame_node **kids = NULL;
	size_t cap = 0;

	if (!t->n)
		return;
	t->v[0].x = 0;
	/* parents come before their children in t->v */
	for (size_t i = 0; i < t->n; i++) {
		struct flame_node *p = &t->v[i];
		double x = p->x, total = t->v[0].value > 0 ? t->v[0].value : 1;
		size_t k = 0;

		for (long c = p->first; c >= 0; c = t->v[c].next) {
			if (mb_grow((void **)&kids, &cap, k + 1, sizeof(*kids), 64))
				break; /* the rest keep x = 0: degraded, not wrong */
			kids[k++] = &t->v[c];
		}
		if (k > 1)
			qsort(kids, k, sizeof(*kids), name_cmp);
		for (size_t j = 0; j < k; j++) {
			kids[j]->x = x;
			x += kids[j]->value / total;
		}
	}
	free(kids);
}

int flame_from_phase(struct flame *t, const struct sprof *sp, const struct sp_phase *p,
		     bool kernel)
{
	const char *names[MUXBPF_MAX_STACK_DEPTH + 2];
	uint8_t kinds[MUXBPF_MAX_STACK_DEPTH + 2];
	int err = flame_init(t, "all");

	for (size_t i = 0; i < p->nstacks && !err; i++) {
		const struct sp_stack *s = &p->stacks[i];
		size_t n = 0;

		for (uint32_t f = s->nr; f-- > 0;) {
			const struct sp_frame *fr = &sp->frames[s->frames[f]];

			names[n] = fr->label;
			kinds[n++] = fr->name ? FLAME_USER : FLAME_UNNAMED;
		}
		err = flame_add(t, names, kinds, n, (double)s->count, 0);
	}
	for (size_t i = 0; kernel && i < p->nsites && !err; i++) {
		const struct sp_site *s = &p->sites[i];
		size_t n = 0;
		long k;

		if (!s->cpu_ns)
			continue;
		if (!s->nr) {
			names[n] = "[no user stack]";
			kinds[n++] = FLAME_UNNAMED;
		}
		for (uint32_t f = s->nr; f-- > 0;) {
			const struct sp_frame *fr = &sp->frames[s->frames[f]];

			names[n] = fr->label;
			kinds[n++] = fr->name ? FLAME_USER : FLAME_UNNAMED;
		}
		names[n] = sp->frames[s->frame].label;
		kinds[n++] = FLAME_KERNEL;
		err = flame_add(t, names, kinds, n, s->cpu_ns * (double)sp->freq / 1e9, 0);
		if (err)
			break;
		k = t->last;
		t->v[k].calls += s->calls;
		t->v[k].cpu_ns += s->cpu_ns;
		/* sites of one syscall: shares of one sample, negatively correlated; the sum of
		 * their variances bounds the variance of their sum from above */
		t->v[k].cpu_var += s->cpu_var;
	}
	if (err)
		flame_free(t);
	else
		flame_layout(t);
	return err;
}

/* A share k of n (rounded to whole samples) with its 95% interval, Wilson widened by factor. */
static void share_ci(double k, double n, double factor, struct stats_ci *out)
{
	stats_share((uint64_t)llround(k), (uint64_t)llround(n), out);
	stats_share_widen(out, factor);
}

/*
 * A differential node's change in share, new (value) against old (base): the half-width of its
 * 95% interval in points, from both shares' binomial variances.
 */
static double diff_half(const struct flame *t, const struct flame_node *n)
{
	double total = t->v[0].value > 0 ? t->v[0].value : 1;
	double base_total = t->v[0].base > 0 ? t->v[0].base : 1;
	double p1 = n->base / base_total, p2 = n->value / total;

	return 196 * sqrt(p1 * (1 - p1) / base_total + p2 * (1 - p2) / total);
}

void flame_figures(struct flame *t, double factor)
{
	double total = t->n && t->v[0].value > 0 ? t->v[0].value : 1;

	t->ci_factor = factor;
	for (size_t i = 0; i < t->n; i++) {
		struct flame_node *n = &t->v[i];

		n->self = flame_self(t, i);
		share_ci(n->self, total, factor, &n->self_ci);
		share_ci(n->value, total, factor, &n->total_ci);
		n->cpu_half_ns = 1.959964 * sqrt(n->cpu_var);
		n->diff_half = diff_half(t, n);
	}
}

int flame_report_phase(struct flame *t, const struct sprof *sp, const struct sp_phase *p,
		       const struct report_phase *rp)
{
	int err = flame_from_phase(t, sp, p, true);

	if (!err)
		flame_figures(t, report_design_factor(rp));
	return err;
}

int report_flames(struct report *r)
{
	const struct sprof *sp = r->stacks;

	for (int i = 0; sp && i < r->nphases; i++) {
		struct report_phase *rp = &r->phases[i];
		int err;

		if (rp->id >= MUXBPF_MAX_PHASES || !sp->has[rp->id] || rp->flame)
			continue;
		rp->flame = calloc(1, sizeof(*rp->flame));
		if (!rp->flame)
			return -ENOMEM;
		err = flame_report_phase(rp->flame, sp, &sp->phases[rp->id], rp);
		if (err)
			return err;
	}
	return 0;
}

void report_flames_free(struct report *r)
{
	for (int i = 0; i < r->nphases; i++) {
		if (r->phases[i].flame)
			flame_free(r->phases[i].flame);
		free(r->phases[i].flame);
		r->phases[i].flame = NULL;
	}
}
