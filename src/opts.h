/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Command line. */
#ifndef MUXBPF_OPTS_H
#define MUXBPF_OPTS_H

#include <stdbool.h>
#include "muxbpf.h"

struct opts {
	unsigned int phases[MUXBPF_PHASE__COUNT];
	int nphases;
	double scale;
	double idle_seconds;
	int freq;
	int top;
	const char *netmux;
	const char *game;
	bool keep;
	bool no_profile;
	int unwind; /* enum muxbpf_unwind_mode (--unwind; default auto) */
	bool no_syscalls;
};

/* Parse argv.  Returns 0 to run, 1 when --help/--version was printed, -EINVAL after one error
 * line for bad input. */
int opts_parse(int argc, char **argv, struct opts *o);

#endif /* MUXBPF_OPTS_H */
