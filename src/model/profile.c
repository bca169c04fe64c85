// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include "model/profile.h"

static int cmp_stack(const void *a, const void *b)
{
	const struct mb_stack *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

const struct mb_stack *stack_table__find(const struct mb_stack_table *t, uint32_t id)
{
	struct mb_stack k = { .id = id };

	return t->n ? bsearch(&k, t->v, t->n, sizeof(*t->v), cmp_stack) : NULL;
}

void stack_table__free(struct mb_stack_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].ips);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

void profile__free(struct mb_profile *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->samples[i].ips);
	free(p->samples);
	p->samples = NULL;
	p->n = 0;
	stack_table__free(&p->stacks);
}

static const struct muxbpf_task_rt *rt_find(const struct rt_snapshot *s, uint32_t tid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].tid == tid)
			return &s->v[i];
	return NULL;
}

uint64_t rt_delta(const struct rt_snapshot *from, const struct rt_snapshot *to, uint32_t pid)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < to->n; i++) {
		const struct muxbpf_task_rt *b = &to->v[i], *a;

		if (b->pid != pid)
			continue;
		a = rt_find(from, b->tid);
		if (!a)
			sum += b->runtime_ns;
		else if (b->runtime_ns > a->runtime_ns)
			sum += b->runtime_ns - a->runtime_ns;
	}
	return sum;
}

void rt_snapshot__free(struct rt_snapshot *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
