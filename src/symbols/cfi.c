// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CFI -> unwind rows (see cfi.h).
 *
 * For every FDE of .eh_frame (and of .debug_frame where present) the FDE's own range is decoded
 * here (libdw's dwarf_next_cfi leaves the pointer encodings to the caller), then libdw is asked
 * for the frame state at the FDE's start, and again at the end of each row it reports
 * (dwarf_cfi_addrframe + dwarf_frame_info give the row's [start, end)).  Each state becomes one
 * struct muxbpf_unwind_info.  Intervals from all FDEs are sorted; overlaps keep the first one
 * (.eh_frame before .debug_frame), adjacent equal rules merge, gaps become MUXBPF_CFA_NONE rows.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include "base/grow.h"
#include "symbols/cfi.h"
#include "symbols/elfread.h"

/*
 * The DWARF register numbers of the machine's stack pointer, frame pointer and pc (-1: the pc is
 * no DWARF register), and its return address column when that is a register of its own.
 */
struct regset {
	int sp, fp, ip, lr;
};
static const struct regset regs_x86_64 = { .sp = 7, .fp = 6, .ip = 16, .lr = -1 };
static const struct regset regs_aarch64 = { .sp = 31, .fp = 29, .ip = -1, .lr = 30 };

/* Bounds on what a sane rule or FDE looks like; anything beyond is malformed input. */
#define MAX_FRAME (1 << 24)       /* 16 MiB between sp and CFA */
#define MAX_FDE_RANGE (1u << 28)  /* 256 MiB of code under one FDE */
#define MAX_ROWS_PER_FDE 10000
#define MAX_FDE_INSNS (64 * 1024) /* bytes of CFA instructions in one FDE */
/*
 * libdw sizes a frame state by the highest register a CFA program names, and copies it at every
 * DW_CFA_remember_state: a 170-byte .eh_frame naming register 2^26 made it allocate 2 GiB
 * (found by fuzz/fuzz_cfi.c).  x86-64's DWARF registers stop at 125, AArch64's at 127.
 */
#define MAX_REG 256
#define MAX_STATE_DEPTH 64

struct interval {
	uint64_t start, end;
	int prio; /* 0: .eh_frame, 1: .debug_frame */
	struct muxbpf_unwind_info info;
};

struct builder {
	Elf *elf;
	GElf_Ehdr ehdr;
	const struct regset *rs;
	/* Executable PT_LOAD ranges: an FDE outside them is garbage. */
	struct { uint64_t lo, hi; } text[16];
	int ntext;
	struct interval *iv;
	size_t niv, cap;
	struct cfi_table *t;
	/*
	 * libdw finds the FDE of an address itself, so a bad FDE overlapping a good one would
	 * still be run: a first pass (check) only validates every CFA program of the section,
	 * and one that fails (poisoned) keeps the whole section from libdw.
	 */
	bool check, poisoned;
};

struct cie_info {
	uint64_t offset;
	uint8_t fde_enc;
	bool usable;
	bool has_z; /* augmentation data precedes the FDE instructions */
};

/* ---- pointer encodings (DW_EH_PE_*), read with bounds checks -------------------------------- */

static int read_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	int shift = 0;

	while (*pp < end) {
		uint8_t b = *(*pp)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
		if (shift > 70)
			return -EINVAL;
	}
	return -EINVAL;
}

static int read_sleb(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
	uint64_t v = 0;
	int shift = 0;
	uint8_t b;

	do {
		if (*pp >= end || shift > 70)
			return -EINVAL;
		b = *(*pp)++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~0ull << shift;
	*out = (int64_t)v;
	return 0;
}

static int read_fixed(const uint8_t **pp, const uint8_t *end, int size, bool sign, uint64_t *out)
{
	uint64_t v = 0;

	if (end - *pp < size)
		return -EINVAL;
	/* Little-endian (x86-64, AArch64): the caller checked the ELF's data encoding. */
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | (*pp)[i];
	if (sign && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	*pp += size;
	*out = v;
	return 0;
}

/* One encoded pointer; field_addr is the virtual address of the field (for pcrel). */
static int read_encoded(const uint8_t **pp, const uint8_t *end, uint8_t enc, uint64_t field_addr,
			uint64_t *out)
{
	uint64_t v;
	int64_t s;
	int err;

	if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return -EINVAL;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
		err = read_fixed(pp, end, 8, false, &v);
		break;
	case DW_EH_PE_udata2:
		err = read_fixed(pp, end, 2, false, &v);
		break;
	case DW_EH_PE_udata4:
		err = read_fixed(pp, end, 4, false, &v);
		break;
	case DW_EH_PE_sdata2:
		err = read_fixed(pp, end, 2, true, &v);
		break;
	case DW_EH_PE_sdata4:
		err = read_fixed(pp, end, 4, true, &v);
		break;
	case DW_EH_PE_sdata8:
		err = read_fixed(pp, end, 8, true, &v);
		break;
	case DW_EH_PE_uleb128:
		err = read_uleb(pp, end, &v);
		break;
	case DW_EH_PE_sleb128:
		err = read_sleb(pp, end, &s);
		v = (uint64_t)s;
		break;
	default:
		return -EINVAL;
	}
	if (err)
		return err;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		v += field_addr;
		break;
	default: /* textrel, datarel, funcrel, aligned: not used for FDE ranges on x86-64 */
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* Skip one encoded value of the given encoding (for the personality pointer). */
static int skip_encoded(const uint8_t **pp, const uint8_t *end, uint8_t enc)
{
	uint64_t v;

	if (enc == DW_EH_PE_omit)
		return 0;
	return read_encoded(pp, end, enc & ~(DW_EH_PE_indirect | 0x70), 0, &v);
}

/*
 * Whether a CFA program stays within what libdw can interpret in bounded memory: known opcodes,
 * register numbers below MAX_REG, remember_state nested at most MAX_STATE_DEPTH deep.  A program
 * that fails is not given to libdw at all.
 */
static bool cfa_program_ok(const uint8_t *p, const uint8_t *end, uint8_t fde_enc)
{
	int depth = 0;
	uint64_t reg, v;
	int64_t sv;

#define ULEB(x) do { if (read_uleb(&p, end, &(x))) return false; } while (0)
#define SLEB(x) do { if (read_sleb(&p, end, &(x))) return false; } while (0)
#define REG() do { ULEB(reg); if (reg >= MAX_REG) return false; } while (0)
#define SKIP(n) do { if ((uint64_t)(end - p) < (uint64_t)(n)) return false; p += (n); } while (0)
	while (p < end) {
		uint8_t op = *p++;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
		case DW_CFA_restore: /* register in the low 6 bits: below 64 */
			if (op & 0xc0)
				continue;
			break;
		case DW_CFA_offset:
			ULEB(v);
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
		case DW_CFA_GNU_window_save:
			break;
		case DW_CFA_remember_state:
			if (++depth > MAX_STATE_DEPTH)
				return false;
			break;
		case DW_CFA_restore_state:
			if (--depth < 0)
				return false;
			break;
		case DW_CFA_set_loc:
			if (read_encoded(&p, end, fde_enc & 0x0f, 0, &v))
				return false;
			break;
		case DW_CFA_advance_loc1:
			SKIP(1);
			break;
		case DW_CFA_advance_loc2:
			SKIP(2);
			break;
		case DW_CFA_advance_loc4:
			SKIP(4);
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_val_offset:
		case DW_CFA_GNU_negative_offset_extended:
		case DW_CFA_def_cfa:
			REG();
			ULEB(v);
			break;
		case DW_CFA_register:
			REG();
			REG();
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
		case DW_CFA_def_cfa_register:
			REG();
			break;
		case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset_sf:
		case DW_CFA_def_cfa_sf:
			REG();
			SLEB(sv);
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_GNU_args_size:
			ULEB(v);
			break;
		case DW_CFA_def_cfa_offset_sf:
			SLEB(sv);
			break;
		case DW_CFA_def_cfa_expression:
			ULEB(v);
			SKIP(v);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			REG();
			ULEB(v);
			SKIP(v);
			break;
		default:
			return false;
		}
	}
	return true;
#undef ULEB
#undef SLEB
#undef REG
#undef SKIP
}

/* The FDE pointer encoding from a CIE's augmentation ("zR", "zPLR", "zRS", ...). */
static void parse_cie(const Dwarf_CIE *cie, bool eh, struct cie_info *ci)
{
	const char *a = cie->augmentation ? cie->augmentation : "";
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;

	ci->fde_enc = eh ? DW_EH_PE_absptr : DW_EH_PE_absptr;
	ci->usable = true;
	ci->has_z = false;
	if (!*a)
		return;
	if (a[0] != 'z') {
		/* "eh" and other pre-'z' augmentations: the FDE layout is unknown. */
		ci->usable = false;
		return;
	}
	ci->has_z = true;
	for (a++; *a; a++) {
		if (!p || p > end) {
			ci->usable = false;
			return;
		}
		switch (*a) {
		case 'R':
			if (p >= end) {
				ci->usable = false;
				return;
			}
			ci->fde_enc = *p++;
			break;
		case 'L':
			if (p >= end) {
				ci->usable = false;
				return;
			}
			p++;
			break;
		case 'P': {
			uint8_t enc;

			if (p >= end) {
				ci->usable = false;
				return;
			}
			enc = *p++;
			if (skip_encoded(&p, end, enc)) {
				ci->usable = false;
				return;
			}
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			/* Unknown letters: R may follow, unreadable; the 'z' length skips the rest. */
			return;
		}
	}
}

/* ---- rules -------------------------------------------------------------------------------- */

static bool is_op(const Dwarf_Op *op, uint8_t atom)
{
	return op->atom == atom;
}

/* "register REG + OFF" as libdw spells a CFA or a DW_OP_bregN. */
static bool breg(const Dwarf_Op *op, int *reg, int64_t *off)
{
	if (op->atom == DW_OP_bregx) {
		*reg = (int)op->number;
		*off = (int64_t)op->number2;
		return op->number < 128;
	}
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	return false;
}

enum loc_kind { LOC_UNDEF, LOC_SAME, LOC_CFA_OFF, LOC_SP_OFF, LOC_OTHER };

/* Where the caller's register regno is, as one of the few forms the walker evaluates. */
static enum loc_kind reg_location(Dwarf_Frame *f, int regno, int sp, int64_t *off)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0, i = 0;
	int reg;

	if (dwarf_frame_register(f, regno, mem, &ops, &nops))
		return LOC_OTHER;
	if (nops == 0)
		return ops ? LOC_UNDEF : LOC_SAME;
	/* An expression rule starts with the CFA pushed; the offset rule is CFA (+ N). */
	if (is_op(&ops[0], DW_OP_call_frame_cfa)) {
		if (nops == 1) {
			*off = 0;
			return LOC_CFA_OFF;
		}
		if (nops == 2 && is_op(&ops[1], DW_OP_plus_uconst)) {
			*off = (int64_t)ops[1].number;
			return LOC_CFA_OFF;
		}
		i = 1;
	}
	/* Saved at sp + N (the signal trampoline's ucontext). */
	if (nops == i + 1 && breg(&ops[i], &reg, off) && reg == sp)
		return LOC_SP_OFF;
	return LOC_OTHER;
}

/* DW_OP_breg7 N; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_litK; DW_OP_ge; DW_OP_lit3;
 * DW_OP_shl; DW_OP_plus -- the linker's .plt CFA: 8 more once the stub has pushed its index. */
static bool plt_expr(const Dwarf_Op *ops, size_t nops, const struct regset *rs, int64_t *off,
		     uint8_t *thresh)
{
	int reg;
	int64_t o2;

	if (rs->ip < 0 || nops != 9 || !breg(&ops[0], &reg, off) || reg != rs->sp)
		return false;
	if (!breg(&ops[1], &reg, &o2) || reg != rs->ip || o2 != 0)
		return false;
	if (ops[2].atom != DW_OP_lit15 || ops[3].atom != DW_OP_and)
		return false;
	if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15)
		return false;
	if (ops[5].atom != DW_OP_ge || ops[6].atom != DW_OP_lit3 || ops[7].atom != DW_OP_shl ||
	    ops[8].atom != DW_OP_plus)
		return false;
	*thresh = ops[4].atom - DW_OP_lit0;
	return true;
}

static bool in_range(int64_t v, int64_t lo, int64_t hi)
{
	return v >= lo && v < hi;
}

/*
 * The frame state at one row, as a rule the BPF walker evaluates.  The return address is in a
 * slot below the CFA, or (AArch64) still in the link register: a leaf, or a function before it
 * saves x30; the CFA may then be sp itself.
 */
static void frame_rule(Dwarf_Frame *f, int ra_reg, const struct regset *rs,
		       struct muxbpf_unwind_info *in)
{
	int64_t ra_off = 0, rbp_off = 0, cfa_off = 0;
	enum loc_kind ra, rbp;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	int reg;

	memset(in, 0, sizeof(*in));
	in->cfa = MUXBPF_CFA_UNSUPPORTED;
	ra = reg_location(f, ra_reg, rs->sp, &ra_off);
	if (ra == LOC_UNDEF) {
		in->cfa = MUXBPF_CFA_END;
		return;
	}
	if (dwarf_frame_cfa(f, &ops, &nops) || nops == 0)
		return;
	rbp = reg_location(f, rs->fp, rs->sp, &rbp_off);

	/* Signal trampoline: CFA = [rsp + N], rip and rbp saved at rsp + M, rsp + K. */
	if (nops == 2 && breg(&ops[0], &reg, &cfa_off) && reg == rs->sp &&
	    ops[1].atom == DW_OP_deref && ra == LOC_SP_OFF && rbp == LOC_SP_OFF) {
		if (!in_range(cfa_off, 0, 4096) || !in_range(ra_off, 0, 4096) ||
		    !in_range(rbp_off, 0, 4096))
			return;
		in->cfa = MUXBPF_CFA_SIGNAL;
		in->cfa_off = (int32_t)cfa_off;
		in->ra_off = (int32_t)ra_off;
		in->rbp_off = (int32_t)rbp_off;
		return;
	}
	/* Everything else returns through a slot below the CFA, or through the link register. */
	if (ra == LOC_SAME && ra_reg == rs->lr) {
		in->ra = MUXBPF_RA_LR;
	} else if (ra != LOC_CFA_OFF || !in_range(ra_off, -4096, 0) || (ra_off & 7)) {
		return;
	}
	in->ra_off = (int32_t)ra_off;
	if (nops == 1 && breg(&ops[0], &reg, &cfa_off) && (reg == rs->sp || reg == rs->fp)) {
		/* an sp-based CFA lies above the return address's slot, if it has one */
		int64_t lo = reg == rs->sp && in->ra == MUXBPF_RA_AT ? 8 : 0;

		if (!in_range(cfa_off, lo, MAX_FRAME))
			return;
		in->cfa = reg == rs->sp ? MUXBPF_CFA_RSP : MUXBPF_CFA_RBP;
	} else if (plt_expr(ops, nops, rs, &cfa_off, &in->plt_thresh)) {
		if (!in_range(cfa_off, 8, 4096))
			return;
		in->cfa = MUXBPF_CFA_PLT;
	} else {
		return;
	}
	in->cfa_off = (int32_t)cfa_off;
	switch (rbp) {
	case LOC_SAME:
		in->rbp = MUXBPF_RBP_SAME;
		break;
	case LOC_CFA_OFF:
		if (in_range(rbp_off, -MAX_FRAME, 0) && !(rbp_off & 7)) {
			in->rbp = MUXBPF_RBP_AT;
			in->rbp_off = (int32_t)rbp_off;
			break;
		}
		/* fallthrough */
	default:
		in->rbp = MUXBPF_RBP_LOST;
	}
}

/* ---- FDE enumeration -------------------------------------------------------------------------- */

static int push_interval(struct builder *b, uint64_t start, uint64_t end, int prio,
			 const struct muxbpf_unwind_info *info)
{
	if (mb_grow((void **)&b->iv, &b->cap, b->niv + 1, sizeof(*b->iv), 4096))
		return -ENOMEM;
	b->iv[b->niv++] = (struct interval){ .start = start, .end = end, .prio = prio, .info = *info };
	return 0;
}

static bool in_text(const struct builder *b, uint64_t lo, uint64_t hi)
{
	for (int i = 0; i < b->ntext; i++)
		if (lo >= b->text[i].lo && hi <= b->text[i].hi)
			return true;
	return false;
}

/* Rows of one FDE's range [lo, hi), from libdw's interpretation. */
static int fde_rows(struct builder *b, Dwarf_CFI *cfi, uint64_t lo, uint64_t hi, int prio)
{
	size_t first = b->niv;
	uint64_t addr = lo;
	int rows = 0, err;

	while (addr < hi) {
		struct muxbpf_unwind_info info;
		Dwarf_Frame *f = NULL;
		Dwarf_Addr start, end;
		bool signal;
		int ra;

		if (dwarf_cfi_addrframe(cfi, addr, &f) || !f)
			goto bad;
		ra = dwarf_frame_info(f, &start, &end, &signal);
		if (ra < 0 || start > addr || end <= addr || ++rows > MAX_ROWS_PER_FDE) {
			free(f);
			goto bad;
		}
		if (end > hi)
			end = hi;
		frame_rule(f, ra, b->rs, &info);
		free(f);
		if (info.cfa == MUXBPF_CFA_UNSUPPORTED)
			b->t->unsupported++;
		err = push_interval(b, addr, end, prio, &info);
		if (err)
			return err;
		addr = end;
	}
	b->t->fdes++;
	return 0;
bad:
	/* Keep nothing of an FDE libdw cannot interpret all the way. */
	b->niv = first;
	b->t->bad_fdes++;
	return 0;
}

static struct cie_info *find_cie(struct cie_info *cies, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cies[mid].offset == off)
			return &cies[mid];
		if (cies[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Every FDE of one CFI section.  data is the section's bytes, vaddr its address (for pcrel
 * pointers); eh selects the .eh_frame flavour.
 */
static int scan_pass(struct builder *b, Elf_Data *data, uint64_t vaddr, bool eh, Dwarf_CFI *cfi)
{
	struct cie_info *cies = NULL;
	size_t ncies = 0, cap = 0;
	Dwarf_Off off = 0, next;
	int err = 0, prio = eh ? 0 : 1;

	while (off < data->d_size) {
		Dwarf_CFI_Entry e;
		int r = dwarf_next_cfi(b->ehdr.e_ident, data, eh, off, &next, &e);

		if (r > 0)
			break;
		if (r < 0) {
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			b->t->bad_fdes++;
			off = next;
			continue;
		}
		if (dwarf_cfi_cie_p(&e)) {
			/* CIEs come in offset order: the array stays sorted for find_cie. */
			err = mb_grow((void **)&cies, &cap, ncies + 1, sizeof(*cies), 64);
			if (err)
				break;
			cies[ncies].offset = off;
			parse_cie(&e.cie, eh, &cies[ncies]);
			if (!e.cie.initial_instructions ||
			    e.cie.initial_instructions > e.cie.initial_instructions_end ||
			    e.cie.return_address_register >= MAX_REG ||
			    !cfa_program_ok(e.cie.initial_instructions, e.cie.initial_instructions_end,
					    cies[ncies].fde_enc)) {
				cies[ncies].usable = false;
				b->poisoned = true;
			}
			ncies++;
		} else {
			const struct cie_info *ci = find_cie(cies, ncies, e.fde.CIE_pointer);
			const uint8_t *p = e.fde.start, *end = e.fde.end;
			const uint8_t *base = data->d_buf;
			uint64_t lo, range, alen = 0;

			if (!ci || !ci->usable || p < base || end > base + data->d_size ||
			    read_encoded(&p, end, ci->fde_enc, vaddr + (p - base), &lo) ||
			    read_encoded(&p, end, ci->fde_enc & 0x0f, 0, &range) ||
			    (ci->has_z && (read_uleb(&p, end, &alen) || alen > (uint64_t)(end - p))) ||
			    end - (p + alen) > MAX_FDE_INSNS ||
			    !cfa_program_ok(p + alen, end, ci->fde_enc)) {
				b->t->bad_fdes++;
				b->poisoned = true;
			} else if (b->check) {
				/* The first pass only validates. */
			} else if (range == 0) {
				/* Empty FDEs are padding (and some linkers' deleted functions). */
			} else if (range > MAX_FDE_RANGE || lo + range < lo ||
				   !in_text(b, lo, lo + range)) {
				b->t->bad_fdes++;
			} else {
				err = fde_rows(b, cfi, lo, lo + range, prio);
				if (err)
					break;
			}
		}
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
	}
	free(cies);
	return err;
}

/* Validate every CFA program of the section, then take the rows only if all passed. */
static int scan_section(struct builder *b, Elf_Data *data, uint64_t vaddr, bool eh, Dwarf_CFI *cfi)
{
	size_t bad = b->t->bad_fdes;
	int err;

	b->check = true;
	b->poisoned = false;
	err = scan_pass(b, data, vaddr, eh, cfi);
	b->check = false;
	if (err || b->poisoned)
		return err;
	b->t->bad_fdes = bad;
	return scan_pass(b, data, vaddr, eh, cfi);
}

/* .eh_frame found through PT_GNU_EH_FRAME when there are no section headers. */
static Elf_Data *eh_frame_from_phdrs(struct builder *b, uint64_t *vaddr)
{
	size_t nph;
	GElf_Phdr ph, hdr = { 0 };
	bool have = false;

	if (elf_getphdrnum(b->elf, &nph))
		return NULL;
	for (size_t i = 0; i < nph; i++)
		if (gelf_getphdr(b->elf, i, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
			hdr = ph;
			have = true;
		}
	if (!have || hdr.p_filesz < 8)
		return NULL;
	Elf_Data *h = elf_getdata_rawchunk(b->elf, hdr.p_offset, hdr.p_filesz, ELF_T_BYTE);
	const uint8_t *p, *end;
	uint64_t eh;

	if (!h || ((const uint8_t *)h->d_buf)[0] != 1)
		return NULL;
	p = (const uint8_t *)h->d_buf + 4;
	end = (const uint8_t *)h->d_buf + h->d_size;
	if (read_encoded(&p, end, ((const uint8_t *)h->d_buf)[1], hdr.p_vaddr + 4, &eh))
		return NULL;
	/* The section runs to its zero terminator, at most to the end of its segment. */
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(b->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (eh >= ph.p_vaddr && eh < ph.p_vaddr + ph.p_filesz) {
			*vaddr = eh;
			return elf_getdata_rawchunk(b->elf, ph.p_offset + (eh - ph.p_vaddr),
						    ph.p_vaddr + ph.p_filesz - eh, ELF_T_BYTE);
		}
	}
	return NULL;
}

static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->prio - y->prio;
}

static int push_row(struct cfi_table *t, size_t *cap, uint64_t pc,
		    const struct muxbpf_unwind_info *info)
{
	if (t->n && !memcmp(&t->rows[t->n - 1].info, info, sizeof(*info)))
		return 0;
	if (t->n && t->rows[t->n - 1].pc == pc) {
		t->rows[t->n - 1].info = *info;
		return 0;
	}
	if (mb_grow((void **)&t->rows, cap, t->n + 1, sizeof(*t->rows), 4096))
		return -ENOMEM;
	t->rows[t->n].pc = pc;
	t->rows[t->n].info = *info;
	t->n++;
	return 0;
}

/* Sorted intervals -> rows: first FDE wins an overlap, gaps become NONE rows. */
static int finish(struct builder *b)
{
	static const struct muxbpf_unwind_info none = { .cfa = MUXBPF_CFA_NONE };
	struct cfi_table *t = b->t;
	uint64_t cur_end = 0;
	size_t cap = 0;
	int err;

	if (b->niv > 1) /* qsort(NULL, 0) is undefined */
		qsort(b->iv, b->niv, sizeof(*b->iv), cmp_interval);
	for (size_t i = 0; i < b->niv; i++) {
		struct interval *iv = &b->iv[i];
		uint64_t start = iv->start;

		if (t->n && start < cur_end) {
			if (iv->end <= cur_end)
				continue;
			start = cur_end;
		}
		if (t->n && start > cur_end && (err = push_row(t, &cap, cur_end, &none)))
			return err;
		if (!t->n)
			t->lo = start;
		if ((err = push_row(t, &cap, start, &iv->info)))
			return err;
		cur_end = iv->end;
	}
	if (t->n && (err = push_row(t, &cap, cur_end, &none)))
		return err;
	t->hi = cur_end;
	return 0;
}

/*
 * An AArch64 vDSO without CFI (Debian's 6.1 arm64 kernel links its vDSO without .eh_frame): its
 * functions are small leaves that keep the return address in x30 and do not move sp, so every
 * address of its text gets the leaf rule (return address in LR, CFA = sp).  Only the interrupted
 * frame can use it (MUXBPF_RA_LR), which is the only frame a sample has in the vDSO.
 */
static int vdso_leaf_rows(struct builder *b)
{
	struct muxbpf_unwind_info leaf = {
		.cfa = MUXBPF_CFA_RSP, .cfa_off = 0, .ra = MUXBPF_RA_LR, .rbp = MUXBPF_RBP_SAME,
	};
	int err = 0;

	for (int i = 0; i < b->ntext && !err; i++)
		err = push_interval(b, b->text[i].lo, b->text[i].hi, 0, &leaf);
	return err;
}

static int build(Elf *elf, struct cfi_table *t, bool vdso)
{
	struct builder b = { .elf = elf, .t = t };
	Dwarf_CFI *cfi;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	Elf_Data *data = NULL;
	uint64_t vaddr = 0;
	size_t nph;
	int err = 0;

	memset(t, 0, sizeof(*t));
	if (!gelf_getehdr(elf, &b.ehdr))
		return -EINVAL;
	if (b.ehdr.e_ident[EI_CLASS] != ELFCLASS64 || b.ehdr.e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOTSUP;
	if (b.ehdr.e_machine == EM_X86_64)
		b.rs = &regs_x86_64;
	else if (b.ehdr.e_machine == EM_AARCH64)
		b.rs = &regs_aarch64;
	else
		return -ENOTSUP;
	mb_elf_build_id_hex(elf, t->build_id, sizeof(t->build_id));
	if (elf_getphdrnum(elf, &nph))
		return -EINVAL;
	for (size_t i = 0; i < nph && b.ntext < 16; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    ph.p_vaddr + ph.p_memsz > ph.p_vaddr) {
			b.text[b.ntext].lo = ph.p_vaddr;
			b.text[b.ntext].hi = ph.p_vaddr + ph.p_memsz;
			b.ntext++;
		}
	}

	/* a separate debug file's .eh_frame is SHT_NOBITS: no data there */
	scn = mb_elf_section(elf, ".eh_frame", &shdr);
	if (scn && shdr.sh_type != SHT_NOBITS) {
		data = elf_getdata(scn, NULL);
		vaddr = shdr.sh_addr;
	} else {
		data = eh_frame_from_phdrs(&b, &vaddr);
	}
	cfi = data ? dwarf_getcfi_elf(elf) : NULL;
	if (cfi) {
		err = scan_section(&b, data, vaddr, true, cfi);
		t->sources |= CFI_SRC_EH_FRAME;
		dwarf_cfi_end(cfi);
	}

	scn = mb_elf_section(elf, ".debug_frame", &shdr);
	if (!err && scn && shdr.sh_type != SHT_NOBITS && (data = elf_getdata(scn, NULL))) {
		Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);

		cfi = dw ? dwarf_getcfi(dw) : NULL;
		if (cfi) {
			err = scan_section(&b, data, 0, false, cfi);
			t->sources |= CFI_SRC_DEBUG_FRAME;
		}
		if (dw)
			dwarf_end(dw);
	}
	if (!err && vdso && !t->sources && b.ehdr.e_machine == EM_AARCH64)
		err = vdso_leaf_rows(&b);
	if (!err)
		err = finish(&b);
	free(b.iv);
	if (err)
		cfi_table__free(t);
	return err;
}

int cfi_table__build_file(const char *path, struct cfi_table *out)
{
	Elf *elf;
	int fd, err;

	memset(out, 0, sizeof(*out));
	elf = mb_elf_open(path, &fd);
	if (!elf)
		return -errno;
	err = build(elf, out, false);
	mb_elf_close(elf, fd);
	return err;
}

int cfi_table__build_mem(const void *image, size_t size, struct cfi_table *out)
{
	Elf *elf;
	int err;

	elf_version(EV_CURRENT);
	memset(out, 0, sizeof(*out));
	/* elf_memory wants a writable buffer; work on a copy. */
	void *copy = malloc(size);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, size);
	elf = elf_memory(copy, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		free(copy);
		return -ENOEXEC;
	}
	err = build(elf, out, true);
	elf_end(elf);
	free(copy);
	return err;
}

const struct cfi_row *cfi_table__find(const struct cfi_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || t->rows[lo - 1].info.cfa == MUXBPF_CFA_NONE)
		return NULL;
	return &t->rows[lo - 1];
}

void cfi_table__free(struct cfi_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}
