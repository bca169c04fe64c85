// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The pipeline after the command line: run -> assemble -> report and artifacts -> checks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/assemble.h"
#include "report/flame.h"
#include "base/clock.h"
#include "session/live.h"
#include "base/log.h"
#include "output/out.h"
#include "cli/pipeline.h"
#include "base/progress.h"
#include "session/reading.h"
#include "report/report.h"
#include "session/run.h"
#include "report/runs.h"
#include "base/signals.h"
#include "fold/sprof.h"

/* One run (a throwaway game, or muxbpf attach): report, artifacts, checks.  The exit code. */
int pipeline_one(const struct opts *o)
{
	/* struct run and struct report are hundreds of KiB: on the heap, not the stack */
	struct run *run = calloc(1, sizeof(*run));
	struct report *report = calloc(1, sizeof(*report));
	int err, rerr, problems, oerr = 0, sig;
	double t_run, t_built;
	struct sprof sp;

	if (!run || !report) {
		pr_err("failed to start the run: %s", strerror(ENOMEM));
		free(run);
		free(report);
		return 1;
	}
	sprof_init(&sp, o->freq);
	/* attach: a running process, phases marked from outside (src/session/live.c) */
	err = o->attach ? live_session(o, run) : run_session(o, run);
	progress_clear();
	if (run->stopped[0])
		pr_err("%s", run->stopped);
	if (!run->pid || !run->nwindows) { /* nothing measured: no report */
		run__free(run);
		sig = run->signal;
		free(run);
		free(report);
		return sig ? signals_exit_code(sig) : 1;
	}
	/* a second signal from here on abandons the report: nothing else is left to clean */
	signals_set_stage("the report (symbolization)");
	t_run = mono_ms();
	rerr = build_report(report, o, run, o->out_dir ? &sp : NULL);
	if (!rerr)
		rerr = report_flames(report); /* with --out: the artifacts' flame graphs */
	t_built = mono_ms();
	if (rerr)
		pr_err("failed to build the report: %s", strerror(-rerr));
	else
		oerr = out_report(o, report, NULL);
	/* bench/posttime.sh reads this line: where the time after the last phase goes */
	pr_verbose("timing: after the last phase: session closed +%.1f ms (collection, @shutdown, "
		   "netmux exit, cleanup), report built +%.1f ms, printed%s +%.1f ms",
		   t_run - run->windows[run->nwindows - 1].after.t_ns / 1e6,
		   t_built - run->windows[run->nwindows - 1].after.t_ns / 1e6,
		   o->out_dir ? " and artifacts written" : "",
		   mono_ms() - run->windows[run->nwindows - 1].after.t_ns / 1e6);
	problems = rerr ? 1 : report_check(report) + (oerr != 0);
	if (err && !run->stopped[0])
		pr_err("run incomplete: %s", strerror(-err));
	report_free(report);
	sprof_free(&sp);
	run__free(run);
	sig = run->signal;
	free(run);
	free(report);
	/* attach mode ends on a signal by design: the report is its result */
	if (!o->attach && (sig || signals_pending()))
		return signals_exit_code(sig ? sig : signals_pending());
	return err || problems ? 1 : 0;
}

/* --runs N: N whole runs, each on a fresh game, merged into one report with the spread. */
int pipeline_many(const struct opts *o)
{
	struct run *runs = calloc(o->runs, sizeof(*runs));
	struct report *reports = calloc(o->runs, sizeof(*reports));
	struct runs_summary *rs = calloc(1, sizeof(*rs));
	struct report *merged = calloc(1, sizeof(*merged));
	int n = 0, err = 0, problems = 0, sig = 0;
	struct sprof sp;

	if (!runs || !reports || !rs || !merged) {
		pr_err("failed to start %d runs: %s", o->runs, strerror(ENOMEM));
		free(runs);
		free(reports);
		free(rs);
		free(merged);
		return 1;
	}
	sprof_init(&sp, o->freq);
	for (int k = 0; k < o->runs; k++) {
		progress_run(k + 1);
		err = run_session(o, &runs[k]);
		progress_clear();
		if (runs[k].stopped[0])
			pr_err("run %d: %s", k + 1, runs[k].stopped);
		if (err || runs[k].signal) {
			if (!runs[k].stopped[0])
				pr_err("run %d incomplete: %s", k + 1, strerror(err ? -err : EINTR));
			sig = runs[k].signal;
			run__free(&runs[k]);
			break;
		}
		err = build_report(&reports[k], o, &runs[k], o->out_dir ? &sp : NULL);
		if (err) {
			pr_err("run %d: failed to build the report: %s", k + 1, strerror(-err));
			report_free(&reports[k]);
			run__free(&runs[k]);
			break;
		}
		n++;
		if (signals_pending())
			break;
	}
	if (n) {
		int merr = runs_merge(merged, reports, n, rs);
		/* with --out: the flame graphs of every run's stacks */
		int ferr = merr ? 0 : report_flames(merged);

		if (merr || ferr) {
			pr_err("failed to %s: %s", merr ? "merge the runs" : "build the flame graphs",
			       strerror(-(merr ? merr : ferr)));
			problems++;
		} else {
			problems += out_report(o, merged, rs) != 0;
			problems += report_check(merged);
		}
		report_free(merged);
	}
	for (int k = 0; k < n; k++) {
		report_free(&reports[k]);
		run__free(&runs[k]);
	}
	sprof_free(&sp);
	free(runs);
	free(reports);
	free(rs);
	free(merged);
	if (sig || signals_pending())
		return signals_exit_code(sig ? sig : signals_pending());
	return err || n < o->runs || problems ? 1 : 0;
}
