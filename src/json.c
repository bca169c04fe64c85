// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* JSON writer and DOM parser (RFC 8259; the parser accepts exactly that, nothing lenient). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

/* ---- writer ---------------------------------------------------------------------------------- */

void jw_init(struct jw *w, FILE *f, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty = pretty;
	w->first[0] = true;
}

static void newline(struct jw *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->f);
	for (int i = 0; i < w->depth; i++)
		fputc(' ', w->f);
}

/* Separator and indentation before a value (or a key). */
static void before_value(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = false;
	if (w->depth)
		newline(w);
}

static void jw_open(struct jw *w, char c)
{
	before_value(w);
	fputc(c, w->f);
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
}

static void jw_close(struct jw *w, char c)
{
	bool empty = w->first[w->depth];

	if (w->depth)
		w->depth--;
	if (!empty)
		newline(w);
	fputc(c, w->f);
}

void jw_obj(struct jw *w)
{
	jw_open(w, '{');
}

void jw_obj_end(struct jw *w)
{
	jw_close(w, '}');
}

void jw_arr(struct jw *w)
{
	jw_open(w, '[');
}

void jw_arr_end(struct jw *w)
{
	jw_close(w, ']');
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0 when it is not one. */
static int utf8_len(const unsigned char *p)
{
	int n = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 && *p < 0xe0 ? 2 : 0;

	if (*p < 0x80)
		return 1;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && *p == 0xe0 && p[1] < 0xa0) || (n == 4 && *p == 0xf0 && p[1] < 0x90) ||
	    (n == 4 && *p == 0xf4 && p[1] >= 0x90) || (n == 3 && *p == 0xed && p[1] >= 0xa0))
		return 0; /* overlong, beyond U+10FFFF, or a surrogate */
	return n;
}

/* The string as a JSON literal; bytes that are not UTF-8 become U+FFFD, so the output is
 * always valid JSON whatever a path or a process name holds. */
void json_write_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		int n = utf8_len(p);

		if (n == 0) {
			fputs("\\ufffd", f);
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, f);
			p += n - 1;
			continue;
		}
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void jw_key(struct jw *w, const char *key)
{
	before_value(w);
	json_write_string(w->f, key);
	fputs(w->pretty ? ": " : ":", w->f);
	w->after_key = true;
}

void jw_str(struct jw *w, const char *s)
{
	before_value(w);
	if (s)
		json_write_string(w->f, s);
	else
		fputs("null", w->f);
}

void jw_u64(struct jw *w, uint64_t v)
{
	before_value(w);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

void jw_i64(struct jw *w, int64_t v)
{
	before_value(w);
	fprintf(w->f, "%lld", (long long)v);
}

void jw_num(struct jw *w, double v)
{
	char buf[40];

	before_value(w);
	if (!isfinite(v)) {
		fputs("null", w->f);
		return;
	}
	/* the shortest of %.15g..%.17g that reads back as the same double */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, w->f);
}

void jw_bool(struct jw *w, bool v)
{
	before_value(w);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w)
{
	before_value(w);
	fputs("null", w->f);
}

void jw_kstr(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str(w, s);
}

void jw_ku64(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	jw_u64(w, v);
}

void jw_ki64(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	jw_i64(w, v);
}

void jw_knum(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	jw_num(w, v);
}

void jw_kbool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_bool(w, v);
}

/* ---- parser ---------------------------------------------------------------------------------- */

struct parser {
	const char *p, *end, *start;
	char *err;
	size_t errsz;
	int depth;
};

static int perr(struct parser *ps, const char *fmt, ...)
{
	int line = 1;
	va_list ap;
	size_t len;

	for (const char *q = ps->start; q < ps->p; q++)
		line += *q == '\n';
	if (ps->err && ps->errsz && !ps->err[0]) {
		len = snprintf(ps->err, ps->errsz, "line %d: ", line);
		va_start(ap, fmt);
		if (len < ps->errsz)
			vsnprintf(ps->err + len, ps->errsz - len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int hex4(struct parser *ps, unsigned int *out)
{
	unsigned int v = 0;

	if (ps->end - ps->p < 4)
		return perr(ps, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return perr(ps, "bad \\u escape");
	}
	*out = v;
	return 0;
}

static size_t utf8_put(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = 0xc0 | cp >> 6;
		o[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = 0xe0 | cp >> 12;
		o[1] = 0x80 | ((cp >> 6) & 0x3f);
		o[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	o[0] = 0xf0 | cp >> 18;
	o[1] = 0x80 | ((cp >> 12) & 0x3f);
	o[2] = 0x80 | ((cp >> 6) & 0x3f);
	o[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* A string literal at ps->p (the opening quote); *out is malloc'd. */
static int parse_string(struct parser *ps, char **out)
{
	const char *q = ++ps->p;
	char *s, *o;

	/* the decoded text is never longer than the literal */
	while (q < ps->end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	if (q >= ps->end)
		return perr(ps, "unterminated string");
	s = o = malloc(q - ps->p + 1);
	if (!s)
		return -ENOMEM;
	while (*ps->p != '"') {
		unsigned char c = *ps->p++;
		unsigned int cp, lo;

		if (c < 0x20) {
			free(s);
			return perr(ps, "control character in string");
		}
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		c = *ps->p++;
		switch (c) {
		case '"': case '\\': case '/':
			*o++ = c;
			break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (hex4(ps, &cp)) {
				free(s);
				return -EINVAL;
			}
			if (cp >= 0xd800 && cp < 0xdc00 && ps->end - ps->p >= 6 &&
			    ps->p[0] == '\\' && ps->p[1] == 'u') {
				ps->p += 2;
				if (hex4(ps, &lo)) {
					free(s);
					return -EINVAL;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			o += utf8_put(o, cp);
			break;
		default:
			free(s);
			return perr(ps, "bad escape '\\%c'", c);
		}
	}
	ps->p++;
	*o = 0;
	*out = s;
	return 0;
}

static int parse_value(struct parser *ps, struct jv *v);

static int push_item(struct jv *v, size_t *cap)
{
	if (v->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct jv *nv = realloc(v->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->v = nv;
		if (v->type == JV_OBJ) {
			char **nk = realloc(v->keys, ncap * sizeof(*nk));

			if (!nk)
				return -ENOMEM;
			v->keys = nk;
		}
		*cap = ncap;
	}
	memset(&v->v[v->n], 0, sizeof(v->v[0]));
	if (v->type == JV_OBJ)
		v->keys[v->n] = NULL;
	v->n++;
	return 0;
}

static int parse_container(struct parser *ps, struct jv *v, char close_c)
{
	size_t cap = 0;
	int err;

	if (++ps->depth > 512)
		return perr(ps, "nesting too deep");
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close_c) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		skip_ws(ps);
		if (v->type == JV_OBJ) {
			if (ps->p >= ps->end || *ps->p != '"')
				return perr(ps, "expected a key");
			err = parse_string(ps, &key);
			if (err)
				return err;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				return perr(ps, "expected ':'");
			}
			ps->p++;
		}
		err = push_item(v, &cap);
		if (err) {
			free(key);
			return err;
		}
		if (v->type == JV_OBJ)
			v->keys[v->n - 1] = key;
		err = parse_value(ps, &v->v[v->n - 1]);
		if (err)
			return err;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close_c) {
			ps->p++;
			ps->depth--;
			return 0;
		}
		return perr(ps, "expected ',' or '%c'", close_c);
	}
}

static int parse_literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return perr(ps, "unexpected character '%c'", *ps->p);
	ps->p += n;
	return 0;
}

static int parse_number(struct parser *ps, struct jv *v)
{
	const char *q = ps->p;
	char buf[64];

	if (q < ps->end && *q == '-')
		q++;
	if (q >= ps->end || *q < '0' || *q > '9')
		return perr(ps, "bad number");
	if (*q == '0')
		q++;
	else
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	if (q < ps->end && *q == '.') {
		if (++q >= ps->end || *q < '0' || *q > '9')
			return perr(ps, "bad number");
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= ps->end || *q < '0' || *q > '9')
			return perr(ps, "bad number");
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if ((size_t)(q - ps->p) >= sizeof(buf))
		return perr(ps, "number too long");
	memcpy(buf, ps->p, q - ps->p);
	buf[q - ps->p] = 0;
	v->type = JV_NUM;
	v->num = strtod(buf, NULL);
	ps->p = q;
	return 0;
}

static int parse_value(struct parser *ps, struct jv *v)
{
	skip_ws(ps);
	if (ps->p >= ps->end)
		return perr(ps, "unexpected end of input");
	switch (*ps->p) {
	case '{':
		v->type = JV_OBJ;
		return parse_container(ps, v, '}');
	case '[':
		v->type = JV_ARR;
		return parse_container(ps, v, ']');
	case '"':
		v->type = JV_STR;
		return parse_string(ps, &v->s);
	case 't':
		v->type = JV_BOOL;
		v->b = true;
		return parse_literal(ps, "true");
	case 'f':
		v->type = JV_BOOL;
		return parse_literal(ps, "false");
	case 'n':
		v->type = JV_NULL;
		return parse_literal(ps, "null");
	default:
		return parse_number(ps, v);
	}
}

static void jv_clear(struct jv *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jv_clear(&v->v[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->v);
	free(v->keys);
	free(v->s);
}

void jv_free(struct jv *v)
{
	if (!v)
		return;
	jv_clear(v);
	free(v);
}

struct jv *json_parse(const char *text, size_t len, char *err, size_t errsz)
{
	struct parser ps = { .p = text, .end = text + len, .start = text, .err = err,
			     .errsz = errsz };
	struct jv *v = calloc(1, sizeof(*v));
	int rc;

	if (err && errsz)
		err[0] = 0;
	if (!v) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	rc = parse_value(&ps, v);
	if (!rc) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			rc = perr(&ps, "trailing text after the value");
	}
	if (rc) {
		if (rc == -ENOMEM && err && errsz)
			snprintf(err, errsz, "out of memory");
		jv_free(v);
		return NULL;
	}
	return v;
}

struct jv *json_parse_file(const char *path, char *err, size_t errsz)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	struct jv *v;

	if (!f) {
		snprintf(err, errsz, "%s", strerror(errno));
		return NULL;
	}
	do {
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap = cap * 2 + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				snprintf(err, errsz, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		snprintf(err, errsz, "read error");
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	v = json_parse(buf, len, err, errsz);
	free(buf);
	return v;
}

const struct jv *jv_get(const struct jv *o, const char *key)
{
	if (!o || o->type != JV_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->v[i];
	return NULL;
}

double jv_num(const struct jv *v, double dflt)
{
	return v && v->type == JV_NUM ? v->num : dflt;
}

const char *jv_str(const struct jv *v, const char *dflt)
{
	return v && v->type == JV_STR ? v->s : dflt;
}

bool jv_bool(const struct jv *v, bool dflt)
{
	return v && v->type == JV_BOOL ? v->b : dflt;
}
