/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Call-frame information -> unwind rows.  Pure: an ELF file (or image) in, a sorted table of
 * {pc, rule} rows out, for bpf/unwind.bpf.c to walk.  libdw interprets the CFA programs
 * (dwarf_cfi_addrframe + dwarf_frame_*); this module enumerates the FDEs itself (decoding their
 * pointer encodings from .eh_frame / .debug_frame) and turns each row into the small set of
 * rules the BPF walker evaluates (rsp/rbp + offset, the standard PLT expression, the signal
 * trampoline, the outermost frame).  Malformed CFI is skipped, never trusted: every FDE and rule
 * is range-checked, and rules outside that set become MUXBPF_CFA_UNSUPPORTED rows.
 */
#ifndef MUXBPF_CFI_H
#define MUXBPF_CFI_H

#include <stddef.h>
#include <stdint.h>
#include "muxbpf.h"

struct cfi_row {
	uint64_t pc; /* ELF virtual address where the rule starts; it holds until the next row */
	struct muxbpf_unwind_info info;
};

struct cfi_table {
	struct cfi_row *rows; /* sorted by pc, strictly increasing; gaps are MUXBPF_CFA_NONE rows */
	size_t n;
	uint64_t lo, hi;       /* covered ELF address range [lo, hi) */
	/* What went into it. */
	size_t fdes;           /* FDEs used */
	size_t bad_fdes;       /* FDEs skipped: undecodable, out of range, rows libdw refused */
	size_t unsupported;    /* rows with a rule the walker cannot evaluate */
	int sources;           /* CFI_SRC_* bits */
	char build_id[41];     /* hex, "" when the file has none */
};

enum { CFI_SRC_EH_FRAME = 1, CFI_SRC_DEBUG_FRAME = 2 };

/* Build the table of the ELF file at path.  0 (possibly an empty table), or -errno. */
int cfi_table__build_file(const char *path, struct cfi_table *out);
/* The same from an ELF image in memory (the vDSO; an AArch64 vDSO without CFI gets the leaf
 * rule, return address in x30 and CFA = sp, over its text). */
int cfi_table__build_mem(const void *image, size_t size, struct cfi_table *out);
/* The row covering ELF address pc, or NULL (before the first row or in a gap). */
const struct cfi_row *cfi_table__find(const struct cfi_table *t, uint64_t pc);
void cfi_table__free(struct cfi_table *t);

#endif /* MUXBPF_CFI_H */
