/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The symbolizer's insides, shared by symbolize.c (ELF symbols, debuginfo, the caches) and
 * symbolize_inline.c (DWARF inline chains).  Private: nothing outside these two includes it.
 */
#ifndef MUXBPF_SYMBOLIZE_INT_H
#define MUXBPF_SYMBOLIZE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include "symbols/elfread.h"
#include "symbols/symbolize.h"

#define MAX_INLINE 64 /* deeper inline chains keep their innermost frames */

struct obj;

struct sym {
	uint64_t start, end; /* ELF virtual addresses, [start, end) */
	const char *name;    /* in an Elf's string table */
	char *display;       /* name as shown, when not name itself: demangled, unversioned */
	uint32_t cover;      /* index of the symbol with the largest end among 0..this one */
	bool display_done;
};

/* A PT_LOAD header: file bytes [offset, offset + filesz) are at vaddr. */
struct seg {
	uint64_t offset, vaddr, filesz;
};

/* One frame of an address's answer, as the image memoizes it. */
struct pframe {
	const char *name, *file, *file_rel;
	uint64_t sym_off;
	uint32_t line, column;
	uint16_t depth;
	uint8_t why;
};

/* Memoized answer for one ELF virtual address: pool[first .. first + n). */
struct chain {
	uint64_t vaddr;
	uint32_t first, n;
	bool used;
};

/* One indexed ELF, shared by build-id. */
struct image {
	struct image *next;
	int fd;
	Elf *elf;
	void *mem;         /* the vdso copy behind an elf_memory() Elf */
	unsigned char build_id[MB_BUILD_ID_MAX];
	size_t build_id_len;
	char build_id_hex[2 * MB_BUILD_ID_MAX + 1];
	struct seg *segs;
	size_t nsegs;
	struct sym *syms;
	size_t nsyms;
	int dbg_fd;        /* separate debuginfo, if found */
	Elf *dbg_elf;
	char *dbg_path;
	void *mini_buf;    /* decompressed .gnu_debugdata behind mini_elf */
	Elf *mini_elf;
	char *debuglink;
	uint32_t debuglink_crc;
	Dwarf *dw;
	bool cfi_tried;
	uint64_t *fde_starts; /* sorted, from .eh_frame_hdr */
	size_t nfde_starts;
	struct chain *cache;
	size_t cache_cap, cache_n;
	struct cu_subs *cus; /* per CU visited: its concrete functions' pc ranges (sub_index) */
	size_t ncus, cus_cap;
	struct pframe *pool;
	size_t npool, pool_cap;
	struct mb_dso_info info;
	char *path;
	char **plt_names; /* "fn@plt" */
	size_t nplt_names;
};

/* A concrete function's pc range in a CU (struct cu_subs). */
struct sub_range {
	uint64_t lo, hi;
	Dwarf_Off off; /* the DW_TAG_subprogram DIE */
};

/* The concrete functions of one CU, sorted by lo: built once per CU on its first address. */
struct cu_subs {
	Dwarf_Off cu_off;
	struct sub_range *v;
	size_t n, cap;
};

struct symbolizer {
	struct obj **tab; /* open addressing, cap a power of two, at most half full */
	size_t cap, n;
	struct image *images;
	char **dirs;      /* debug directories */
	size_t ndirs;
	bool no_debug;    /* no separate debuginfo at all */
	const struct mb_pins *pins;
	char **strs;      /* interned strings (demangled DWARF names), open addressing */
	size_t strs_cap, strs_n;
};

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* libstdc++'s demangler; we link -lstdc++. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The symbolizer's copy of str (one per distinct string), or NULL when out of memory. */
const char *symbolizer_intern(struct symbolizer *s, const char *str);
/* The ELF symbol that covers vaddr, or NULL. */
struct sym *image_find_sym(struct image *img, uint64_t vaddr);
/*
 * The name to show, made on first use: without the symbol version that .symtab spells into
 * some names (pthread_getattr_np@@GLIBC_2.32), and demangled.
 */
const char *sym_name(struct sym *sym);

/* symbolize_inline.c: vaddr's memoized frames (the inline chain, innermost first): *first
 * indexes img->pool, *n frames.  0 or -errno. */
int image_chain(struct symbolizer *s, struct image *img, uint64_t vaddr, uint32_t *first,
		uint32_t *n);

#endif /* MUXBPF_SYMBOLIZE_INT_H */
