/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Addresses to names, source lines and inline chains.
 *
 * address -> mapping (a maps snapshot) -> file offset -> the mapped file's image (opened once,
 * cached by dev+inode and shared by build-id) -> ELF virtual address through the PT_LOAD
 * headers -> function symbol (binary search) and DWARF (libdw: line table, inlined scopes).
 *
 * Names come from the file's .symtab, else from separate debuginfo (by build-id under each
 * debug directory, then by .gnu_debuglink next to the file, in its .debug/ and under each debug
 * directory), else from MiniDebugInfo (.gnu_debugdata, xz) merged with .dynsym, else .dynsym.
 * File:line and inlines come from the file's DWARF or the debug file's.  An address no symbol
 * covers is attributed to its DSO and the start of its .eh_frame range ("netmux+0xc6700").
 *
 * Every frame keeps the raw truth: the DSO's build-id and the file offset, enough to symbolize
 * it again later with better debuginfo.  Strings are owned by the symbolizer and live until
 * symbolizer__free().
 */
#ifndef MUXBPF_SYMBOLIZE_H
#define MUXBPF_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "proc/maps.h"

/* Why a frame has no function name. */
enum mb_unnamed {
	MB_NAMED = 0,
	MB_UNNAMED_NO_MAPPING, /* address in no mapping of the snapshot */
	MB_UNNAMED_ANON,       /* anonymous memory: JIT code, memfd, [heap], special mappings */
	MB_UNNAMED_NO_FILE,    /* the mapped file cannot be opened or is not ELF */
	MB_UNNAMED_NO_SYMBOL,  /* the file has a full symbol table, but no symbol covers it */
	MB_UNNAMED_STRIPPED,   /* stripped (.dynsym at most) and no debuginfo found */
	MB_UNNAMED__COUNT,
};

/* Where a DSO's names and lines come from (one per image, shared by its frames). */
struct mb_dso_info {
	const char *path;       /* the mapped file, as in the maps snapshot */
	const char *build_id;   /* lowercase hex, "" when the file has none */
	const char *symbols;    /* ".symtab", "debuginfo", ".gnu_debugdata", ".dynsym" or NULL */
	const char *debug_file; /* the separate debuginfo used, or NULL */
	const char *debuglink;  /* the .gnu_debuglink name, or NULL */
	bool full_symtab;       /* local functions are named (not .dynsym only) */
	bool dwarf;             /* file:line and inlines are available */
};

/*
 * One frame of a symbolized stack: the per-frame record.  An address inside inlined code
 * gives several frames, innermost first: the inlined functions (inline_depth n..1), then the
 * function the code physically belongs to (inline_depth 0).  All frames of one address share
 * dso, build_id, offset and ip_index.
 */
struct mb_sym {
	/* the raw truth */
	const char *dso;      /* mapping path ("[vdso]", "[anon]" for anonymous); NULL when the
			       * address is in no mapping */
	const char *build_id; /* hex build-id of dso, "" when unknown or none */
	uint64_t offset;      /* file offset of the address within dso (the address itself for
			       * anonymous memory and no mapping) */
	uint32_t ip_index;    /* which address of the stack (0 = leaf), set by resolve */
	uint16_t inline_depth; /* 0: the physical function; k: inlined k levels into it */
	/* what it means */
	const char *name;     /* demangled function name, or NULL */
	uint64_t sym_off;     /* address - function start (inline_depth 0; for an unnamed frame
			       * with a .eh_frame range, from the range start) */
	const char *file;     /* source file, absolute as in DWARF, or NULL */
	const char *file_rel; /* file relative to its compilation directory when under it */
	uint32_t line;        /* 0 when unknown; the call site for frames that called inlined
			       * code */
	uint32_t column;      /* 0 when unknown */
	enum mb_unnamed why;
	const struct mb_dso_info *info; /* NULL for no mapping and anonymous memory */
};

struct symbolizer;

struct symbolizer *symbolizer__new(void);
/*
 * Where separate debug files are looked up (default /usr/lib/debug): DIR/.build-id/xx/yyyy.debug,
 * then by .gnu_debuglink name: next to the file, in its .debug/, DIR/<file's dir>/NAME and
 * DIR/NAME.  set_debug_dirs replaces the list (n = 0: only the places next to the file);
 * set_debug_dir(s, NULL) turns separate debuginfo off entirely.  Applies to files opened
 * afterwards.  0 or -errno.
 */
int symbolizer__set_debug_dirs(struct symbolizer *s, const char *const *dirs, size_t n);
int symbolizer__set_debug_dir(struct symbolizer *s, const char *dir);
/*
 * Resolve addr, a virtual address in the process the snapshot came from, to the function it
 * physically belongs to (no inline expansion) and the source line of addr itself.  Returns 0
 * (out filled, possibly unnamed with out->why set) or -errno on internal failure.
 */
int symbolizer__lookup(struct symbolizer *s, const struct mb_maps *maps, uint64_t addr,
		       struct mb_sym *out);
/*
 * The same with inlined frames expanded: up to max frames, innermost first (the last one has
 * inline_depth 0).  Returns the number of frames (>= 1; a chain longer than max keeps its
 * innermost max - 1 frames and the physical one) or -errno.
 */
int symbolizer__lookup_inline(struct symbolizer *s, const struct mb_maps *maps, uint64_t addr,
			      struct mb_sym *out, size_t max);
void symbolizer__free(struct symbolizer *s);
/* A short reason for an unnamed frame: "stripped, no debuginfo", "no mapping", ... */
const char *mb_unnamed_str(enum mb_unnamed why);

/* Open mapped files through these pins (not copied: they must outlive the symbolizer's
 * lookups).  NULL to stop. */
void symbolizer__use_pins(struct symbolizer *s, const struct mb_pins *p);

#endif /* MUXBPF_SYMBOLIZE_H */
