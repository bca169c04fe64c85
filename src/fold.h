/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Folding symbolized samples into per-phase function tables: self (leaf) and inclusive counts,
 * unnamed leaves grouped by DSO and reason.  Pure: plain data in, plain data out.
 */
#ifndef MUXBPF_FOLD_H
#define MUXBPF_FOLD_H

#include <stddef.h>
#include <stdint.h>
#include "profile.h"
#include "symbolize.h"

struct fold_row {
	char *name;      /* function, or "[unnamed: DSO]" / "[unnamed: REASON]" */
	uint64_t self;   /* samples with this function as the leaf */
	uint64_t total;  /* samples with this function anywhere in the stack (once per stack) */
	int unnamed;     /* 1 when the row collects unnamed leaves */
};

struct fold_table {
	struct fold_row *rows; /* sorted by self, then total, descending; then by name */
	size_t n;
	uint64_t samples;      /* samples of the phase and process folded */
	uint64_t unnamed;      /* of which the leaf has no name */
	uint64_t unnamed_why[MB_UNNAMED__COUNT];
	uint64_t no_stack;     /* samples whose stack could not be taken (leaf only) */
};

/*
 * Fold the samples of one phase and one process.  frames[i] holds the symbolized frames of
 * prof->samples[i] (prof->samples[i].nr of them, leaf first).  Returns 0 or -ENOMEM.
 */
int fold_phase(const struct mb_profile *prof, struct mb_sym *const *frames, unsigned int phase,
	       uint32_t pid, struct fold_table *out);
void fold_table__free(struct fold_table *t);

#endif /* MUXBPF_FOLD_H */
