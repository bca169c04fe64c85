// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --by softcode in the artifacts: netmux's command-thread stacks with the softcode frames
 * inserted where the C++ code evaluates them: a $-command's frame ("SoftObj(#13)/CMD_UFN")
 * above the outermost process_command, the k-th u() frame above the k-th do_ufun from the root.
 * A softcode frame whose C++ anchor is not on the stack goes at the root.  In pprof a softcode
 * frame is a function whose file is "softcode:#N".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fold/fold.h"
#include "report/report.h"
#include "symbols/resolve.h"
#include "report/softcode_rows.h"
#include "report/softcode_stacks.h"
#include "report/sprof_softcode.h"

/*
 * Leaf-first frames of one stack with the k softcode frames sc[] (outermost first; the first
 * ncmd of them anchor on process_command, the rest on do_ufun) inserted into out (room for
 * st->n + k).  Returns the frame count.
 */
static uint32_t insert_frames(const struct mb_rstack *st, const struct mb_sym *sc, int ncmd,
			      int k, struct mb_sym *out)
{
	uint32_t n = 0;
	int next = 0;

	/* root first into out, then flipped */
	for (uint32_t i = st->n; i-- > 0;) {
		const struct mb_sym *f = &st->frames[i];

		out[n++] = *f;
		if (next < k && sc_frame_is(f, next < ncmd ? SC_ANCHOR_COMMAND : SC_ANCHOR_UFUN))
			out[n++] = sc[next++];
	}
	if (next < k) {
		/* an anchor is not on the stack (inlined, another build): all at the root */
		n = 0;
		for (int j = 0; j < k; j++)
			out[n++] = sc[j];
		for (uint32_t i = st->n; i-- > 0;)
			out[n++] = st->frames[i];
	}
	for (uint32_t a = 0, b = n ? n - 1 : 0; a < b; a++, b--) {
		struct mb_sym t = out[a];

		out[a] = out[b];
		out[b] = t;
	}
	return n;
}

int sprof_add_softcode(struct sprof *sp, const struct sprof_run *run)
{
	const struct sc_data *d = run->softcode;
	const struct mb_profile *prof = run->prof;
	const struct mb_resolved *res = run->res;
	struct mb_sym *buf = NULL;
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; i < d->ncounts && !err; i++) {
		const struct sc_count *c = &d->counts[i];
		const char *labels[MUXBPF_SC_DEPTH + 1], *objs[MUXBPF_SC_DEPTH + 1];
		char files[MUXBPF_SC_DEPTH + 1][80];
		struct mb_sym sc[MUXBPF_SC_DEPTH + 1];
		const struct mb_rstack *st;
		uint32_t n;
		int k, ncmd;

		if (c->key.phase >= MUXBPF_MAX_PHASES || !sp->has[c->key.phase])
			continue;
		st = sc_count_stack(c, prof, res, run->ix);
		if (!st)
			continue;
		k = sc_sample_frames(d, &c->key, labels, objs, MUXBPF_SC_DEPTH + 1, &ncmd);
		for (int j = 0; j < k; j++) {
			memset(&sc[j], 0, sizeof(sc[j]));
			snprintf(files[j], sizeof(files[j]), "softcode:%s", objs[j] ? objs[j] : "?");
			sc[j].name = labels[j];
			sc[j].file = files[j];
			sc[j].file_rel = files[j];
			sc[j].build_id = "";
			/* frames intern by (file, offset, name): the name tells them apart */
			sc[j].offset = 0;
			sc[j].why = MB_NAMED;
		}
		if (st->n + k > cap) {
			struct mb_sym *g = realloc(buf, (st->n + k) * sizeof(*g));

			if (!g) {
				err = -ENOMEM;
				break;
			}
			buf = g;
			cap = st->n + k;
		}
		n = insert_frames(st, sc, ncmd, k, buf);
		err = sprof_add_sample(sp, c->key.phase, buf, n, c->count);
	}
	free(buf);
	return err;
}
