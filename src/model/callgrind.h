/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * callgrind.out files (valgrind --tool=callgrind, one file per dump) read into instructions per
 * function: pure, no I/O beyond the text given, unit-tested in tests/test_callgrind.c.
 *
 * The format (valgrind's docs/callgrind-format): "key: value" header lines (events:, summary:,
 * totals:), position specifications (ob= fl= fi= fe= fn=, and cob= cfi= cfl= cfn= for a
 * call's target) with name compression ("(7) name" defines id 7, "(7)" refers to it), calls=
 * lines after which the next cost line is the inclusive cost of that call, and cost lines:
 * the positions (absolute, "+N"/"-N" relative, or "*" the same) and then the event counts
 * (missing trailing counts are 0).
 *
 * Per function (by name, summed over the objects and files it appears under): self = its own
 * cost lines, inclusive = self + the cost of its calls to other functions (a call to itself
 * is already in its self cost; mutual recursion counts twice, as callgrind_annotate does).
 * Code inlined into a function counts in that function: callgrind names the out-of-line
 * symbol (fn=) and marks only the inlined code's file (fi=/fe=), so inlined frames are not
 * functions of their own here.
 */
#ifndef MUXBPF_CALLGRIND_H
#define MUXBPF_CALLGRIND_H

#include <stddef.h>
#include <stdint.h>

struct cg_fn {
	char *name;
	char *obj;     /* the object of its first appearance (ob=), NULL when none */
	uint64_t self; /* of the chosen event */
	uint64_t incl;
};

struct cg_profile {
	uint64_t total; /* summary:/totals: of the event, or the sum of self costs when absent */
	struct cg_fn *fns;
	size_t n;
};

/* Parse len bytes of a callgrind.out file, counting the event named event (NULL: "Ir").
 * 0, -EINVAL (malformed: one line naming where, in err), -ENOENT (no such event) or -ENOMEM. */
int cg_parse(const char *text, size_t len, const char *event, struct cg_profile *out, char *err,
	     size_t errsz);
/* Sort fns by self cost, largest first (then by name). */
void cg_sort_self(struct cg_profile *p);
void cg_profile_free(struct cg_profile *p);

#endif /* MUXBPF_CALLGRIND_H */
