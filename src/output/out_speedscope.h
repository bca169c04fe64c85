/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* speedscope.json: one profile per phase (https://www.speedscope.app file format). */
#ifndef MUXBPF_OUT_SPEEDSCOPE_H
#define MUXBPF_OUT_SPEEDSCOPE_H

#include <stdio.h>
#include "report/report.h"
#include "fold/sprof.h"

int speedscope_write(FILE *f, const struct report *r, const struct sprof *sp);

#endif /* MUXBPF_OUT_SPEEDSCOPE_H */
