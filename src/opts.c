// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "opts.h"
#include "phases.h"

#ifndef MUXBPF_DEFAULT_NETMUX
#define MUXBPF_DEFAULT_NETMUX "netmux"
#endif
#ifndef MUXBPF_DEFAULT_TEMPLATE
#define MUXBPF_DEFAULT_TEMPLATE "/usr/share/tinymux/game"
#endif
#define MUXBPF_VERSION "0.1"

static const char usage[] =
	"usage: muxbpf [options]\n"
	"Profile a throwaway netmux phase by phase with BPF.\n"
	"\n"
	"  --phase LIST        phases to measure: all, or a comma list of boot, create,\n"
	"                      attrwrite, dump, attrread, idle, dispatch, softcode_arith,\n"
	"                      softcode_list (run in that order; default all)\n"
	"  --scale F           work per phase relative to upstream's table (default 1)\n"
	"  --idle-seconds S    length of the idle phase (default 8)\n"
	"  --freq HZ           user-only sampling frequency, 1-100000 (default 997)\n"
	"  --top N             functions listed per phase (default 15)\n"
	"  --netmux PATH       netmux binary (default: the embedded target built by make netmux)\n"
	"  --game DIR          game template: alias.conf, compat.conf, data/netmux.db, text/\n"
	"                      (default " MUXBPF_DEFAULT_TEMPLATE ")\n"
	"  --keep              keep the game directory and print its path\n"
	"  --no-profile        drive the phases without attaching BPF (baseline runs)\n"
	"  --unwind MODE       user stacks: fp (frame pointers), dwarf (CFI only), auto (CFI,\n"
	"                      frame pointers where a mapping has none; default auto)\n"
	"  --no-syscalls       sampler and runtime only: no syscall/scheduler ledger\n"
	"  -v, --verbose       more messages (twice: libbpf debug output)\n"
	"  -h, --help          this text\n"
	"  -V, --version       print the version\n";

enum { OPT_PHASE = 256, OPT_SCALE, OPT_IDLE, OPT_FREQ, OPT_TOP, OPT_NETMUX, OPT_GAME, OPT_KEEP,
       OPT_NO_PROFILE, OPT_UNWIND, OPT_NO_SYSCALLS };

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
	case 'v':
		log_level++;
		return 0;
	default:
		return -EINVAL;
	}
}

int opts_parse(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->scale = 1;
	o->idle_seconds = 8;
	o->freq = 997;
	o->top = 15;
	o->unwind = MUXBPF_UNWIND_AUTO;
	o->netmux = MUXBPF_DEFAULT_NETMUX;
	o->game = MUXBPF_DEFAULT_TEMPLATE;
	o->nphases = phases_parse("all", o->phases, MUXBPF_PHASE__COUNT);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vhV", longopts, NULL)) != -1) {
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
	return 0;
}
