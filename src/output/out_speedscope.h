/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* speedscope.json: one profile per phase (https://www.speedscope.app file format). */
#ifndef MUXBPF_OUT_SPEEDSCOPE_H
#define MUXBPF_OUT_SPEEDSCOPE_H

#include <stdio.h>
#include "report/report.h"

/* The profiles of r->stacks.  0 or -errno (-EINVAL: the report has no stacks). */
int speedscope_write(FILE *f, const struct report *r);

#endif /* MUXBPF_OUT_SPEEDSCOPE_H */
