// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Array growth (grow.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "base/grow.h"

size_t mb_grow_cap(size_t cap, size_t first)
{
	return cap ? cap * 2 : first;
}

int mb_grow_max(void **data, size_t *cap, size_t want, size_t size, size_t first, size_t max)
{
	size_t ncap = *cap;
	void *v;

	if (want <= ncap)
		return 0;
	if (!ncap)
		ncap = first ? first : 1;
	while (ncap < want) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > max)
		return -E2BIG;
	if (size && ncap > SIZE_MAX / size)
		return -ENOMEM;
	v = realloc(*data, ncap * size);
	if (!v)
		return -ENOMEM;
	*data = v;
	*cap = ncap;
	return 0;
}

int mb_grow(void **data, size_t *cap, size_t want, size_t size, size_t first)
{
	return mb_grow_max(data, cap, want, size, first, SIZE_MAX);
}
