// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Per-phase function tables from symbolized samples. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fold.h"

/* The row label of a frame: its function name, or what is known of where it is. */
static void frame_label(const struct mb_sym *f, char *buf, size_t size)
{
	const char *base;

	if (f->name) {
		snprintf(buf, size, "%s", f->name);
		return;
	}
	base = f->dso ? strrchr(f->dso, '/') : NULL;
	base = base ? base + 1 : f->dso;
	if (base && *base)
		snprintf(buf, size, "[unnamed: %s, %s]", base, mb_unnamed_str(f->why));
	else
		snprintf(buf, size, "[unnamed: %s]", mb_unnamed_str(f->why));
}

/* Row index by label: open addressing over a power-of-two table of row indices + 1. */
struct row_index {
	size_t *slots;
	size_t size;
	size_t cap; /* rows allocated */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int index_grow(struct fold_table *t, struct row_index *ix)
{
	size_t size = ix->size ? ix->size * 2 : 256;
	size_t *slots = calloc(size, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = hash_str(t->rows[i].name) & (size - 1);

		while (slots[h])
			h = (h + 1) & (size - 1);
		slots[h] = i + 1;
	}
	free(ix->slots);
	ix->slots = slots;
	ix->size = size;
	return 0;
}

/* Index of the row for label, created when new; -ENOMEM on failure. */
static long row_get(struct fold_table *t, struct row_index *ix, const char *label)
{
	struct fold_row *r;
	size_t h;

	if ((t->n + 1) * 2 > ix->size && index_grow(t, ix))
		return -ENOMEM;
	for (h = hash_str(label) & (ix->size - 1); ix->slots[h]; h = (h + 1) & (ix->size - 1))
		if (!strcmp(t->rows[ix->slots[h] - 1].name, label))
			return ix->slots[h] - 1;
	if (t->n == ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 64;
		void *v = realloc(t->rows, ncap * sizeof(*t->rows));

		if (!v)
			return -ENOMEM;
		t->rows = v;
		ix->cap = ncap;
	}
	r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	r->name = strdup(label);
	if (!r->name)
		return -ENOMEM;
	ix->slots[h] = t->n + 1;
	return t->n++;
}

static int row_cmp(const void *a, const void *b)
{
	const struct fold_row *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Add one sample: self to its leaf, total once to every distinct function on the stack. */
static int fold_sample(struct fold_table *t, struct row_index *ix, const struct mb_sample *s,
		       const struct mb_sym *frames)
{
	long seen[MUXBPF_MAX_STACK_DEPTH];
	char label[512];
	size_t nseen = 0;

	for (uint32_t f = 0; f < s->nr && f < MUXBPF_MAX_STACK_DEPTH; f++) {
		long r;
		size_t k;

		frame_label(&frames[f], label, sizeof(label));
		r = row_get(t, ix, label);
		if (r < 0)
			return (int)r;
		t->rows[r].unnamed = frames[f].name == NULL;
		if (f == 0)
			t->rows[r].self += s->count;
		for (k = 0; k < nseen && seen[k] != r; k++)
			;
		if (k == nseen) {
			seen[nseen++] = r;
			t->rows[r].total += s->count;
		}
	}
	return 0;
}

int fold_phase(const struct mb_profile *prof, struct mb_sym *const *frames, unsigned int phase,
	       uint32_t pid, struct fold_table *out)
{
	struct row_index ix = {};
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < prof->n && !err; i++) {
		const struct mb_sample *s = &prof->samples[i];

		if (s->phase != phase || s->pid != pid)
			continue;
		out->samples += s->count;
		if (s->stack_err)
			out->no_stack += s->count;
		if (s->nr == 0) {
			out->unnamed += s->count;
			out->unnamed_why[MB_UNNAMED_NO_MAPPING] += s->count;
			continue;
		}
		if (!frames[i][0].name) {
			out->unnamed += s->count;
			out->unnamed_why[frames[i][0].why] += s->count;
		}
		err = fold_sample(out, &ix, s, frames[i]);
	}
	free(ix.slots);
	if (err) {
		fold_table__free(out);
		return err;
	}
	if (out->n)
		qsort(out->rows, out->n, sizeof(*out->rows), row_cmp);
	return 0;
}

void fold_table__free(struct fold_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->rows[i].name);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
