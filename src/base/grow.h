/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one growth rule of muxbpf's arrays: capacity first, then doubled, realloc'd in place. */
#ifndef MUXBPF_GROW_H
#define MUXBPF_GROW_H

#include <stddef.h>

/*
 * Room for want elements of size bytes in *data, whose capacity is *cap: nothing when it has
 * room, else the capacity becomes first (when 0) doubled until it holds want, and *data is
 * realloc'd to it.  The elements keep their values; new ones are not initialized.  0, or -ENOMEM
 * with *data and *cap unchanged.
 */
int mb_grow(void **data, size_t *cap, size_t want, size_t size, size_t first);

/* The capacity after cap by that rule: first when 0, else doubled (a hash table's new size, to
 * which it rehashes into a fresh zeroed table). */
size_t mb_grow_cap(size_t cap, size_t first);

/* mb_grow with a bound: -E2BIG, *data and *cap unchanged, when the new capacity exceeds max. */
int mb_grow_max(void **data, size_t *cap, size_t want, size_t size, size_t first, size_t max);

#endif /* MUXBPF_GROW_H */
