/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JSON for the artifacts: a streaming writer (report.json, speedscope.json) and a small DOM
 * parser (muxbpf diff reads report.json back).  Pure: no I/O beyond the FILE given.
 */
#ifndef MUXBPF_JSON_H
#define MUXBPF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 64

/* Writer.  Calls must nest correctly; keys only inside objects.  pretty: 1 space per level. */
struct jw {
	FILE *f;
	bool pretty;
	int depth;
	bool first[JW_MAX_DEPTH];
	bool after_key;
};

void jw_init(struct jw *w, FILE *f, bool pretty);
void jw_obj(struct jw *w);
void jw_obj_end(struct jw *w);
void jw_arr(struct jw *w);
void jw_arr_end(struct jw *w);
void jw_key(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *s); /* NULL writes null */
void jw_u64(struct jw *w, uint64_t v);
void jw_i64(struct jw *w, int64_t v);
void jw_num(struct jw *w, double v);      /* shortest text that reads back equal; null if NaN/inf */
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* key + value in one call */
void jw_kstr(struct jw *w, const char *key, const char *s);
void jw_ku64(struct jw *w, const char *key, uint64_t v);
void jw_ki64(struct jw *w, const char *key, int64_t v);
void jw_knum(struct jw *w, const char *key, double v);
void jw_kbool(struct jw *w, const char *key, bool v);
/* Write s as a JSON string literal (quotes included) to f. */
void json_write_string(FILE *f, const char *s);

/* Parser. */
enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	bool b;
	double num;
	char *s;        /* JV_STR */
	size_t n;       /* JV_ARR, JV_OBJ: items */
	struct jv *v;   /* items */
	char **keys;    /* JV_OBJ: keys[i] names v[i] */
};

/* Parse text (len bytes, NUL not needed).  NULL with a message in err ("line 3: ...") on
 * malformed input or no memory. */
struct jv *json_parse(const char *text, size_t len, char *err, size_t errsz);
/* Read and parse a file.  NULL with a message in err. */
struct jv *json_parse_file(const char *path, char *err, size_t errsz);
void jv_free(struct jv *v);
/* Member of an object, or NULL (also when o is NULL or not an object). */
const struct jv *jv_get(const struct jv *o, const char *key);
/* Typed accessors with a default for a missing or mistyped value. */
double jv_num(const struct jv *v, double dflt);
const char *jv_str(const struct jv *v, const char *dflt);
bool jv_bool(const struct jv *v, bool dflt);

struct stats_ci;
/* A share's 95% interval in percent as KEY: [lo, hi] (the one the text report prints). */
void json_write_ci(struct jw *w, const char *key, const struct stats_ci *ci);

#endif /* MUXBPF_JSON_H */
