/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Brendan Gregg's folded stacks: one line per distinct stack, "root;caller;leaf COUNT".  The
 * writer emits a phase's user samples (the report's function tables fold exactly these); the
 * reader loads a file back (muxbpf diff, tests).
 */
#ifndef MUXBPF_OUT_FOLDED_H
#define MUXBPF_OUT_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report/flame.h"
#include "report/report.h"
#include "fold/sprof.h"

/* Phase p of r->stacks, its lines sorted by stack text, so that two runs' files compare with
 * diff(1).  0 or -errno (-EINVAL: the report has no stacks). */
int folded_write(FILE *f, const struct report *r, const struct sp_phase *p);

struct folded_line {
	char *stack; /* "a;b;c", root first */
	uint64_t count;
};

struct folded {
	struct folded_line *v;
	size_t n;
	uint64_t total;
};

/* Read a folded file.  0, -errno, or -EINVAL for a line without a count (message in err). */
int folded_read(const char *path, struct folded *out, char *err, size_t errsz);
void folded_free(struct folded *fo);
/* Add every line of fo to t, as values or (base) as the baseline. */
int folded_to_flame(const struct folded *fo, struct flame *t, bool base);

#endif /* MUXBPF_OUT_FOLDED_H */
