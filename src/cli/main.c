// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * muxbpf: profile netmux phase by phase from BPF maps.
 *
 * The pipeline (pipeline.c): options -> run (a throwaway game: run.c; a live process: live.c —
 * start or find it, attach, drive or wait, collect) -> assemble (symbolize, fold, ledgers:
 * assemble.c) -> report and artifacts (out_text.c, out*.c).  `muxbpf diff` compares two
 * report.json files (diff.c).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "cli/ab.h"
#include "output/diff.h"
#include "cli/gate.h"
#include "base/log.h"
#include "session/opts.h"
#include "output/out.h"
#include "cli/pipeline.h"
#include "base/progress.h"
#include "base/signals.h"

int main(int argc, char **argv)
{
	struct opts o;
	int err;

	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "ab"))
		return ab_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "gate"))
		return gate_main(argc - 1, argv + 1);
	err = opts_parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	err = signals_install();
	if (err) {
		pr_err("failed to install signal handlers: %s", strerror(-err));
		return 1;
	}
	/* the results must have somewhere to go before netmux starts */
	if (o.out_dir && !(err = out_mkdir_p(o.out_dir)) && access(o.out_dir, W_OK | X_OK))
		err = -errno;
	if (o.out_dir && err) {
		pr_err("cannot write to the --out directory %s: %s", o.out_dir, strerror(-err));
		return 1;
	}
	progress_init(!o.quiet, o.nphases, o.runs);
	return o.runs > 1 ? pipeline_many(&o) : pipeline_one(&o);
}
