// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF inline chains (libdw): for one address, the frames addr2line -f -i prints — the
 * innermost inlined function first, each with its call site's file and line — memoized per
 * image.  Stripped code without DWARF is named by its function's start from .eh_frame_hdr.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "symbols/symbolize_int.h"

/*
 * A DWARF function's name as addr2line -C prints it: the demangled linkage name (through
 * abstract origins and specifications; *linkage set), else DW_AT_name.
 */
static const char *die_name(struct symbolizer *s, Dwarf_Die *die, bool *linkage)
{
	Dwarf_Attribute a;
	const char *ln = NULL, *name;
	char *d;
	int status;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		ln = dwarf_formstring(&a);
	*linkage = false;
	if (ln && !strncmp(ln, "_Z", 2)) {
		d = __cxa_demangle(ln, NULL, NULL, &status);
		if (!status && d) {
			name = symbolizer_intern(s, d);
			free(d);
			if (name) {
				*linkage = true;
				return name;
			}
		} else {
			free(d);
		}
	}
	name = dwarf_diename(die);
	return name ? name : ln;
}

/* A C clone or part of name: "unlink_chunk.constprop.0", "foo.cold". */
static bool is_clone_of(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(sym, name, n) && sym[n] == '.' && !strchr(sym, '(');
}

/* The call site of an inlined subroutine: DW_AT_call_file (an index into the CU's file
 * table), DW_AT_call_line, DW_AT_call_column. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **file, uint32_t *line,
		      uint32_t *col)
{
	Dwarf_Attribute a;
	Dwarf_Files *files;
	Dwarf_Word w;
	size_t nfiles;

	*file = NULL;
	*line = *col = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &w) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && w < nfiles)
		*file = dwarf_filesrc(files, w, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &w) == 0)
		*line = (uint32_t)w;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_column, &a), &w) == 0)
		*col = (uint32_t)w;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * The FDE start addresses from .eh_frame_hdr's binary search table (what unwinders use to find
 * an FDE).  Only the layout every x86-64 linker writes is read: version 1, a 4- or 8-byte
 * eh_frame pointer, a 4-byte count, datarel sdata4 pairs; anything else gives no ranges.
 */
static void load_fde_starts(struct image *img)
{
	Elf_Scn *scn = mb_elf_section(img->elf, ".eh_frame_hdr", NULL);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const unsigned char *b;
	size_t off = 4, count, ptr_size;
	GElf_Shdr sh;

	if (!d || !d->d_buf || d->d_size < 12 || !gelf_getshdr(scn, &sh))
		return;
	b = d->d_buf;
	ptr_size = (b[1] & 0x0f) == 0x03 || (b[1] & 0x0f) == 0x0b ? 4
		 : (b[1] & 0x0f) == 0x04 || (b[1] & 0x0f) == 0x0c || b[1] == 0x00 ? 8 : 0;
	if (b[0] != 1 || !ptr_size || (b[2] != 0x03 && b[2] != 0x0b) || b[3] != 0x3b ||
	    off + ptr_size + 4 > d->d_size)
		return;
	off += ptr_size;
	count = get_u32(b + off);
	off += 4;
	if (!count || count > (d->d_size - off) / 8)
		return;
	img->fde_starts = malloc(count * sizeof(*img->fde_starts));
	if (!img->fde_starts)
		return;
	for (size_t i = 0; i < count; i++)
		img->fde_starts[i] = sh.sh_addr + (uint64_t)(int64_t)(int32_t)get_u32(b + off + 8 * i);
	if (count > 1)
		qsort(img->fde_starts, count, sizeof(*img->fde_starts), cmp_u64);
	img->nfde_starts = count;
}

/*
 * The start of the .eh_frame FDE holding vaddr: a function's extent without its symbol.  (The
 * FDE's end is not checked: the padding between functions, which no FDE covers, never runs.
 * libdw's dwarf_getcfi_elf was the other way, but it makes libelf leak on some malformed files.)
 */
static bool cfi_start(struct image *img, uint64_t vaddr, uint64_t *start)
{
	size_t lo = 0, hi;

	if (!img->cfi_tried) {
		img->cfi_tried = true;
		load_fde_starts(img);
	}
	if (!img->nfde_starts)
		return false;
	hi = img->nfde_starts;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->fde_starts[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*start = img->fde_starts[lo - 1];
	return true;
}

/* A file name of the line table made absolute, as addr2line prints it: a relative one (its
 * directory entry was relative) is under the compilation directory. */
static const char *abs_path(struct symbolizer *s, const char *file, const char *compdir)
{
	char buf[4096];
	const char *p;

	if (!file || file[0] == '/' || !compdir || !*compdir)
		return file;
	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", compdir, file) >= sizeof(buf))
		return file;
	p = symbolizer_intern(s, buf);
	return p ? p : file;
}

static const char *rel_to(const char *file, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	if (!file || !n || strncmp(file, dir, n))
		return file;
	if (dir[n - 1] == '/')
		return file + n;
	return file[n] == '/' ? file + n + 1 : file;
}

static int cmp_sub(const void *a, const void *b)
{
	const struct sub_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Collect the pc ranges of the concrete functions under die (namespaces, classes: nested). */
static int collect_subs(struct cu_subs *cs, Dwarf_Die *parent)
{
	Dwarf_Die die;

	if (dwarf_child(parent, &die) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&die);

		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&die, off, &base, &lo, &hi)) > 0) {
				if (mb_grow((void **)&cs->v, &cs->cap, cs->n + 1, sizeof(*cs->v),
					    256))
					return -ENOMEM;
				cs->v[cs->n++] = (struct sub_range){ lo, hi, dwarf_dieoffset(&die) };
			}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			   tag == DW_TAG_module) {
			int err = collect_subs(cs, &die);

			if (err)
				return err;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
	return 0;
}

/* The CU's function index, built on first use.  NULL when out of memory. */
static struct cu_subs *cu_subs_get(struct image *img, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct cu_subs *cs;

	for (size_t i = 0; i < img->ncus; i++)
		if (img->cus[i].cu_off == off)
			return &img->cus[i];
	if (mb_grow((void **)&img->cus, &img->cus_cap, img->ncus + 1, sizeof(*img->cus), 16))
		return NULL;
	cs = &img->cus[img->ncus];
	*cs = (struct cu_subs){ .cu_off = off };
	if (collect_subs(cs, cu)) {
		free(cs->v);
		return NULL;
	}
	if (cs->n > 1) /* qsort(NULL, 0) is undefined */
		qsort(cs->v, cs->n, sizeof(*cs->v), cmp_sub);
	img->ncus++;
	return cs;
}

/*
 * vaddr's scopes, innermost first, from the function containing it down through the inlined
 * subroutines and lexical blocks that contain it: what dwarf_getscopes followed by
 * dwarf_getscopes_die on the innermost inlined instance gives (minus the lexical blocks and
 * the CU), but walking one function's subtree instead of the whole CU for every address (that
 * walk was half of the symbolization time on netmux's large CUs).  Returns the count
 * (*scopes malloc'ed), 0 when no indexed function contains vaddr, or -ENOMEM.
 */
static int sub_scopes(struct image *img, Dwarf_Die *cu, uint64_t vaddr, Dwarf_Die **scopes)
{
	struct cu_subs *cs = cu_subs_get(img, cu);
	Dwarf_Die chain[MAX_INLINE + 1], die, child;
	size_t lo = 0, hi, n = 0;
	bool found = false;

	if (!cs)
		return -ENOMEM;
	hi = cs->n;
	while (lo < hi) { /* the last range starting at or below vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (cs->v[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && !found;) {
		if (vaddr < cs->v[i].hi && dwarf_offdie(img->dw, cs->v[i].off, &die))
			found = true;
		if (lo - i >= 8) /* functions do not nest: a few neighbours are enough */
			break;
	}
	if (!found)
		return 0;
	chain[n++] = die;
	for (bool deeper = true; deeper && n <= MAX_INLINE;) {
		deeper = false;
		if (dwarf_child(&die, &child) != 0)
			break;
		do {
			int tag = dwarf_tag(&child);

			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
			    dwarf_haspc(&child, vaddr) > 0) {
				if (tag == DW_TAG_inlined_subroutine)
					chain[n++] = child;
				die = child;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	*scopes = malloc(n * sizeof(**scopes));
	if (!*scopes)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		(*scopes)[i] = chain[n - 1 - i];
	return (int)n;
}

/*
 * Work out vaddr's frames, innermost first: each DW_TAG_inlined_subroutine containing it
 * (named after its abstract origin, at the line of the code executing in it), then the
 * physical function at the call site of the outermost inlined call.  The physical function is
 * named by its DWARF linkage name when it has one (a clone or a .cold part is the function it
 * came from; sym_off stays relative to the symbol), else by its symbol.
 */
static int compute_chain(struct symbolizer *s, struct image *img, uint64_t vaddr,
			 struct pframe *fr, size_t *nfr)
{
	const char *file = NULL, *compdir = NULL, *subname = NULL;
	uint32_t line = 0, col = 0;
	uint64_t sub_low = 0, start;
	struct sym *sym = image_find_sym(img, vaddr);
	Dwarf_Die cu, *scopes = NULL;
	bool have_sub_low = false, sub_linkage = false, linkage, concrete;
	size_t n = 0;

	if (img->dw && dwarf_addrdie(img->dw, vaddr, &cu)) {
		Dwarf_Line *l = dwarf_getsrc_die(&cu, vaddr);
		Dwarf_Attribute a;
		int ns, ln = 0, cl = 0;

		compdir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
		if (l) {
			file = dwarf_linesrc(l, NULL, NULL);
			dwarf_lineno(l, &ln);
			dwarf_linecol(l, &cl);
			line = ln > 0 ? (uint32_t)ln : 0;
			col = cl > 0 ? (uint32_t)cl : 0;
		}
		/*
		 * dwarf_getscopes continues an inlined instance with its abstract origin's scopes;
		 * the concrete callers come from dwarf_getscopes_die on the innermost function
		 * scope (as eu-addr2line -i does).  The function index gives the same scopes
		 * faster; an address no indexed function contains takes the long way.
		 */
		ns = sub_scopes(img, &cu, vaddr, &scopes);
		if (ns < 0)
			return ns;
		concrete = ns > 0;
		if (!concrete)
			ns = dwarf_getscopes(&cu, vaddr, &scopes);
		for (int i = 0; !concrete && i < ns; i++) {
			int tag = dwarf_tag(&scopes[i]);
			Dwarf_Die die = scopes[i];

			if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
				continue;
			free(scopes);
			ns = tag == DW_TAG_inlined_subroutine ? dwarf_getscopes_die(&die, &scopes)
							      : 0;
			if (ns <= 0) {
				scopes = NULL;
				ns = 1;
				scopes = malloc(sizeof(*scopes));
				if (!scopes)
					return -ENOMEM;
				scopes[0] = die;
			}
			break;
		}
		for (int i = 0; i < ns; i++) {
			int tag = dwarf_tag(&scopes[i]);

			if (tag == DW_TAG_inlined_subroutine) {
				if (n < MAX_INLINE)
					fr[n++] = (struct pframe){ .name = die_name(s, &scopes[i],
										    &linkage),
								   .file = file, .line = line,
								   .column = col };
				call_site(&cu, &scopes[i], &file, &line, &col);
			} else if (tag == DW_TAG_subprogram) {
				Dwarf_Addr lo;

				subname = die_name(s, &scopes[i], &sub_linkage);
				if (dwarf_entrypc(&scopes[i], &lo) == 0 && lo <= vaddr) {
					sub_low = lo;
					have_sub_low = true;
				}
				break;
			}
		}
		free(scopes);
	}
	for (size_t i = 0; i < n; i++) {
		fr[i].depth = (uint16_t)(n - i);
		fr[i].why = fr[i].name ? MB_NAMED : MB_UNNAMED_NO_SYMBOL;
	}
	fr[n] = (struct pframe){ .file = file, .line = line, .column = col };
	if (sym && subname && (sub_linkage || is_clone_of(sym_name(sym), subname))) {
		/* the source-level function: clones (.part, .constprop, .isra) and .cold parts
		 * under their function's name, as addr2line and the inline frames name it */
		fr[n].name = subname;
		fr[n].sym_off = vaddr - sym->start;
	} else if (sym) {
		fr[n].name = sym_name(sym);
		fr[n].sym_off = vaddr - sym->start;
	} else if (subname) {
		fr[n].name = subname;
		fr[n].sym_off = have_sub_low ? vaddr - sub_low : 0;
	} else {
		fr[n].why = img->info.full_symtab ? MB_UNNAMED_NO_SYMBOL : MB_UNNAMED_STRIPPED;
		if (cfi_start(img, vaddr, &start))
			fr[n].sym_off = vaddr - start;
	}
	n++;
	for (size_t i = 0; i < n; i++) {
		fr[i].file = abs_path(s, fr[i].file, compdir);
		fr[i].file_rel = rel_to(fr[i].file, compdir);
	}
	*nfr = n;
	return 0;
}

int image_chain(struct symbolizer *s, struct image *img, uint64_t vaddr, uint32_t *first,
		uint32_t *n)
{
	struct pframe fr[MAX_INLINE + 1];
	size_t h, nfr;
	int err;

	if ((img->cache_n + 1) * 2 > img->cache_cap) {
		size_t ncap = mb_grow_cap(img->cache_cap, 1024);
		struct chain *t = calloc(ncap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t i = 0; i < img->cache_cap; i++) {
			if (!img->cache[i].used)
				continue;
			h = mix64(img->cache[i].vaddr) & (ncap - 1);
			while (t[h].used)
				h = (h + 1) & (ncap - 1);
			t[h] = img->cache[i];
		}
		free(img->cache);
		img->cache = t;
		img->cache_cap = ncap;
	}
	h = mix64(vaddr) & (img->cache_cap - 1);
	for (; img->cache[h].used; h = (h + 1) & (img->cache_cap - 1)) {
		if (img->cache[h].vaddr == vaddr) {
			*first = img->cache[h].first;
			*n = img->cache[h].n;
			return 0;
		}
	}
	err = compute_chain(s, img, vaddr, fr, &nfr);
	if (err)
		return err;
	if (mb_grow((void **)&img->pool, &img->pool_cap, img->npool + nfr, sizeof(*img->pool),
		    1024))
		return -ENOMEM;
	memcpy(img->pool + img->npool, fr, nfr * sizeof(*fr));
	img->cache[h] = (struct chain){ vaddr, (uint32_t)img->npool, (uint32_t)nfr, true };
	img->cache_n++;
	img->npool += nfr;
	*first = img->cache[h].first;
	*n = (uint32_t)nfr;
	return 0;
}
