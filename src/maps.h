/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* /proc/PID/maps snapshots: parse (pure) and look up addresses. */
#ifndef MUXBPF_MAPS_H
#define MUXBPF_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mb_mapping {
	uint64_t start, end; /* [start, end) */
	uint64_t offset;     /* file offset of start */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	char perms[5];       /* "r-xp" */
	char *path;          /* "" for anonymous, "[heap]", "/usr/lib/... (deleted)" as in the file */
};

struct mb_maps {
	struct mb_mapping *v; /* sorted by start */
	size_t n;
};

/* Parse the text of a maps file.  Malformed lines are an error (-EINVAL). Returns 0 or -errno. */
int maps__parse(const char *text, size_t len, struct mb_maps *out);
/* Read and parse /proc/PID/maps (pid 0: self).  Returns 0 or -errno; prints nothing. */
int maps__read(pid_t pid, struct mb_maps *out);
/* The mapping containing addr, or NULL. */
const struct mb_mapping *maps__find(const struct mb_maps *m, uint64_t addr);
void maps__free(struct mb_maps *m);

#endif /* MUXBPF_MAPS_H */
