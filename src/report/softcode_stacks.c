// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The softcode counts joined with the resolved stacks of the same samples, and the default
 * mode's stack rule on them (softcode_stacks.h).  Pure.
 */
#include <string.h>
#include "symbols/resolve.h"
#include "report/softcode_stacks.h"

const struct mb_rstack *sc_count_stack(const struct sc_count *c, const struct mb_profile *prof,
				       const struct mb_resolved *res, const struct sample_index *ix)
{
	const uint64_t *ips = (const uint64_t *)&c->key.ip;
	uint32_t nr = c->key.ip ? 1 : 0;
	long s;

	if (c->key.stack_id >= 0) {
		const struct mb_stack *st = stack_table__find(&prof->stacks, (uint32_t)c->key.stack_id);

		if (!st)
			return NULL;
		ips = st->ips;
		nr = st->nr;
	}
	s = sample_index_find(ix, prof, c->key.phase, ips, nr);
	return s < 0 || (size_t)s >= res->n ? NULL : &res->stacks[s];
}

bool sc_frame_is(const struct mb_sym *f, const char *anchor)
{
	return f->name && !strncmp(f->name, anchor, strlen(anchor));
}

bool sc_stack_between(const struct mb_sym *frames, uint32_t n)
{
	bool whole = false;

	for (uint32_t i = 0; i < n; i++) {
		if (sc_frame_is(&frames[i], SC_ANCHOR_COMMAND))
			return false;
		if (frames[i].name && !strcmp(frames[i].name, "main"))
			whole = true;
	}
	return whole;
}

uint64_t sc_move_between(struct sc_count *v, size_t n,
			 bool (*between)(const struct sc_count *c, void *ctx), void *ctx)
{
	uint64_t moved = 0;

	for (size_t i = 0; i < n; i++) {
		if (!v[i].key.cmd || !between(&v[i], ctx))
			continue;
		v[i].key.cmd = 0;
		moved += v[i].count;
	}
	return moved;
}
