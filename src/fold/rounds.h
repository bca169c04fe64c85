/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A phase run in rounds: when to stop, the intervals the rounds give, and whether the rounds
 * agree.  Pure: the input is the phase's samples folded at the end of each batch of rounds,
 * cumulative from the window's start (the last one is the report's own fold), so a batch's
 * count of a row is the difference of two tables.  Unit-tested in tests/test_rounds.c.
 *
 * Why the rounds: the samples of one window are not independent (work that repeats in blocks
 * of a millisecond or so, a sampler that could lock step with it), so the binomial interval of
 * a share can be too narrow.  Rounds of the same work are independent units: the spread of a
 * share between them holds whatever the correlation inside a round.
 */
#ifndef MUXBPF_ROUNDS_H
#define MUXBPF_ROUNDS_H

#include <stdbool.h>
#include <stdint.h>
#include "fold/fold.h"
#include "model/ledger.h"
#include "base/stats.h"

/* Why a window ran the rounds it did. */
enum round_stop {
	ROUND_STOP_ONCE = 0,   /* the phase's work does not repeat unchanged: one round */
	ROUND_STOP_PRECISE,    /* the top rows' intervals are within ROUNDS_HALF_PCT */
	ROUND_STOP_CAP,	       /* --max-phase-seconds: another round would end after it */
	ROUND_STOP_LIMIT,      /* ROUNDS_MAX batches */
	ROUND_STOP_SINGLE,     /* --max-phase-seconds 0: one round asked for */
	ROUND_STOP_UNPROFILED, /* --no-profile: no samples to judge the precision by */
	ROUND_STOP_CUT,	       /* the window stopped inside a round (signal, failure) */
	ROUND_STOP__COUNT,
};

/*
 * The statistics' units are batches of whole rounds, each at least ROUNDS_BATCH_S long: a round
 * of a small --scale lasts milliseconds, and reading the maps after each would cost more than
 * the round.  At scale 1 every batch is one round.
 */
#define ROUNDS_BATCH_S 0.5
#define ROUNDS_MAX 100	    /* batches per window at most */
/* Batch means inside the one round of a phase that does not repeat: batches of 0.25 s, used
 * from 4 on (with 2 or 3 the t quantile, 12.7 or 4.3, swamps what the spread says). */
#define ROUNDS_INROUND_BATCH_S 0.25
#define ROUNDS_MIN_BATCH_MEANS 4
#define ROUNDS_MIN 2	    /* batches before the precision rule applies (a spread needs two) */
#define ROUNDS_TOP 10	    /* the rows the precision rule and the homogeneity test look at */
#define ROUNDS_HALF_PCT 1.0 /* the precision rule: every top row within +- this many points */
#define ROUNDS_DEFAULT_MAX_SECONDS 20.0 /* --max-phase-seconds' default */
/* The homogeneity test calls the batches inconsistent below this p and above this dispersion
 * (chi-square over its degrees of freedom: the variance as a multiple of the binomial one). */
#define ROUNDS_LOCKSTEP_P 1e-3
#define ROUNDS_LOCKSTEP_DISPERSION 2.0

/* "once", "precise", "time cap", ... (short, for tables and report.json). */
const char *round_stop_name(enum round_stop stop);

/*
 * Row name's count in each of r batches (k) and each batch's samples (n), from the cumulative
 * tables cum[0..r): self samples, or total (total = true), in view by.  A row missing from a
 * table counts 0 there.
 */
void rounds_row_counts(const struct fold_table *const *cum, int r, enum fold_by by,
		       const char *name, bool total, uint64_t *k, uint64_t *n);

/*
 * The interval a share is printed with: the wider of the Wilson interval on the pooled samples
 * (sum k / sum n) and, from 2 batches on, the t interval from the spread between the batches
 * (stats_ratio_rounds), centred on the pooled share.  *from_rounds (may be NULL) tells which.
 */
void rounds_share_ci(const uint64_t *k, const uint64_t *n, int r, struct stats_ci *out,
		     bool *from_rounds);

/*
 * rounds_share_ci() for every row of cum[r - 1]->by[by] (self, or total), into out[i] and
 * from_rounds[i] (may be NULL) for its row i.  0 or -ENOMEM.
 */
int rounds_rows_ci(const struct fold_table *const *cum, int r, enum fold_by by, bool total,
		   struct stats_ci *out, bool *from_rounds);

/*
 * The same from r tables of one batch each (the runs of --runs), for the rows of view rows (a
 * table merged from them, by view by): out[i] and from_rounds[i] for rows->rows[i].
 */
int rounds_rows_ci_batches(const struct fold_table *const *t, int r, const struct fold_view *rows,
			   enum fold_by by, bool total, struct stats_ci *out, bool *from_rounds);

/* One syscall in one batch: its on-CPU and wall time and its calls, and the phase's on-CPU. */
struct rounds_sys_batch {
	double cpu_ns, wall_ns, calls, phase_ns;
};

/*
 * Syscall nr in each of r batches, from the ledger's rows cumulative from the window's start at
 * each batch's end (cum[j], ncum[j] rows) and each batch's on-CPU (phase_ns[j], per batch).  A
 * row missing from a mark counts 0 there; a figure that falls counts as no change.
 */
void rounds_sys_batches(const struct ledger_sys_row *const *cum, const size_t *ncum,
			const uint64_t *phase_ns, int r, uint32_t nr, struct rounds_sys_batch *out);

/*
 * A syscall's share of the phase's on-CPU (sum cpu / sum phase, a fraction) and its wall us per
 * call (sum wall / sum calls), each with the ratio estimator's t interval over the r batches
 * (stats_ratio_rounds): the batches are the independent units, so it holds however the calls
 * of a batch are correlated (bursts, calls that wait on one another), where an interval that
 * takes each call as independent is too narrow.  us_per_call rests on the batches with calls
 * only.  Fewer than 2 batches (with calls, for us_per_call): invalid, lo = hi = the value.
 * A share above 1 (stolen time inside calls) is invalid too.
 */
void rounds_sys_ci(const struct rounds_sys_batch *b, int r, struct stats_ci *share,
		   struct stats_ci *us_per_call);

struct round_rule {
	enum fold_by by; /* the view whose top rows must be precise (the report's first) */
	int top;	 /* its top rows by self (ROUNDS_TOP) */
	double half;	 /* the half-width they must reach, as a fraction (0.01) */
	int min_rounds;	 /* batches before the rule applies (ROUNDS_MIN) */
	int max_rounds;	 /* batches at most (ROUNDS_MAX) */
	double cap_s;	 /* --max-phase-seconds */
};

/*
 * After round rounds, elapsed_s since the window began, with the cumulative tables
 * cum[0..units) of the batches so far (units 0: no batch ended at this round): 0 to run another
 * round, or why to stop: ROUND_STOP_CAP (another round of the mean length would end after
 * cap_s), _LIMIT (max_rounds batches), _PRECISE (from min_rounds batches on, every top row
 * within half).
 */
int rounds_decide(const struct fold_table *const *cum, int units, const struct round_rule *rule,
		  double elapsed_s, unsigned int rounds);

/* The widest interval among the top rows' self shares after r batches (a fraction; 1 when there
 * are no samples, or no row of view by has any: an empty view is never precise): what
 * rounds_decide compares with rule->half. */
double rounds_top_half(const struct fold_table *const *cum, int r, enum fold_by by, int top);

/* The view the precision rule asks for: the first C++ view of the --by mask views, by function
 * without one (--by command,softcode). */
enum fold_by rounds_rule_view(unsigned int views);
/*
 * The view the rule judges in table t: want when it has a row with self samples, else the
 * function view (a view with no rows, such as a line view of objects without DWARF, has no
 * interval to judge).
 */
enum fold_by rounds_judged_view(const struct fold_table *t, enum fold_by want);

/*
 * The phase's batch design factor (stats_design_factor) over the top rows (at most top, by self,
 * with samples) of view v, whose printed self intervals are ci[i] (rounds_rows_ci's) and whose
 * Wilson intervals come from the phase's samples: the factor the figures without batches of
 * their own (the flame graphs' frames, --by command) widen Wilson by.  1 without such rows.
 */
double rounds_design_factor(const struct fold_view *v, uint64_t samples,
			    const struct stats_ci *ci, int top);

/* Do the batches agree?  A chi-square homogeneity test of the top rows (and the rest) across
 * the batches. */
struct rounds_homog {
	bool valid;	   /* enough rows and batches with expected counts of 5 or more */
	int rows, cols;	   /* the table tested (rows of the view, batches) */
	double chi2;	   /* Pearson's statistic */
	int df;		   /* (rows - 1) (cols - 1) */
	double p;	   /* P(chi-square(df) >= chi2) */
	double dispersion; /* chi2 / df: 1 for binomial noise */
	bool inconsistent; /* p < ROUNDS_LOCKSTEP_P and dispersion > ROUNDS_LOCKSTEP_DISPERSION */
};

/* Rows (at most top, by self in view by) whose expected count is 5 or more in every batch are
 * tested, the rest of the samples as one more row when it qualifies too. */
void rounds_homogeneity(const struct fold_table *const *cum, int r, enum fold_by by, int top,
			struct rounds_homog *out);

#endif /* MUXBPF_ROUNDS_H */
