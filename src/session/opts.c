// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/log.h"
#include "fold/fold.h"
#include "session/opts.h"
#include "base/phases.h"
#include "fold/rounds.h"
#include "loader/syscall_hook.h"

#ifndef MUXBPF_DEFAULT_NETMUX
#define MUXBPF_DEFAULT_NETMUX "netmux"
#endif
#ifndef MUXBPF_DEFAULT_TEMPLATE
#define MUXBPF_DEFAULT_TEMPLATE "/usr/share/tinymux/game"
#endif
#define MUXBPF_VERSION "0.1"
/* Where make install puts the default target, relative to the installed sbin/muxbpf. */
#define MUXBPF_INSTALLED_NETMUX "../lib/muxbpf/netmux/netmux"

/* muxbpf run --help, muxbpf attach --help: every option (muxbpf --help: by task, cli/main.c) */
static const char usage[] =
	"usage: muxbpf run [options] [live options]   (run: the same as no subcommand)\n"
	"       muxbpf attach (--pid PID | --port PORT | --name NAME) [live options] [options]\n"
	"Profile a throwaway netmux phase by phase with BPF, or attach to a running process.\n"
	"(muxbpf --help: the commands by task; muxbpf ab|gate|diff --help: theirs.)\n"
	"\n"
	"Live options (attach, and run after its driven phases):\n"
	"  --pid PID           attach: the process to profile (any process, netmux or not)\n"
	"  --port PORT         attach: the process listening on TCP port PORT\n"
	"  --name NAME         attach: the one process named NAME (comm or argv[0])\n"
	"  --control PATH      phases marked from outside: a Unix socket muxbpf creates at PATH,\n"
	"                      or fifo:CTL[,ACK] (FIFOs); commands phase NAME, end, stop,\n"
	"                      status, ping, one reply line each (see doc/live.md)\n"
	"  --interval S        consecutive phases of S seconds, named t+0s, t+Ss, ...\n"
	"  --duration S        end the run after S seconds (default: at stop or SIGINT)\n"
	"  --bpf-stats         BPF run-time statistics all through the run (default: a short\n"
	"                      calibration window at the start; the cost line is then estimated\n"
	"                      from the programs' own run counts); the cost line shows both\n"
	"  --no-bpf-stats      no BPF run-time statistics, not even the calibration window: the\n"
	"                      cost line gives run counts only\n"
	"  (run: --phase none drives nothing; the control channel opens once netmux is up)\n"
	"\n"
	"  --phase LIST        phases to measure: all, or a comma list of boot, create,\n"
	"                      attrwrite, dump, attrread, idle, dispatch, softcode_arith,\n"
	"                      softcode_list (run in that order; default all)\n"
	"  --scale F           work per phase relative to upstream's table (default 1)\n"
	"  --idle-seconds S    length of the idle phase (default 8)\n"
	"  --freq HZ           user-only sampling frequency, 1-100000 (default 997)\n"
	"  --fixed-period      sample on the kernel's fixed period (default: a random period\n"
	"                      re-drawn every few ms, which cannot lock step with periodic work)\n"
	"  --max-phase-seconds S  a phase whose work repeats (attrread, dispatch, softcode_*)\n"
	"                      runs it in rounds until its top rows are within +-1 point, or\n"
	"                      until another round would end after S seconds (default 20;\n"
	"                      0: one round)\n"
	"  --top N             rows listed per phase and view (default 15)\n"
	"  --by LIST           the report's tables: a comma list of function (inlined functions\n"
	"                      as frames of their own), srcfile, line, dso (default function);\n"
	"                      command (CPU by player command: verb or $-command) and softcode\n"
	"                      (softcode frames: $-commands and u() attributes) on netmux with\n"
	"                      DWARF (see doc/softcode.md)\n"
	"  --exact-commands    --by command: exact on-CPU per command (uprobes on\n"
	"                      process_command: two hits per command, 1-12 us by machine;\n"
	"                      their cost is measured and left out: opt-in)\n"
	"  --login TEXT        how the softcode views log in to name objects and $-commands\n"
	"                      (run: \"connect wizard potrzebie\"; attach: none, names from\n"
	"                      netmux's memory)\n"
	"  --min-pct P         list only rows with at least P% self samples (default 0)\n"
	"  --debug-dir DIR     look for separate debuginfo in DIR (.build-id/xx/yyyy.debug or\n"
	"                      the .gnu_debuglink name) before /usr/lib/debug; repeatable\n"
	"  --netmux PATH       netmux binary (default: the embedded target: make install's copy\n"
	"                      next to this binary, else the one make netmux built)\n"
	"  --game DIR          game template: alias.conf, compat.conf, data/netmux.db, text/\n"
	"                      (default " MUXBPF_DEFAULT_TEMPLATE ")\n"
	"  --keep              keep the game directory and print its path\n"
	"  --netmux-user USER  run netmux as USER when muxbpf runs as root (default: muxbpf if\n"
	"                      that user exists, else nobody; root: no switch)\n"
	"  --port N            loopback port for netmux (default: a free one)\n"
	"  --max-drop-pct P    fail when a phase drops more than P% of its samples (default:\n"
	"                      warn above 1%)\n"
	"  --max-stacks N      entries per stack map (default 16384)\n"
	"  --max-samples N     sample counters: {phase, thread, stack} keys (default 65536)\n"
	"  --no-profile        drive the phases without attaching BPF (baseline runs)\n"
	"  --unwind MODE       user stacks: fp (frame pointers), dwarf (CFI only), auto (CFI,\n"
	"                      frame pointers where a mapping has none; default auto)\n"
	"  --no-syscalls       sampler and runtime only: no syscall/scheduler ledger\n"
	"  --site-every N      take the user call site of 1 syscall in N (default 32;\n"
	"                      1: every call, 0: none)\n"
	"  --syscall-hook H    the ledger's syscall hook: auto (fentry/fexit on x64_sys_call\n"
	"                      where the kernel allows it, else tracepoints), fentry, tracepoint\n"
	"  --out DIR           also write the artifacts into DIR: report.txt, report.json,\n"
	"                      PHASE.folded, PHASE.svg, profile.pb.gz, speedscope.json,\n"
	"                      report.html (one self-contained page of it all)\n"
	"  --runs N            repeat the whole run N times (fresh game each time), report\n"
	"                      min/median/max and spread per phase, merge the profiles\n"
	"  --full              the whole report on the terminal, as report.txt has it\n"
	"                      (default: a summary: the phase and rounds tables, per phase\n"
	"                      its top 10 rows, top 5 syscalls, ledger and cost lines)\n"
	"  -q, --quiet         no progress line and no artifact summary\n"
	"  -v, --verbose       more messages (twice: libbpf debug output)\n"
	"  -h, --help          this text\n"
	"  -V, --version       print the version\n";

enum { OPT_PHASE = 256, OPT_SCALE, OPT_IDLE, OPT_FREQ, OPT_TOP, OPT_NETMUX, OPT_GAME, OPT_KEEP,
       OPT_NO_PROFILE, OPT_UNWIND, OPT_NO_SYSCALLS, OPT_SITE_EVERY, OPT_NETMUX_USER, OPT_PORT, OPT_MAX_DROP,
       OPT_MAX_STACKS, OPT_MAX_SAMPLES, OPT_BY, OPT_MIN_PCT, OPT_DEBUG_DIR };

/* --out, --runs (the artifacts' options) */
enum { OPT_OUT = 512, OPT_RUNS };

/* sampling and statistics */
enum { OPT_FIXED_PERIOD = 1024, OPT_MAX_PHASE_SECONDS };

/* attach mode and phases marked from outside (src/live.c) */
enum { OPT_PID = 768, OPT_NAME, OPT_CONTROL, OPT_INTERVAL, OPT_DURATION, OPT_NO_BPF_STATS,
       OPT_BPF_STATS };

/* the softcode views (src/softcode.c) */
enum { OPT_EXACT_COMMANDS = 1280, OPT_LOGIN };

/* the ledger's hook */
enum { OPT_SYSCALL_HOOK = 1536 };
/* the terminal report */
enum { OPT_FULL = 1537 };

static const struct option longopts[] = {
	{ "phase", required_argument, NULL, OPT_PHASE },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "idle-seconds", required_argument, NULL, OPT_IDLE },
	{ "freq", required_argument, NULL, OPT_FREQ },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "netmux", required_argument, NULL, OPT_NETMUX },
	{ "game", required_argument, NULL, OPT_GAME },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "no-profile", no_argument, NULL, OPT_NO_PROFILE },
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "no-syscalls", no_argument, NULL, OPT_NO_SYSCALLS },
	{ "site-every", required_argument, NULL, OPT_SITE_EVERY },
	{ "syscall-hook", required_argument, NULL, OPT_SYSCALL_HOOK },
	{ "netmux-user", required_argument, NULL, OPT_NETMUX_USER },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "max-drop-pct", required_argument, NULL, OPT_MAX_DROP },
	{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
	{ "max-samples", required_argument, NULL, OPT_MAX_SAMPLES },
	{ "by", required_argument, NULL, OPT_BY },
	{ "min-pct", required_argument, NULL, OPT_MIN_PCT },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "runs", required_argument, NULL, OPT_RUNS },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "no-bpf-stats", no_argument, NULL, OPT_NO_BPF_STATS },
	{ "bpf-stats", no_argument, NULL, OPT_BPF_STATS },
	{ "fixed-period", no_argument, NULL, OPT_FIXED_PERIOD },
	{ "max-phase-seconds", required_argument, NULL, OPT_MAX_PHASE_SECONDS },
	{ "exact-commands", no_argument, NULL, OPT_EXACT_COMMANDS },
	{ "login", required_argument, NULL, OPT_LOGIN },
	{ "full", no_argument, NULL, OPT_FULL },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{},
};

static int parse_double(const char *name, const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max) {
		pr_err("invalid %s '%s' (expected a number from %g to %g)", name, s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_int(const char *name, const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		pr_err("invalid %s '%s' (expected a whole number from %ld to %ld)", name, s, min,
		       max);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

static int parse_one(int c, const char *arg, struct opts *o)
{
	int n;

	switch (c) {
	case OPT_PHASE:
		o->phase_given = true;
		if (!strcmp(arg, "none")) { /* live phases only (--control, --interval) */
			o->nphases = 0;
			return 0;
		}
		n = phases_parse(arg, o->phases, MUXBPF_PHASE__COUNT);
		if (n < 0)
			return n;
		o->nphases = n;
		return 0;
	case OPT_SCALE:
		if (parse_double("--scale", arg, 0.0001, 1000, &o->scale))
			return -EINVAL;
		return 0;
	case OPT_IDLE:
		return parse_double("--idle-seconds", arg, 0, 86400, &o->idle_seconds);
	case OPT_FREQ:
		return parse_int("--freq", arg, 1, 100000, &o->freq);
	case OPT_TOP:
		return parse_int("--top", arg, 1, 100000, &o->top);
	case OPT_NETMUX:
		o->netmux = arg;
		return 0;
	case OPT_GAME:
		o->game = arg;
		return 0;
	case OPT_KEEP:
		o->keep = true;
		return 0;
	case OPT_NO_PROFILE:
		o->no_profile = true;
		return 0;
	case OPT_UNWIND:
		if (!strcmp(arg, "fp"))
			o->unwind = MUXBPF_UNWIND_FP;
		else if (!strcmp(arg, "dwarf"))
			o->unwind = MUXBPF_UNWIND_DWARF;
		else if (!strcmp(arg, "auto"))
			o->unwind = MUXBPF_UNWIND_AUTO;
		else {
			pr_err("invalid --unwind '%s' (expected fp, dwarf or auto)", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_NO_SYSCALLS:
		o->no_syscalls = true;
		return 0;
	case OPT_SITE_EVERY:
		if (parse_int("--site-every", arg, 0, 1000000, &o->site_every))
			return -EINVAL;
		if (o->site_every == 0)
			o->site_every = -1;
		return 0;
	case OPT_SYSCALL_HOOK:
		o->syscall_hook = syscall_hook_parse(arg);
		if (o->syscall_hook < 0) {
			pr_err("invalid --syscall-hook '%s' (expected auto, fentry or tracepoint)",
			       arg);
			return -EINVAL;
		}
		return 0;
	case OPT_NETMUX_USER:
		if (!*arg) {
			pr_err("invalid --netmux-user '' (expected a user name or uid)");
			return -EINVAL;
		}
		o->netmux_user = arg;
		return 0;
	case OPT_PORT:
		return parse_int("--port", arg, 1, 65535, &o->port);
	case OPT_MAX_DROP:
		return parse_double("--max-drop-pct", arg, 0, 100, &o->max_drop_pct);
	case OPT_MAX_STACKS:
		return parse_int("--max-stacks", arg, 16, 16777216, &o->max_stacks);
	case OPT_MAX_SAMPLES:
		return parse_int("--max-samples", arg, 16, 16777216, &o->max_samples);
	case OPT_BY:
		if (fold_by_parse(arg, &o->by)) {
			pr_err("invalid --by '%s' (expected a comma list of function, srcfile, line, "
			       "dso, command, softcode)", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_MIN_PCT:
		return parse_double("--min-pct", arg, 0, 100, &o->min_pct);
	case OPT_DEBUG_DIR:
		if (!*arg || o->ndebug_dirs == (int)(sizeof(o->debug_dirs) / sizeof(o->debug_dirs[0]))) {
			pr_err("invalid --debug-dir '%s' (an empty name, or more than %zu)", arg,
			       sizeof(o->debug_dirs) / sizeof(o->debug_dirs[0]));
			return -EINVAL;
		}
		o->debug_dirs[o->ndebug_dirs++] = arg;
		return 0;
	case OPT_OUT:
		o->out_dir = arg;
		return 0;
	case OPT_RUNS:
		return parse_int("--runs", arg, 1, 100, &o->runs);
	case OPT_PID:
		return parse_int("--pid", arg, 1, 0x7fffffff, &o->attach_pid);
	case OPT_NAME:
		if (!*arg) {
			pr_err("invalid --name '' (expected a process name)");
			return -EINVAL;
		}
		o->attach_name = arg;
		return 0;
	case OPT_CONTROL:
		if (!*arg) {
			pr_err("invalid --control '' (expected a path or fifo:CTL[,ACK])");
			return -EINVAL;
		}
		o->control = arg;
		return 0;
	case OPT_INTERVAL:
		return parse_double("--interval", arg, 0.1, 86400 * 365, &o->interval);
	case OPT_DURATION:
		return parse_double("--duration", arg, 0.1, 86400 * 365, &o->duration);
	case OPT_NO_BPF_STATS:
		o->no_bpf_stats = true;
		return 0;
	case OPT_BPF_STATS:
		o->bpf_stats = true;
		return 0;
	case OPT_FIXED_PERIOD:
		o->fixed_period = true;
		return 0;
	case OPT_MAX_PHASE_SECONDS:
		o->max_phase_given = true;
		return parse_double("--max-phase-seconds", arg, 0, 86400, &o->max_phase_seconds);
	case OPT_EXACT_COMMANDS:
		o->exact_commands = true;
		return 0;
	case OPT_LOGIN:
		o->login = arg;
		return 0;
	case OPT_FULL:
		o->full = true;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case 'v':
		log_level++;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The live options' combinations (attach mode, --control, --interval, --duration). */
static int check_live(struct opts *o)
{
	int targets = (o->attach_pid > 0) + (o->port > 0) + (o->attach_name != NULL);
	bool live = o->control || o->interval > 0 || o->duration > 0;

	if (o->interval > 0 && o->control) {
		pr_err("choose --interval or --control: both name the phases");
		return -EINVAL;
	}
	if (!o->attach) {
		if (o->attach_pid || o->attach_name) {
			pr_err("--pid and --name choose a process for 'muxbpf attach'");
			return -EINVAL;
		}
		if (live && o->runs > 1) {
			pr_err("--control, --interval and --duration run once: not with --runs");
			return -EINVAL;
		}
		if (!live && !o->nphases) {
			pr_err("--phase none needs --control, --interval or --duration (nothing to "
			       "measure otherwise)");
			return -EINVAL;
		}
		return 0;
	}
	if (targets != 1) {
		pr_err("muxbpf attach needs exactly one of --pid, --port, --name");
		return -EINVAL;
	}
	/* attach drives no phase: nothing repeats in rounds, the windows are --interval's */
	if (o->runs > 1 || o->no_profile || o->phase_given || o->keep || o->max_phase_given) {
		pr_err("muxbpf attach profiles a running process: --runs, --no-profile, --phase, "
		       "--keep and --max-phase-seconds do not apply");
		return -EINVAL;
	}
	return 0;
}

/*
 * The default target: an installed muxbpf's own copy (make install puts it in
 * $(PREFIX)/lib/muxbpf/netmux/, beside the sbin/ this binary runs from), else the build tree's,
 * whose path is compiled in.  So an installed muxbpf needs neither the clone nor --netmux.
 */
static const char *default_netmux(void)
{
	static char path[PATH_MAX];
	char exe[PATH_MAX], rel[PATH_MAX + sizeof(MUXBPF_INSTALLED_NETMUX)];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (path[0])
		return path;
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(rel, sizeof(rel), "%s/" MUXBPF_INSTALLED_NETMUX, exe);
			if (!access(rel, X_OK) && realpath(rel, path))
				return path;
		}
	}
	path[0] = '\0';
	return MUXBPF_DEFAULT_NETMUX;
}

int opts_parse(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->scale = 1;
	o->idle_seconds = 8;
	o->max_phase_seconds = ROUNDS_DEFAULT_MAX_SECONDS;
	o->freq = 997;
	o->top = 15;
	o->by = FOLD_VIEW(FOLD_BY_FUNCTION);
	o->unwind = MUXBPF_UNWIND_AUTO;
	o->runs = 1;
	o->max_drop_pct = -1;
	o->netmux = default_netmux();
	o->game = MUXBPF_DEFAULT_TEMPLATE;
	o->nphases = phases_parse("all", o->phases, MUXBPF_PHASE__COUNT);
	optind = 1;
	if (argc > 1 && (!strcmp(argv[1], "attach") || !strcmp(argv[1], "run"))) {
		o->attach = !strcmp(argv[1], "attach");
		optind = 2;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vhVq", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 1;
		}
		if (c == 'V') {
			printf("muxbpf %s\n", MUXBPF_VERSION);
			return 1;
		}
		if (c == '?') {
			pr_err("unknown option '%s' (see --help)", argv[optind - 1]);
			return -EINVAL;
		}
		if (c == ':') {
			pr_err("option '%s' needs a value", argv[optind - 1]);
			return -EINVAL;
		}
		if (parse_one(c, optarg, o))
			return -EINVAL;
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see --help)", argv[optind]);
		return -EINVAL;
	}
	if (o->bpf_stats && o->no_bpf_stats) {
		pr_err("choose --bpf-stats or --no-bpf-stats, not both");
		return -EINVAL;
	}
	return check_live(o);
}
