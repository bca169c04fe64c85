// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include "muxbpf.h"
#include "resolve.h"

static int resolve_frame(struct symbolizer *sym, const struct mb_maps *first,
			 const struct mb_maps *fallback, uint64_t ip, struct mb_sym *out)
{
	/* A module may be mapped only in some snapshots: prefer the phase's own. */
	if (first && first->n && maps__find(first, ip))
		return symbolizer__lookup(sym, first, ip, out);
	return symbolizer__lookup(sym, fallback, ip, out);
}

int resolve_stack(struct symbolizer *sym, const struct mb_maps *first,
		  const struct mb_maps *fallback, const uint64_t *ips, uint32_t nr,
		  struct mb_sym *out)
{
	int err = 0;

	/*
	 * Frames above the leaf are return addresses: look up the call instruction (ip - 1), or a
	 * call that never returns at the end of a function is named after the next one.
	 */
	for (uint32_t f = 0; f < nr && !err; f++)
		err = resolve_frame(sym, first, fallback, f ? ips[f] - 1 : ips[f], &out[f]);
	return err;
}

int resolve_profile(struct symbolizer *sym, const struct mb_maps *by_phase,
		    const struct mb_maps *fallback, const struct mb_profile *prof, uint32_t pid,
		    struct mb_sym ***frames)
{
	struct mb_sym **all = calloc(prof->n ? prof->n : 1, sizeof(*all));
	int err = 0;

	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < prof->n && !err; i++) {
		const struct mb_sample *s = &prof->samples[i];
		const struct mb_maps *first =
			s->phase < MUXBPF_MAX_PHASES ? &by_phase[s->phase] : NULL;

		all[i] = calloc(s->nr ? s->nr : 1, sizeof(**all));
		if (!all[i]) {
			err = -ENOMEM;
			break;
		}
		if (s->pid != pid) {
			for (uint32_t f = 0; f < s->nr; f++)
				all[i][f].why = MB_UNNAMED_NO_MAPPING;
			continue;
		}
		err = resolve_stack(sym, first, fallback, s->ips, s->nr, all[i]);
	}
	if (err) {
		resolve_free(all, prof->n);
		return err;
	}
	*frames = all;
	return 0;
}

void resolve_free(struct mb_sym **frames, size_t n)
{
	if (!frames)
		return;
	for (size_t i = 0; i < n; i++)
		free(frames[i]);
	free(frames);
}
