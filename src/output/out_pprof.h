/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* profile.pb.gz: pprof's profile.proto (out_pprof.c). */
#ifndef MUXBPF_OUT_PPROF_H
#define MUXBPF_OUT_PPROF_H

#include <stddef.h>
#include "report/report.h"

/* The gzip'd pprof profile of r->stacks into a file. 0 or -errno (-EINVAL: no stacks). */
int pprof_write(const char *path, const struct report *r);
/* The uncompressed protobuf in a malloc'd buffer (tests decode it). 0 or -errno. */
int pprof_encode(const struct report *r, unsigned char **buf, size_t *len);

#endif /* MUXBPF_OUT_PPROF_H */
