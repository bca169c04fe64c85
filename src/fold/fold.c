// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Per-phase tables by function, source file, line and DSO from symbolized samples. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "fold/fold.h"

static const char *const by_names[FOLD_BY__COUNT] = {
	[FOLD_BY_FUNCTION] = "function",
	[FOLD_BY_SRCFILE] = "srcfile",
	[FOLD_BY_LINE] = "line",
	[FOLD_BY_DSO] = "dso",
};

const char *fold_by_name(enum fold_by by)
{
	return (unsigned int)by < FOLD_BY__COUNT ? by_names[by] : "invalid";
}

int fold_by_parse(const char *list, unsigned int *views)
{
	unsigned int mask = 0;
	const char *p = list;

	if (!list || !*list)
		return -EINVAL;
	for (;;) {
		size_t len = strcspn(p, ",");
		int by;

		for (by = 0; by < FOLD_BY__COUNT; by++)
			if (strlen(by_names[by]) == len && !strncmp(p, by_names[by], len))
				break;
		if (by < FOLD_BY__COUNT)
			mask |= FOLD_VIEW(by);
		else if (len == 7 && !strncmp(p, "command", 7))
			mask |= FOLD_VIEW_COMMAND;
		else if (len == 8 && !strncmp(p, "softcode", 8))
			mask |= FOLD_VIEW_SOFTCODE;
		else
			return -EINVAL;
		if (!p[len])
			break;
		p += len + 1;
	}
	*views = mask;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/* Where an unnamed frame is, as a bracketed label: "[netmux+0xc6700]", "[heap]". */
static void unnamed_label(const struct mb_sym *f, char *buf, size_t size)
{
	const char *base = base_name(f->dso);

	switch (f->why) {
	case MB_UNNAMED_NO_MAPPING:
		snprintf(buf, size, "[no mapping]");
		break;
	case MB_UNNAMED_ANON:
		snprintf(buf, size, f->dso && f->dso[0] == '[' ? "%s" : "[%s]",
			 f->dso ? f->dso : "anon");
		break;
	case MB_UNNAMED_NO_SYMBOL:
	case MB_UNNAMED_STRIPPED:
		/* the .eh_frame range's start when known (sym_off from it), else the address */
		snprintf(buf, size, "[%s+0x%" PRIx64 "]", base ? base : "?",
			 f->offset - (f->sym_off <= f->offset ? f->sym_off : 0));
		break;
	default:
		snprintf(buf, size, "[%s: %s]", base ? base : "?", mb_unnamed_str(f->why));
		break;
	}
}

/* A frame without file:line, in the source views: "[libc.so.6: no debuginfo]". */
static void noline_label(const struct mb_sym *f, char *buf, size_t size)
{
	const char *why;

	if (f->why == MB_UNNAMED_NO_MAPPING || f->why == MB_UNNAMED_ANON || !f->dso) {
		unnamed_label(f, buf, size);
		return;
	}
	if (!f->info || !f->info->dwarf)
		why = f->why == MB_UNNAMED_STRIPPED ? mb_unnamed_str(f->why) : "no debuginfo";
	else
		why = "no line info";
	snprintf(buf, size, "[%s: %s]", base_name(f->dso), why);
}

/* The row label of a frame in a view; returns 1 when it is an unnamed bucket. */
int fold_frame_label(enum fold_by by, const struct mb_sym *f, char *buf, size_t size)
{
	bool has_line = f->file && f->line;

	switch (by) {
	case FOLD_BY_FUNCTION:
		if (f->name) {
			snprintf(buf, size, "%s", f->name);
			return 0;
		}
		unnamed_label(f, buf, size);
		return 1;
	case FOLD_BY_SRCFILE:
		if (f->file) {
			snprintf(buf, size, "%s", f->file_rel ? f->file_rel : f->file);
			return 0;
		}
		noline_label(f, buf, size);
		return 1;
	case FOLD_BY_LINE:
		if (has_line) {
			snprintf(buf, size, "%s:%u %s", f->file_rel ? f->file_rel : f->file, f->line,
				 f->name ? f->name : "?");
			return 0;
		}
		noline_label(f, buf, size);
		return 1;
	default:
		if (f->dso && f->why != MB_UNNAMED_ANON) {
			snprintf(buf, size, "%s", base_name(f->dso));
			return 0;
		}
		unnamed_label(f, buf, size);
		return 1;
	}
}

/* Row index by label: open addressing over a power-of-two table of row indices + 1, and the
 * last sample each row was counted in (for total: once per stack). */
struct row_index {
	size_t *slots;
	size_t size;
	size_t cap; /* rows allocated */
	size_t *mark;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int index_grow(struct fold_view *t, struct row_index *ix)
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
static long row_get(struct fold_view *t, struct row_index *ix, const char *label)
{
	struct fold_row *r;
	size_t h, rcap;

	if ((t->n + 1) * 2 > ix->size && index_grow(t, ix))
		return -ENOMEM;
	for (h = hash_str(label) & (ix->size - 1); ix->slots[h]; h = (h + 1) & (ix->size - 1))
		if (!strcmp(t->rows[ix->slots[h] - 1].name, label))
			return ix->slots[h] - 1;
	/* rows and mark share ix->cap: it moves once both have grown */
	rcap = ix->cap;
	if (mb_grow((void **)&t->rows, &rcap, t->n + 1, sizeof(*t->rows), 64) ||
	    mb_grow((void **)&ix->mark, &ix->cap, t->n + 1, sizeof(*ix->mark), 64))
		return -ENOMEM;
	r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	r->name = strdup(label);
	if (!r->name)
		return -ENOMEM;
	ix->mark[t->n] = 0;
	ix->slots[h] = t->n + 1;
	return t->n++;
}

int fold_row_cmp(const void *a, const void *b)
{
	const struct fold_row *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Add one sample to a view: self to its leaf frame's row, total once to every row on the
 * stack.  stamp is unique per sample. */
static int fold_sample(enum fold_by by, struct fold_view *t, struct row_index *ix,
		       const struct mb_sample *s, const struct mb_rstack *st, size_t stamp)
{
	char label[FOLD_LABEL_MAX];

	for (uint32_t f = 0; f < st->n; f++) {
		int unnamed = fold_frame_label(by, &st->frames[f], label, sizeof(label));
		long r = row_get(t, ix, label);

		if (r < 0)
			return (int)r;
		t->rows[r].unnamed = unnamed;
		if (f == 0)
			t->rows[r].self += s->count;
		if (ix->mark[r] != stamp) {
			ix->mark[r] = stamp;
			t->rows[r].total += s->count;
		}
	}
	return 0;
}

static bool same_dso(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Count one sample's leaf in its DSO's line. */
static int count_leaf(struct fold_table *t, const struct mb_sym *leaf, uint64_t count)
{
	const char *dso = leaf && leaf->why != MB_UNNAMED_NO_MAPPING ? leaf->dso : NULL;
	struct fold_dso *d = NULL;

	for (size_t i = 0; i < t->ndsos && !d; i++)
		if (same_dso(t->dsos[i].dso, dso))
			d = &t->dsos[i];
	if (!d) {
		void *v = realloc(t->dsos, (t->ndsos + 1) * sizeof(*t->dsos));

		if (!v)
			return -ENOMEM;
		t->dsos = v;
		d = &t->dsos[t->ndsos++];
		memset(d, 0, sizeof(*d));
		d->dso = dso;
		d->info = leaf ? leaf->info : NULL;
	}
	d->samples += count;
	if (leaf && leaf->name)
		d->named += count;
	else
		d->why[leaf ? leaf->why : MB_UNNAMED_NO_MAPPING] += count;
	if (leaf && leaf->file && leaf->line)
		d->with_line += count;
	return 0;
}

static int dso_cmp(const void *a, const void *b)
{
	const struct fold_dso *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (!x->dso || !y->dso)
		return !x->dso - !y->dso;
	return strcmp(x->dso, y->dso);
}

int fold_phase(const struct mb_profile *prof, const struct mb_resolved *res, unsigned int phase,
	       uint32_t pid, unsigned int views, struct fold_table *out)
{
	struct row_index ix[FOLD_BY__COUNT] = {};
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < prof->n && i < res->n && !err; i++) {
		const struct mb_sample *s = &prof->samples[i];
		const struct mb_rstack *st = &res->stacks[i];
		const struct mb_sym *leaf = st->n ? &st->frames[0] : NULL;

		if ((phase != FOLD_ALL_PHASES && s->phase != phase) || s->pid != pid)
			continue;
		out->samples += s->count;
		if (s->stack_err)
			out->no_stack += s->count;
		err = count_leaf(out, leaf, s->count);
		if (!leaf || !leaf->name) {
			out->unnamed += s->count;
			out->unnamed_why[leaf ? leaf->why : MB_UNNAMED_NO_MAPPING] += s->count;
		}
		if (leaf && leaf->file && leaf->line)
			out->with_line += s->count;
		for (int by = 0; by < FOLD_BY__COUNT && !err; by++)
			if (views & FOLD_VIEW(by))
				err = fold_sample(by, &out->by[by], &ix[by], s, st, i + 1);
	}
	for (int by = 0; by < FOLD_BY__COUNT; by++) {
		free(ix[by].slots);
		free(ix[by].mark);
	}
	if (err) {
		fold_table__free(out);
		return err;
	}
	for (int by = 0; by < FOLD_BY__COUNT; by++)
		if (out->by[by].n)
			qsort(out->by[by].rows, out->by[by].n, sizeof(struct fold_row), fold_row_cmp);
	if (out->ndsos)
		qsort(out->dsos, out->ndsos, sizeof(*out->dsos), dso_cmp);
	return 0;
}

void fold_table__free(struct fold_table *t)
{
	for (int by = 0; by < FOLD_BY__COUNT; by++) {
		for (size_t i = 0; i < t->by[by].n; i++)
			free(t->by[by].rows[i].name);
		free(t->by[by].rows);
	}
	free(t->dsos);
	memset(t, 0, sizeof(*t));
}
