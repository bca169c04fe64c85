/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The netmux phase table: names, canonical order, parsing of --phase. */
#ifndef MUXBPF_PHASES_H
#define MUXBPF_PHASES_H

#include <stdbool.h>
#include "muxbpf.h"

/* Longest name of a phase marked from outside. */
#define PHASE_NAME_MAX 48

/* Name of a phase id ("outside" for 0, "phase<N>" for ids without a name). */
const char *phase_name(unsigned int id);
/* Name an id at or above MUXBPF_PHASE__COUNT (a phase marked from outside).  0 or -EINVAL. */
int phase_set_name(unsigned int id, const char *name);
/* Phase id by name, or -1. */
int phase_by_name(const char *name);
/*
 * Parse "all" or a comma list of names into a set, returned in canonical order.  Returns the
 * count, or -EINVAL after printing one error line that lists the valid names.
 */
int phases_parse(const char *list, unsigned int *out, int max);

#endif /* MUXBPF_PHASES_H */
