/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* muxbpf ab's text and ab.json, from its result (report/ab_result.h). */
#ifndef MUXBPF_OUT_AB_H
#define MUXBPF_OUT_AB_H

#include <stdio.h>
#include "report/ab_result.h"

/* The verdict table, then the details. */
void ab_text_write(FILE *f, const struct ab_result *r);
/* ab.json. */
int ab_json_write(FILE *f, const struct ab_result *r);

#endif /* MUXBPF_OUT_AB_H */
