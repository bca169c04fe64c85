/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Folding symbolized samples into per-phase tables, one per view: by function (inlined
 * functions are rows of their own), by source file, by source line, by DSO.  Each row has self
 * (the sample's leaf frame is in it) and total (anywhere on the stack, once per stack) counts.
 * Leaves are also counted per DSO: named, with file:line, and why not.  Pure: plain data in,
 * plain data out.
 */
#ifndef MUXBPF_FOLD_H
#define MUXBPF_FOLD_H

#include <stddef.h>
#include <stdint.h>
#include "model/profile.h"
#include "symbols/resolve.h"
#include "symbols/symbolize.h"

enum fold_by {
	FOLD_BY_FUNCTION,
	FOLD_BY_SRCFILE,
	FOLD_BY_LINE,
	FOLD_BY_DSO,
	FOLD_BY__COUNT,
};

#define FOLD_VIEW(by) (1u << (by))
#define FOLD_ALL_PHASES UINT32_MAX
/* --by views that are not folds of the C++ stacks (src/softcode.c) */
#define FOLD_VIEW_COMMAND (1u << 8)
#define FOLD_VIEW_SOFTCODE (1u << 9)
#define FOLD_VIEWS_SOFTCODE (FOLD_VIEW_COMMAND | FOLD_VIEW_SOFTCODE)

struct fold_row {
	char *name;      /* "fn", "eval.cpp", "eval.cpp:123 fn", "netmux"; unnamed frames are
			  * "[netmux+0xc6700]", "[libc.so.6: no debuginfo]", "[no mapping]"... */
	uint64_t self;   /* samples whose leaf frame is in the row */
	uint64_t total;  /* samples with the row anywhere in the stack (once per stack) */
	int unnamed;     /* 1 when the row is such a bracketed bucket */
};

struct fold_view {
	struct fold_row *rows; /* sorted by self, then total, descending; then by name */
	size_t n;
};

/* Leaf frames in one DSO. */
struct fold_dso {
	const char *dso;                 /* mapping path; NULL: no mapping (or another process) */
	const struct mb_dso_info *info;  /* NULL for no mapping and anonymous memory */
	uint64_t samples, named, with_line;
	uint64_t why[MB_UNNAMED__COUNT]; /* unnamed leaves by reason */
};

struct fold_table {
	struct fold_view by[FOLD_BY__COUNT]; /* the views asked for; the others stay empty */
	uint64_t samples;      /* samples of the phase and process folded */
	uint64_t unnamed;      /* of which the leaf has no name */
	uint64_t unnamed_why[MB_UNNAMED__COUNT];
	uint64_t with_line;    /* of which the leaf has a source file and line */
	uint64_t no_stack;     /* samples whose stack could not be taken (leaf only) */
	struct fold_dso *dsos; /* leaf DSOs, most samples first */
	size_t ndsos;
};

/*
 * Fold the samples of one phase (FOLD_ALL_PHASES: all) and one process into the views set in
 * the mask views (FOLD_VIEW(FOLD_BY_...) bits).  res->stacks[i] holds the symbolized frames of
 * prof->samples[i].  Returns 0 or -ENOMEM.
 */
int fold_phase(const struct mb_profile *prof, const struct mb_resolved *res, unsigned int phase,
	       uint32_t pid, unsigned int views, struct fold_table *out);
void fold_table__free(struct fold_table *t);
/* qsort order of table rows: self, then total, descending; then by name. */
int fold_row_cmp(const void *a, const void *b);

/*
 * The longest row label, with its NUL.  The tables here and the stack profile behind the
 * artifacts (sprof: folded stacks, flame graphs, speedscope, pprof) label frames in buffers of
 * this size, so a long C++ name is cut at the same byte in both and the artifacts name the
 * report's rows (a 600-byte template name cut at 511 in the folded file only was a row the
 * folded stacks did not have).
 */
#define FOLD_LABEL_MAX 1024

/* The row label of frame f in view by (what the report prints; artifacts can use the same).
 * Returns 1 when it is an unnamed bucket ("[netmux+0xc6700]", "[libc.so.6: no debuginfo]"). */
int fold_frame_label(enum fold_by by, const struct mb_sym *f, char *buf, size_t size);
/* "function", "srcfile", "line", "dso". */
const char *fold_by_name(enum fold_by by);
/* A comma list of view names into a mask.  0 or -EINVAL (nothing printed). */
int fold_by_parse(const char *list, unsigned int *views);

#endif /* MUXBPF_FOLD_H */
