// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Folding on hand-made symbolized stacks (no processes, no root): self and total per view,
 * inlined frames as rows of their own, recursion counted once per stack, unnamed buckets by
 * DSO+offset and by reason, the per-DSO leaf counts, phase and process filters, --by parsing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include "fold/fold.h"

static const struct mb_dso_info exe_info = { .path = "/opt/mux/netmux", .build_id = "ab12",
					     .symbols = ".symtab", .full_symtab = true,
					     .dwarf = true };
static const struct mb_dso_info libc_info = { .path = "/lib/libc.so.6", .build_id = "cd34",
					      .symbols = ".dynsym" };

static struct mb_sym named(const char *fn, const char *file, uint32_t line, uint16_t depth,
			   uint32_t ip)
{
	return (struct mb_sym){ .dso = exe_info.path, .build_id = exe_info.build_id,
				.offset = 0x1000 + ip, .ip_index = ip, .inline_depth = depth,
				.name = fn, .file = file, .file_rel = file ? strrchr(file, '/') + 1 : NULL,
				.line = line, .info = &exe_info };
}

/* Five samples, phase 1 unless said otherwise, pid 7:
 *   s0 x3: hash_get (inlined, hashtable.h:10) <- eval (eval.cpp:20) <- main (main.cpp:5)
 *   s1 x2: eval (eval.cpp:30) <- eval (eval.cpp:21) <- main          (recursion)
 *   s2 x1: [libc: memcpy, no lines] <- eval (eval.cpp:22) <- main
 *   s3 x1: stripped netmux at 0x5010 (.eh_frame range from 0x5000) <- [anon] <- no mapping
 *   s4 x4: phase 2: main      s5 x9: pid 8 (a child): main */
struct fixture {
	struct mb_sample samples[6];
	uint64_t ips[6][4];
	struct mb_sym frames[6][4];
	struct mb_rstack stacks[6];
	struct mb_profile prof;
	struct mb_resolved res;
};

static void build(struct fixture *x)
{
	static const char *const eval = "/src/mux/eval.cpp", *const mainc = "/src/mux/main.cpp";
	static const char *const ht = "/usr/include/c++/12/bits/hashtable.h";
	static const uint32_t nframes[6] = { 3, 3, 3, 3, 1, 1 };

	memset(x, 0, sizeof(*x));
	x->frames[0][0] = named("hash_get", ht, 10, 1, 0);
	x->frames[0][1] = named("eval", eval, 20, 0, 0);
	x->frames[0][2] = named("main", mainc, 5, 0, 1);
	x->frames[1][0] = named("eval", eval, 30, 0, 0);
	x->frames[1][1] = named("eval", eval, 21, 0, 1);
	x->frames[1][2] = named("main", mainc, 5, 0, 2);
	x->frames[2][0] = (struct mb_sym){ .dso = libc_info.path, .build_id = "cd34",
					   .offset = 0x9000, .name = "memcpy", .info = &libc_info };
	x->frames[2][1] = named("eval", eval, 22, 0, 1);
	x->frames[2][2] = named("main", mainc, 5, 0, 2);
	x->frames[3][0] = (struct mb_sym){ .dso = "/usr/lib/tinymux/netmux-deb", .build_id = "ef",
					   .offset = 0x5010, .sym_off = 0x10,
					   .why = MB_UNNAMED_STRIPPED, .info = &libc_info };
	x->frames[3][1] = (struct mb_sym){ .dso = "[anon]", .build_id = "", .offset = 0x7f00,
					   .ip_index = 1, .why = MB_UNNAMED_ANON };
	x->frames[3][2] = (struct mb_sym){ .build_id = "", .offset = 0x10, .ip_index = 2,
					   .why = MB_UNNAMED_NO_MAPPING };
	x->frames[4][0] = named("main", mainc, 6, 0, 0);
	x->frames[5][0] = named("main", mainc, 6, 0, 0);
	for (int i = 0; i < 6; i++) {
		x->samples[i] = (struct mb_sample){ .phase = i == 4 ? 2 : 1, .pid = i == 5 ? 8 : 7,
						    .nr = nframes[i], .ips = x->ips[i],
						    .count = (uint64_t[]){ 3, 2, 1, 1, 4, 9 }[i] };
		x->stacks[i] = (struct mb_rstack){ x->frames[i], nframes[i] };
	}
	x->prof = (struct mb_profile){ .samples = x->samples, .n = 6 };
	x->res = (struct mb_resolved){ .stacks = x->stacks, .n = 6 };
}

static const struct fold_row *row(const struct fold_table *t, enum fold_by by, const char *name)
{
	for (size_t i = 0; i < t->by[by].n; i++)
		if (!strcmp(t->by[by].rows[i].name, name))
			return &t->by[by].rows[i];
	fail_msg("no %s row '%s'", fold_by_name(by), name);
	return NULL;
}

static void check_row(const struct fold_table *t, enum fold_by by, const char *name,
		      uint64_t self, uint64_t total, int unnamed)
{
	const struct fold_row *r = row(t, by, name);

	if (r->self != self || r->total != total || r->unnamed != unnamed)
		fail_msg("%s row '%s': self %lu total %lu unnamed %d, want %lu %lu %d",
			 fold_by_name(by), name, (unsigned long)r->self, (unsigned long)r->total,
			 r->unnamed, (unsigned long)self, (unsigned long)total, unnamed);
}

static void test_views(void **state)
{
	struct fixture x;
	struct fold_table t;

	(void)state;
	build(&x);
	assert_int_equal(fold_phase(&x.prof, &x.res, 1, 7, FOLD_VIEW(FOLD_BY__COUNT) - 1, &t), 0);
	assert_int_equal(t.samples, 7);
	assert_int_equal(t.unnamed, 1);
	assert_int_equal(t.unnamed_why[MB_UNNAMED_STRIPPED], 1);
	assert_int_equal(t.with_line, 5); /* hash_get x3 + eval x2 */
	/* functions: the inlined function is a row; recursion counts once per stack */
	check_row(&t, FOLD_BY_FUNCTION, "hash_get", 3, 3, 0);
	check_row(&t, FOLD_BY_FUNCTION, "eval", 2, 6, 0);
	check_row(&t, FOLD_BY_FUNCTION, "main", 0, 6, 0);
	check_row(&t, FOLD_BY_FUNCTION, "memcpy", 1, 1, 0);
	check_row(&t, FOLD_BY_FUNCTION, "[netmux-deb+0x5000]", 1, 1, 1);
	check_row(&t, FOLD_BY_FUNCTION, "[anon]", 0, 1, 1);
	check_row(&t, FOLD_BY_FUNCTION, "[no mapping]", 0, 1, 1);
	/* sorted by self */
	assert_string_equal(t.by[FOLD_BY_FUNCTION].rows[0].name, "hash_get");
	assert_string_equal(t.by[FOLD_BY_FUNCTION].rows[1].name, "eval");
	/* source files, relative to the compilation directory; no lines: the DSO and why */
	check_row(&t, FOLD_BY_SRCFILE, "hashtable.h", 3, 3, 0);
	check_row(&t, FOLD_BY_SRCFILE, "eval.cpp", 2, 6, 0);
	check_row(&t, FOLD_BY_SRCFILE, "main.cpp", 0, 6, 0);
	check_row(&t, FOLD_BY_SRCFILE, "[libc.so.6: no debuginfo]", 1, 1, 1);
	check_row(&t, FOLD_BY_SRCFILE, "[netmux-deb: stripped, no debuginfo]", 1, 1, 1);
	/* lines: each line of the recursion is its own row */
	check_row(&t, FOLD_BY_LINE, "hashtable.h:10 hash_get", 3, 3, 0);
	check_row(&t, FOLD_BY_LINE, "eval.cpp:20 eval", 0, 3, 0);
	check_row(&t, FOLD_BY_LINE, "eval.cpp:30 eval", 2, 2, 0);
	check_row(&t, FOLD_BY_LINE, "eval.cpp:21 eval", 0, 2, 0);
	check_row(&t, FOLD_BY_LINE, "main.cpp:5 main", 0, 6, 0);
	/* DSOs */
	check_row(&t, FOLD_BY_DSO, "netmux", 5, 6, 0);
	check_row(&t, FOLD_BY_DSO, "netmux-deb", 1, 1, 0);
	check_row(&t, FOLD_BY_DSO, "[anon]", 0, 1, 1);
	check_row(&t, FOLD_BY_DSO, "libc.so.6", 1, 1, 0);
	/* leaf DSOs: most samples first, with what is named and has lines */
	assert_int_equal(t.ndsos, 3);
	assert_string_equal(t.dsos[0].dso, exe_info.path);
	assert_int_equal(t.dsos[0].samples, 5);
	assert_int_equal(t.dsos[0].named, 5);
	assert_int_equal(t.dsos[0].with_line, 5);
	assert_ptr_equal(t.dsos[0].info, &exe_info);
	assert_int_equal(t.dsos[1].samples + t.dsos[2].samples, 2);
	for (size_t i = 1; i < 3; i++)
		if (!strcmp(t.dsos[i].dso, "/usr/lib/tinymux/netmux-deb"))
			assert_int_equal(t.dsos[i].why[MB_UNNAMED_STRIPPED], 1);
	fold_table__free(&t);
}

/* Only the views asked for; phase and process filters; FOLD_ALL_PHASES. */
static void test_filters(void **state)
{
	struct fixture x;
	struct fold_table t;

	(void)state;
	build(&x);
	assert_int_equal(fold_phase(&x.prof, &x.res, 2, 7, FOLD_VIEW(FOLD_BY_DSO), &t), 0);
	assert_int_equal(t.samples, 4);
	assert_int_equal(t.by[FOLD_BY_FUNCTION].n, 0);
	check_row(&t, FOLD_BY_DSO, "netmux", 4, 4, 0);
	fold_table__free(&t);
	assert_int_equal(fold_phase(&x.prof, &x.res, FOLD_ALL_PHASES, 7, 0, &t), 0);
	assert_int_equal(t.samples, 11);
	for (int by = 0; by < FOLD_BY__COUNT; by++)
		assert_int_equal(t.by[by].n, 0);
	assert_int_equal(t.dsos[0].samples, 9);
	fold_table__free(&t);
	assert_int_equal(fold_phase(&x.prof, &x.res, 1, 8, FOLD_VIEW(FOLD_BY_FUNCTION), &t), 0);
	assert_int_equal(t.samples, 9);
	check_row(&t, FOLD_BY_FUNCTION, "main", 9, 9, 0);
	fold_table__free(&t);
	assert_int_equal(fold_phase(&x.prof, &x.res, 3, 7, FOLD_VIEW(FOLD_BY_FUNCTION), &t), 0);
	assert_int_equal(t.samples, 0);
	assert_int_equal(t.ndsos, 0);
	fold_table__free(&t);
}

static void test_by_parse(void **state)
{
	unsigned int v = 0;

	(void)state;
	assert_int_equal(fold_by_parse("function", &v), 0);
	assert_int_equal(v, FOLD_VIEW(FOLD_BY_FUNCTION));
	assert_int_equal(fold_by_parse("srcfile,line,dso", &v), 0);
	assert_int_equal(v, FOLD_VIEW(FOLD_BY_SRCFILE) | FOLD_VIEW(FOLD_BY_LINE) |
				    FOLD_VIEW(FOLD_BY_DSO));
	v = 42;
	assert_int_equal(fold_by_parse("function,", &v), -EINVAL);
	assert_int_equal(fold_by_parse("func", &v), -EINVAL);
	assert_int_equal(fold_by_parse("", &v), -EINVAL);
	assert_int_equal(fold_by_parse("srcfile,,dso", &v), -EINVAL);
	assert_int_equal(v, 42);
	for (int by = 0; by < FOLD_BY__COUNT; by++)
		assert_int_equal(fold_by_parse(fold_by_name(by), &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_views),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_by_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
