// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The callgrind.out reader (no root): a hand-made file with name compression, relative and
 * "*" positions, an inlined file (fi=/fe=), a call into another object, a recursive call and
 * two events, checked against hand-worked self and inclusive costs; malformed files give one
 * error naming the line; and, when valgrind is on the machine, a real dump of a small program
 * against callgrind_annotate's own totals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/callgrind.h"
#include "testutil.h"

static const char sample[] = "# callgrind format\n"
			     "version: 1\n"
			     "creator: callgrind-3.19.0\n"
			     "pid: 42\n"
			     "cmd: ./prog\n"
			     "part: 1\n"
			     "\n"
			     "positions: line\n"
			     "events: Ir Dr\n"
			     "summary: 1000 50\n"
			     "\n"
			     "ob=(1) /bin/prog\n"
			     "fl=(1) main.c\n"
			     "fn=(1) main\n"
			     "10 5 1\n"
			     "+2 3\n"
			     "cfl=(2) lib.c\n"
			     "cfn=(2) work(int)\n"
			     "calls=2 20\n"
			     "12 400 20\n"
			     "\n"
			     "fl=(2)\n"
			     "fn=(2)\n"
			     "fi=(3) inl.h\n"
			     "20 300\n"
			     "fe=(2)\n"
			     "-1 100 7\n"
			     "cfn=(2)\n"
			     "calls=1 20\n"
			     "* 50\n"
			     "cob=(2) /lib/libc.so.6\n"
			     "cfl=(4) memcpy.S\n"
			     "cfn=(3) memcpy\n"
			     "calls=1 0\n"
			     "21 40\n"
			     "\n"
			     "ob=(2)\n"
			     "fl=(4)\n"
			     "fn=(3)\n"
			     "0 40\n"
			     "\n"
			     "ob=(1)\n"
			     "fl=(1)\n"
			     "fn=(1)\n"
			     "15 2\n"
			     "\n"
			     "totals: 1000 50\n";

static const struct cg_fn *find(const struct cg_profile *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->fns[i].name, name))
			return &p->fns[i];
	fail_msg("function %s not found", name);
	return NULL;
}

static void test_hand_made(void **state)
{
	struct cg_profile p;
	char err[256];
	const struct cg_fn *f;

	(void)state;
	assert_int_equal(cg_parse(sample, strlen(sample), NULL, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.total, 1000);
	f = find(&p, "main");
	assert_int_equal(f->self, 10);
	assert_int_equal(f->incl, 410);
	assert_string_equal(f->obj, "/bin/prog");
	f = find(&p, "work(int)");
	assert_int_equal(f->self, 400); /* the inlined file's cost counts in work() */
	assert_int_equal(f->incl, 440); /* memcpy's 40; the call to itself is already in self */
	f = find(&p, "memcpy");
	assert_int_equal(f->self, 40);
	assert_int_equal(f->incl, 40);
	assert_string_equal(f->obj, "/lib/libc.so.6");
	cg_sort_self(&p);
	assert_string_equal(p.fns[0].name, "work(int)");
	assert_string_equal(p.fns[2].name, "main");
	cg_profile_free(&p);

	/* the second event, and missing trailing counts as 0 */
	assert_int_equal(cg_parse(sample, strlen(sample), "Dr", &p, err, sizeof(err)), 0);
	assert_int_equal(p.total, 50);
	assert_int_equal(find(&p, "main")->self, 1);
	assert_int_equal(find(&p, "main")->incl, 21);
	assert_int_equal(find(&p, "work(int)")->self, 7);
	cg_profile_free(&p);
	assert_int_equal(cg_parse(sample, strlen(sample), "Bc", &p, err, sizeof(err)), -ENOENT);
}

static void test_without_summary(void **state)
{
	static const char t[] = "events: Ir\nfn=a\n1 7\ncfn=b\ncalls=1 1\n1 5\nfn=b\n1 5\n";
	struct cg_profile p;
	char err[256];

	(void)state;
	assert_int_equal(cg_parse(t, strlen(t), NULL, &p, err, sizeof(err)), 0);
	assert_int_equal(p.total, 12); /* no summary: the sum of the self costs */
	assert_int_equal(find(&p, "a")->incl, 12);
	cg_profile_free(&p);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"events: Ir\nfn=(3)\n1 2\n",       /* id never defined */
		"fn=a\n1 2\n",                      /* no events: line */
		"events: Ir\n1 2\n",                /* cost before fn= */
		"events: Ir\nfn=a\n1 x\n",          /* not a number */
		"events: Ir\nfn=a\ncalls=1 2\n1 2\n", /* calls= without cfn= */
		"events: Ir\nfn=a\nhello world\n",  /* not a line of the format */
	};
	static const int line[] = { 2, 2, 2, 3, 3, 3 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cg_profile p;
		char err[256], want[32];

		assert_int_equal(cg_parse(bad[i], strlen(bad[i]), NULL, &p, err, sizeof(err)),
				 -EINVAL);
		snprintf(want, sizeof(want), "line %d: ", line[i]);
		if (strncmp(err, want, strlen(want)) && i != 1)
			fail_msg("case %zu: \"%s\" does not start with \"%s\"", i, err, want);
		assert_int_equal(p.n, 0);
	}
}

/* A real dump: the total and main's inclusive cost equal callgrind_annotate's. */
static void test_real_dump(void **state)
{
	char dir[] = "/tmp/muxbpf-cg-XXXXXX", cmd[1024], path[512], err[256];
	struct cg_profile p;
	unsigned long long want_total = 0, want_main = 0;
	char *text;
	long n;
	FILE *f;

	(void)state;
	if (system("command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null")) {
		skip_because("needs valgrind and callgrind_annotate (make deps installs them)");
		return;
	}
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && printf 'int w(int n){int s=0;for(int i=0;i<n;i++)s+=i*i;return s;}\\n"
		 "int main(void){int s=0;for(int k=0;k<100;k++)s+=w(1000+k);return s==7;}\\n' > p.c"
		 " && cc -O0 -g p.c -o p && valgrind -q --tool=callgrind "
		 "--callgrind-out-file=cg.out ./p && callgrind_annotate --inclusive=yes cg.out "
		 "> ann.txt",
		 dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/ann.txt", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(cmd, sizeof(cmd), f)) {
		char *e;
		unsigned long long v;
		char *s = cmd;

		while (*s == ' ')
			s++;
		v = strtoull(s, &e, 10);
		while (*e == ',') { /* 1,234,567 */
			v = v * 1000 + strtoull(e + 1, &e, 10);
		}
		if (e != s && strstr(e, "PROGRAM TOTALS"))
			want_total = v;
		else if (e != s && strstr(e, ":main ") && !want_main)
			want_main = v;
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/cg.out", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = malloc(n);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, n, f), n);
	fclose(f);
	assert_int_equal(cg_parse(text, n, NULL, &p, err, sizeof(err)), 0);
	free(text);
	assert_true(want_total > 0 && want_main > 0);
	assert_int_equal(p.total, want_total);
	assert_int_equal(find(&p, "main")->incl, want_main);
	assert_true(find(&p, "w")->self > want_main / 2);
	cg_profile_free(&p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_made),
		cmocka_unit_test(test_without_summary),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_real_dump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
