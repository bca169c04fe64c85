// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PLT stubs named "fn@plt" (src/symbols/symbolize.c) against binutils: every "<fn@plt>:" label
 * objdump prints for the fixture fx_pie's .plt / .plt.sec must come back from the symbolizer with
 * that name, at its first and last byte.  The fixture is not run: a maps snapshot of one
 * mapping of the whole file stands for a process (so the cross build's suite runs under
 * user-mode emulation too).  objdump is the machine's own, or binutils-aarch64-linux-gnu's for
 * an AArch64 file on another machine.
 */
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "proc/maps.h"
#include "symbols/symbolize.h"

#define BASE 0x40000000ull

static void fixture_path(char *buf, size_t size, const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	assert_true(snprintf(buf, size, "%s/fixtures/%s", exe, name) < (int)size);
}

/* objdump's PLT labels of path: addresses and names; how many. */
static int plt_labels(const char *objdump, const char *path, uint64_t *addr, char (*name)[128],
		      int max)
{
	char cmd[PATH_MAX + 128], line[512];
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s -d -j .plt -j .plt.sec '%s' 2>/dev/null", objdump, path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (n < max && strstr(line, "@plt>:") &&
		    sscanf(line, "%" SCNx64 " <%127[^>]>:", &addr[n], name[n]) == 2)
			n++;
	pclose(f);
	return n;
}

static void test_plt_names_match_objdump(void **state)
{
	static char names[64][128];
	uint64_t addr[64];
	char path[PATH_MAX], maps_text[PATH_MAX + 128];
	struct symbolizer *s;
	struct mb_maps maps;
	struct stat st;
	int n;

	(void)state;
	fixture_path(path, sizeof(path), "fx_pie");
	assert_int_equal(stat(path, &st), 0);
	n = plt_labels("objdump", path, addr, names, 64);
	if (n == 0)
		n = plt_labels("aarch64-linux-gnu-objdump", path, addr, names, 64);
	print_message("%s: %d PLT entries labelled by objdump\n", path, n);
	assert_true(n >= 3); /* puts, printf, fxlib_two, dlopen... */
	snprintf(maps_text, sizeof(maps_text), "%llx-%llx r-xp 00000000 00:00 %llu %s\n",
		 (unsigned long long)BASE,
		 (unsigned long long)(BASE + ((st.st_size + 4095) & ~4095ull)),
		 (unsigned long long)st.st_ino, path);
	assert_int_equal(maps__parse(maps_text, strlen(maps_text), &maps), 0);
	s = symbolizer__new();
	assert_non_null(s);
	for (int i = 0; i < n; i++) {
		/* each entry is 16 bytes: its first and its last byte */
		for (int k = 0; k < 16; k += 15) {
			struct mb_sym sym;

			assert_int_equal(symbolizer__lookup(s, &maps, BASE + addr[i] + k, &sym), 0);
			if (!sym.name || strcmp(sym.name, names[i]))
				fail_msg("%#" PRIx64 " + %d: objdump %s, symbolizer %s", addr[i], k,
					 names[i], sym.name ? sym.name : "(unnamed)");
		}
	}
	symbolizer__free(s);
	maps__free(&maps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plt_names_match_objdump),
	};

	return cmocka_run_group_tests_name("plt", tests, NULL, NULL);
}
