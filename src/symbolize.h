/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Addresses to names: mapping from a maps snapshot, file offset, ELF symbol from .symtab (or,
 * when stripped, a build-id debug file's .symtab or .dynsym) with libelf, PIE and shared-library
 * load bias handled, C++ names demangled.  One open ELF per file, cached; lookups are binary
 * searches.
 */
#ifndef MUXBPF_SYMBOLIZE_H
#define MUXBPF_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include "maps.h"

/* Why a frame has no function name. */
enum mb_unnamed {
	MB_NAMED = 0,
	MB_UNNAMED_NO_MAPPING, /* address in no mapping of the snapshot */
	MB_UNNAMED_ANON,       /* anonymous / JIT / [vdso]-less special mapping */
	MB_UNNAMED_NO_FILE,    /* the mapped file cannot be opened or is not ELF */
	MB_UNNAMED_NO_SYMBOL,  /* the ELF has no symbol covering the address (stripped) */
	MB_UNNAMED__COUNT,
};

struct mb_sym {
	const char *dso;  /* mapping path ("[vdso]", "[anon]" for anonymous), owned by symbolizer;
			   * NULL when the address is in no mapping */
	uint64_t offset;  /* file offset of the address within dso (address for anonymous) */
	const char *name; /* demangled function name, or NULL; owned by the symbolizer */
	uint64_t sym_off; /* address - symbol start, when named */
	enum mb_unnamed why;
};

struct symbolizer;

struct symbolizer *symbolizer__new(void);
/* Where separate debug files are looked up by build-id (DIR/.build-id/xx/yyyy.debug) for files
 * without .symtab; default /usr/lib/debug, NULL for none.  Applies to files opened afterwards.
 * Returns 0 or -errno. */
int symbolizer__set_debug_dir(struct symbolizer *s, const char *dir);
/* Resolve addr, a virtual address in the process the snapshot came from.  Returns 0 (out filled,
 * possibly unnamed with out->why set) or -errno on internal failure. */
int symbolizer__lookup(struct symbolizer *s, const struct mb_maps *maps, uint64_t addr,
		       struct mb_sym *out);
void symbolizer__free(struct symbolizer *s);
/* A short reason for an unnamed frame: "stripped", "no mapping", ... */
const char *mb_unnamed_str(enum mb_unnamed why);

#endif /* MUXBPF_SYMBOLIZE_H */
