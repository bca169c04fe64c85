// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: callgrind.out text -> cg_parse.  A file that parses must give every
 * function a name and an inclusive cost at least its self cost (mutual recursion aside, a
 * call's cost only adds), and parsing the same text twice must give the same answer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "model/callgrind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cg_profile p, q;
	char err[256];

	if (cg_parse((const char *)data, size, NULL, &p, err, sizeof(err))) {
		if (!err[0])
			abort(); /* every failure says why */
		return 0;
	}
	for (size_t i = 0; i < p.n; i++)
		if (!p.fns[i].name || p.fns[i].incl < p.fns[i].self)
			abort();
	if (cg_parse((const char *)data, size, NULL, &q, err, sizeof(err)) || q.n != p.n ||
	    q.total != p.total)
		abort();
	cg_sort_self(&p);
	for (size_t i = 1; i < p.n; i++)
		if (p.fns[i - 1].self < p.fns[i].self)
			abort();
	cg_profile_free(&p);
	cg_profile_free(&q);
	return 0;
}
