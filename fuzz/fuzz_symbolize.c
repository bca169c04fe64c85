// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: an ELF file -> the symbolizer (src/symbolize.c: libelf, section and symbol
 * tables, program headers for the load bias, build-id, demangling).  The input is written to a
 * memfd and mapped, in a synthetic maps snapshot, as a PIE would be (r--p at offset 0, r-xp at
 * 0x1000); addresses across both mappings are looked up.  A named frame must carry a name and a
 * dso; nothing may crash or leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "proc/maps.h"
#include "symbols/symbolize.h"

static int memfd = -1;
static char path[64];
static struct stat st;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mb_mapping v[2] = {
		{ .start = 0x555555554000, .end = 0x555555555000, .offset = 0, .perms = "r--p" },
		{ .start = 0x555555555000, .end = 0x555555565000, .offset = 0x1000, .perms = "r-xp" },
	};
	struct mb_maps maps = { .v = v, .n = 2 };
	struct symbolizer *s;
	uint64_t seed = 0;

	if (memfd < 0) {
		memfd = memfd_create("fuzz-elf", MFD_CLOEXEC);
		if (memfd < 0 || fstat(memfd, &st))
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	for (int i = 0; i < 2; i++) {
		v[i].path = path;
		v[i].inode = st.st_ino;
		v[i].dev_major = 0;
		v[i].dev_minor = (uint32_t)st.st_dev;
	}
	for (size_t i = 0; i < size && i < 8; i++)
		seed = seed << 8 | data[i];
	s = symbolizer__new();
	if (!s)
		return 0;
	symbolizer__set_debug_dir(s, NULL);
	for (int k = 0; k < 24; k++) {
		uint64_t addr = v[k & 1].start + ((seed >> (k % 48)) + (uint64_t)k * 0x97) %
						       (v[k & 1].end - v[k & 1].start);
		struct mb_sym out;

		if (symbolizer__lookup(s, &maps, addr, &out))
			continue;
		if (out.why == MB_NAMED && (!out.name || !out.dso))
			abort();
		if (out.why >= MB_UNNAMED__COUNT)
			abort();
		if (out.name)
			(void)strlen(out.name);
	}
	symbolizer__free(s);
	return 0;
}
