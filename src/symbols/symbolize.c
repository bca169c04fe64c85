// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Addresses to names, source lines and inline chains (see symbolize.h for the lookup order).
 *
 * Two levels of cache: an obj per mapped file (dev+inode, or the path for files without an
 * inode) points to an image, the indexed ELF, shared by every file with the same build-id.  An
 * image keeps its Elf, its debug file's and its Dwarf open: symbol names and file names point
 * into their tables.  Each image memoizes its answers per address (a stack's frames repeat a
 * few thousand addresses many times), so nothing is re-opened or re-indexed per address.
 *
 * ELF_C_READ rather than ELF_C_READ_MMAP, as everywhere (elfread.h): the tables are read into
 * memory, so a binary rewritten in place (cp over it, after netmux exits) cannot SIGBUS us.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols/elfread.h"
#include "base/grow.h"
#include "base/log.h"
#include "symbols/symbolize.h"
#include "symbols/symbolize_int.h"

#define DEFAULT_DEBUG_DIR "/usr/lib/debug"
#define MINIDEBUG_MAX (256u << 20)   /* bound on a decompressed .gnu_debugdata */

/* One mapped file (or special mapping), shared by every mapping and process that maps it. */
struct obj {
	uint64_t inode; /* key: dev + inode, or path when inode is 0 */
	uint32_t dev_major, dev_minor;
	char *path;     /* as in the maps file; also the dso name */
	const char *dso;
	enum mb_unnamed why; /* MB_NAMED when the file has an image */
	struct image *img;
};

/* A symbol table entry kept for sorting before the index is built. */
struct cand {
	uint64_t addr, size;
	const char *name;
	uint64_t sec_end;
	unsigned char type, bind;
};

/* What the index needs from a section: where it ends and whether it holds code. */
struct sec {
	uint64_t end;
	bool exec;
};

const char *mb_unnamed_str(enum mb_unnamed why)
{
	static const char *const str[MB_UNNAMED__COUNT] = {
		[MB_NAMED] = "named",
		[MB_UNNAMED_NO_MAPPING] = "no mapping",
		[MB_UNNAMED_ANON] = "anonymous memory",
		[MB_UNNAMED_NO_FILE] = "no file",
		[MB_UNNAMED_NO_SYMBOL] = "no symbol",
		[MB_UNNAMED_STRIPPED] = "stripped, no debuginfo",
	};

	if ((unsigned int)why >= MB_UNNAMED__COUNT)
		return "invalid";
	return str[why];
}

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* --- interned strings ------------------------------------------------------------------------ */

const char *symbolizer_intern(struct symbolizer *s, const char *str)
{
	size_t h;

	if ((s->strs_n + 1) * 2 > s->strs_cap) {
		size_t ncap = mb_grow_cap(s->strs_cap, 256);
		char **t = calloc(ncap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < s->strs_cap; i++) {
			if (!s->strs[i])
				continue;
			h = hash_bytes(s->strs[i], strlen(s->strs[i])) & (ncap - 1);
			while (t[h])
				h = (h + 1) & (ncap - 1);
			t[h] = s->strs[i];
		}
		free(s->strs);
		s->strs = t;
		s->strs_cap = ncap;
	}
	h = hash_bytes(str, strlen(str)) & (s->strs_cap - 1);
	for (; s->strs[h]; h = (h + 1) & (s->strs_cap - 1))
		if (!strcmp(s->strs[h], str))
			return s->strs[h];
	s->strs[h] = strdup(str);
	if (!s->strs[h])
		return NULL;
	s->strs_n++;
	return s->strs[h];
}

/* --- symbol index ----------------------------------------------------------------------------- */

static int leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* A compatibility alias: "cfree@GLIBC_2.2.5" (one '@': not the default version). */
static int compat_version(const char *name)
{
	const char *at = strchr(name, '@');

	return at && at[1] != '@' && strcmp(at, "@plt");
}

/*
 * Order by address; among aliases at one address the preferred name sorts first: a function
 * over a bare label, exported over local, not a compatibility version, fewer leading
 * underscores (glibc's getpid over __getpid), GLOBAL over WEAK, shorter (free over cfree),
 * then by name so the choice is stable.
 */
static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int d;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	d = (x->type == STT_NOTYPE) - (y->type == STT_NOTYPE);
	if (d)
		return d;
	d = (x->bind == STB_LOCAL) - (y->bind == STB_LOCAL);
	if (d)
		return d;
	d = compat_version(x->name) - compat_version(y->name);
	if (d)
		return d;
	d = leading_underscores(x->name) - leading_underscores(y->name);
	if (d)
		return d;
	d = (x->bind != STB_GLOBAL) - (y->bind != STB_GLOBAL);
	if (d)
		return d;
	d = (int)strlen(x->name) - (int)strlen(y->name);
	if (d)
		return d;
	return strcmp(x->name, y->name);
}

/* Code symbols only: functions, ifunc resolvers, and untyped labels in executable sections
 * (hand-written assembly), but not ARM mapping symbols ($x) or assembler locals (.L). */
static bool keep_sym(const GElf_Sym *sym, const struct sec *secs, size_t nsecs)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);

	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return false;
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE || sym->st_shndx >= nsecs)
		return false;
	return secs[sym->st_shndx].exec;
}

/* A growable candidate list, filled from one or more symbol tables. */
struct cands {
	struct cand *v;
	size_t n, cap;
};

static int collect_syms(Elf *elf, Elf_Scn *scn, const struct sec *secs, size_t nsecs,
			struct cands *c)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t cnt;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return -EINVAL;
	cnt = data->d_size / sh.sh_entsize;
	if (c->n + cnt > c->cap) {
		size_t ncap = c->n + cnt + 1;
		struct cand *v = realloc(c->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = ncap;
	}
	for (size_t i = 0; i < cnt; i++) {
		const char *name;
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym) || !keep_sym(&sym, secs, nsecs))
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name || name[0] == '$' || strncmp(name, ".L", 2) == 0)
			continue;
		c->v[c->n++] = (struct cand){ sym.st_value, sym.st_size, name,
					      secs[sym.st_shndx].end, GELF_ST_TYPE(sym.st_info),
					      GELF_ST_BIND(sym.st_info) };
	}
	return 0;
}

/*
 * Turn sorted candidates into the index: one symbol per address (the first, preferred alias,
 * with the largest size among the aliases), ends for size-0 symbols at the next symbol but not
 * past their section, and for each symbol the earlier symbol reaching furthest, so an address
 * past a short symbol nested in a longer one still finds the longer one.
 */
static int build_index(struct image *img, const struct cand *c, size_t n)
{
	size_t i, j, k = 0;

	img->syms = calloc(n ? n : 1, sizeof(*img->syms));
	if (!img->syms)
		return -ENOMEM;
	for (i = 0; i < n; i = j) {
		uint64_t size = c[i].size, end;

		for (j = i + 1; j < n && c[j].addr == c[i].addr; j++)
			if (c[j].size > size)
				size = c[j].size;
		if (size)
			end = c[i].addr + size < c[i].addr ? UINT64_MAX : c[i].addr + size;
		else
			end = j < n ? c[j].addr : UINT64_MAX;
		if (!size && end > c[i].sec_end)
			end = c[i].sec_end > c[i].addr ? c[i].sec_end : c[i].addr;
		img->syms[k++] = (struct sym){ .start = c[i].addr, .end = end, .name = c[i].name };
	}
	img->nsyms = k;
	for (i = 0, j = 0; i < k; i++) {
		if (img->syms[i].end > img->syms[j].end)
			j = i;
		img->syms[i].cover = (uint32_t)j;
	}
	return 0;
}

/* The section table of elf, with its .symtab and .dynsym. */
static int read_sections(Elf *elf, struct sec **out, size_t *nout, Elf_Scn **symtab,
			 Elf_Scn **dynsym)
{
	Elf_Scn *scn = NULL;
	struct sec *secs;
	size_t nsecs;

	if (elf_getshdrnum(elf, &nsecs))
		return -EINVAL;
	secs = calloc(nsecs ? nsecs : 1, sizeof(*secs));
	if (!secs)
		return -ENOMEM;
	*symtab = *dynsym = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		size_t idx = elf_ndxscn(scn);
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || idx >= nsecs)
			continue;
		secs[idx].end = sh.sh_addr + sh.sh_size;
		secs[idx].exec = (sh.sh_flags & SHF_ALLOC) && (sh.sh_flags & SHF_EXECINSTR);
		if (sh.sh_type == SHT_SYMTAB)
			*symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			*dynsym = scn;
	}
	*out = secs;
	*nout = nsecs;
	return 0;
}

/* Add elf's .symtab (which) or .dynsym (!which) function symbols to c.  -ENOENT: no such table
 * or no function in it. */
static int add_table(Elf *elf, bool symtab, struct cands *c)
{
	Elf_Scn *st, *dyn;
	struct sec *secs;
	size_t nsecs, before = c->n;
	int err;

	if (!elf)
		return -ENOENT;
	err = read_sections(elf, &secs, &nsecs, &st, &dyn);
	if (err)
		return err;
	if (!(symtab ? st : dyn))
		err = -ENOENT;
	else
		err = collect_syms(elf, symtab ? st : dyn, secs, nsecs, c);
	free(secs);
	if (!err && c->n == before)
		err = -ENOENT;
	return err;
}


/*
 * PLT stubs have no symbol: name them "fn@plt" from .rela.plt, as perf does.  Entry i jumps
 * through the GOT slot of relocation i; entries are 16 bytes.  x86-64: entry i of .plt.sec
 * (IBT), or of .plt after PLT0 (16 bytes).  AArch64: of .plt after PLT0 (32 bytes), where the
 * section holds exactly those (a BTI + PAC PLT has 24-byte entries and is left unnamed).
 */
static int add_plt(struct image *img, struct cands *c)
{
	Elf_Scn *rela = mb_elf_section(img->elf, ".rela.plt", NULL);
	Elf_Scn *plt = mb_elf_section(img->elf, ".plt.sec", NULL);
	GElf_Shdr rsh, psh, dsh;
	Elf_Data *rd, *dd;
	GElf_Ehdr eh;
	size_t first = 0, n;
	Elf_Scn *dyn;
	bool a64;

	if (!gelf_getehdr(img->elf, &eh) ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64))
		return 0;
	a64 = eh.e_machine == EM_AARCH64;
	if (!plt || a64) {
		plt = mb_elf_section(img->elf, ".plt", NULL);
		first = a64 ? 2 : 1;
	}
	if (!rela || !plt || !gelf_getshdr(rela, &rsh) || rsh.sh_type != SHT_RELA ||
	    !rsh.sh_entsize || !gelf_getshdr(plt, &psh) || !(rd = elf_getdata(rela, NULL)) ||
	    !(dyn = elf_getscn(img->elf, rsh.sh_link)) || !gelf_getshdr(dyn, &dsh) ||
	    !(dd = elf_getdata(dyn, NULL)))
		return 0;
	n = rd->d_size / rsh.sh_entsize;
	if ((first + n) * 16 > psh.sh_size || (a64 && (first + n) * 16 != psh.sh_size))
		return 0;
	img->plt_names = calloc(n ? n : 1, sizeof(*img->plt_names));
	if (!img->plt_names || c->n + n > c->cap) {
		struct cand *v = img->plt_names ? realloc(c->v, (c->n + n + 1) * sizeof(*v)) : NULL;

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = c->n + n + 1;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name;
		GElf_Rela r;
		GElf_Sym sym;
		int status = -1;
		char *d;

		if (!gelf_getrela(rd, (int)i, &r) || !GELF_R_SYM(r.r_info) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(name = elf_strptr(img->elf, dsh.sh_link, sym.st_name)) || !*name)
			continue;
		d = !strncmp(name, "_Z", 2) ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
		if (asprintf(&img->plt_names[img->nplt_names], "%s@plt",
			     d && !status ? d : name) < 0) {
			free(d);
			continue;
		}
		free(d);
		c->v[c->n++] = (struct cand){ psh.sh_addr + (first + i) * 16, 16,
					      img->plt_names[img->nplt_names++],
					      psh.sh_addr + psh.sh_size, STT_FUNC, STB_LOCAL };
	}
	return 0;
}

/*
 * Index the best symbol source: the file's .symtab, a debug file's, MiniDebugInfo's merged
 * with .dynsym (it holds only what .dynsym lacks), or .dynsym alone; plus PLT stubs.
 */
static int index_syms(struct image *img)
{
	struct cands c = {};
	int err;

	if ((err = add_table(img->elf, true, &c)) == 0) {
		img->info.symbols = ".symtab";
		img->info.full_symtab = true;
	} else if (err == -ENOMEM) {
		goto out;
	} else if ((err = add_table(img->dbg_elf, true, &c)) == 0) {
		img->info.symbols = "debuginfo";
		img->info.full_symtab = true;
	} else if (err == -ENOMEM) {
		goto out;
	} else if ((err = add_table(img->mini_elf, true, &c)) == 0) {
		img->info.symbols = ".gnu_debugdata";
		img->info.full_symtab = true;
		if (add_table(img->elf, false, &c) == -ENOMEM)
			err = -ENOMEM;
	} else if (err == -ENOMEM) {
		goto out;
	} else if ((err = add_table(img->elf, false, &c)) == 0) {
		img->info.symbols = ".dynsym";
	} else if (err == -ENOENT) {
		err = 0; /* no symbols at all: every address is unnamed */
	}
	if (!err)
		err = add_plt(img, &c);
	if (err)
		goto out;
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_cand);
	err = build_index(img, c.v, c.n);
out:
	free(c.v);
	return err;
}

static int index_segs(struct image *img)
{
	size_t n;

	if (elf_getphdrnum(img->elf, &n))
		return -EINVAL;
	img->segs = calloc(n ? n : 1, sizeof(*img->segs));
	if (!img->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(img->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		img->segs[img->nsegs++] = (struct seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	return img->nsegs ? 0 : -ENOEXEC;
}

/* --- build-id, debuglink, separate debuginfo, MiniDebugInfo ----------------------------------- */

/* .gnu_debuglink: a file name, NUL, padding to 4, a CRC32 of the debug file. */
static void read_debuglink(struct image *img)
{
	Elf_Scn *scn = mb_elf_section(img->elf, ".gnu_debuglink", NULL);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const char *name;
	size_t len, crc_off;
	uint32_t crc;

	if (!d || !d->d_buf || d->d_size < 6)
		return;
	name = d->d_buf;
	len = strnlen(name, d->d_size);
	crc_off = (len + 4) & ~(size_t)3;
	if (!len || len == d->d_size || crc_off + 4 > d->d_size || strchr(name, '/'))
		return;
	memcpy(&crc, (const char *)d->d_buf + crc_off, 4);
	if ((elf_getident(img->elf, NULL)[EI_DATA] == ELFDATA2MSB) !=
	    (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		crc = __builtin_bswap32(crc);
	img->debuglink = strndup(name, len);
	img->debuglink_crc = crc;
}

/*
 * Use path as img's debuginfo if it is an ELF with the same build-id (or, for a debuglink
 * candidate of a file without one, the CRC the link records) and holds what the file lacks.
 */
static bool try_debug_file(struct image *img, const char *path, bool by_link)
{
	unsigned char id[MB_BUILD_ID_MAX];
	size_t len = 0;
	struct stat st;
	uint32_t crc;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		goto out_close;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out_end;
	if (mb_elf_build_id(elf, id, &len) && img->build_id_len) {
		if (len != img->build_id_len || memcmp(id, img->build_id, len)) {
			pr_verbose("ignoring debug file %s: another build-id", path);
			goto out_end;
		}
	} else if (!by_link || !mb_file_crc32(fd, &crc) || crc != img->debuglink_crc) {
		pr_verbose("ignoring debug file %s: no matching build-id or debuglink CRC", path);
		goto out_end;
	}
	if (!mb_elf_has_symtab(elf) && !mb_elf_has_dwarf(elf))
		goto out_end;
	img->dbg_fd = fd;
	img->dbg_elf = elf;
	img->dbg_path = strdup(path);
	img->info.debug_file = img->dbg_path;
	pr_debug("%s: debuginfo from %s", img->path, path);
	return true;
out_end:
	if (elf)
		elf_end(elf);
out_close:
	close(fd);
	return false;
}

static bool try_debug_fmt(struct image *img, bool by_link, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool try_debug_fmt(struct image *img, bool by_link, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return n > 0 && (size_t)n < sizeof(path) && try_debug_file(img, path, by_link);
}

/* The file's path without " (deleted)", and its directory. */
static void split_path(const char *path, char *dir, size_t size, const char **base)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n >= size)
		n = size - 1;
	memcpy(dir, path, n);
	dir[n] = '\0';
	*base = slash ? slash + 1 : path;
}

/* Search separate debuginfo in gdb's order: build-id, then debuglink places. */
static void find_debug(const struct symbolizer *s, struct image *img, const char *path)
{
	const char *cache = getenv("DEBUGINFOD_CACHE_PATH"), *home = getenv("HOME"), *base;
	char dir[4096], hex[2 * MB_BUILD_ID_MAX + 1];

	if (s->no_debug)
		return;
	snprintf(hex, sizeof(hex), "%s", img->build_id_hex);
	for (size_t i = 0; img->build_id_len && i < s->ndirs; i++)
		if (try_debug_fmt(img, false, "%s/.build-id/%.2s/%s.debug", s->dirs[i], hex, hex + 2))
			return;
	if (img->debuglink) {
		split_path(path, dir, sizeof(dir), &base);
		if (strcmp(base, img->debuglink) &&
		    try_debug_fmt(img, true, "%s/%s", dir, img->debuglink))
			return;
		if (try_debug_fmt(img, true, "%s/.debug/%s", dir, img->debuglink))
			return;
		for (size_t i = 0; i < s->ndirs; i++)
			if (try_debug_fmt(img, true, "%s%s/%s", s->dirs[i], dir, img->debuglink) ||
			    try_debug_fmt(img, true, "%s/%s", s->dirs[i], img->debuglink))
				return;
	}
	/* what debuginfod clients have downloaded before (never the network from here) */
	if (!img->build_id_len)
		return;
	if (cache && *cache)
		try_debug_fmt(img, false, "%s/%s/debuginfo", cache, hex);
	else if (home && *home)
		try_debug_fmt(img, false, "%s/.cache/debuginfod_client/%s/debuginfo", home, hex);
}

/* Decompress .gnu_debugdata (an xz-compressed ELF with the symbols .dynsym lacks). */
static void open_minidebuginfo(struct image *img)
{
	Elf_Scn *scn = mb_elf_section(img->elf, ".gnu_debugdata", NULL);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = 0, len = 0;
	unsigned char *buf = NULL;
	lzma_ret ret;

	if (!d || !d->d_buf || !d->d_size)
		return;
	if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK)
		return;
	strm.next_in = d->d_buf;
	strm.avail_in = d->d_size;
	do {
		if (mb_grow_max((void **)&buf, &cap, len + 1, 1, d->d_size * 4 + 4096,
				MINIDEBUG_MAX)) {
			ret = LZMA_MEM_ERROR;
			break;
		}
		strm.next_out = buf + len;
		strm.avail_out = cap - len;
		ret = lzma_code(&strm, LZMA_FINISH);
		len = cap - strm.avail_out;
	} while (ret == LZMA_OK || (ret == LZMA_BUF_ERROR && !strm.avail_out));
	lzma_end(&strm);
	if (ret != LZMA_STREAM_END || !len) {
		pr_verbose("%s: bad .gnu_debugdata (xz error %d)", img->path, (int)ret);
		free(buf);
		return;
	}
	img->mini_elf = elf_memory((char *)buf, len);
	if (!img->mini_elf || elf_kind(img->mini_elf) != ELF_K_ELF) {
		if (img->mini_elf)
			elf_end(img->mini_elf);
		img->mini_elf = NULL;
		free(buf);
		return;
	}
	img->mini_buf = buf;
}

/* DWARF from the file itself, else from its debuginfo. */
static void open_dwarf(struct image *img)
{
	if (mb_elf_has_dwarf(img->elf))
		img->dw = dwarf_begin_elf(img->elf, DWARF_C_READ, NULL);
	if (!img->dw && img->dbg_elf && mb_elf_has_dwarf(img->dbg_elf))
		img->dw = dwarf_begin_elf(img->dbg_elf, DWARF_C_READ, NULL);
	img->info.dwarf = img->dw != NULL;
}

/* --- images -------------------------------------------------------------------------------- */

static void image_free(struct image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->nsyms; i++)
		free(img->syms[i].display);
	free(img->syms);
	free(img->segs);
	free(img->cache);
	for (size_t i = 0; i < img->ncus; i++)
		free(img->cus[i].v);
	free(img->cus);
	free(img->pool);
	free(img->fde_starts);
	if (img->dw)
		dwarf_end(img->dw);
	if (img->mini_elf)
		elf_end(img->mini_elf);
	free(img->mini_buf);
	if (img->dbg_elf)
		elf_end(img->dbg_elf);
	if (img->dbg_fd >= 0)
		close(img->dbg_fd);
	free(img->dbg_path);
	if (img->elf)
		elf_end(img->elf);
	if (img->fd >= 0)
		close(img->fd);
	free(img->mem);
	free(img->debuglink);
	free(img->path);
	for (size_t i = 0; i < img->nplt_names; i++)
		free(img->plt_names[i]);
	free(img->plt_names);
	free(img);
}

/*
 * The image for an opened ELF: an existing one with the same build-id (fd, elf and mem are
 * then released), or a new one indexed now (taking them over).  -ENOMEM is ours; other errors
 * mean a file we cannot use.
 */
static int image_get(struct symbolizer *s, const char *path, int fd, Elf *elf, void *mem,
		     struct image **out)
{
	unsigned char id[MB_BUILD_ID_MAX];
	struct image *img;
	size_t len = 0;
	int err;

	if (elf_kind(elf) == ELF_K_ELF && mb_elf_build_id(elf, id, &len)) {
		for (img = s->images; img; img = img->next) {
			if (img->build_id_len == len && !memcmp(img->build_id, id, len)) {
				elf_end(elf);
				if (fd >= 0)
					close(fd);
				free(mem);
				*out = img;
				return 0;
			}
		}
	}
	img = calloc(1, sizeof(*img));
	if (!img) {
		elf_end(elf);
		if (fd >= 0)
			close(fd);
		free(mem);
		return -ENOMEM;
	}
	img->fd = fd;
	img->elf = elf;
	img->mem = mem;
	img->dbg_fd = -1;
	img->path = strdup(path);
	if (!img->path) {
		err = -ENOMEM;
		goto out_free;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out_free;
	}
	err = index_segs(img);
	if (err)
		goto out_free;
	memcpy(img->build_id, id, len);
	img->build_id_len = len;
	mb_build_id_hex(id, len, img->build_id_hex, sizeof(img->build_id_hex));
	read_debuglink(img);
	if (!mb_elf_has_symtab(elf) || !mb_elf_has_dwarf(elf))
		find_debug(s, img, path);
	if (!mb_elf_has_symtab(elf) && !(img->dbg_elf && mb_elf_has_symtab(img->dbg_elf)))
		open_minidebuginfo(img);
	err = index_syms(img);
	if (err)
		goto out_free;
	open_dwarf(img);
	img->info.path = img->path;
	img->info.build_id = img->build_id_hex;
	img->info.debuglink = img->debuglink;
	img->next = s->images;
	s->images = img;
	pr_debug("indexed %s: %zu symbols from %s%s, build-id %s", path, img->nsyms,
		 img->info.symbols ? img->info.symbols : "nowhere",
		 img->info.dwarf ? ", DWARF" : "", img->build_id_hex);
	*out = img;
	return 0;
out_free:
	image_free(img);
	return err;
}

/* --- objects -------------------------------------------------------------------------------- */

/*
 * Open and index a mapped file: through a pin when the run holds one (the very file mapped),
 * else by path.  Regular files only: opening a mapped device can have side effects
 * (/dev/watchdog).  A "(deleted)" path is tried without the suffix, but only the same inode
 * will do: whatever now lives at that path is another file (a rebuilt binary).
 */
static int open_file(struct symbolizer *s, struct obj *o)
{
	const struct mb_pin *pin = mb_pins__find(s->pins, o->inode, o->dev_major, o->dev_minor);
	size_t len;
	bool deleted = maps__path_deleted(o->path, &len);
	char *path = strndup(o->path, len);
	struct stat st;
	int err, fd;
	Elf *elf;

	if (!path)
		return -ENOMEM;
	if (pin && o->inode) {
		fd = fcntl(pin->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			err = -errno;
			goto out;
		}
	} else {
		if (stat(path, &st)) {
			err = -errno;
			pr_verbose("failed to open %s: %s", path, strerror(-err));
			goto out;
		}
		if (!S_ISREG(st.st_mode) || (deleted && st.st_ino != o->inode)) {
			err = -ENOENT;
			pr_verbose("failed to open %s: %s", path,
				   S_ISREG(st.st_mode) ? "replaced since it was mapped"
						       : "not a regular file");
			goto out;
		}
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			pr_verbose("failed to open %s: %s", path, strerror(-err));
			goto out;
		}
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		close(fd);
		err = -ENOEXEC;
	} else {
		err = image_get(s, path, fd, elf, NULL, &o->img);
	}
	if (err && err != -ENOMEM) {
		int e = elf_errno();

		pr_verbose("failed to read ELF %s: %s", path, e ? elf_errmsg(e) : strerror(-err));
	}
out:
	free(path);
	return err;
}

/*
 * The kernel maps the same vdso image into every (64-bit) process, so index our own copy.  A
 * target whose [vdso] has another size (a compat process) stays unnamed.
 */
static int open_vdso(struct symbolizer *s, struct obj *o, uint64_t size)
{
	struct mb_maps self;
	const struct mb_mapping *m = NULL;
	void *image;
	Elf *elf;
	int err;

	err = maps__read(0, &self);
	if (err)
		return err;
	for (size_t i = 0; i < self.n && !m; i++)
		if (strcmp(self.v[i].path, "[vdso]") == 0)
			m = &self.v[i];
	if (!m || m->end - m->start != size) {
		err = -ENOENT;
		goto out;
	}
	image = malloc(size);
	if (!image) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(image, (const void *)(uintptr_t)m->start, size);
	elf = elf_memory(image, size);
	if (!elf) {
		free(image);
		err = -ENOEXEC;
		goto out;
	}
	err = image_get(s, "[vdso]", -1, elf, image, &o->img);
out:
	maps__free(&self);
	if (err && err != -ENOMEM)
		pr_verbose("failed to index our vdso: %s", strerror(-err));
	return err;
}

static void obj_free(struct obj *o)
{
	if (!o)
		return;
	free(o->path);
	free(o);
}

/* NULL with errno set only when out of memory; an unusable file is an object with why set. */
static struct obj *obj_new(struct symbolizer *s, const struct mb_mapping *m)
{
	struct obj *o = calloc(1, sizeof(*o));
	int err = 0;

	if (!o || !(o->path = strdup(m->path))) {
		free(o);
		errno = ENOMEM;
		return NULL;
	}
	o->inode = m->inode;
	o->dev_major = m->dev_major;
	o->dev_minor = m->dev_minor;
	o->dso = o->path[0] ? o->path : "[anon]";
	o->why = MB_NAMED;
	if (strcmp(o->path, "[vdso]") == 0)
		err = open_vdso(s, o, m->end - m->start);
	else if (o->path[0] != '/' || strncmp(o->path, "/memfd:", 7) == 0)
		o->why = MB_UNNAMED_ANON; /* "", [heap], [stack], anon_inode:..., memfd JIT code */
	else
		err = open_file(s, o);
	if (err == -ENOMEM) {
		obj_free(o);
		errno = ENOMEM;
		return NULL;
	}
	if (err) {
		o->why = o->path[0] == '[' ? MB_UNNAMED_ANON : MB_UNNAMED_NO_FILE;
		o->img = NULL;
	}
	return o;
}

/* --- the cache ------------------------------------------------------------------------------ */

static uint64_t key_hash(uint64_t inode, uint32_t major, uint32_t minor, const char *path)
{
	if (inode)
		return mix64(inode ^ mix64((uint64_t)major << 32 | minor));
	return mix64(hash_bytes(path, strlen(path)));
}

static bool key_eq(const struct obj *o, const struct mb_mapping *m)
{
	if (o->inode != m->inode || o->dev_major != m->dev_major || o->dev_minor != m->dev_minor)
		return false;
	return m->inode || strcmp(o->path, m->path) == 0;
}

static int cache_grow(struct symbolizer *s)
{
	size_t ncap = mb_grow_cap(s->cap, 64);
	struct obj **tab = calloc(ncap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		struct obj *o = s->tab[i];
		size_t h;

		if (!o)
			continue;
		h = key_hash(o->inode, o->dev_major, o->dev_minor, o->path) & (ncap - 1);
		while (tab[h])
			h = (h + 1) & (ncap - 1);
		tab[h] = o;
	}
	free(s->tab);
	s->tab = tab;
	s->cap = ncap;
	return 0;
}

/* The object for a mapping's file, opened and indexed on first use. */
static int cache_get(struct symbolizer *s, const struct mb_mapping *m, struct obj **out)
{
	size_t h;
	int err;

	if ((s->n + 1) * 2 > s->cap && (err = cache_grow(s)))
		return err;
	h = key_hash(m->inode, m->dev_major, m->dev_minor, m->path) & (s->cap - 1);
	for (; s->tab[h]; h = (h + 1) & (s->cap - 1)) {
		if (key_eq(s->tab[h], m)) {
			*out = s->tab[h];
			return 0;
		}
	}
	s->tab[h] = obj_new(s, m);
	if (!s->tab[h])
		return -errno;
	s->n++;
	*out = s->tab[h];
	return 0;
}

/* --- names ---------------------------------------------------------------------------------- */

static bool off_to_vaddr(const struct image *img, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct seg *g = &img->segs[i];

		if (off >= g->offset && off - g->offset < g->filesz) {
			*vaddr = off - g->offset + g->vaddr;
			return true;
		}
	}
	return false;
}

struct sym *image_find_sym(struct image *img, uint64_t vaddr)
{
	size_t lo = 0, hi = img->nsyms;
	struct sym *sym;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	sym = &img->syms[lo - 1];
	if (vaddr < sym->end)
		return sym;
	sym = &img->syms[sym->cover];
	return vaddr < sym->end ? sym : NULL;
}

const char *sym_name(struct sym *sym)
{
	const char *at = strchr(sym->name, '@');
	char *base = NULL, *d;
	int status;

	if (sym->display_done)
		return sym->display ? sym->display : sym->name;
	sym->display_done = true;
	if (at && !strcmp(at, "@plt"))
		return sym->name; /* made by add_plt, demangled already */
	if (at && at != sym->name)
		base = strndup(sym->name, (size_t)(at - sym->name));
	sym->display = base;
	if (strncmp(base ? base : sym->name, "_Z", 2) == 0) {
		d = __cxa_demangle(base ? base : sym->name, NULL, NULL, &status);
		if (!status && d) {
			free(base);
			sym->display = d;
		} else {
			free(d);
		}
	}
	return sym->display ? sym->display : sym->name;
}

static void fill_frame(struct mb_sym *out, const struct mb_sym *base, const struct pframe *p)
{
	*out = *base;
	out->name = p->name;
	out->sym_off = p->sym_off;
	out->file = p->file;
	out->file_rel = p->file_rel;
	out->line = p->line;
	out->column = p->column;
	out->inline_depth = p->depth;
	out->why = p->why;
}

/* Fill out[0..max) for addr; returns the frame count or -errno. */
static int lookup(struct symbolizer *s, const struct mb_maps *maps, uint64_t addr,
		  struct mb_sym *out, size_t max, bool expand)
{
	struct mb_sym base = { .offset = addr, .build_id = "", .why = MB_UNNAMED_NO_MAPPING };
	const struct mb_mapping *m;
	const struct pframe *p;
	struct obj *o = NULL;
	struct image *img;
	uint32_t first, n;
	uint64_t vaddr;
	int err;

	if (!s || !maps || !out || !max)
		return -EINVAL;
	out[0] = base; /* dso NULL */
	m = maps__find(maps, addr);
	if (!m)
		return 1;
	err = cache_get(s, m, &o);
	if (err)
		return err;
	base.dso = o->dso;
	base.why = o->why;
	if (o->why == MB_UNNAMED_ANON && strcmp(o->path, "[vdso]")) {
		out[0] = base;
		return 1;
	}
	base.offset = addr - m->start + m->offset;
	img = o->img;
	if (!img) {
		out[0] = base;
		return 1;
	}
	base.info = &img->info;
	base.build_id = img->build_id_hex;
	if (!off_to_vaddr(img, base.offset, &vaddr)) {
		base.why = img->info.full_symtab ? MB_UNNAMED_NO_SYMBOL : MB_UNNAMED_STRIPPED;
		out[0] = base;
		return 1;
	}
	err = image_chain(s, img, vaddr, &first, &n);
	if (err)
		return err;
	p = img->pool + first;
	if (!expand) {
		/* the physical function, at the line of the address itself */
		fill_frame(&out[0], &base, &p[n - 1]);
		out[0].file = p[0].file;
		out[0].file_rel = p[0].file_rel;
		out[0].line = p[0].line;
		out[0].column = p[0].column;
		return 1;
	}
	if (n > max) {
		for (size_t i = 0; i + 1 < max; i++)
			fill_frame(&out[i], &base, &p[i]);
		fill_frame(&out[max - 1], &base, &p[n - 1]);
		return (int)max;
	}
	for (uint32_t i = 0; i < n; i++)
		fill_frame(&out[i], &base, &p[i]);
	return (int)n;
}

int symbolizer__lookup(struct symbolizer *s, const struct mb_maps *maps, uint64_t addr,
		       struct mb_sym *out)
{
	int n = lookup(s, maps, addr, out, 1, false);

	return n < 0 ? n : 0;
}

int symbolizer__lookup_inline(struct symbolizer *s, const struct mb_maps *maps, uint64_t addr,
			      struct mb_sym *out, size_t max)
{
	return lookup(s, maps, addr, out, max, true);
}

/* --- life ----------------------------------------------------------------------------------- */

struct symbolizer *symbolizer__new(void)
{
	static const char *const defaults[] = { DEFAULT_DEBUG_DIR };
	struct symbolizer *s;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		pr_err("failed to initialize libelf: %s", elf_errmsg(-1));
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || symbolizer__set_debug_dirs(s, defaults, 1)) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

static void free_dirs(struct symbolizer *s)
{
	for (size_t i = 0; i < s->ndirs; i++)
		free(s->dirs[i]);
	free(s->dirs);
	s->dirs = NULL;
	s->ndirs = 0;
}

int symbolizer__set_debug_dirs(struct symbolizer *s, const char *const *dirs, size_t n)
{
	char **v;

	if (!s || (n && !dirs))
		return -EINVAL;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dirs[i]);

		while (len > 1 && dirs[i][len - 1] == '/')
			len--;
		v[i] = strndup(dirs[i], len);
		if (!v[i]) {
			while (i--)
				free(v[i]);
			free(v);
			return -ENOMEM;
		}
	}
	free_dirs(s);
	s->dirs = v;
	s->ndirs = n;
	s->no_debug = false;
	return 0;
}

int symbolizer__set_debug_dir(struct symbolizer *s, const char *dir)
{
	int err;

	if (!s)
		return -EINVAL;
	err = symbolizer__set_debug_dirs(s, &dir, dir ? 1 : 0);
	if (!err && !dir)
		s->no_debug = true;
	return err;
}

void symbolizer__use_pins(struct symbolizer *s, const struct mb_pins *p)
{
	if (s)
		s->pins = p;
}

void symbolizer__free(struct symbolizer *s)
{
	struct image *img, *next;

	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		obj_free(s->tab[i]);
	free(s->tab);
	for (img = s->images; img; img = next) {
		next = img->next;
		image_free(img);
	}
	for (size_t i = 0; i < s->strs_cap; i++)
		free(s->strs[i]);
	free(s->strs);
	free_dirs(s);
	free(s);
}
