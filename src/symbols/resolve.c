// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "muxbpf.h"
#include "symbols/resolve.h"

/* Inline frames kept per address: deeper chains keep their innermost frames. */
#define RESOLVE_MAX_INLINE 32

/* The snapshots to search for one phase, in order. */
struct search {
	const struct mb_maps *v[MUXBPF_MAX_PHASES + 1];
	int n;
};

static void search_order(const struct mb_maps *by_phase, const struct mb_maps *fallback,
			 unsigned int phase, struct search *o)
{
	o->n = 0;
	if (by_phase && phase < MUXBPF_MAX_PHASES) {
		if (by_phase[phase].n)
			o->v[o->n++] = &by_phase[phase];
		for (int p = (int)phase - 1; p >= 0; p--)
			if (by_phase[p].n)
				o->v[o->n++] = &by_phase[p];
		for (int p = (int)phase + 1; p < MUXBPF_MAX_PHASES; p++)
			if (by_phase[p].n)
				o->v[o->n++] = &by_phase[p];
	}
	if (fallback)
		o->v[o->n++] = fallback;
}

/* The first snapshot of the search order that maps ip (the last one when none does). */
static const struct mb_maps *pick(const struct search *o, uint64_t ip)
{
	static const struct mb_maps empty;

	for (int i = 0; i < o->n; i++)
		if (maps__find(o->v[i], ip))
			return o->v[i];
	return o->n ? o->v[o->n - 1] : &empty;
}

/*
 * Frames above the leaf are return addresses: look up the call instruction (ip - 1), or a call
 * that never returns at the end of a function is named after the next one (and the line is the
 * one after the call).
 */
static uint64_t lookup_ip(const uint64_t *ips, uint32_t f)
{
	return f ? ips[f] - 1 : ips[f];
}

int resolve_stack(struct symbolizer *sym, const struct mb_maps *first,
		  const struct mb_maps *fallback, const uint64_t *ips, uint32_t nr,
		  struct mb_sym *out)
{
	struct search o = { .n = 0 };
	int err = 0;

	if (first && first->n)
		o.v[o.n++] = first;
	if (fallback)
		o.v[o.n++] = fallback;
	for (uint32_t f = 0; f < nr && !err; f++) {
		uint64_t ip = lookup_ip(ips, f);

		err = symbolizer__lookup(sym, pick(&o, ip), ip, &out[f]);
		out[f].ip_index = f;
	}
	return err;
}

static bool is_plt(const struct mb_sym *f)
{
	size_t len = f->name ? strlen(f->name) : 0;

	return len > 4 && !strcmp(f->name + len - 4, "@plt");
}

/*
 * A PLT stub has no source line of its own: its time belongs to the line that called it, which
 * is the next frame's.  Give the stub that file:line so the srcfile and line views put the
 * trampoline's cost where the call is; the function view still shows "fn@plt".
 */
static void plt_line_from_caller(struct mb_sym *v, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (is_plt(&v[i]) && !v[i].file && v[i + 1].file) {
			v[i].file = v[i + 1].file;
			v[i].file_rel = v[i + 1].file_rel;
			v[i].line = v[i + 1].line;
		}
}

/* One sample's stack with inline chains expanded. */
static int resolve_sample(struct symbolizer *sym, const struct search *o,
			  const struct mb_sample *s, struct mb_rstack *out)
{
	struct mb_sym chain[RESOLVE_MAX_INLINE];
	size_t cap = s->nr ? s->nr + 8 : 1, n = 0;
	struct mb_sym *v = malloc(cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (uint32_t f = 0; f < s->nr; f++) {
		uint64_t ip = lookup_ip(s->ips, f);
		int k = symbolizer__lookup_inline(sym, pick(o, ip), ip, chain, RESOLVE_MAX_INLINE);

		if (k < 0) {
			free(v);
			return k;
		}
		if (n + (size_t)k > cap) {
			size_t ncap = (n + (size_t)k) * 2;
			struct mb_sym *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap = ncap;
		}
		for (int i = 0; i < k; i++) {
			v[n] = chain[i];
			v[n++].ip_index = f;
		}
	}
	plt_line_from_caller(v, n);
	out->frames = v;
	out->n = (uint32_t)n;
	return 0;
}

/* Another process's stack: its addresses, unnamed. */
static int unresolved_sample(const struct mb_sample *s, struct mb_rstack *out)
{
	out->frames = calloc(s->nr ? s->nr : 1, sizeof(*out->frames));
	if (!out->frames)
		return -ENOMEM;
	for (uint32_t f = 0; f < s->nr; f++)
		out->frames[f] = (struct mb_sym){ .offset = s->ips[f], .build_id = "",
						  .ip_index = f, .why = MB_UNNAMED_NO_MAPPING };
	out->n = s->nr;
	return 0;
}

int resolve_profile(struct symbolizer *sym, const struct mb_maps *by_phase,
		    const struct mb_maps *fallback, const struct mb_profile *prof, uint32_t pid,
		    struct mb_resolved *out)
{
	struct search order[MUXBPF_MAX_PHASES];
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->stacks = calloc(prof->n ? prof->n : 1, sizeof(*out->stacks));
	if (!out->stacks)
		return -ENOMEM;
	out->n = prof->n;
	for (unsigned int p = 0; p < MUXBPF_MAX_PHASES; p++)
		search_order(by_phase, fallback, p, &order[p]);
	for (size_t i = 0; i < prof->n && !err; i++) {
		const struct mb_sample *s = &prof->samples[i];
		struct search none;

		if (s->pid != pid) {
			err = unresolved_sample(s, &out->stacks[i]);
			continue;
		}
		if (s->phase >= MUXBPF_MAX_PHASES)
			search_order(NULL, fallback, 0, &none);
		err = resolve_sample(sym, s->phase < MUXBPF_MAX_PHASES ? &order[s->phase] : &none,
				     s, &out->stacks[i]);
	}
	if (err)
		resolve_free(out);
	return err;
}

void resolve_free(struct mb_resolved *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->stacks && i < r->n; i++)
		free(r->stacks[i].frames);
	free(r->stacks);
	memset(r, 0, sizeof(*r));
}

static uint64_t hash_ips(uint32_t phase, const uint64_t *ips, uint32_t nr)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ phase;

	for (uint32_t i = 0; i < nr; i++)
		h = (h ^ ips[i]) * 0xff51afd7ed558ccdull;
	return h ^ nr;
}

/* Open addressing, at most half full. */
int sample_index_build(struct sample_index *ix, const struct mb_profile *prof, uint32_t pid,
		       uint32_t tid)
{
	ix->size = 1;
	while (ix->size < prof->n * 2 + 2)
		ix->size <<= 1;
	ix->slots = calloc(ix->size, sizeof(*ix->slots));
	if (!ix->slots)
		return -ENOMEM;
	for (size_t i = 0; i < prof->n; i++) {
		const struct mb_sample *s = &prof->samples[i];
		size_t h;

		if (s->pid != pid || s->tid != tid)
			continue;
		h = hash_ips(s->phase, s->ips, s->nr) & (ix->size - 1);
		while (ix->slots[h])
			h = (h + 1) & (ix->size - 1);
		ix->slots[h] = i + 1;
	}
	return 0;
}

long sample_index_find(const struct sample_index *ix, const struct mb_profile *prof,
		       uint32_t phase, const uint64_t *ips, uint32_t nr)
{
	size_t h = hash_ips(phase, ips, nr) & (ix->size - 1);

	for (; ix->slots[h]; h = (h + 1) & (ix->size - 1)) {
		const struct mb_sample *s = &prof->samples[ix->slots[h] - 1];

		if (s->phase == phase && s->nr == nr && !memcmp(s->ips, ips, nr * sizeof(*ips)))
			return (long)ix->slots[h] - 1;
	}
	return -1;
}

void sample_index_free(struct sample_index *ix)
{
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
}
