// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the CFI compiler (src/cfi.c, libdw underneath).  Two input shapes:
 * - an ELF image (starts with \x7fELF): the whole file is fuzzed (headers, sections, notes);
 * - anything else: the bytes become the .eh_frame of a fixed, valid ELF (one executable PT_LOAD
 *   over [0, 256 MiB), .eh_frame at TEMPLATE_EH_ADDR), so that mutations reach the CIE/FDE
 *   parser and libdw's CFA interpreter instead of dying in the ELF header.
 * Whatever the bytes, the loader must not crash, and a table that builds must be one the BPF
 * walker can use without reading wrong memory silently: rows sorted strictly by pc inside
 * [lo, hi], lookups returning the covering row, and every rule within the forms and bounds the
 * walker evaluates (the walker checks CFA > sp and the return address's range itself; a rule
 * outside these bounds would make it read a word that is not a saved register).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include "symbols/cfi.h"

#define TEMPLATE_EH_ADDR 0x1000
#define TEMPLATE_TEXT_END (1u << 28)
#define MAX_FRAME (1 << 24) /* src/cfi.c's bound between sp and CFA */

/* A rule the walker can evaluate safely, as src/cfi.c promises. */
static int rule_ok(const struct muxbpf_unwind_info *in)
{
	if (in->rbp > MUXBPF_RBP_LOST)
		return 0;
	switch (in->cfa) {
	case MUXBPF_CFA_NONE:
	case MUXBPF_CFA_END:
	case MUXBPF_CFA_UNSUPPORTED:
		return 1;
	case MUXBPF_CFA_SIGNAL:
		return in->cfa_off >= 0 && in->cfa_off < 4096 && in->ra_off >= 0 &&
		       in->ra_off < 4096 && in->rbp_off >= 0 && in->rbp_off < 4096;
	case MUXBPF_CFA_RSP:
	case MUXBPF_CFA_RBP:
	case MUXBPF_CFA_PLT:
		break;
	default:
		return 0;
	}
	/* The return address in a slot below the CFA, 8-aligned, or (AArch64) in x30. */
	if (in->ra > MUXBPF_RA_LR ||
	    (in->ra == MUXBPF_RA_LR && (in->ra_off || in->cfa == MUXBPF_CFA_PLT)))
		return 0;
	if (in->ra == MUXBPF_RA_AT && (in->ra_off >= 0 || in->ra_off < -4096 || (in->ra_off & 7)))
		return 0;
	if (in->cfa == MUXBPF_CFA_RSP && (in->cfa_off < (in->ra == MUXBPF_RA_AT ? 8 : 0) ||
					  in->cfa_off >= MAX_FRAME))
		return 0;
	if (in->cfa == MUXBPF_CFA_RBP && (in->cfa_off < 0 || in->cfa_off >= MAX_FRAME))
		return 0;
	if (in->cfa == MUXBPF_CFA_PLT && (in->cfa_off < 8 || in->cfa_off >= 4096 ||
					  in->plt_thresh > 15))
		return 0;
	if (in->rbp == MUXBPF_RBP_AT && (in->rbp_off >= 0 || in->rbp_off <= -MAX_FRAME ||
					 (in->rbp_off & 7)))
		return 0;
	return 1;
}

/* A minimal x86-64 ELF around eh (one R+X PT_LOAD, sections .eh_frame and .shstrtab). */
static uint8_t *template_elf(const uint8_t *eh, size_t n, size_t *size)
{
	static const char shstr[] = "\0.eh_frame\0.shstrtab";
	size_t eh_off = TEMPLATE_EH_ADDR, str_off = eh_off + n, sh_off = (str_off + sizeof(shstr) + 7) & ~7ul;
	uint8_t *img;
	Elf64_Ehdr *eh_hdr;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;

	*size = sh_off + 3 * sizeof(Elf64_Shdr);
	img = calloc(1, *size);
	if (!img)
		return NULL;
	eh_hdr = (Elf64_Ehdr *)img;
	memcpy(eh_hdr->e_ident, ELFMAG, SELFMAG);
	eh_hdr->e_ident[EI_CLASS] = ELFCLASS64;
	eh_hdr->e_ident[EI_DATA] = ELFDATA2LSB;
	eh_hdr->e_ident[EI_VERSION] = EV_CURRENT;
	eh_hdr->e_type = ET_DYN;
	eh_hdr->e_machine = EM_X86_64;
	eh_hdr->e_version = EV_CURRENT;
	eh_hdr->e_phoff = sizeof(*eh_hdr);
	eh_hdr->e_shoff = sh_off;
	eh_hdr->e_ehsize = sizeof(*eh_hdr);
	eh_hdr->e_phentsize = sizeof(*ph);
	eh_hdr->e_phnum = 1;
	eh_hdr->e_shentsize = sizeof(*sh);
	eh_hdr->e_shnum = 3;
	eh_hdr->e_shstrndx = 2;
	ph = (Elf64_Phdr *)(img + sizeof(*eh_hdr));
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_filesz = str_off;
	ph->p_memsz = TEMPLATE_TEXT_END;
	ph->p_align = 4096;
	memcpy(img + eh_off, eh, n);
	memcpy(img + str_off, shstr, sizeof(shstr));
	sh = (Elf64_Shdr *)(img + sh_off);
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_flags = SHF_ALLOC;
	sh[1].sh_addr = eh_off;
	sh[1].sh_offset = eh_off;
	sh[1].sh_size = n;
	sh[1].sh_addralign = 8;
	sh[2].sh_name = 11;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = str_off;
	sh[2].sh_size = sizeof(shstr);
	sh[2].sh_addralign = 1;
	return img;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *img = NULL;
	struct cfi_table t;
	int err;

	if (size >= SELFMAG && !memcmp(data, ELFMAG, SELFMAG)) {
		err = cfi_table__build_mem(data, size, &t);
	} else {
		size_t n;

		img = template_elf(data, size, &n);
		if (!img)
			return 0;
		err = cfi_table__build_mem(img, n, &t);
	}
	free(img);
	if (err)
		return 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct cfi_row *r = &t.rows[i];

		if (i && r->pc <= t.rows[i - 1].pc)
			abort();
		if (!rule_ok(&r->info))
			abort();
		if (r->pc < t.lo || r->pc > t.hi)
			abort();
		if (r->info.cfa != MUXBPF_CFA_NONE && cfi_table__find(&t, r->pc) != r)
			abort();
	}
	/* The last row closes the table: nothing is covered past hi. */
	if (t.n && t.rows[t.n - 1].info.cfa != MUXBPF_CFA_NONE)
		abort();
	if (t.n && cfi_table__find(&t, t.rows[0].pc - 1) && t.rows[0].pc)
		abort();
	cfi_table__free(&t);
	return 0;
}
