// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* maps__parse on canned /proc/PID/maps text, good and hostile; maps__find; maps__read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "proc/maps.h"

static const char good[] =
	"55d4c5a00000-55d4c5a2b000 r-xp 00002000 fd:01 1234567                    "
	"/usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"55d4c6000000-55d4c6021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f97d864a000-7f97d866c000 rw-p 00000000 00:00 0 \n"
	"7f97d866c000-7f97d86c3000 r--s 0001f000 103:0a 320475                    "
	"/home/some user/my lib (v2).so\n"
	"7f97d86c3000-7f97d86c4000 r-xp 00000000 fd:01 320482                     "
	"/opt/game/netmux (deleted)\n"
	"7ffe75ad2000-7ffe75af3000 rw-p 00000000 00:00 0                          [stack]\n"
	"7f97d88c2000-7f97d88c4000 r-xp 00000000 00:00 0                          [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";

static void test_parse_good(void **state)
{
	struct mb_maps m;
	const struct mb_mapping *v;

	(void)state;
	assert_int_equal(maps__parse(good, strlen(good), &m), 0);
	assert_int_equal(m.n, 8);
	v = m.v;
	assert_int_equal(v[0].start, 0x55d4c5a00000);
	assert_int_equal(v[0].end, 0x55d4c5a2b000);
	assert_int_equal(v[0].offset, 0x2000);
	assert_int_equal(v[0].dev_major, 0xfd);
	assert_int_equal(v[0].dev_minor, 1);
	assert_int_equal(v[0].inode, 1234567);
	assert_string_equal(v[0].perms, "r-xp");
	assert_string_equal(v[0].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_string_equal(v[1].path, "[heap]");
	/* sorted by start: the [stack] line came before [vdso] in the text */
	assert_string_equal(v[2].path, "");
	assert_int_equal(v[2].inode, 0);
	assert_string_equal(v[3].path, "/home/some user/my lib (v2).so");
	assert_string_equal(v[3].perms, "r--s");
	assert_int_equal(v[3].dev_major, 0x103);
	assert_int_equal(v[3].dev_minor, 0xa);
	assert_int_equal(v[3].offset, 0x1f000);
	assert_string_equal(v[4].path, "/opt/game/netmux (deleted)");
	assert_string_equal(v[5].path, "[vdso]");
	assert_string_equal(v[6].path, "[stack]");
	assert_string_equal(v[7].path, "[vsyscall]");
	assert_int_equal(v[7].end, 0xffffffffff601000);
	for (size_t i = 1; i < m.n; i++)
		assert_true(m.v[i - 1].end <= m.v[i].start);
	maps__free(&m);
	assert_null(m.v);
	assert_int_equal(m.n, 0);
}

static void test_parse_empty(void **state)
{
	struct mb_maps m = { (struct mb_mapping *)1, 5 };

	(void)state;
	assert_int_equal(maps__parse("", 0, &m), 0);
	assert_int_equal(m.n, 0);
	maps__free(&m);
	assert_int_equal(maps__parse(NULL, 0, &m), 0);
	assert_int_equal(m.n, 0);
	maps__free(&m);
	maps__free(NULL);
}

/* The length bounds the parse: no NUL terminator needed, nothing read past len. */
static void test_parse_len_bounded(void **state)
{
	const char *line = "1000-2000 r-xp 00000000 08:01 42 /bin/true\n";
	size_t len = strlen(line);
	char *copy = malloc(len);
	struct mb_maps m;

	(void)state;
	assert_non_null(copy);
	memcpy(copy, line, len);
	assert_int_equal(maps__parse(copy, len, &m), 0);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.v[0].path, "/bin/true");
	maps__free(&m);
	/* cut inside the path: the path is what lies inside len */
	assert_int_equal(maps__parse(copy, len - 3, &m), 0);
	assert_string_equal(m.v[0].path, "/bin/tr");
	maps__free(&m);
	free(copy);
}

static void expect_einval(const char *text)
{
	struct mb_maps m = { (struct mb_mapping *)1, 5 };
	int err = maps__parse(text, strlen(text), &m);

	if (err != -EINVAL)
		fail_msg("parsing \"%s\": got %d, want -EINVAL", text, err);
	assert_null(m.v);
	assert_int_equal(m.n, 0);
}

static void test_parse_malformed(void **state)
{
	static const char *const bad[] = {
		"hello",
		"\n",
		"1000-2000 r-xp 00000000 08:01 42 /a\n\n2000-3000 r-xp 00000000 08:01 42 /b\n",
		"1000-2000",
		"1000-2000 r-xp",
		"55d4c5a00000-55d4c5a2b000 r-xp 00002000 fd:01",
		"55d4c5a00000-55d4c5a2b000 r-xp 00002000 fd:01 ",
		"1000-2000 r-xp 00000000 08:01 42/bin/true",
		"1000-2000 rwzp 00000000 08:01 42 /bin/true",
		"1000-2000 r-x 00000000 08:01 42 /bin/true",
		"1000-2000  r-xp 00000000 08:01 42 /bin/true",
		"2000-1000 r-xp 00000000 08:01 42 /bin/true",
		"1000-1000 r-xp 00000000 08:01 42 /bin/true",
		"-2000 r-xp 00000000 08:01 42 /bin/true",
		"10000000000000000-10000000000000001 r-xp 00000000 08:01 42 /x",
		"1000-2000 r-xp 00000000000000000 08:01 42 /x",
		"1000-2000 r-xp 0 123456789:01 42 /x",
		"1000-2000 r-xp 0 08-01 42 /x",
		"1000-2000 r-xp 0 08:01 99999999999999999999 /x",
		"1000-2000 r-xp 0 08:01 -1 /x",
		"1000-2000 r-xp 0 08:01 0x10 /x",
		"1000-2000 r-xp 0 08:01 42\t/x",
		"g000-2000 r-xp 0 08:01 42 /x",
		"1000-2000 r-xp 0 08:01 42 /a\n1800-3000 r-xp 0 08:01 42 /b", /* overlap */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_einval(bad[i]);
}

static void test_parse_nul_in_path(void **state)
{
	static const char text[] = "1000-2000 r-xp 0 08:01 42 /a\0b\n";
	struct mb_maps m;

	(void)state;
	assert_int_equal(maps__parse(text, sizeof(text) - 1, &m), -EINVAL);
	assert_int_equal(maps__parse(text, 28, &m), 0); /* up to the NUL */
	assert_string_equal(m.v[0].path, "/a");
	maps__free(&m);
}

static void test_parse_long_path(void **state)
{
	size_t n = 10000;
	char *text = malloc(n + 64);
	struct mb_maps m;
	int len;

	(void)state;
	assert_non_null(text);
	len = snprintf(text, 64, "1000-2000 r-xp 0 08:01 42 /");
	memset(text + len, 'a', n);
	assert_int_equal(maps__parse(text, (size_t)len + n, &m), -EINVAL);
	assert_int_equal(maps__parse(text, (size_t)len + 4000, &m), 0);
	assert_int_equal(strlen(m.v[0].path), 4001);
	maps__free(&m);
	free(text);
}

/* Cheap stand-in for the fuzzer: mutated good text parses or is -EINVAL, never crashes. */
static void test_parse_mutations(void **state)
{
	size_t len = strlen(good);
	char *buf = malloc(len);
	unsigned int seed = 1;

	(void)state;
	assert_non_null(buf);
	for (int round = 0; round < 20000; round++) {
		struct mb_maps m;
		size_t cut;
		int err;

		memcpy(buf, good, len);
		for (int k = 0; k < 1 + round % 4; k++)
			buf[rand_r(&seed) % len] = (char)(rand_r(&seed) & 0xff);
		cut = len - (size_t)rand_r(&seed) % 16;
		err = maps__parse(buf, cut, &m);
		if (err && err != -EINVAL)
			fail_msg("round %d: got %d", round, err);
		for (size_t i = 0; !err && i < m.n; i++)
			assert_true(m.v[i].start < m.v[i].end);
		maps__free(&m);
	}
	free(buf);
}

static void test_find(void **state)
{
	static const char text[] = "1000-2000 r-xp 0 08:01 42 /a\n"
				   "2000-3000 r--p 1000 08:01 42 /a\n"
				   "5000-6000 rw-p 0 00:00 0\n";
	struct mb_maps m;

	(void)state;
	assert_int_equal(maps__parse(text, strlen(text), &m), 0);
	assert_null(maps__find(&m, 0));
	assert_null(maps__find(&m, 0xfff));
	assert_ptr_equal(maps__find(&m, 0x1000), &m.v[0]);
	assert_ptr_equal(maps__find(&m, 0x1fff), &m.v[0]);
	assert_ptr_equal(maps__find(&m, 0x2000), &m.v[1]);
	assert_null(maps__find(&m, 0x3000));
	assert_null(maps__find(&m, 0x4fff));
	assert_ptr_equal(maps__find(&m, 0x5abc), &m.v[2]);
	assert_null(maps__find(&m, 0x6000));
	assert_null(maps__find(&m, UINT64_MAX));
	maps__free(&m);
	assert_null(maps__find(&m, 0x1000));
	assert_null(maps__find(NULL, 0x1000));
}

/* Our own maps: this function's code is in a mapping of this test binary. */
static void test_read_self(void **state)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const struct mb_mapping *mm;
	struct mb_maps m;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(maps__read(getpid(), &m), 0);
	assert_true(m.n > 3);
	mm = maps__find(&m, (uint64_t)(uintptr_t)test_read_self);
	assert_non_null(mm);
	assert_string_equal(mm->path, exe);
	assert_int_equal(mm->perms[2], 'x');
	maps__free(&m);
	assert_int_equal(maps__read(0, &m), 0); /* 0 is ourselves */
	assert_non_null(maps__find(&m, (uint64_t)(uintptr_t)test_read_self));
	maps__free(&m);
	/* above PID_MAX_LIMIT (4M): never a process */
	assert_int_equal(maps__read(1 << 30, &m), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_empty),
		cmocka_unit_test(test_parse_len_bounded),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_parse_nul_in_path),
		cmocka_unit_test(test_parse_long_path),
		cmocka_unit_test(test_parse_mutations),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_read_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
