/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Logging by level: errors always, verbose with -v, debug with -vv.  Messages are one line,
 * lower case, no full stop: "failed to attach sampler on CPU 1: Operation not permitted". */
#ifndef MUXBPF_LOG_H
#define MUXBPF_LOG_H

#include <stdio.h>

extern int log_level; /* 0 = errors and warnings, 1 = verbose, 2 = debug */

#define pr_err(fmt, ...) fprintf(stderr, "muxbpf: " fmt "\n", ##__VA_ARGS__)
#define pr_warn(fmt, ...) fprintf(stderr, "muxbpf: warning: " fmt "\n", ##__VA_ARGS__)
#define pr_verbose(fmt, ...)                                                                       \
	do {                                                                                       \
		if (log_level >= 1)                                                                \
			fprintf(stderr, "muxbpf: " fmt "\n", ##__VA_ARGS__);                       \
	} while (0)
#define pr_debug(fmt, ...)                                                                         \
	do {                                                                                       \
		if (log_level >= 2)                                                                \
			fprintf(stderr, "muxbpf: debug: " fmt "\n", ##__VA_ARGS__);                \
	} while (0)

#endif /* MUXBPF_LOG_H */
