// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbolizer against real processes: each fixture (tests/fixtures/, built next to this
 * binary in fixtures/) prints the addresses of its functions and waits; we read its
 * /proc/PID/maps and check what symbolizer__lookup names them.  No root needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include "testutil.h"
#include "maps.h"
#include "symbolize.h"

#define FX_MAX_ADDRS 32

struct fx_proc {
	pid_t pid;
	int in_fd; /* the child's stdin: closing it lets the child exit */
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

static void fx_exec_child(const char *path, int in, int out)
{
	dup2(in, 0);
	dup2(out, 1);
	execl(path, path, (char *)NULL);
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

/* Start a fixture and snapshot its maps while it waits. */
static void fx_start(const char *name, struct fx_proc *p)
{
	int in[2], out[2];
	char path[PATH_MAX];
	FILE *f;

	memset(p, 0, sizeof(*p));
	fx_path(path, sizeof(path), name);
	if (access(path, X_OK))
		fail_msg("fixture %s missing (make tests-build): %s", path, strerror(errno));
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		close(in[1]);
		close(out[0]);
		fx_exec_child(path, in[0], out[1]);
	}
	close(in[0]);
	close(out[1]);
	p->in_fd = in[1];
	f = fdopen(out[0], "r");
	assert_non_null(f);
	fx_read_addrs(p, f);
	fclose(f);
	assert_int_equal(maps__read(p->pid, &p->maps), 0);
}

static void fx_stop(struct fx_proc *p)
{
	int status;

	close(p->in_fd);
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

/* At the function start, a few bytes in, and at a return address inside it. */
static void check_fx_functions(struct symbolizer *s, const struct fx_proc *p, const char *exe,
			       bool hidden_named)
{
	uint64_t alpha = fx_addr(p, "fx_alpha"), ra = fx_addr(p, "fx_alpha.ra");

	check_named(s, &p->maps, alpha, "fx_alpha", 0, exe);
	check_named(s, &p->maps, alpha + 4, "fx_alpha", 4, exe);
	check_named(s, &p->maps, ra, "fx_alpha", ra - alpha, exe);
	check_named(s, &p->maps, fx_addr(p, "fx_beta") + 5, "fx_beta", 5, exe);
	check_named(s, &p->maps, fx_addr(p, "main"), "main", 0, exe);
	if (hidden_named)
		check_named(s, &p->maps, fx_addr(p, "fx_hidden") + 2, "fx_hidden", 2, exe);
	else
		check_unnamed(s, &p->maps, fx_addr(p, "fx_hidden") + 2, MB_UNNAMED_NO_SYMBOL);
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
	check_fx_functions(s, &p, "/fx_pie", true);
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
	check_fx_functions(s, &p, "/fx_nopie", true);
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
	check_fx_functions(s, &p, "/fx_pie_stripped", false);
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
	check_fx_functions(s, &p, "/fx_pie_stripped", true);
	fx_stop(&p);
	symbolizer__free(s);
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
		fprintf(stderr, "skip: no vdso clock_gettime in the fixture, or not our vdso\n");
		skip();
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

static void test_unnamed_str(void **state)
{
	(void)state;
	assert_string_equal(mb_unnamed_str(MB_UNNAMED_NO_SYMBOL), "stripped");
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
		cmocka_unit_test(test_cxx_demangled),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_deleted),
		cmocka_unit_test(test_unnamed),
		cmocka_unit_test(test_unnamed_str),
	};

	return cmocka_run_group_tests(tests, find_fixtures, NULL);
}
