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
#include <stdbool.h>
#include <stdio.h>
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

/* muxbpf --help: the commands and the few options each job needs. */
static const char tasks[] =
	"usage: muxbpf [run] [options]        profile a throwaway netmux, phase by phase\n"
	"       muxbpf attach (--pid PID | --port PORT | --name NAME) [options]\n"
	"                                     profile a running game (or any process)\n"
	"       muxbpf ab [options] A B       compare two netmux builds (A/B; A A: A/A)\n"
	"       muxbpf gate save|check FILE [options] NETMUX   a baseline for CI\n"
	"       muxbpf diff OLD NEW [options] compare two runs' report.json\n"
	"       muxbpf COMMAND --help         every option of run, attach, ab, gate or diff\n"
	"\n"
	"Profile a throwaway game (run):\n"
	"  --phase LIST        all (default), or a comma list of boot, create, attrwrite,\n"
	"                      dump, attrread, idle, dispatch, softcode_arith, softcode_list\n"
	"  --scale F           work per phase relative to upstream's table (default 1)\n"
	"  --netmux PATH       the netmux to run (default: the one make netmux built)\n"
	"\n"
	"Attach to a live game (attach):\n"
	"  --pid PID, --port PORT, --name NAME   the process\n"
	"  --interval S        consecutive phases of S seconds\n"
	"  --control PATH      phases marked from outside (a Unix socket muxbpf creates)\n"
	"  --duration S        end after S seconds (default: at stop or a signal)\n"
	"  --by command,softcode  CPU by player command and by softcode frame\n"
	"\n"
	"Both:\n"
	"  --out DIR           also write report.txt, report.json, report.html (the page),\n"
	"                      flame graphs, profile.pb.gz (pprof), speedscope.json\n"
	"  --full              the whole report on the terminal (default: a summary)\n"
	"  --by LIST           views: function (default), srcfile, line, dso\n"
	"  --top N             rows per phase and view in the whole report (default 15)\n"
	"  -q, --quiet         no progress line and no artifact summary\n"
	"\n"
	"Compare two builds (ab A B):\n"
	"  --phase LIST        the phases (default all driven ones)\n"
	"  --rounds N          paired rounds per phase (default 10)\n"
	"  --metric M          time (CPU per command, default) or instructions\n"
	"  --out DIR           ab.txt, ab.json, report.html, differential flame graphs\n"
	"\n"
	"Everywhere: -v, --verbose (more messages); -h, --help; -V, --version.\n"
	"Reference: man muxbpf (doc/muxbpf.8); README.md and doc/ for the method.\n";

static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int main(int argc, char **argv)
{
	struct opts o;
	int err;

	if (argc == 2 && is_help(argv[1])) {
		fputs(tasks, stdout);
		return 0;
	}
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
