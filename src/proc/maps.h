/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* /proc/PID/maps snapshots: parse (pure), look up addresses, and hold the mapped files open. */
#ifndef MUXBPF_MAPS_H
#define MUXBPF_MAPS_H

#include <stdbool.h>
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
/* Does a mapping's path end in " (deleted)" (the file was removed or replaced)?  *len: the
 * length of the path without it. */
bool maps__path_deleted(const char *path, size_t *len);

/*
 * Files behind a process's executable mappings, held open from each maps snapshot on, so they
 * can be read after the process unmaps them (dlclose), exits, or the file is deleted or
 * replaced.  Keyed by dev+inode as in the snapshot.
 */
struct mb_pin {
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	int fd;
};

struct mb_pins {
	struct mb_pin *v;
	size_t n, cap;
};

/* Pin the executable file mappings of pid's snapshot not pinned yet (/proc/PID/map_files
 * first: the very file mapped, even if deleted).  0 or -errno (-ENOMEM); a file that cannot be
 * opened is skipped. */
int mb_pins__add(struct mb_pins *p, pid_t pid, const struct mb_maps *maps);
/* The pin of a file by dev+inode, or NULL (p may be NULL). */
const struct mb_pin *mb_pins__find(const struct mb_pins *p, uint64_t inode, uint32_t major,
				   uint32_t minor);
void mb_pins__free(struct mb_pins *p);

#endif /* MUXBPF_MAPS_H */
