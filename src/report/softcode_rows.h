/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The softcode views' rows per phase (pure): by command label and by softcode path. */
#ifndef MUXBPF_SOFTCODE_ROWS_H
#define MUXBPF_SOFTCODE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/stats.h"
#include "loader/softcode_data.h"

struct sc_row {
	char *label;
	uint64_t samples;
	uint64_t runs;    /* exact mode: commands started */
	uint64_t in_ns;   /* exact mode: task clock inside process_command, less probe_ns */
	uint64_t probe_hits; /* exact mode: our u() probe hits inside (muxbpf_sc_time_val.hits) */
	uint64_t segments;   /* exact mode: its timed segments (muxbpf_sc_time_val.segs) */
	/* their cost, removed from in_ns: probe_hits x hit_ns + segments x ends.inside_ns */
	uint64_t probe_ns;
	uint64_t clock_ns; /* in_ns + its share of the time between commands (by commands started) */
	uint64_t cpu_ns;  /* exact mode: clock_ns scaled to the phase's on-CPU (see sc_rows) */
};

struct sc_rows {
	struct sc_row *v; /* by exact on-CPU (or samples), descending */
	size_t n;
	uint64_t samples; /* all of the phase's command-thread samples */
	/*
	 * The task clock also counts the context-switch path (~12 us per switch in this kind of
	 * VM) that the kernel's runtime accounting leaves out: under preemption the segments add
	 * up to more than the phase's exact on-CPU.  cpu_ns = clock_ns * scale, where scale =
	 * on-CPU / the sum of clock_ns, so that the rows share out the kernel's exact runtime.
	 */
	double scale;
	uint64_t between_ns; /* task clock between commands (shared out into clock_ns) */
};

/* Rows of phase by command label; oncpu_ns: the phase's exact on-CPU (0: no scaling).
 * 0 or -ENOMEM. */
int sc_command_rows(const struct sc_data *d, unsigned int phase, uint64_t oncpu_ns,
		    struct sc_rows *out);
/*
 * A row's CPU per command in ns, cpu_ns / runs (exact mode), with an interval from the samples:
 * the samples see the row's CPU as share x the phase's on-CPU, so each side of share's interval
 * times oncpu_ns / runs is moved onto the exact value (lo kept >= 0).  Invalid without runs or
 * a valid share.
 */
void sc_cpu_per_cmd_ci(const struct sc_row *row, const struct stats_ci *share, uint64_t oncpu_ns,
		       struct stats_ci *out);
/*
 * Row label's intervals from the phase's batches, cum[0..nb) its command rows at each batch's
 * end (cumulative; the last the report's own).  share: the wider of Wilson and the t interval
 * of its share between the batches (rounds_share_ci; *from: the batches' was the wider).  us:
 * ns per command, the t interval of its exact CPU over its runs between the batches (the ratio
 * of sums, centred on the report's cpu_ns / runs); invalid without runs in 2 batches.  nb < 2:
 * both invalid.
 */
void sc_row_batches_ci(const struct sc_rows *cum, int nb, const char *label,
		       struct stats_ci *share, bool *from, struct stats_ci *us);
/* Rows of phase by softcode path ("CMD > FN > FN"); samples only.  0 or -ENOMEM. */
int sc_path_rows(const struct sc_data *d, unsigned int phase, struct sc_rows *out);
void sc_rows__free(struct sc_rows *r);

/* The softcode frames of one sample key, outermost first: the command's frame (when it is a
 * $-command: *ncmd = 1, else 0) and its u() frames.  Returns how many were written (<= max). */
int sc_sample_frames(const struct sc_data *d, const struct muxbpf_sc_sample_key *k,
		     const char **labels, const char **objs, int max, int *ncmd);

#endif /* MUXBPF_SOFTCODE_ROWS_H */
