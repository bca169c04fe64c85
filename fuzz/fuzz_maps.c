// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: /proc/PID/maps text -> maps__parse -> maps__find.  A snapshot that parses
 * must be sorted, non-overlapping, with start < end, and every lookup must land inside the
 * mapping it returns.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "proc/maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mb_maps m;

	if (maps__parse((const char *)data, size, &m))
		return 0;
	for (size_t i = 0; i < m.n; i++) {
		const struct mb_mapping *e = &m.v[i];
		const struct mb_mapping *f;

		if (e->start >= e->end || (i && e->start < m.v[i - 1].end) || !e->path)
			abort();
		if (strlen(e->perms) > 4)
			abort();
		f = maps__find(&m, e->start);
		if (f != e)
			abort();
		f = maps__find(&m, e->end - 1);
		if (f != e)
			abort();
		f = maps__find(&m, e->end);
		if (f && (e->end < f->start || e->end >= f->end))
			abort();
	}
	if (m.n && maps__find(&m, m.v[0].start - 1) && m.v[0].start)
		abort();
	maps__free(&m);
	return 0;
}
