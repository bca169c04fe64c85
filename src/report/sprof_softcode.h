/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --by softcode's part of the merged stacks (fold/sprof.h). */
#ifndef MUXBPF_SPROF_SOFTCODE_H
#define MUXBPF_SPROF_SOFTCODE_H

#include "fold/sprof.h"

/* The command thread's samples with softcode frames. */
int sprof_add_softcode(struct sprof *sp, const struct sprof_run *run);

#endif /* MUXBPF_SPROF_SOFTCODE_H */
