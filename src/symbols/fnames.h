/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The names of the functions a set of ELF files defines (.symtab and .dynsym, FUNC symbols with
 * a section), as the symbolizer shows them: version suffix dropped, C++ demangled.  muxbpf ab
 * asks it whether a function of one build exists in the other at all.
 */
#ifndef MUXBPF_FNAMES_H
#define MUXBPF_FNAMES_H

#include <stdbool.h>
#include <stddef.h>

struct fnames {
	char **v; /* sorted after fnames_done */
	size_t n, cap;
	char **files; /* the paths added (each once) */
	size_t nfiles;
};

/* Add the functions path defines (once per path).  0, or -errno (not an ELF file: -ENOEXEC). */
int fnames_add_file(struct fnames *s, const char *path);
/* Sort and drop duplicates: call after the last add, before fnames_has. */
void fnames_done(struct fnames *s);
bool fnames_has(const struct fnames *s, const char *name);
void fnames_free(struct fnames *s);

#endif /* MUXBPF_FNAMES_H */
