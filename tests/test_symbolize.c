// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbolizer against real processes: each fixture (tests/fixtures/, built next to this
 * binary in fixtures/) prints the addresses of its functions and waits; we read its
 * /proc/PID/maps and check what symbolizer__lookup names them.  No root needed.
 *
 * Also: separate debuginfo by build-id and by .gnu_debuglink (CRC checked), MiniDebugInfo,
 * inlined frames and lines against addr2line, images shared by build-id, and a dlopen'd module
 * named from a pinned file after the process unloaded it and the file is gone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include "testutil.h"
#include "proc/maps.h"
#include "symbols/elfread.h"
#include "symbols/resolve.h"
#include "symbols/symbolize.h"

#define FX_MAX_ADDRS 32

struct fx_proc {
	pid_t pid;
	int in_fd; /* the child's stdin: closing it lets the child exit */
	FILE *out; /* the child's stdout */
	int n;
	struct {
		char key[64];
		uint64_t addr;
	} v[FX_MAX_ADDRS];
	struct mb_maps maps;
};

static char fx_dir[PATH_MAX];

/* The fixtures live in fixtures/ next to this test binary. */
static int find_fixtures(void **state)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(fx_dir, sizeof(fx_dir), "%s/fixtures", dirname(exe));
	return 0;
}

static void fx_path(char *buf, size_t size, const char *name)
{
	if ((size_t)snprintf(buf, size, "%s/%s", fx_dir, name) >= size)
		fail_msg("fixture path too long: %s/%s", fx_dir, name);
}

static void fx_exec_child(const char *path, const char *arg, int in, int out)
{
	dup2(in, 0);
	dup2(out, 1);
	execl(path, path, arg, (char *)NULL);
	_exit(127);
}

/* Read "KEY 0xADDR" lines up to "ready". */
static void fx_read_addrs(struct fx_proc *p, FILE *f)
{
	char line[256];

	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char key[64];

		if (strcmp(line, "ready\n") == 0)
			return;
		if (sscanf(line, "%63s %llx", key, &addr) != 2 || p->n == FX_MAX_ADDRS)
			fail_msg("bad fixture line: %s", line);
		snprintf(p->v[p->n].key, sizeof(p->v[p->n].key), "%s", key);
		p->v[p->n++].addr = addr;
	}
	fail_msg("fixture exited before saying ready");
}

/* Start a fixture (with one argument, or NULL) and snapshot its maps while it waits. */
static void fx_start_arg(const char *name, const char *arg, struct fx_proc *p)
{
	int in[2], out[2];
	char path[PATH_MAX];
	FILE *f;

	memset(p, 0, sizeof(*p));
	fx_path(path, sizeof(path), name);
	if (access(path, X_OK))
		fail_msg("fixture %s missing (make tests-build): %s", path, strerror(errno));
	/* close-on-exec: a second fixture must not hold the first one's stdin open */
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		close(in[1]);
		close(out[0]);
		fx_exec_child(path, arg, in[0], out[1]);
	}
	close(in[0]);
	close(out[1]);
	p->in_fd = in[1];
	f = fdopen(out[0], "r");
	assert_non_null(f);
	fx_read_addrs(p, f);
	p->out = f;
	assert_int_equal(maps__read(p->pid, &p->maps), 0);
}

static void fx_start(const char *name, struct fx_proc *p)
{
	fx_start_arg(name, NULL, p);
}

static void fx_stop(struct fx_proc *p)
{
	int status;

	close(p->in_fd);
	fclose(p->out);
	if (waitpid(p->pid, &status, 0) != p->pid || !WIFEXITED(status))
		kill(p->pid, SIGKILL);
	maps__free(&p->maps);
}

static uint64_t fx_addr(const struct fx_proc *p, const char *key)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->v[i].key, key) == 0)
			return p->v[i].addr;
	fail_msg("fixture did not report %s", key);
	return 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* addr must be named want, want_off bytes into it, in a dso whose path ends with dso. */
static void check_named(struct symbolizer *s, const struct mb_maps *maps, uint64_t addr,
			const char *want, uint64_t want_off, const char *dso)
{
	const struct mb_mapping *m = maps__find(maps, addr);
	struct mb_sym sym;

	assert_int_equal(symbolizer__lookup(s, maps, addr, &sym), 0);
	if (sym.why != MB_NAMED || strcmp(sym.name, want) || sym.sym_off != want_off)
		fail_msg("0x%" PRIx64 ": got %s+0x%" PRIx64 " (%s) in %s, want %s+0x%" PRIx64, addr,
			 sym.name ? sym.name : "(null)", sym.sym_off, mb_unnamed_str(sym.why),
			 sym.dso ? sym.dso : "(null)", want, want_off);
	if (!has_suffix(sym.dso, dso))
		fail_msg("0x%" PRIx64 " (%s): dso %s, want .../%s", addr, want, sym.dso, dso);
	assert_non_null(m);
	assert_int_equal(sym.offset, addr - m->start + m->offset);
}

static void check_unnamed(struct symbolizer *s, const struct mb_maps *maps, uint64_t addr,
			  enum mb_unnamed want)
{
	struct mb_sym sym;

	assert_int_equal(symbolizer__lookup(s, maps, addr, &sym), 0);
	if (sym.why != want)
		fail_msg("0x%" PRIx64 ": got %s (%s) in %s, want %s", addr,
			 sym.name ? sym.name : "(null)", mb_unnamed_str(sym.why),
			 sym.dso ? sym.dso : "(null)", mb_unnamed_str(want));
	assert_null(sym.name);
}

/* At the function start, a few bytes in, and at a return address inside it; fx_hidden (a
 * local function) is named, or unnamed for hidden_why. */
static void check_fx_functions(struct symbolizer *s, const struct fx_proc *p, const char *exe,
			       enum mb_unnamed hidden_why)
{
	uint64_t alpha = fx_addr(p, "fx_alpha"), ra = fx_addr(p, "fx_alpha.ra");

	check_named(s, &p->maps, alpha, "fx_alpha", 0, exe);
	check_named(s, &p->maps, alpha + 4, "fx_alpha", 4, exe);
	check_named(s, &p->maps, ra, "fx_alpha", ra - alpha, exe);
	check_named(s, &p->maps, fx_addr(p, "fx_beta") + 5, "fx_beta", 5, exe);
	check_named(s, &p->maps, fx_addr(p, "main"), "main", 0, exe);
	if (hidden_why == MB_NAMED)
		check_named(s, &p->maps, fx_addr(p, "fx_hidden") + 2, "fx_hidden", 2, exe);
	else
		check_unnamed(s, &p->maps, fx_addr(p, "fx_hidden") + 2, hidden_why);
}

/* The shared library's functions, and libc's from .dynsym (Debian's libc is stripped). */
static void check_libs(struct symbolizer *s, const struct fx_proc *p)
{
	check_named(s, &p->maps, fx_addr(p, "fxlib_one"), "fxlib_one", 0, "/libfx.so");
	check_named(s, &p->maps, fx_addr(p, "fxlib_two") + 8, "fxlib_two", 8, "/libfx.so");
	check_named(s, &p->maps, fx_addr(p, "getpid") + 1, "getpid", 1, "/libc.so.6");
	check_named(s, &p->maps, fx_addr(p, "write"), "write", 0, "/libc.so.6");
}

static void test_pie(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct mb_sym a, b;
	struct fx_proc p;

	(void)state;
	assert_non_null(s);
	fx_start("fx_pie", &p);
	check_fx_functions(s, &p, "/fx_pie", MB_NAMED);
	check_libs(s, &p);
	/* cached: the same string, not a new copy per lookup */
	assert_int_equal(symbolizer__lookup(s, &p.maps, fx_addr(&p, "fx_beta"), &a), 0);
	assert_int_equal(symbolizer__lookup(s, &p.maps, fx_addr(&p, "fx_beta") + 1, &b), 0);
	assert_ptr_equal(a.name, b.name);
	assert_ptr_equal(a.dso, b.dso);
	fx_stop(&p);
	symbolizer__free(s);
}

static void test_nopie(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct fx_proc p;

	(void)state;
	assert_non_null(s);
	fx_start("fx_nopie", &p);
	check_fx_functions(s, &p, "/fx_nopie", MB_NAMED);
	check_libs(s, &p);
	fx_stop(&p);
	symbolizer__free(s);
}

/* Only .dynsym: the exported functions are named, the static one is not. */
static void test_stripped(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct fx_proc p;

	(void)state;
	assert_non_null(s);
	assert_int_equal(symbolizer__set_debug_dir(s, NULL), 0);
	fx_start("fx_pie_stripped", &p);
	check_fx_functions(s, &p, "/fx_pie_stripped", MB_UNNAMED_STRIPPED);
	check_libs(s, &p);
	fx_stop(&p);
	symbolizer__free(s);
}

/* Stripped, but its .symtab is in a debug file found by build-id: everything is named. */
static void test_debug_file(void **state)
{
	struct symbolizer *s = symbolizer__new();
	char dir[PATH_MAX];
	struct fx_proc p;

	(void)state;
	assert_non_null(s);
	fx_path(dir, sizeof(dir), "debug");
	assert_int_equal(symbolizer__set_debug_dir(s, dir), 0);
	fx_start("fx_pie_stripped", &p);
	check_fx_functions(s, &p, "/fx_pie_stripped", MB_NAMED);
	fx_stop(&p);
	symbolizer__free(s);
}

/* elfread's lookup by build-id (what the softcode views' DWARF search uses): the fixture debug
 * directory's file, whose build-id is the stripped binary's; none in a directory without it. */
static void test_debug_by_build_id(void **state)
{
	char bin[PATH_MAX], dir[PATH_MAX], empty[] = "/nonexistent", found[PATH_MAX];
	char hex[2 * MB_BUILD_ID_MAX + 1], dhex[2 * MB_BUILD_ID_MAX + 1];
	const char *dirs[] = { dir }, *none[] = { empty };
	Elf *elf, *delf;
	int fd, dfd;

	(void)state;
	elf_version(EV_CURRENT);
	fx_path(bin, sizeof(bin), "fx_pie_stripped");
	fx_path(dir, sizeof(dir), "debug");
	elf = mb_elf_open(bin, &fd);
	assert_non_null(elf);
	mb_elf_build_id_hex(elf, hex, sizeof(hex));
	assert_true(strlen(hex) >= 4);
	assert_true(mb_elf_debug_by_build_id(elf, dirs, 1, found, sizeof(found)));
	assert_non_null(strstr(found, "/.build-id/"));
	assert_int_equal(strncmp(found, dir, strlen(dir)), 0);
	delf = mb_elf_open(found, &dfd);
	assert_non_null(delf);
	mb_elf_build_id_hex(delf, dhex, sizeof(dhex));
	assert_string_equal(dhex, hex);
	mb_elf_close(delf, dfd);
	/* not under /nonexistent; /usr/lib/debug has no fixture's debuginfo */
	assert_false(mb_elf_debug_by_build_id(elf, none, 1, found, sizeof(found)));
	mb_elf_close(elf, fd);
}

static void test_cxx_demangled(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct fx_proc p;

	(void)state;
	assert_non_null(s);
	fx_start("fx_cxx", &p);
	check_named(s, &p.maps, fx_addr(&p, "compute") + 3, "fxns::inner::compute(int)", 3,
		    "/fx_cxx");
	check_named(s, &p.maps, fx_addr(&p, "twice"), "int fxns::twice<int>(int)", 0, "/fx_cxx");
	check_named(s, &p.maps, fx_addr(&p, "make") + 4, "fxns::Widget::make(long)", 4, "/fx_cxx");
	fx_stop(&p);
	symbolizer__free(s);
}

static uint64_t vdso_size(const struct mb_maps *maps)
{
	for (size_t i = 0; i < maps->n; i++)
		if (strcmp(maps->v[i].path, "[vdso]") == 0)
			return maps->v[i].end - maps->v[i].start;
	return 0;
}

/* [vdso] has no file: it is indexed from our own copy of the image. */
static void test_vdso(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct mb_maps self;
	struct mb_sym sym;
	struct fx_proc p;
	uint64_t addr = 0, our_size;

	(void)state;
	assert_non_null(s);
	assert_int_equal(maps__read(0, &self), 0);
	our_size = vdso_size(&self);
	maps__free(&self);
	fx_start("fx_pie", &p);
	for (int i = 0; i < p.n; i++)
		if (strcmp(p.v[i].key, "vdso_clock_gettime") == 0)
			addr = p.v[i].addr;
	if (!addr || !our_size || our_size != vdso_size(&p.maps)) {
		fx_stop(&p);
		symbolizer__free(s);
		/* e.g. under valgrind, which hides the vdso from its client */
		skip_because("no vdso clock_gettime in the fixture, or not our vdso");
	}
	assert_int_equal(symbolizer__lookup(s, &p.maps, addr + 2, &sym), 0);
	assert_string_equal(sym.dso, "[vdso]");
	assert_int_equal(sym.why, MB_NAMED);
	if (strcmp(sym.name, "clock_gettime") && strcmp(sym.name, "__vdso_clock_gettime"))
		fail_msg("vdso: got %s, want clock_gettime", sym.name);
	assert_int_equal(sym.sym_off, 2);
	fx_stop(&p);
	symbolizer__free(s);
}

/* A mapping of a deleted file: the path without " (deleted)" is used only if it is the same
 * inode, since anything now at that path is another file. */
static void test_deleted(void **state)
{
	struct symbolizer *s;
	struct fx_proc p;
	uint64_t alpha;

	(void)state;
	fx_start("fx_pie", &p);
	alpha = fx_addr(&p, "fx_alpha");
	for (size_t i = 0; i < p.maps.n; i++) {
		struct mb_mapping *m = &p.maps.v[i];
		char *path;

		if (!has_suffix(m->path, "/fx_pie"))
			continue;
		assert_true(asprintf(&path, "%s (deleted)", m->path) > 0);
		free(m->path);
		m->path = path;
	}
	s = symbolizer__new();
	check_named(s, &p.maps, alpha, "fx_alpha", 0, "/fx_pie (deleted)");
	symbolizer__free(s);
	for (size_t i = 0; i < p.maps.n; i++)
		if (has_suffix(p.maps.v[i].path, "/fx_pie (deleted)"))
			p.maps.v[i].inode++;
	s = symbolizer__new();
	check_unnamed(s, &p.maps, alpha, MB_UNNAMED_NO_FILE);
	symbolizer__free(s);
	fx_stop(&p);
}

/* Anonymous and special mappings, unopenable and non-ELF files, addresses in no mapping. */
static void test_unnamed(void **state)
{
	char tmp[] = "/tmp/muxbpf-test-XXXXXX", *text;
	struct symbolizer *s = symbolizer__new();
	struct mb_maps maps;
	struct mb_sym sym;
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(s);
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_true(asprintf(&text,
			     "1000-2000 r-xp 00000000 00:00 0 \n"
			     "2000-3000 rw-p 00000000 00:00 0                          [heap]\n"
			     "3000-4000 r-xp 00000000 fd:01 42 /nonexistent/muxbpf/lib.so\n"
			     "4000-5000 r-xp 00000000 %x:%x %lu %s\n"
			     "5000-5100 r-xp 00000000 00:00 0 [vdso]\n"
			     "6000-7000 r-xp 00000000 00:01 77 /memfd:jit (deleted)\n"
			     "7000-8000 rw-s 00000000 00:05 4 /dev/zero (deleted)\n",
			     major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino,
			     tmp) > 0);
	assert_int_equal(maps__parse(text, strlen(text), &maps), 0);
	check_unnamed(s, &maps, 0x1010, MB_UNNAMED_ANON);
	assert_int_equal(symbolizer__lookup(s, &maps, 0x1010, &sym), 0);
	assert_string_equal(sym.dso, "[anon]");
	assert_int_equal(sym.offset, 0x1010);
	check_unnamed(s, &maps, 0x2010, MB_UNNAMED_ANON);
	check_unnamed(s, &maps, 0x3010, MB_UNNAMED_NO_FILE);
	check_unnamed(s, &maps, 0x4010, MB_UNNAMED_NO_FILE);
	/* a [vdso] of another size than ours is not our image */
	check_unnamed(s, &maps, 0x5010, MB_UNNAMED_ANON);
	check_unnamed(s, &maps, 0x6010, MB_UNNAMED_ANON);
	check_unnamed(s, &maps, 0x7010, MB_UNNAMED_NO_FILE); /* a device: never opened */
	check_unnamed(s, &maps, 0x500, MB_UNNAMED_NO_MAPPING);
	check_unnamed(s, &maps, 0x8000, MB_UNNAMED_NO_MAPPING);
	assert_int_equal(symbolizer__lookup(s, &maps, 0x8000, &sym), 0);
	assert_null(sym.dso);
	assert_int_equal(sym.offset, 0x8000);
	maps__free(&maps);
	free(text);
	unlink(tmp);
	symbolizer__free(s);
}

static bool ends_with(const char *s, const char *suffix)
{
	return s && has_suffix(s, suffix);
}

/* Stripped with no debuginfo at all: .dynsym names, no lines, and the DSO says why. */
static void test_stripped_info(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct fx_proc p;
	struct mb_sym sym;

	(void)state;
	assert_int_equal(symbolizer__set_debug_dir(s, NULL), 0);
	fx_start("fx_pie_stripped", &p);
	assert_int_equal(symbolizer__lookup(s, &p.maps, fx_addr(&p, "fx_hidden") + 2, &sym), 0);
	assert_int_equal(sym.why, MB_UNNAMED_STRIPPED);
	assert_non_null(sym.info);
	assert_string_equal(sym.info->symbols, ".dynsym");
	assert_false(sym.info->full_symtab);
	assert_false(sym.info->dwarf);
	assert_null(sym.info->debug_file);
	assert_null(sym.info->debuglink); /* strip --strip-all adds none */
	assert_int_equal(strlen(sym.build_id), 40);
	/* no symbol, but the .eh_frame range gives the function's start: sym_off is from it */
	assert_int_equal(sym.sym_off, 2);
	assert_null(sym.file);
	fx_stop(&p);
	symbolizer__free(s);
}

/* The build-id debug file gives names and file:line. */
static void test_debug_file_lines(void **state)
{
	struct symbolizer *s = symbolizer__new();
	char dir[PATH_MAX];
	struct fx_proc p;
	struct mb_sym sym;

	(void)state;
	fx_path(dir, sizeof(dir), "debug");
	assert_int_equal(symbolizer__set_debug_dir(s, dir), 0);
	fx_start("fx_pie_stripped", &p);
	assert_int_equal(symbolizer__lookup(s, &p.maps, fx_addr(&p, "fx_hidden") + 2, &sym), 0);
	assert_string_equal(sym.name, "fx_hidden");
	assert_string_equal(sym.info->symbols, "debuginfo");
	assert_true(sym.info->dwarf);
	if (!ends_with(sym.info->debug_file, ".debug") ||
	    !strstr(sym.info->debug_file, "/.build-id/"))
		fail_msg("debug file %s, want .../.build-id/xx/yyyy.debug", sym.info->debug_file);
	if (!ends_with(sym.file, "/fx_prog.c") || !sym.line)
		fail_msg("fx_hidden+2 at %s:%u, want fx_prog.c:N", sym.file, sym.line);
	fx_stop(&p);
	symbolizer__free(s);
}

/* .gnu_debuglink: the debug file next to the binary, in .debug/, checked by CRC (the fixture
 * has no build-id); another file under that name is refused. */
static void test_debuglink(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct fx_proc p;
	struct mb_sym sym;

	(void)state;
	assert_int_equal(symbolizer__set_debug_dirs(s, NULL, 0), 0);
	fx_start("fx_linked", &p);
	check_fx_functions(s, &p, "/fx_linked", MB_NAMED);
	assert_int_equal(symbolizer__lookup(s, &p.maps, fx_addr(&p, "fx_beta") + 5, &sym), 0);
	assert_string_equal(sym.build_id, "");
	assert_string_equal(sym.info->debuglink, "fx_linked.debug");
	if (!ends_with(sym.info->debug_file, "/.debug/fx_linked.debug"))
		fail_msg("debug file %s, want .../.debug/fx_linked.debug", sym.info->debug_file);
	if (!ends_with(sym.file, "/fx_prog.c") || !sym.line)
		fail_msg("fx_beta+5 at %s:%u, want fx_prog.c:N", sym.file, sym.line);
	fx_stop(&p);
	symbolizer__free(s);

	s = symbolizer__new();
	assert_int_equal(symbolizer__set_debug_dirs(s, NULL, 0), 0);
	fx_start("fx_badlink", &p);
	check_fx_functions(s, &p, "/fx_badlink", MB_UNNAMED_STRIPPED);
	assert_int_equal(symbolizer__lookup(s, &p.maps, fx_addr(&p, "fx_beta"), &sym), 0);
	assert_null(sym.info->debug_file);
	fx_stop(&p);
	symbolizer__free(s);
}

/* MiniDebugInfo: .gnu_debugdata's symbols (the local fx_hidden) merged with .dynsym's. */
static void test_minidebuginfo(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct fx_proc p;
	struct mb_sym sym;

	(void)state;
	assert_int_equal(symbolizer__set_debug_dir(s, NULL), 0);
	fx_start("fx_mini", &p);
	check_fx_functions(s, &p, "/fx_mini", MB_NAMED);
	assert_int_equal(symbolizer__lookup(s, &p.maps, fx_addr(&p, "fx_hidden"), &sym), 0);
	assert_string_equal(sym.info->symbols, ".gnu_debugdata");
	assert_true(sym.info->full_symtab);
	assert_false(sym.info->dwarf);
	fx_stop(&p);
	symbolizer__free(s);
}

/* One image per build-id: the stripped copy of fx_pie is named from fx_pie's own .symtab once
 * the symbolizer has indexed fx_pie (same build-id, same code). */
static void test_shared_by_build_id(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct fx_proc a, b;
	struct mb_sym x, y;

	(void)state;
	assert_int_equal(symbolizer__set_debug_dir(s, NULL), 0);
	fx_start("fx_pie", &a);
	fx_start("fx_pie_stripped", &b);
	assert_int_equal(symbolizer__lookup(s, &a.maps, fx_addr(&a, "fx_hidden"), &x), 0);
	check_fx_functions(s, &b, "/fx_pie_stripped", MB_NAMED);
	assert_int_equal(symbolizer__lookup(s, &b.maps, fx_addr(&b, "fx_hidden"), &y), 0);
	assert_ptr_equal(x.info, y.info);
	assert_string_equal(x.build_id, y.build_id);
	assert_true(has_suffix(y.dso, "/fx_pie_stripped"));
	fx_stop(&a);
	fx_stop(&b);
	symbolizer__free(s);
}

/* The ELF virtual address of a file offset, from the program headers. */
static uint64_t file_vaddr(const char *path, uint64_t off)
{
	int fd = open(path, O_RDONLY);
	uint64_t vaddr = UINT64_MAX;
	size_t n = 0;
	Elf *elf;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && off >= ph.p_offset &&
		    off - ph.p_offset < ph.p_filesz)
			vaddr = off - ph.p_offset + ph.p_vaddr;
	}
	elf_end(elf);
	close(fd);
	assert_true(vaddr != UINT64_MAX);
	return vaddr;
}

/* addr2line -f -i -C: function and file:line pairs, innermost first.  Returns the count. */
static int addr2line(const char *exe, uint64_t vaddr, char fn[][256], char loc[][512], int max)
{
	char cmd[PATH_MAX + 64];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "addr2line -f -i -C -e '%s' 0x%" PRIx64, exe, vaddr);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (n < max && fgets(fn[n], 256, f) && fgets(loc[n], 512, f)) {
		fn[n][strcspn(fn[n], "\n")] = 0;
		loc[n][strcspn(loc[n], " \n")] = 0; /* drop " (discriminator N)" */
		n++;
	}
	pclose(f);
	return n;
}

/*
 * Inlined frames: the return address fx_where() saw lies in fxi::leaf, inlined into fxi::mid,
 * inlined into outer().  Each is a frame of its own, at the lines the fixture reports, and the
 * chain is what addr2line -f -i -C prints.
 */
static void test_inline(void **state)
{
	struct symbolizer *s = symbolizer__new();
	static const char *const want_fn[] = { "fxi::leaf(int)", "fxi::mid(int)", "outer(int)" };
	static const char *const want_file[] = { "/fx_inline.h", "/fx_inline.h", "/fx_inline.cc" };
	char exe[PATH_MAX], fn[8][256], loc[8][512];
	struct mb_sym fr[8], one;
	uint32_t want_line[3];
	struct fx_proc p;
	uint64_t ip;
	int n, k;

	(void)state;
	fx_start("fx_inline", &p);
	want_line[0] = (uint32_t)fx_addr(&p, "line.where");
	want_line[1] = (uint32_t)fx_addr(&p, "line.leaf_call");
	want_line[2] = (uint32_t)fx_addr(&p, "line.mid_call");
	ip = fx_addr(&p, "outer.ra") - 1; /* the call instruction, as resolve looks it up */
	n = symbolizer__lookup_inline(s, &p.maps, ip, fr, 8);
	assert_int_equal(n, 3);
	for (int i = 0; i < 3; i++) {
		if (!fr[i].name || strcmp(fr[i].name, want_fn[i]) || !ends_with(fr[i].file, want_file[i]) ||
		    fr[i].line != want_line[i] || fr[i].inline_depth != 2 - i)
			fail_msg("frame %d: %s at %s:%u depth %u, want %s at ...%s:%u depth %d", i,
				 fr[i].name, fr[i].file, fr[i].line, fr[i].inline_depth, want_fn[i],
				 want_file[i], want_line[i], 2 - i);
		assert_int_equal(fr[i].offset, fr[0].offset);
		assert_ptr_equal(fr[i].build_id, fr[0].build_id);
		assert_int_equal(fr[i].why, MB_NAMED);
		/* relative to the compilation directory (the repository) */
		assert_true(fr[i].file_rel[0] != '/' && ends_with(fr[i].file, fr[i].file_rel));
	}
	assert_true(fr[2].sym_off > 0 && fr[2].sym_off == ip - fx_addr(&p, "outer"));
	/* without expansion: the physical function at the address's own line */
	assert_int_equal(symbolizer__lookup(s, &p.maps, ip, &one), 0);
	assert_string_equal(one.name, "outer(int)");
	assert_int_equal(one.line, want_line[0]);
	assert_int_equal(one.inline_depth, 0);
	/* a short buffer keeps the innermost frames and the physical one */
	assert_int_equal(symbolizer__lookup_inline(s, &p.maps, ip, fr, 2), 2);
	assert_string_equal(fr[0].name, "fxi::leaf(int)");
	assert_string_equal(fr[1].name, "outer(int)");
	/* the same chain as addr2line's */
	fx_path(exe, sizeof(exe), "fx_inline");
	k = addr2line(exe, file_vaddr(exe, fr[0].offset), fn, loc, 8);
	assert_int_equal(k, 3);
	n = symbolizer__lookup_inline(s, &p.maps, ip, fr, 8);
	for (int i = 0; i < k; i++) {
		char mine[600];

		snprintf(mine, sizeof(mine), "%s:%u", fr[i].file, fr[i].line);
		if (strcmp(fn[i], fr[i].name) || strcmp(loc[i], mine))
			fail_msg("frame %d: addr2line says %s at %s, we say %s at %s", i, fn[i],
				 loc[i], fr[i].name, mine);
	}
	fx_stop(&p);
	symbolizer__free(s);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/*
 * A module loaded with dlopen, snapshotted and pinned while loaded, then unloaded, the process
 * gone and the file deleted: still named (with its line) through the pin, and by resolve from
 * an earlier phase's snapshot when the sample's own phase no longer maps it.  Without the pin
 * it is "no file".
 */
static void test_dlopen_pinned(void **state)
{
	char tmp[] = "/tmp/muxbpf-fxdl-XXXXXX", mod[PATH_MAX], lib[PATH_MAX], line[64];
	struct mb_maps by_phase[MUXBPF_MAX_PHASES] = {};
	struct mb_sample sample = { .phase = 2, .nr = 1, .count = 1 };
	struct mb_profile prof = { .samples = &sample, .n = 1 };
	struct mb_pins pins = {};
	struct mb_resolved res;
	struct symbolizer *s;
	struct fx_proc p;
	struct mb_sym sym;
	uint64_t work;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(mod, sizeof(mod), "%s/libfxdl.so", tmp);
	fx_path(lib, sizeof(lib), "libfxdl.so");
	copy_file(lib, mod);
	fx_start_arg("fx_dlopen", mod, &p);
	work = fx_addr(&p, "fxdl_work") + 4;
	assert_non_null(maps__find(&p.maps, work));
	assert_int_equal(mb_pins__add(&pins, p.pid, &p.maps), 0);
	assert_true(pins.n > 0);
	/* phase 1's snapshot maps the module; phase 2's, after the dlclose, does not */
	assert_int_equal(write(p.in_fd, "c", 1), 1);
	assert_non_null(fgets(line, sizeof(line), p.out));
	assert_string_equal(line, "closed\n");
	assert_int_equal(maps__read(p.pid, &by_phase[2]), 0);
	assert_null(maps__find(&by_phase[2], work));
	by_phase[1] = p.maps;
	p.maps = (struct mb_maps){};
	sample.pid = (uint32_t)p.pid;
	sample.ips = &work;
	fx_stop(&p);
	assert_int_equal(unlink(mod), 0);
	assert_int_equal(rmdir(tmp), 0);

	s = symbolizer__new();
	symbolizer__use_pins(s, &pins);
	assert_int_equal(resolve_profile(s, by_phase, &by_phase[2], &prof, sample.pid, &res), 0);
	assert_int_equal(res.n, 1);
	assert_true(res.stacks[0].n >= 1);
	sym = res.stacks[0].frames[res.stacks[0].n - 1];
	if (!sym.name || strcmp(sym.name, "fxdl_work") || !ends_with(sym.file, "/fxdl.c") ||
	    !sym.line)
		fail_msg("unloaded module: got %s at %s:%u (%s), want fxdl_work at fxdl.c:N",
			 sym.name, sym.file, sym.line, mb_unnamed_str(sym.why));
	assert_int_equal(strlen(sym.build_id), 40);
	assert_true(has_suffix(sym.dso, "/libfxdl.so"));
	resolve_free(&res);
	symbolizer__free(s);

	s = symbolizer__new();
	check_unnamed(s, &by_phase[1], work, MB_UNNAMED_NO_FILE);
	symbolizer__free(s);
	mb_pins__free(&pins);
	maps__free(&by_phase[1]);
	maps__free(&by_phase[2]);
}

static void test_unnamed_str(void **state)
{
	(void)state;
	assert_string_equal(mb_unnamed_str(MB_UNNAMED_NO_SYMBOL), "no symbol");
	assert_string_equal(mb_unnamed_str(MB_UNNAMED_STRIPPED), "stripped, no debuginfo");
	assert_string_equal(mb_unnamed_str(MB_UNNAMED_NO_MAPPING), "no mapping");
	for (int i = 0; i < MB_UNNAMED__COUNT; i++)
		assert_non_null(mb_unnamed_str(i));
	assert_string_equal(mb_unnamed_str(MB_UNNAMED__COUNT), "invalid");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie),
		cmocka_unit_test(test_nopie),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_debug_file),
		cmocka_unit_test(test_debug_by_build_id),
		cmocka_unit_test(test_cxx_demangled),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_deleted),
		cmocka_unit_test(test_unnamed),
		cmocka_unit_test(test_stripped_info),
		cmocka_unit_test(test_debug_file_lines),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_shared_by_build_id),
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_dlopen_pinned),
		cmocka_unit_test(test_unnamed_str),
	};

	return cmocka_run_group_tests(tests, find_fixtures, NULL);
}
