// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Folded stacks: write a phase, read a file back. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "output/out_folded.h"

/* A frame label in folded text: ';' separates frames and a line ends the stack. */
static void put_label(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static const struct sp_stack *sort_base;
static const struct sprof *sort_sp;

/* Compare two stacks by their text, root first. */
static int stack_text_cmp(const void *a, const void *b)
{
	const struct sp_stack *x = &sort_base[*(const size_t *)a];
	const struct sp_stack *y = &sort_base[*(const size_t *)b];
	uint32_t i = 0;

	for (; i < x->nr && i < y->nr; i++) {
		int c = strcmp(sort_sp->frames[x->frames[x->nr - 1 - i]].label,
			       sort_sp->frames[y->frames[y->nr - 1 - i]].label);

		if (c)
			return c;
	}
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

int folded_write(FILE *f, const struct report *r, const struct sp_phase *p)
{
	const struct sprof *sp = r->stacks;
	size_t *order;

	if (!sp)
		return -EINVAL;
	order = malloc((p->nstacks ? p->nstacks : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < p->nstacks; i++)
		order[i] = i;
	sort_base = p->stacks;
	sort_sp = sp;
	if (p->nstacks > 1)
		qsort(order, p->nstacks, sizeof(*order), stack_text_cmp);
	for (size_t k = 0; k < p->nstacks; k++) {
		const struct sp_stack *s = &p->stacks[order[k]];

		for (uint32_t i = s->nr; i-- > 0;) {
			put_label(f, sp->frames[s->frames[i]].label);
			if (i)
				fputc(';', f);
		}
		fprintf(f, " %llu\n", (unsigned long long)s->count);
	}
	free(order);
	return ferror(f) ? -EIO : 0;
}

int folded_read(const char *path, struct folded *out, char *err, size_t errsz)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, vcap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;

	memset(out, 0, sizeof(*out));
	if (!f) {
		rc = -errno;
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return rc;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *sp, *end;
		unsigned long long n;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len)
			continue;
		sp = strrchr(line, ' ');
		errno = 0;
		n = sp ? strtoull(sp + 1, &end, 10) : 0;
		if (!sp || sp == line || errno || end == sp + 1 || *end) {
			snprintf(err, errsz, "%s:%d: expected 'frame;frame COUNT'", path, lineno);
			rc = -EINVAL;
			break;
		}
		*sp = 0;
		rc = mb_grow((void **)&out->v, &vcap, out->n + 1, sizeof(*out->v), 256);
		if (rc)
			break;
		out->v[out->n].stack = strdup(line);
		if (!out->v[out->n].stack) {
			rc = -ENOMEM;
			break;
		}
		out->v[out->n++].count = n;
		out->total += n;
	}
	free(line);
	fclose(f);
	if (rc)
		folded_free(out);
	return rc;
}

void folded_free(struct folded *fo)
{
	for (size_t i = 0; i < fo->n; i++)
		free(fo->v[i].stack);
	free(fo->v);
	memset(fo, 0, sizeof(*fo));
}

int folded_to_flame(const struct folded *fo, struct flame *t, bool base)
{
	const char *names[MUXBPF_MAX_STACK_DEPTH + 8];
	uint8_t kinds[MUXBPF_MAX_STACK_DEPTH + 8];

	for (size_t i = 0; i < fo->n; i++) {
		char *s = strdup(fo->v[i].stack), *save = NULL, *tok;
		size_t n = 0;
		int err;

		if (!s)
			return -ENOMEM;
		for (tok = strtok_r(s, ";", &save); tok && n < sizeof(names) / sizeof(names[0]);
		     tok = strtok_r(NULL, ";", &save)) {
			names[n] = tok;
			kinds[n++] = !strncmp(tok, "[sys] ", 6) ? FLAME_KERNEL
				     : tok[0] == '[' ? FLAME_UNNAMED : FLAME_USER;
		}
		err = flame_add(t, names, kinds, n, base ? 0 : (double)fo->v[i].count,
				base ? (double)fo->v[i].count : 0);
		free(s);
		if (err)
			return err;
	}
	return 0;
}
