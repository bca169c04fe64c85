// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* callgrind.out files read into instructions per function (callgrind.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/callgrind.h"

/* Compressed names of one kind: id -> name. */
struct names {
	char **v;
	size_t cap;
};

/* The parser's state. */
struct cgp {
	struct cg_profile *out;
	struct names obs, fns; /* files are skipped: only functions and objects matter here */
	size_t *slot;          /* hash table of function indexes + 1 (0: empty) */
	size_t nslot;
	int npos;  /* position columns of a cost line */
	int ev;    /* the chosen event's column among the costs */
	bool have_events, have_total;
	char *ob;  /* current object (a copy: an id can be defined again) */
	char *cob; /* the pending call's object (cob=), NULL: ob */
	long fn;        /* current function's index in out->fns, -1 before any fn= */
	long cfn;       /* the pending call's target, -1 when none */
	bool call;      /* the next cost line is a call's inclusive cost */
	uint64_t sum;   /* sum of self costs */
	char *err;
	size_t errsz;
	long line;
};

static int fail(struct cgp *p, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, p->errsz, "line %ld: ", p->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->errsz)
		vsnprintf(p->err + n, p->errsz - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int names_set(struct names *t, size_t id, const char *s, size_t len)
{
	char *c;

	if (id >= t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		char **v;

		while (cap <= id)
			cap *= 2;
		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memset(v + t->cap, 0, (cap - t->cap) * sizeof(*v));
		t->v = v;
		t->cap = cap;
	}
	c = strndup(s, len);
	if (!c)
		return -ENOMEM;
	free(t->v[id]);
	t->v[id] = c;
	return 0;
}

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i]);
	free(t->v);
}

/*
 * A name specification's value: "(id) name" (defines id), "(id)" (refers to it) or "name"
 * (uncompressed).  The name into *name and *len (which point into s, or into t).
 */
static int name_spec(struct cgp *p, struct names *t, const char *s, size_t n, const char **name,
		     size_t *len)
{
	if (n && s[0] == '(') {
		char *end;
		unsigned long id = strtoul(s + 1, &end, 10);
		size_t used;
		int err;

		if (end == s + 1 || (size_t)(end - s) >= n || *end != ')' || id > (1ul << 24))
			return fail(p, "bad name id in \"%.*s\"", (int)n, s);
		used = (size_t)(end - s) + 1;
		while (used < n && s[used] == ' ')
			used++;
		if (used < n) {
			err = names_set(t, id, s + used, n - used);
			if (err)
				return err;
		} else if (id >= t->cap || !t->v[id]) {
			return fail(p, "name id %lu used before it is defined", id);
		}
		*name = t->v[id];
		*len = strlen(t->v[id]);
		return 0;
	}
	*name = s;
	*len = n;
	return 0;
}

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int grow(struct cgp *p)
{
	size_t n = p->nslot ? p->nslot * 2 : 1024;
	size_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < p->out->n; i++) {
		const char *s = p->out->fns[i].name;
		size_t k = hash(s, strlen(s)) & (n - 1);

		while (slot[k])
			k = (k + 1) & (n - 1);
		slot[k] = i + 1;
	}
	free(p->slot);
	p->slot = slot;
	p->nslot = n;
	return 0;
}

/* The accumulator of function name[0..len), created on first sight.  Its index or -ENOMEM. */
static long fn_index(struct cgp *p, const char *name, size_t len)
{
	struct cg_profile *o = p->out;
	size_t k;

	if ((o->n + 1) * 2 > p->nslot && grow(p))
		return -ENOMEM;
	k = hash(name, len) & (p->nslot - 1);
	for (; p->slot[k]; k = (k + 1) & (p->nslot - 1)) {
		const char *s = o->fns[p->slot[k] - 1].name;

		if (strlen(s) == len && !memcmp(s, name, len))
			return (long)p->slot[k] - 1;
	}
	if ((o->n & (o->n - 1)) == 0 || o->n == 0) { /* capacity doubles at powers of two */
		struct cg_fn *v = realloc(o->fns, (o->n ? o->n * 2 : 64) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->fns = v;
	}
	memset(&o->fns[o->n], 0, sizeof(o->fns[0]));
	o->fns[o->n].name = strndup(name, len);
	if (!o->fns[o->n].name)
		return -ENOMEM;
	if ((p->cob ?: p->ob) && !(o->fns[o->n].obj = strdup(p->cob ?: p->ob)))
		return -ENOMEM;
	p->slot[k] = o->n + 1;
	return (long)o->n++;
}

/* "events: Ir Dr ..." : the chosen event's column. */
static int parse_events(struct cgp *p, const char *s, size_t n, const char *event)
{
	size_t i = 0;
	int col = 0;

	while (i < n) {
		size_t j;

		while (i < n && isspace((unsigned char)s[i]))
			i++;
		j = i;
		while (j < n && !isspace((unsigned char)s[j]))
			j++;
		if (j > i && strlen(event) == j - i && !strncmp(s + i, event, j - i)) {
			p->ev = col;
			p->have_events = true;
			return 0;
		}
		if (j > i)
			col++;
		i = j;
	}
	return -ENOENT;
}

/* The col-th number of a space-separated list ("summary: 1 2 3"), 0 when missing. */
static uint64_t nth_number(const char *s, size_t n, int col)
{
	size_t i = 0;

	for (int c = 0; i < n; c++) {
		while (i < n && s[i] == ' ')
			i++;
		if (i >= n)
			break;
		if (c == col)
			return strtoull(s + i, NULL, 10);
		while (i < n && s[i] != ' ')
			i++;
	}
	return 0;
}

static int header(struct cgp *p, const char *key, size_t klen, const char *v, size_t n,
		  const char *event)
{
	if (klen == 6 && !strncmp(key, "events", 6)) {
		int err = parse_events(p, v, n, event);

		if (err == -ENOENT)
			snprintf(p->err, p->errsz, "no event %s in the events: line", event);
		return err;
	}
	if (klen == 9 && !strncmp(key, "positions", 9)) {
		p->npos = 0;
		for (size_t i = 0; i < n; i++)
			if (v[i] != ' ' && (i == 0 || v[i - 1] == ' '))
				p->npos++;
		if (p->npos < 1 || p->npos > 3)
			return fail(p, "bad positions: line");
		return 0;
	}
	if ((klen == 7 && !strncmp(key, "summary", 7)) ||
	    (klen == 6 && !strncmp(key, "totals", 6))) {
		if (!p->have_events)
			return fail(p, "%.*s: before events:", (int)klen, key);
		p->out->total = nth_number(v, n, p->ev);
		p->have_total = true;
	}
	return 0;
}

/* a + b, saturating: a malformed file must not wrap a count round */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* A cost line: the positions, then the costs; the chosen event's count. */
static int cost_line(struct cgp *p, const char *s, size_t n)
{
	uint64_t c = 0;
	size_t i = 0;
	int tok = 0;

	if (!p->have_events)
		return fail(p, "cost line before events:");
	while (i < n) {
		size_t j;

		while (i < n && s[i] == ' ')
			i++;
		if (i >= n)
			break;
		j = i;
		while (j < n && s[j] != ' ')
			j++;
		if (tok >= p->npos && tok - p->npos == p->ev) {
			char *end;

			c = strtoull(s + i, &end, 10);
			if (end != s + j)
				return fail(p, "bad cost \"%.*s\"", (int)(j - i), s + i);
		}
		tok++;
		i = j;
	}
	if (tok < p->npos)
		return fail(p, "cost line with fewer than %d positions", p->npos);
	if (p->fn < 0)
		return fail(p, "cost line before any fn=");
	if (p->call) {
		if (p->cfn != p->fn)
			p->out->fns[p->fn].incl = sat_add(p->out->fns[p->fn].incl, c);
		p->call = false;
		free(p->cob);
		p->cob = NULL;
		return 0;
	}
	p->out->fns[p->fn].self = sat_add(p->out->fns[p->fn].self, c);
	p->out->fns[p->fn].incl = sat_add(p->out->fns[p->fn].incl, c);
	p->sum = sat_add(p->sum, c);
	return 0;
}

static int spec(struct cgp *p, const char *k, size_t klen, const char *v, size_t n)
{
	const char *name;
	size_t len;
	long idx;
	int err;

	if ((klen == 2 && !strncmp(k, "ob", 2)) || (klen == 3 && !strncmp(k, "cob", 3))) {
		char **to = k[0] == 'o' ? &p->ob : &p->cob;

		err = name_spec(p, &p->obs, v, n, &name, &len);
		if (err)
			return err;
		free(*to);
		*to = strndup(name, len);
		return *to ? 0 : -ENOMEM;
	}
	if ((klen == 2 && !strncmp(k, "fn", 2)) || (klen == 3 && !strncmp(k, "cfn", 3))) {
		err = name_spec(p, &p->fns, v, n, &name, &len);
		if (err)
			return err;
		idx = fn_index(p, name, len);
		if (idx < 0)
			return (int)idx;
		if (k[0] == 'f') {
			p->fn = idx;
			p->cfn = -1;
			free(p->cob);
			p->cob = NULL;
		} else {
			p->cfn = idx;
		}
		return 0;
	}
	if (klen == 5 && !strncmp(k, "calls", 5)) {
		if (p->cfn < 0)
			return fail(p, "calls= without cfn=");
		p->call = true;
		return 0;
	}
	/* fl= fi= fe= cfi= cfl= jump= jcnd= and others: positions only, nothing to count */
	return 0;
}

int cg_parse(const char *text, size_t len, const char *event, struct cg_profile *out, char *err,
	     size_t errsz)
{
	struct cgp p = { .out = out, .npos = 1, .fn = -1, .cfn = -1, .err = err, .errsz = errsz };
	size_t i = 0;
	int e = 0;

	memset(out, 0, sizeof(*out));
	if (errsz)
		err[0] = 0;
	if (!event)
		event = "Ir";
	while (i < len && !e) {
		const char *s = text + i, *nl = memchr(s, '\n', len - i);
		size_t n = nl ? (size_t)(nl - s) : len - i, k = 0;

		i += n + 1;
		p.line++;
		if (n && s[n - 1] == '\r')
			n--;
		if (!n || s[0] == '#')
			continue;
		if (isdigit((unsigned char)s[0]) || s[0] == '+' || s[0] == '-' || s[0] == '*') {
			e = cost_line(&p, s, n);
			continue;
		}
		while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '_'))
			k++;
		if (k && k < n && s[k] == '=') {
			e = spec(&p, s, k, s + k + 1, n - k - 1);
		} else if (k && k < n && s[k] == ':') {
			size_t v = k + 1;

			while (v < n && s[v] == ' ')
				v++;
			e = header(&p, s, k, s + v, n - v, event);
		} else {
			e = fail(&p, "not a callgrind.out line: \"%.*s\"", (int)(n > 40 ? 40 : n),
				 s);
		}
	}
	if (!e && !p.have_events)
		e = fail(&p, "no events: line (not a callgrind.out file)");
	if (!e && !p.have_total)
		out->total = p.sum;
	names_free(&p.obs);
	names_free(&p.fns);
	free(p.ob);
	free(p.cob);
	free(p.slot);
	if (e)
		cg_profile_free(out);
	return e;
}

static int cmp_self(const void *x, const void *y)
{
	const struct cg_fn *a = x, *b = y;

	if (a->self != b->self)
		return a->self < b->self ? 1 : -1;
	return strcmp(a->name, b->name);
}

void cg_sort_self(struct cg_profile *p)
{
	if (p->n)
		qsort(p->fns, p->n, sizeof(*p->fns), cmp_self);
}

void cg_profile_free(struct cg_profile *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->fns[i].name);
		free(p->fns[i].obj);
	}
	free(p->fns);
	memset(p, 0, sizeof(*p));
}
