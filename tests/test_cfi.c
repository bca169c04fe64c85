// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CFI compiler (src/cfi.c) against binutils: every row of every FDE that
 * `readelf --debug-dump=frames-interp` prints for the no-frame-pointer targets, a fixture library
 * and the system's libc must give the same CFA rule, return-address slot and rbp rule.  Then the
 * special rows (the PLT expression, the signal trampoline, _start's undefined return address),
 * and a fuzz loop: mutated .eh_frame bytes must never crash the compiler nor yield a row the BPF
 * walker would follow outside its sanity bounds.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dlfcn.h>
#include <link.h>
#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>
#include "symbols/cfi.h"
#include "symbols/libdeps.h"

/*
 * A system library by name: the file the dynamic linker loads into this process for it (dlopen,
 * then its link map), not libdeps.c's search, which is code under test.  A library the linker
 * cannot load fails the test, named.
 */
static const char *lib_path(const char *name)
{
	static char buf[8][PATH_MAX];
	static int next;
	char *p = buf[next++ % 8];
	struct link_map *lm = NULL;
	void *h = dlopen(name, RTLD_LAZY);

	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm || !lm->l_name[0])
		fail_msg("%s: the dynamic linker does not load it: %s", name,
			 h ? "no link map" : dlerror());
	if (!realpath(lm->l_name, p))
		fail_msg("%s: %s: %s", name, lm->l_name, strerror(errno));
	return p;
}

#define LIBC lib_path("libc.so.6")

static void build_path(char *buf, size_t size, const char *rel)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	assert_true(snprintf(buf, size, "%s/%s", exe, rel) < (int)size);
}

/*
 * FDEs whose return address is undefined (DW_CFA_undefined on the return address column, in
 * readelf's raw dump): on AArch64 readelf's interpreted table prints "u" both there and for a
 * return address never saved (still in x30, a leaf), which the raw instructions tell apart.
 */
struct undef_fdes {
	uint64_t lo[256], hi[256];
	int n;
};

struct compare {
	size_t rows, mismatches, skipped;
	bool aarch64;
	struct undef_fdes undef;
	char first[512];
};

static bool ra_undefined(const struct compare *c, uint64_t loc)
{
	for (int i = 0; i < c->undef.n; i++)
		if (loc >= c->undef.lo[i] && loc < c->undef.hi[i])
			return true;
	return false;
}

/* A CFA "REG+N" of readelf's table: the stack pointer's or the frame pointer's name. */
static bool cfa_is(const char *cfa, const char *x86, const char *a64, long *off)
{
	char fmt[32];

	snprintf(fmt, sizeof(fmt), "%s+%%ld", x86);
	if (sscanf(cfa, fmt, off) == 1)
		return true;
	snprintf(fmt, sizeof(fmt), "%s+%%ld", a64);
	return sscanf(cfa, fmt, off) == 1;
}

/* The CFA rule of one row against readelf's CFA text. */
static bool cfa_matches(const struct muxbpf_unwind_info *in, const char *cfa)
{
	long off;

	if (cfa_is(cfa, "rsp", "sp", &off))
		return in->cfa == MUXBPF_CFA_RSP && in->cfa_off == off;
	if (cfa_is(cfa, "rbp", "x29", &off))
		return in->cfa == MUXBPF_CFA_RBP && in->cfa_off == off;
	if (!strcmp(cfa, "exp"))
		return in->cfa == MUXBPF_CFA_PLT || in->cfa == MUXBPF_CFA_SIGNAL ||
		       in->cfa == MUXBPF_CFA_UNSUPPORTED;
	return in->cfa == MUXBPF_CFA_UNSUPPORTED;
}

/*
 * One readelf row (LOC, CFA text, frame pointer text or NULL, ra text) against the table.  An
 * "u" return address is the outermost frame, or on AArch64 outside an FDE that undefines it,
 * the return address still in x30 under the row's CFA.
 */
static void compare_row(const struct cfi_table *t, uint64_t loc, const char *cfa, const char *rbp,
			const char *ra, struct compare *c)
{
	const struct cfi_row *row = cfi_table__find(t, loc);
	const struct muxbpf_unwind_info *in = row ? &row->info : NULL;
	bool ok = in != NULL;
	long off;

	c->rows++;
	if (ok && !strcmp(ra, "u") && (!c->aarch64 || ra_undefined(c, loc))) {
		ok = in->cfa == MUXBPF_CFA_END;
	} else if (ok) {
		ok = cfa_matches(in, cfa);
		if (ok && (in->cfa == MUXBPF_CFA_RSP || in->cfa == MUXBPF_CFA_RBP)) {
			if (!strcmp(ra, "u"))
				ok = in->ra == MUXBPF_RA_LR;
			else
				ok = sscanf(ra, "c%ld", &off) == 1 && in->ra == MUXBPF_RA_AT &&
				     in->ra_off == off && (c->aarch64 || off == -8);
			if (!rbp || !strcmp(rbp, "u"))
				ok = ok && in->rbp != MUXBPF_RBP_AT;
			else if (sscanf(rbp, "c%ld", &off) == 1)
				ok = ok && in->rbp == MUXBPF_RBP_AT && in->rbp_off == off;
			else
				ok = ok && in->rbp == MUXBPF_RBP_LOST;
		}
	}
	if (ok)
		return;
	c->mismatches++;
	if (!c->first[0])
		snprintf(c->first, sizeof(c->first),
			 "LOC %#" PRIx64 ": readelf CFA %s rbp %s ra %s; table %s cfa %d%+d rbp %d%+d "
			 "ra %+d", loc, cfa, rbp ? rbp : "-", ra, in ? "row" : "no row",
			 in ? in->cfa : -1, in ? in->cfa_off : 0, in ? in->rbp : -1,
			 in ? in->rbp_off : 0, in ? in->ra_off : 0);
}

/* Split a readelf table line into whitespace-separated columns. */
static int split(char *line, char **col, int max)
{
	int n = 0;

	for (char *tok = strtok(line, " \t\n"); tok && n < max; tok = strtok(NULL, " \t\n"))
		col[n++] = tok;
	return n;
}

struct rrow {
	uint64_t loc;
	char cfa[64], rbp[64], ra[64];
	bool has_rbp, has_ra;
};

/* Compare one FDE's rows; a row at the same LOC as the next one is empty and skipped. */
static void flush_fde(const struct cfi_table *t, struct rrow *rows, int n, uint64_t hi,
		      struct compare *c)
{
	for (int i = 0; i < n; i++) {
		if ((i + 1 < n && rows[i + 1].loc == rows[i].loc) || rows[i].loc >= hi ||
		    !rows[i].has_ra) {
			c->skipped++;
			continue;
		}
		compare_row(t, rows[i].loc, rows[i].cfa, rows[i].has_rbp ? rows[i].rbp : NULL,
			    rows[i].ra, c);
	}
}

static int elf_machine(const char *path)
{
	unsigned char h[20] = { 0 };
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fread(h, 1, sizeof(h), f), sizeof(h));
	fclose(f);
	return h[18] | h[19] << 8; /* e_machine, little-endian */
}

/*
 * The pc ranges where an FDE says DW_CFA_undefined of r30 (x30), from readelf's raw dump: from
 * the location the instructions before it advanced to, to the FDE's end.
 */
static void read_undef_fdes(const char *path, struct undef_fdes *u)
{
	char cmd[PATH_MAX + 64], line[1024];
	uint64_t lo = 0, hi = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *pc = strstr(line, " FDE ") ? strstr(line, "pc=") : NULL;
		const char *to = strstr(line, "DW_CFA_advance_loc") ? strstr(line, " to ") : NULL;

		if (pc && sscanf(pc, "pc=%" SCNx64 "..%" SCNx64, &lo, &hi) != 2)
			lo = hi = 0;
		if (to && sscanf(to, " to %" SCNx64, &lo) != 1)
			lo = hi = 0;
		if (strstr(line, "DW_CFA_undefined: r30") && hi > lo && u->n < 256) {
			u->lo[u->n] = lo;
			u->hi[u->n++] = hi;
			lo = hi = 0;
		}
	}
	pclose(f);
}

static void compare_with_readelf(const char *path, const struct cfi_table *t, struct compare *c)
{
	char cmd[PATH_MAX + 64], line[4096], *hcol[64], hdr[4096];
	static struct rrow rows[4096];
	int nrows = 0, nh = 0;
	uint64_t fde_hi = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	c->aarch64 = elf_machine(path) == EM_AARCH64;
	if (c->aarch64)
		read_undef_fdes(path, &c->undef);
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *col[64];
		uint64_t lo, hi;
		int n;

		if (strstr(line, " FDE ") || strstr(line, " CIE ") || line[0] == '\n') {
			flush_fde(t, rows, nrows, fde_hi, c);
			nrows = 0;
			fde_hi = 0;
			if (strstr(line, " FDE ") && strstr(line, "pc=") &&
			    sscanf(strstr(line, "pc="), "pc=%" SCNx64 "..%" SCNx64, &lo, &hi) == 2)
				fde_hi = hi;
			continue;
		}
		if (!strncmp(line, "   LOC", 6)) {
			snprintf(hdr, sizeof(hdr), "%s", line);
			nh = split(hdr, hcol, 64);
			continue;
		}
		if (!fde_hi || nrows == 4096)
			continue;
		n = split(line, col, 64);
		if (n != nh || n < 3) {
			c->skipped++;
			continue;
		}
		struct rrow *r = &rows[nrows++];

		memset(r, 0, sizeof(*r));
		sscanf(col[0], "%" SCNx64, &r->loc);
		snprintf(r->cfa, sizeof(r->cfa), "%s", col[1]);
		for (int i = 2; i < nh; i++) {
			if (!strcmp(hcol[i], "rbp") || !strcmp(hcol[i], "x29")) {
				snprintf(r->rbp, sizeof(r->rbp), "%s", col[i]);
				r->has_rbp = true;
			}
			if (!strcmp(hcol[i], "ra")) {
				snprintf(r->ra, sizeof(r->ra), "%s", col[i]);
				r->has_ra = true;
			}
		}
	}
	flush_fde(t, rows, nrows, fde_hi, c);
	pclose(f);
}

static void check_file(const char *path, double max_mismatch_pct)
{
	struct cfi_table t;
	struct compare c;

	assert_int_equal(cfi_table__build_file(path, &t), 0);
	compare_with_readelf(path, &t, &c);
	print_message("%s: %zu rows (%zu FDEs, %zu skipped, %zu unsupported); readelf rows "
		      "compared %zu, mismatches %zu, not comparable %zu\n",
		      path, t.n, t.fdes, t.bad_fdes, t.unsupported, c.rows, c.mismatches, c.skipped);
	assert_true(c.rows > 5);
	if (c.mismatches * 100.0 > max_mismatch_pct * c.rows)
		fail_msg("%s: %zu of %zu rows differ from readelf; first: %s", path, c.mismatches,
			 c.rows, c.first);
	cfi_table__free(&t);
}

static void test_rows_match_readelf_targets(void **state)
{
	char p[PATH_MAX];

	(void)state;
	build_path(p, sizeof(p), "targets/synth_nofp");
	check_file(p, 0);
	build_path(p, sizeof(p), "targets/synth_nofp_clang");
	check_file(p, 0);
	build_path(p, sizeof(p), "fixtures/libfx.so");
	check_file(p, 0);
#if defined(__aarch64__)
	/* return addresses signed in the prologue (DW_CFA_AARCH64_negate_ra_state in the CFI) */
	build_path(p, sizeof(p), "targets/synth_pac");
	check_file(p, 0);
#endif
	/* netmux without frame pointers (make netmux-nofp), a C++ program, when it is built. */
	build_path(p, sizeof(p), "../tinymux/nofp/mux2.12/src/netmux");
	if (access(p, R_OK) == 0)
		check_file(p, 0);
}

static void test_rows_match_readelf_libc(void **state)
{
	(void)state;
	check_file(LIBC, 0);
}

/* The address of a symbol, from nm. */
static uint64_t sym_addr(const char *path, const char *name)
{
	char cmd[PATH_MAX + 128], line[512], type, sym[256];
	uint64_t addr, found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			found = addr;
	pclose(f);
	return found;
}

static void test_special_rows(void **state)
{
	const struct cfi_row *r;
	struct cfi_table t;
	char p[PATH_MAX];
	uint64_t a;
	bool plt = false, sig = false;

	(void)state;
	build_path(p, sizeof(p), "targets/synth_nofp");
	assert_int_equal(cfi_table__build_file(p, &t), 0);
	/* _start: the return address is undefined, the walk's clean end. */
	a = sym_addr(p, "_start");
	assert_true(a != 0);
	r = cfi_table__find(&t, a + 4);
	assert_non_null(r);
	assert_int_equal(r->info.cfa, MUXBPF_CFA_END);
	/*
	 * A leaf that never touches the stack: CFA = rsp + 8 all along, the return address below it
	 * (x86-64); CFA = sp, the return address still in x30 (AArch64).
	 */
	a = sym_addr(p, "hot_a");
	assert_true(a != 0);
	for (uint64_t pc = a; pc < a + 16; pc++) {
		r = cfi_table__find(&t, pc);
		assert_non_null(r);
		assert_int_equal(r->info.cfa, MUXBPF_CFA_RSP);
#if defined(__aarch64__)
		assert_int_equal(r->info.cfa_off, 0);
		assert_int_equal(r->info.ra, MUXBPF_RA_LR);
#else
		assert_int_equal(r->info.cfa_off, 8);
		assert_int_equal(r->info.ra, MUXBPF_RA_AT);
		assert_int_equal(r->info.ra_off, -8);
#endif
	}
	cfi_table__free(&t);
#if defined(__aarch64__)
	/* No PLT expression and no signal rule on AArch64 (its vDSO's sigreturn has its own CFI). */
	(void)plt;
	(void)sig;
#else

	assert_int_equal(cfi_table__build_file(LIBC, &t), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct muxbpf_unwind_info *in = &t.rows[i].info;

		if (in->cfa == MUXBPF_CFA_PLT && in->cfa_off == 8 && in->plt_thresh == 11)
			plt = true;
		/* __restore_rt: rsp, rip, rbp from the ucontext at sp (x86-64 sigcontext). */
		if (in->cfa == MUXBPF_CFA_SIGNAL && in->cfa_off == 160 && in->ra_off == 168 &&
		    in->rbp_off == 120)
			sig = true;
	}
	assert_true(plt);
	assert_true(sig);
	cfi_table__free(&t);
#endif
}

/* A row the BPF walker may follow must keep it inside its sanity bounds. */
static void check_invariants(const struct cfi_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct muxbpf_unwind_info *in = &t->rows[i].info;

		if (i)
			assert_true(t->rows[i].pc > t->rows[i - 1].pc);
		assert_true(t->rows[i].pc >= t->lo && t->rows[i].pc <= t->hi);
		switch (in->cfa) {
		case MUXBPF_CFA_RSP:
		case MUXBPF_CFA_RBP:
		case MUXBPF_CFA_PLT:
			assert_true(in->ra == MUXBPF_RA_AT || in->ra == MUXBPF_RA_LR);
			assert_true(in->cfa_off >= (in->cfa == MUXBPF_CFA_RBP || in->ra ? 0 : 8));
			assert_true(in->cfa_off < (1 << 24));
			if (in->ra == MUXBPF_RA_AT)
				assert_true(in->ra_off < 0 && in->ra_off >= -4096 &&
					    !(in->ra_off & 7));
			else
				assert_true(in->ra_off == 0 && in->cfa != MUXBPF_CFA_PLT);
			if (in->rbp == MUXBPF_RBP_AT)
				assert_true(in->rbp_off < 0 && !(in->rbp_off & 7));
			else
				assert_true(in->rbp == MUXBPF_RBP_SAME || in->rbp == MUXBPF_RBP_LOST);
			break;
		case MUXBPF_CFA_SIGNAL:
			assert_true(in->cfa_off >= 0 && in->cfa_off < 4096);
			assert_true(in->ra_off >= 0 && in->ra_off < 4096);
			assert_true(in->rbp_off >= 0 && in->rbp_off < 4096);
			break;
		case MUXBPF_CFA_NONE:
		case MUXBPF_CFA_END:
		case MUXBPF_CFA_UNSUPPORTED:
			break;
		default:
			fail_msg("row %zu: unknown CFA kind %d", i, in->cfa);
		}
	}
}

/* Section [offset, size) of a file image, by name. */
static int find_section(const void *img, size_t size, const char *name, size_t *off, size_t *len)
{
	Elf *elf = elf_memory((char *)img, size);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int found = -1;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name)) {
			*off = sh.sh_offset;
			*len = sh.sh_size;
			found = 0;
		}
	elf_end(elf);
	return found;
}

static void test_fuzz_eh_frame(void **state)
{
	char p[PATH_MAX];
	unsigned char *img, *mut;
	size_t size, off = 0, len = 0, built = 0;
	unsigned int seed = 12345;
	FILE *f;

	(void)state;
	elf_version(EV_CURRENT);
	build_path(p, sizeof(p), "targets/synth_nofp");
	f = fopen(p, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	img = malloc(size);
	mut = malloc(size);
	assert_non_null(img);
	assert_non_null(mut);
	assert_int_equal(fread(img, 1, size, f), size);
	fclose(f);
	assert_int_equal(find_section(img, size, ".eh_frame", &off, &len), 0);
	assert_true(len > 64);
	for (int iter = 0; iter < 3000; iter++) {
		struct cfi_table t;
		int flips = 1 + rand_r(&seed) % 8;

		memcpy(mut, img, size);
		for (int k = 0; k < flips; k++) {
			size_t at = off + rand_r(&seed) % len;

			switch (rand_r(&seed) % 3) {
			case 0:
				mut[at] ^= 1u << (rand_r(&seed) % 8);
				break;
			case 1:
				mut[at] = rand_r(&seed);
				break;
			default: /* lengths and pointers are 4 bytes: hit them whole */
				for (int b = 0; b < 4 && at + b < off + len; b++)
					mut[at + b] = rand_r(&seed);
			}
		}
		if (cfi_table__build_mem(mut, size, &t) == 0) {
			check_invariants(&t);
			built++;
			cfi_table__free(&t);
		}
	}
	print_message("fuzz: 3000 mutated .eh_frame sections, %zu compiled, all rows within bounds\n",
		      built);
	free(img);
	free(mut);
}

/*
 * The system libraries compile, each of them, with rows (a library that fails is named): how long
 * it takes is bench/cfi_build's to measure, not a test's.
 */
static void test_build_system_libs(void **state)
{
	static const char *const libs[] = {
		"libc.so.6", "libstdc++.so.6", "libm.so.6", "libgcc_s.so.1",
#if defined(__aarch64__)
		"ld-linux-aarch64.so.1",
#else
		"ld-linux-x86-64.so.2",
#endif
		"libcrypt.so.1",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		const char *path = lib_path(libs[i]);
		struct cfi_table t;
		int err = cfi_table__build_file(path, &t);

		if (err)
			fail_msg("%s (%s) does not compile: %s", libs[i], path, strerror(-err));
		print_message("%s: %zu rows\n", libs[i], t.n);
		if (t.n < 100)
			fail_msg("%s (%s): only %zu rows", libs[i], path, t.n);
		cfi_table__free(&t);
	}
}

/*
 * A vDSO image without CFI (Debian's 6.1 arm64 kernel's): one R+X PT_LOAD, no sections.  On
 * AArch64 every address of its text gets the leaf rule (return address in x30, CFA = sp); an
 * x86-64 one stays without rows, and a file on disk never gets the rule.
 */
static size_t bare_image(unsigned char *buf, size_t size, uint16_t machine)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));

	memset(buf, 0, size);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = machine;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_offset = 0;
	ph->p_vaddr = 0;
	ph->p_filesz = ph->p_memsz = size;
	ph->p_align = 4096;
	return size;
}

static void test_vdso_without_cfi(void **state)
{
	static unsigned char img[4096];
	struct cfi_table t;
	const struct cfi_row *r;

	(void)state;
	assert_int_equal(cfi_table__build_mem(img, bare_image(img, sizeof(img), EM_AARCH64), &t), 0);
	assert_int_equal(t.sources, 0);
	for (uint64_t pc = 0x100; pc < sizeof(img); pc += 0x3fc) {
		r = cfi_table__find(&t, pc);
		assert_non_null(r);
		assert_int_equal(r->info.cfa, MUXBPF_CFA_RSP);
		assert_int_equal(r->info.cfa_off, 0);
		assert_int_equal(r->info.ra, MUXBPF_RA_LR);
		assert_int_equal(r->info.rbp, MUXBPF_RBP_SAME);
	}
	assert_null(cfi_table__find(&t, sizeof(img)));
	cfi_table__free(&t);

	assert_int_equal(cfi_table__build_mem(img, bare_image(img, sizeof(img), EM_X86_64), &t), 0);
	assert_null(cfi_table__find(&t, 0x100));
	cfi_table__free(&t);

	char path[] = "/tmp/test_cfi_vdso.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	bare_image(img, sizeof(img), EM_AARCH64);
	assert_int_equal(write(fd, img, sizeof(img)), (ssize_t)sizeof(img));
	close(fd);
	assert_int_equal(cfi_table__build_file(path, &t), 0);
	unlink(path);
	assert_null(cfi_table__find(&t, 0x100));
	cfi_table__free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_match_readelf_targets),
		cmocka_unit_test(test_rows_match_readelf_libc),
		cmocka_unit_test(test_special_rows),
		cmocka_unit_test(test_fuzz_eh_frame),
		cmocka_unit_test(test_build_system_libs),
		cmocka_unit_test(test_vdso_without_cfi),
	};

	return cmocka_run_group_tests_name("cfi", tests, NULL, NULL);
}
