// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Addresses to function names.  A lookup goes address -> mapping (maps__find) -> file offset ->
 * the mapped file's object (opened and indexed once, cached by dev+inode) -> ELF virtual address
 * through the PT_LOAD headers -> binary search of the function symbols.  Symbols come from
 * .symtab, else from the .symtab of a separate debug file found by build-id (Debian's -dbg and
 * -dbgsym packages: /usr/lib/debug/.build-id/xx/yyyy.debug), else from .dynsym.
 *
 * An object keeps its Elf open: symbol names point into its string table, and the libdw pass
 * (file:line, inlines) will want the same Elf.  ELF_C_READ rather than ELF_C_READ_MMAP: the
 * tables are read into memory, so a binary rewritten in place (cp over it, after netmux exits)
 * cannot SIGBUS us.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "log.h"
#include "symbolize.h"

/* libstdc++'s demangler; we link -lstdc++. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define DELETED_SUFFIX " (deleted)"
#define DEFAULT_DEBUG_DIR "/usr/lib/debug"
#define BUILD_ID_MAX 64

struct sym {
	uint64_t start, end; /* ELF virtual addresses, [start, end) */
	const char *name;    /* in the Elf's string table */
	char *display;       /* name as shown, when not name itself: demangled, unversioned */
	uint32_t cover;      /* index of the symbol with the largest end among 0..this one */
	bool display_done;
};

/* A PT_LOAD header: file bytes [offset, offset + filesz) are at vaddr. */
struct seg {
	uint64_t offset, vaddr, filesz;
};

/* One mapped file (or special mapping), shared by every mapping and process that maps it. */
struct obj {
	uint64_t inode; /* key: dev + inode, or path when inode is 0 */
	uint32_t dev_major, dev_minor;
	char *path;     /* as in the maps file; also the dso name */
	const char *dso;
	enum mb_unnamed why; /* MB_NAMED when the ELF is indexed */
	int fd;
	Elf *elf;
	void *image;    /* the vdso copy behind an elf_memory() Elf */
	int dbg_fd;     /* the separate debug file the symbols came from, if any */
	Elf *dbg_elf;
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	struct seg *segs;
	size_t nsegs;
	struct sym *syms;
	size_t nsyms;
};

struct symbolizer {
	struct obj **tab; /* open addressing, cap a power of two, at most half full */
	size_t cap, n;
	char *debug_dir;  /* NULL: no separate debug files */
};

/* A symbol table entry kept for sorting before the index is built. */
struct cand {
	uint64_t addr, size;
	const char *name;
	size_t shndx;
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
		[MB_UNNAMED_ANON] = "anonymous",
		[MB_UNNAMED_NO_FILE] = "no file",
		[MB_UNNAMED_NO_SYMBOL] = "stripped",
	};

	if ((unsigned int)why >= MB_UNNAMED__COUNT)
		return "invalid";
	return str[why];
}

/* --- symbol index ----------------------------------------------------------------------------- */

static int leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Order by address; among aliases at one address the preferred name sorts first: a function
 * over a bare label, exported over local, fewer leading underscores (glibc's getpid over
 * __getpid), GLOBAL over WEAK, then by name so the choice is stable.
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
	d = leading_underscores(x->name) - leading_underscores(y->name);
	if (d)
		return d;
	d = (x->bind != STB_GLOBAL) - (y->bind != STB_GLOBAL);
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

static int collect_syms(Elf *elf, Elf_Scn *scn, const struct sec *secs, size_t nsecs,
			struct cand **out, size_t *nout)
{
	struct cand *c;
	Elf_Data *data;
	GElf_Shdr sh;
	size_t cnt, n = 0;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return -EINVAL;
	cnt = data->d_size / sh.sh_entsize;
	c = calloc(cnt ? cnt : 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		const char *name;
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym) || !keep_sym(&sym, secs, nsecs))
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name || name[0] == '$' || strncmp(name, ".L", 2) == 0)
			continue;
		c[n++] = (struct cand){ sym.st_value, sym.st_size, name, sym.st_shndx,
					GELF_ST_TYPE(sym.st_info), GELF_ST_BIND(sym.st_info) };
	}
	*out = c;
	*nout = n;
	return 0;
}

/*
 * Turn sorted candidates into the index: one symbol per address (the first, preferred alias,
 * with the largest size among the aliases), ends for size-0 symbols at the next symbol but not
 * past their section, and for each symbol the earlier symbol reaching furthest, so an address
 * past a short symbol nested in a longer one still finds the longer one.
 */
static int build_index(struct obj *o, const struct cand *c, size_t n, const struct sec *secs)
{
	size_t i, j, k = 0;

	o->syms = calloc(n ? n : 1, sizeof(*o->syms));
	if (!o->syms)
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
		if (!size && end > secs[c[i].shndx].end)
			end = secs[c[i].shndx].end > c[i].addr ? secs[c[i].shndx].end : c[i].addr;
		o->syms[k++] = (struct sym){ .start = c[i].addr, .end = end, .name = c[i].name };
	}
	o->nsyms = k;
	for (i = 0, j = 0; i < k; i++) {
		if (o->syms[i].end > o->syms[j].end)
			j = i;
		o->syms[i].cover = (uint32_t)j;
	}
	return 0;
}

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

/*
 * Index the function symbols of elf: .symtab, or with symtab_only -ENOENT when there is none,
 * else .dynsym (stripped, like Debian's libc).
 */
static int index_syms(struct obj *o, Elf *elf, bool symtab_only)
{
	Elf_Scn *symtab, *dynsym, *scn;
	struct cand *c = NULL;
	struct sec *secs;
	size_t nsecs, n = 0;
	int err;

	err = read_sections(elf, &secs, &nsecs, &symtab, &dynsym);
	if (err)
		return err;
	if (!symtab && symtab_only) {
		free(secs);
		return -ENOENT;
	}
	scn = symtab ? symtab : dynsym;
	if (scn) {
		err = collect_syms(elf, scn, secs, nsecs, &c, &n);
		if (!err && !n && scn == symtab && dynsym && !symtab_only) {
			free(c);
			c = NULL;
			err = collect_syms(elf, dynsym, secs, nsecs, &c, &n);
		}
	}
	if (!err) {
		qsort(c, n, sizeof(*c), cmp_cand);
		err = build_index(o, c, n, secs);
	}
	free(c);
	free(secs);
	return err;
}

static int index_segs(struct obj *o)
{
	size_t n;

	if (elf_getphdrnum(o->elf, &n))
		return -EINVAL;
	o->segs = calloc(n ? n : 1, sizeof(*o->segs));
	if (!o->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(o->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->segs[o->nsegs++] = (struct seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	return o->nsegs ? 0 : -ENOEXEC;
}

/* The GNU build-id note, from the section headers (kept by strip and --only-keep-debug). */
static bool read_build_id(Elf *elf, unsigned char *id, size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		size_t off = 0, next, name_off, desc_off;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 &&
			    nh.n_descsz && nh.n_descsz <= BUILD_ID_MAX) {
				memcpy(id, (const char *)d->d_buf + desc_off, nh.n_descsz);
				*len = nh.n_descsz;
				return true;
			}
			off = next;
		}
	}
	return false;
}

static void close_debug(struct obj *o)
{
	if (o->dbg_elf)
		elf_end(o->dbg_elf);
	if (o->dbg_fd >= 0)
		close(o->dbg_fd);
	o->dbg_elf = NULL;
	o->dbg_fd = -1;
}

/* Open DIR/.build-id/xx/yyyy.debug for o's build-id, if it exists and carries the same one. */
static int open_debug(const struct symbolizer *s, struct obj *o)
{
	unsigned char id[BUILD_ID_MAX];
	char path[4096];
	size_t len = 0, n;

	if (!s->debug_dir || !o->build_id_len)
		return -ENOENT;
	n = (size_t)snprintf(path, sizeof(path), "%s/.build-id/%02x/", s->debug_dir,
			     o->build_id[0]);
	for (size_t i = 1; i < o->build_id_len && n < sizeof(path); i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", o->build_id[i]);
	if (n < sizeof(path))
		n += (size_t)snprintf(path + n, sizeof(path) - n, ".debug");
	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	o->dbg_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (o->dbg_fd < 0)
		return -ENOENT;
	o->dbg_elf = elf_begin(o->dbg_fd, ELF_C_READ, NULL);
	if (!o->dbg_elf || elf_kind(o->dbg_elf) != ELF_K_ELF ||
	    !read_build_id(o->dbg_elf, id, &len) || len != o->build_id_len ||
	    memcmp(id, o->build_id, len)) {
		pr_verbose("ignoring debug file %s: not ELF or another build-id", path);
		close_debug(o);
		return -ENOENT;
	}
	pr_debug("%s: symbols from %s", o->dso, path);
	return 0;
}

/*
 * Index an Elf already in o->elf: its segments, then its .symtab, a debug file's .symtab, or
 * its .dynsym.  -ENOMEM is ours; other errors mean a bad file (NO_FILE).
 */
static int index_elf(const struct symbolizer *s, struct obj *o)
{
	int err;

	if (elf_kind(o->elf) != ELF_K_ELF)
		return -ENOEXEC;
	err = index_segs(o);
	if (err)
		return err;
	read_build_id(o->elf, o->build_id, &o->build_id_len);
	err = index_syms(o, o->elf, true);
	if (err == -ENOENT && open_debug(s, o) == 0) {
		err = index_syms(o, o->dbg_elf, true);
		if (err)
			close_debug(o);
	}
	if (err && err != -ENOMEM)
		err = index_syms(o, o->elf, false);
	if (!err)
		pr_debug("indexed %s: %zu symbols", o->dso, o->nsyms);
	return err;
}

/* --- objects -------------------------------------------------------------------------------- */

static bool path_deleted(const char *path, size_t *len)
{
	size_t n = strlen(path), s = strlen(DELETED_SUFFIX);

	*len = n;
	if (n <= s || strcmp(path + n - s, DELETED_SUFFIX))
		return false;
	*len = n - s;
	return true;
}

/*
 * Open and index a mapped file.  Regular files only: opening a mapped device can have side
 * effects (/dev/watchdog).  A "(deleted)" path is tried without the suffix, but only the same
 * inode will do: whatever now lives at that path is another file (a rebuilt binary).
 */
static int open_file(const struct symbolizer *s, struct obj *o)
{
	size_t len;
	bool deleted = path_deleted(o->path, &len);
	char *path = strndup(o->path, len);
	struct stat st;
	int err;

	if (!path)
		return -ENOMEM;
	if (stat(path, &st)) {
		err = -errno;
		pr_verbose("failed to open %s: %s", path, strerror(-err));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (deleted && st.st_ino != o->inode)) {
		err = -ENOENT;
		pr_verbose("failed to open %s: %s", path,
			   S_ISREG(st.st_mode) ? "replaced since it was mapped" : "not a regular file");
		goto out;
	}
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0) {
		err = -errno;
		pr_verbose("failed to open %s: %s", path, strerror(-err));
		goto out;
	}
	o->elf = elf_begin(o->fd, ELF_C_READ, NULL);
	err = o->elf ? index_elf(s, o) : -ENOEXEC;
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
static int open_vdso(const struct symbolizer *s, struct obj *o, uint64_t size)
{
	struct mb_maps self;
	const struct mb_mapping *m = NULL;
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
	o->image = malloc(size);
	if (!o->image) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(o->image, (const void *)(uintptr_t)m->start, size);
	o->elf = elf_memory(o->image, size);
	err = o->elf ? index_elf(s, o) : -ENOEXEC;
out:
	maps__free(&self);
	if (err && err != -ENOMEM)
		pr_verbose("failed to index our vdso: %s", strerror(-err));
	return err;
}

/* Drop the Elf and the index, keeping the key and why. */
static void obj_release(struct obj *o)
{
	for (size_t i = 0; i < o->nsyms; i++)
		free(o->syms[i].display);
	free(o->syms);
	free(o->segs);
	close_debug(o);
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	free(o->image);
	o->syms = NULL;
	o->segs = NULL;
	o->nsyms = o->nsegs = 0;
	o->elf = NULL;
	o->fd = -1;
	o->image = NULL;
}

static void obj_free(struct obj *o)
{
	if (!o)
		return;
	obj_release(o);
	free(o->path);
	free(o);
}

/* NULL with errno set only when out of memory; an unusable file is an object with why set. */
static struct obj *obj_new(const struct symbolizer *s, const struct mb_mapping *m)
{
	struct obj *o = calloc(1, sizeof(*o));
	int err = 0;

	if (!o || !(o->path = strdup(m->path))) {
		free(o);
		errno = ENOMEM;
		return NULL;
	}
	o->fd = o->dbg_fd = -1;
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
		obj_release(o);
	}
	return o;
}

/* --- the cache ------------------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint64_t key_hash(uint64_t inode, uint32_t major, uint32_t minor, const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	if (inode)
		return mix64(inode ^ mix64((uint64_t)major << 32 | minor));
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return mix64(h);
}

static bool key_eq(const struct obj *o, const struct mb_mapping *m)
{
	if (o->inode != m->inode || o->dev_major != m->dev_major || o->dev_minor != m->dev_minor)
		return false;
	return m->inode || strcmp(o->path, m->path) == 0;
}

static int cache_grow(struct symbolizer *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 64;
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

/* --- lookup --------------------------------------------------------------------------------- */

static bool off_to_vaddr(const struct obj *o, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < o->nsegs; i++) {
		const struct seg *g = &o->segs[i];

		if (off >= g->offset && off - g->offset < g->filesz) {
			*vaddr = off - g->offset + g->vaddr;
			return true;
		}
	}
	return false;
}

static struct sym *find_sym(struct obj *o, uint64_t vaddr)
{
	size_t lo = 0, hi = o->nsyms;
	struct sym *sym;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	sym = &o->syms[lo - 1];
	if (vaddr < sym->end)
		return sym;
	sym = &o->syms[sym->cover];
	return vaddr < sym->end ? sym : NULL;
}

/*
 * The name to show, made on first use: without the symbol version that .symtab spells into
 * some names (pthread_getattr_np@@GLIBC_2.32), and demangled.
 */
static const char *sym_name(struct sym *sym)
{
	const char *at = strchr(sym->name, '@');
	char *base = NULL, *d;
	int status;

	if (sym->display_done)
		return sym->display ? sym->display : sym->name;
	sym->display_done = true;
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

int symbolizer__lookup(struct symbolizer *s, const struct mb_maps *maps, uint64_t addr,
		       struct mb_sym *out)
{
	const struct mb_mapping *m;
	struct obj *o = NULL;
	struct sym *sym;
	uint64_t vaddr;
	int err;

	if (!s || !maps || !out)
		return -EINVAL;
	*out = (struct mb_sym){ .offset = addr, .why = MB_UNNAMED_NO_MAPPING }; /* dso NULL */
	m = maps__find(maps, addr);
	if (!m)
		return 0;
	err = cache_get(s, m, &o);
	if (err)
		return err;
	out->dso = o->dso;
	out->why = o->why;
	if (o->why == MB_UNNAMED_ANON && strcmp(o->path, "[vdso]"))
		return 0;
	out->offset = addr - m->start + m->offset;
	if (o->why != MB_NAMED)
		return 0;
	sym = off_to_vaddr(o, out->offset, &vaddr) ? find_sym(o, vaddr) : NULL;
	if (!sym) {
		out->why = MB_UNNAMED_NO_SYMBOL;
		return 0;
	}
	out->name = sym_name(sym);
	out->sym_off = vaddr - sym->start;
	return 0;
}

struct symbolizer *symbolizer__new(void)
{
	struct symbolizer *s;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		pr_err("failed to initialize libelf: %s", elf_errmsg(-1));
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->debug_dir = strdup(DEFAULT_DEBUG_DIR))) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

int symbolizer__set_debug_dir(struct symbolizer *s, const char *dir)
{
	char *d = NULL;

	if (!s)
		return -EINVAL;
	if (dir && !(d = strdup(dir)))
		return -ENOMEM;
	free(s->debug_dir);
	s->debug_dir = d;
	return 0;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		obj_free(s->tab[i]);
	free(s->tab);
	free(s->debug_dir);
	free(s);
}
