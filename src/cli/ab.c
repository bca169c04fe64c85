// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * muxbpf ab: the session (ab.h).  The method is bench/overhead.c's, which shows paired blocks
 * inside server processes reproducible to a few % where separate runs vary by up to 13%: both
 * games are up at once, and every phase runs in blocks alternating between A and B, so both
 * builds see the same host state in each round.
 *
 * Every round starts a fresh pair of games (two processes of one binary differ by a few % in
 * CPU per command, from their memory layouts: with one pair for the whole run that difference
 * would be a bias every round shares; with a pair per round it is part of the round-to-round
 * spread the statistics see).  Both get the phases in the canonical order, so the phases that
 * change state keep A and B doing the same work: create makes 1500 x scale objects in the
 * same fresh database, attrwrite writes the same 12 attributes on each, dump dumps the same
 * database, attrread reads it back; a set-up a phase needs when its predecessor is not asked
 * for (objects and attributes for dump and attrread) is done by the driver in both games,
 * outside every block.  boot and idle are not part of ab (boot is not a block of commands,
 * idle has none).
 *
 * Within a round the phase with index i runs under phase id i + 1 in both profilers; each
 * round's profile is symbolized and folded as soon as the round ends, per phase, for the
 * function and syscall deltas, and merged per phase for the artifacts.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "base/grow.h"
#include "cli/ab.h"
#include "loader/profiler.h"
#include "loader/collect.h"
#include "loader/collect_ledger.h"
#include "proc/drive.h"
#include "report/flame.h"
#include "fold/fold.h"
#include "proc/game.h"
#include "model/ledger.h"
#include "base/log.h"
#include "proc/maps.h"
#include "output/out.h"
#include "output/out_ab.h"
#include "output/out_pprof.h"
#include "output/out_folded.h"
#include "output/out_html.h"
#include "output/out_svg.h"
#include "base/phases.h"
#include "loader/preflight.h"
#include "proc/procstat.h"
#include "report/report.h"
#include "symbols/resolve.h"
#include "base/signals.h"
#include "session/reading.h"
#include "fold/sprof.h"
#include "symbols/symbolize.h"
#include "symbols/fnames.h"

#define BOOT_TIMEOUT_MS 20000
#define QUIESCE_TIMEOUT_MS 2000
#define AB_FN_KEEP 60 /* function rows kept per phase */

/* The phases ab runs, in the canonical order (the driver's set-ups assume it). */
static const unsigned int ab_order[] = {
	MUXBPF_PHASE_CREATE,	     MUXBPF_PHASE_ATTRWRITE,	  MUXBPF_PHASE_DUMP,
	MUXBPF_PHASE_ATTRREAD,	     MUXBPF_PHASE_DISPATCH,	  MUXBPF_PHASE_SOFTCODE_ARITH,
	MUXBPF_PHASE_SOFTCODE_LIST,
};
#define AB_NORDER (sizeof(ab_order) / sizeof(ab_order[0]))

/* One build's game, profiler and driver of the current round, and the readings around each of
 * its blocks (slot = the phase's index + 1). */
struct ab_side {
	int which;
	struct game *game;
	struct profiler *prof;
	struct driver *drv;
	pid_t pid;
	unsigned int slot; /* the phase id of the block running */
	struct reading before[MUXBPF_PHASE__COUNT + 1], after[MUXBPF_PHASE__COUNT + 1];
	struct sprof sp;   /* every round's samples, by netmux phase: the artifacts */
	struct icount *ic; /* --metric instructions: netmux's counter */
	double ins;        /* the last block's instructions */
	struct cg_profile cg; /* and its functions (callgrind) */
};

/* Per phase, what the rounds' profiles give: user samples per function, syscalls. */
struct fn_acc {
	char *name;
	double self[2][AB_MAX_ROUNDS], total[2][AB_MAX_ROUNDS];
};

struct fn_set {
	struct fn_acc *v;
	size_t n, cap;
};

#define AB_MAX_SYS 512

struct sys_acc {
	bool seen[AB_MAX_SYS];
	double cpu[AB_MAX_SYS][2][AB_MAX_ROUNDS], calls[AB_MAX_SYS][2][AB_MAX_ROUNDS];
};

struct ab_session {
	const struct ab_opts *o;
	struct ab_result *r;
	struct ab_side side[2];
	struct symbolizer *sym;
	struct fn_set fns[MUXBPF_PHASE__COUNT]; /* by the phase's index in o->phases */
	struct sys_acc *sys[MUXBPF_PHASE__COUNT];
	struct fnames names[2]; /* the functions each build's mapped objects define */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static const char *const side_name[2] = { "A", "B" };

/* ---- options ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: muxbpf ab [options] A B   (A, B: netmux binaries; the same twice: A/A)\n"
		"  --env-a VAR=VALUE   environment for A's netmux (repeatable), e.g. LD_PRELOAD=...\n"
		"  --env-b VAR=VALUE   the same for B\n"
		"  --game-a DIR        A's game template (default /usr/share/tinymux/game)\n"
		"  --game-b DIR        B's game template\n"
		"  --phase LIST        all, or a comma list of attrwrite, dump, attrread, dispatch,\n"
		"                      softcode_arith, softcode_list, create (default all; they run\n"
		"                      in that order)\n"
		"  --rounds N          paired rounds per phase (default %d, 8-%d)\n"
		"  --metric M          the verdict's measure: time (CPU per command, default) or\n"
		"                      instructions (user-mode instructions per command: a hardware\n"
		"                      counter, else netmux under callgrind; instructions:pmu or\n"
		"                      instructions:callgrind to choose); time stays beside it\n"
		"  --scale F           work per block relative to upstream's table (default 1)\n"
		"  --freq HZ           user-only sampling frequency (default 997)\n"
		"  --top N             rows per table in the text (default 10)\n"
		"  --out DIR           ab.txt (what is printed), ab.json, report.html (its page),\n"
		"                      PHASE.diff.svg, a/ and b/ (PHASE.folded, PHASE.svg,\n"
		"                      profile.pb.gz of each build)\n"
		"  --netmux-user USER  run both netmux as USER when muxbpf runs as root\n"
		"  -q, --quiet         no progress lines\n"
		"Exit status: 0 every phase same, 1 a phase faster or slower, 2 usage or failure.\n",
		AB_DEFAULT_ROUNDS, AB_MAX_ROUNDS);
}

static int add_env(struct ab_opts *o, int which, const char *v)
{
	if (!strchr(v, '=') || v[0] == '=') {
		pr_err("--env-%c wants VAR=VALUE, not %s", which ? 'b' : 'a', v);
		return -EINVAL;
	}
	if (o->nenv[which] == AB_MAX_ENV) {
		pr_err("at most %d --env-%c", AB_MAX_ENV, which ? 'b' : 'a');
		return -EINVAL;
	}
	o->env[which][o->nenv[which]++] = v;
	return 0;
}

static int parse_phases(struct ab_opts *o, const char *list)
{
	unsigned int got[MUXBPF_PHASE__COUNT];
	int n;

	if (!strcmp(list, "all")) { /* every phase ab can run */
		o->nphases = 0;
		for (size_t k = 0; k < AB_NORDER; k++)
			o->phases[o->nphases++] = ab_order[k];
		return 0;
	}
	n = phases_parse(list, got, MUXBPF_PHASE__COUNT);
	if (n <= 0)
		return -EINVAL;
	o->nphases = 0;
	for (size_t k = 0; k < AB_NORDER; k++)
		for (int i = 0; i < n; i++)
			if (got[i] == ab_order[k])
				o->phases[o->nphases++] = ab_order[k];
	for (int i = 0; i < n; i++)
		if (got[i] == MUXBPF_PHASE_BOOT || got[i] == MUXBPF_PHASE_IDLE) {
			pr_err("ab: %s is not a repeatable command phase (boot happens once per "
			       "server, idle has no commands)",
			       phase_name(got[i]));
			return -EINVAL;
		}
	return 0;
}

int ab_parse_phase_list(struct ab_opts *o, const char *list)
{
	return parse_phases(o, list);
}

int ab_parse_metric(const char *v, struct ab_opts *o)
{
	const char *colon = strchr(v, ':');
	size_t n = colon ? (size_t)(colon - v) : strlen(v);

	o->isrc = ICOUNT_AUTO;
	if (n == 4 && !strncmp(v, "time", 4) && !colon) {
		o->instructions = false;
		return 0;
	}
	if (n == 12 && !strncmp(v, "instructions", 12) &&
	    (!colon || (!icount_source_parse(colon + 1, &o->isrc) && o->isrc != ICOUNT_AUTO))) {
		o->instructions = true;
		return 0;
	}
	pr_err("invalid --metric %s (time, instructions, instructions:pmu, "
	       "instructions:callgrind)", v);
	return -EINVAL;
}

int ab_parse(int argc, char **argv, struct ab_opts *o)
{
	static const struct option lopts[] = {
		{ "env-a", required_argument, NULL, 'a' },  { "env-b", required_argument, NULL, 'b' },
		{ "game-a", required_argument, NULL, 'A' }, { "game-b", required_argument, NULL, 'B' },
		{ "phase", required_argument, NULL, 'p' },  { "rounds", required_argument, NULL, 'r' },
		{ "scale", required_argument, NULL, 's' },  { "freq", required_argument, NULL, 'f' },
		{ "top", required_argument, NULL, 't' },    { "out", required_argument, NULL, 'o' },
		{ "netmux-user", required_argument, NULL, 'u' },
		{ "metric", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },	    { "help", no_argument, NULL, 'h' },
		{},
	};
	char *end;
	int opt;

	memset(o, 0, sizeof(*o));
	o->scale = 1;
	o->freq = 997;
	o->rounds = AB_DEFAULT_ROUNDS;
	o->top = 10;
	for (size_t k = 0; k < AB_NORDER; k++)
		o->phases[o->nphases++] = ab_order[k];
	optind = 1;
	while ((opt = getopt_long(argc, argv, "qh", lopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
		case 'b':
			if (add_env(o, opt == 'b', optarg))
				return -EINVAL;
			break;
		case 'A':
			o->game[AB_A] = optarg;
			break;
		case 'B':
			o->game[AB_B] = optarg;
			break;
		case 'p':
			if (parse_phases(o, optarg))
				return -EINVAL;
			break;
		case 'r':
			o->rounds = (int)strtol(optarg, &end, 10);
			if (*end || o->rounds < 8 || o->rounds > AB_MAX_ROUNDS) {
				pr_err("--rounds wants 8 to %d (fewer rounds can never reach p < "
				       "0.01 with the signed-rank test)",
				       AB_MAX_ROUNDS);
				return -EINVAL;
			}
			break;
		case 's':
			o->scale_given = true;
			o->scale = strtod(optarg, &end);
			if (*end || !(o->scale > 0) || o->scale > 100) {
				pr_err("invalid --scale %s", optarg);
				return -EINVAL;
			}
			break;
		case 'f':
			o->freq = (int)strtol(optarg, &end, 10);
			if (*end || o->freq < 1 || o->freq > 100000) {
				pr_err("invalid --freq %s (1-100000)", optarg);
				return -EINVAL;
			}
			break;
		case 't':
			o->top = (int)strtol(optarg, &end, 10);
			if (*end || o->top < 1) {
				pr_err("invalid --top %s", optarg);
				return -EINVAL;
			}
			break;
		case 'o':
			o->out_dir = optarg;
			break;
		case 'u':
			o->netmux_user = optarg;
			break;
		case 'm':
			o->metric_given = true;
			if (ab_parse_metric(optarg, o))
				return -EINVAL;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (argc - optind != 2) {
		pr_err("ab wants two netmux binaries, A and B");
		usage(stderr);
		return -EINVAL;
	}
	o->netmux[AB_A] = argv[optind];
	o->netmux[AB_B] = argv[optind + 1];
	for (int s = 0; s < 2; s++)
		if (access(o->netmux[s], X_OK)) {
			pr_err("%s: %s", o->netmux[s], strerror(errno));
			return -EINVAL;
		}
	if (o->rounds * o->nphases > MUXBPF_MAX_PHASES - 1) {
		pr_err("--rounds %d x %d phases is more than the %d blocks one profile keeps apart",
		       o->rounds, o->nphases, MUXBPF_MAX_PHASES - 1);
		return -EINVAL;
	}
	return 0;
}

/* ---- the session ---- */

int ab_block_reading(struct profiler *p, pid_t pid, const char *who, struct reading *rd,
		     unsigned int phase)
{
	int err = procstat_wait_sleeping(pid, QUIESCE_TIMEOUT_MS);

	if (err == -ETIMEDOUT)
		pr_warn("%s's netmux still running %d ms after its last reply; reading anyway",
			who, QUIESCE_TIMEOUT_MS);
	else if (err)
		return err;
	/* the protocol of every session: the time, the switch, then the counters */
	return reading_collect(p, rd, phase);
}

static int hook_begin(void *ctx, unsigned int phase)
{
	struct ab_side *s = ctx;
	int err;

	(void)phase;
	/* callgrind's zero runs inside netmux: before the time reading, outside the block */
	err = s->ic ? icount__begin(s->ic) : 0;
	if (!err)
		err = ab_block_reading(s->prof, s->pid, side_name[s->which], &s->before[s->slot],
				       s->slot);
	return err;
}

static int hook_end(void *ctx, unsigned int phase)
{
	struct ab_side *s = ctx;
	int err = ab_block_reading(s->prof, s->pid, side_name[s->which], &s->after[s->slot],
				   MUXBPF_PHASE_NONE);

	(void)phase;
	if (err)
		profiler__set_phase(s->prof, MUXBPF_PHASE_NONE);
	/* and the dump after it */
	if (!err && s->ic) {
		cg_profile_free(&s->cg);
		err = icount__end(s->ic, &s->ins, &s->cg);
	}
	return err;
}

static const char *netmux_user(const struct ab_opts *o)
{
	if (o->netmux_user || geteuid() != 0)
		return o->netmux_user;
	return getpwnam("muxbpf") ? "muxbpf" : "nobody";
}

/* A fresh game for this round: paused, profiled from its exec, booted, logged in. */
static int side_start(struct ab_session *ss, int which)
{
	const struct ab_opts *o = ss->o;
	struct ab_side *s = &ss->side[which];
	struct game_opts gopts = { .netmux = o->netmux[which],
				   .template = o->game[which] ? o->game[which]
							      : MUXBPF_DEFAULT_TEMPLATE,
				   .user = netmux_user(o), .env = o->env[which],
				   .nenv = o->nenv[which] };
	struct profiler_opts aopts = { .freq = o->freq, .enable_on_exec = true,
				     .unwind = MUXBPF_UNWIND_AUTO, .exe = o->netmux[which] };
	struct drive_opts dopts = { .scale = o->scale, .chunk = 256, .timeout_ms = 30000,
				    .stop_fd = signals_fd() };
	bool cg = o->instructions && ss->r->isrc == ICOUNT_CALLGRIND;
	int err;

	if (cg) { /* callgrind runs netmux ~40x slower than native */
		gopts.wrap = icount_callgrind_wrap();
		dopts.timeout_ms = 600000;
	}
	s->which = which;
	s->game = game__new(&gopts);
	if (!s->game)
		return -errno;
	err = game__spawn_paused(s->game);
	if (err)
		return err;
	s->pid = game__pid(s->game);
	aopts.pid = s->pid;
	s->prof = profiler__new(&aopts);
	if (!s->prof)
		return -errno;
	if (o->instructions && ss->r->isrc == ICOUNT_PMU &&
	    !(s->ic = icount__new(ICOUNT_PMU, s->pid, NULL, NULL)))
		return -errno;
	err = game__release(s->game);
	if (!err)
		err = game__wait_ready(s->game, cg ? 10 * BOOT_TIMEOUT_MS : BOOT_TIMEOUT_MS);
	if (!err && cg && !(s->ic = icount__new(ICOUNT_CALLGRIND, s->pid, game__dir(s->game),
						netmux_user(o))))
		err = -errno;
	if (!err)
		err = game__check_loopback(s->game);
	if (err)
		return err;
	dopts.pidfd = game__pidfd(s->game);
	s->drv = driver__new(game__port(s->game), &dopts);
	if (!s->drv)
		return -errno;
	snprintf(ss->r->version[which], sizeof(ss->r->version[which]), "%s",
		 driver__version(s->drv));
	ss->r->pid[which] = s->pid;
	return 0;
}

/* @shutdown (SIGTERM after a signal or a failure), then free the round's game and profiler. */
static void side_stop(struct ab_side *s)
{
	bool asked = false;

	if (s->drv && s->game && !game__exited(s->game) && !signals_pending())
		asked = driver__shutdown(s->drv) == 0;
	driver__free(s->drv);
	s->drv = NULL;
	if (s->game)
		game__stop(s->game, asked ? 10000 : 0);
	profiler__free(s->prof);
	s->prof = NULL;
	icount__free(s->ic);
	s->ic = NULL;
	cg_profile_free(&s->cg);
	game__free(s->game);
	s->game = NULL;
	for (int i = 0; i <= MUXBPF_PHASE__COUNT; i++) {
		reading_free(&s->before[i]);
		reading_free(&s->after[i]);
	}
}

/* One block of phase on side which, under phase id slot. */
static struct fn_acc *fn_get(struct fn_set *fs, const char *name);

/* callgrind's functions of the block just run: instructions, self and inclusive. */
static int add_dump_functions(struct ab_session *ss, int w, int i, int round)
{
	const struct cg_profile *cg = &ss->side[w].cg;

	for (size_t k = 0; k < cg->n; k++) {
		struct fn_acc *f;

		if (!cg->fns[k].incl)
			continue;
		f = fn_get(&ss->fns[i], cg->fns[k].name);
		if (!f)
			return -ENOMEM;
		f->self[w][round] = (double)cg->fns[k].self;
		f->total[w][round] = (double)cg->fns[k].incl;
	}
	return 0;
}

static int run_block(struct ab_session *ss, int which, unsigned int phase, unsigned int slot,
		     int round, struct ab_block *out)
{
	struct ab_side *s = &ss->side[which];
	struct phase_hooks h = { .begin = hook_begin, .end = hook_end, .ctx = s };
	struct phase_result res;
	int err;

	s->slot = slot;
	err = driver__run(s->drv, &phase, 1, &h, &res);
	if (err) {
		pr_err("ab: %s's %s block failed: %s", side_name[which], phase_name(phase),
		       res.error);
		return err;
	}
	out->cmds = res.commands;
	out->wall_s = res.wall_s;
	out->cpu_ns = (double)rt_delta(&s->before[slot].rt, &s->after[slot].rt, s->pid);
	out->instructions = s->ins;
	return ss->r->fns_instr ? add_dump_functions(ss, which, (int)slot - 1, round) : 0;
}

static struct fn_acc *fn_get(struct fn_set *fs, const char *name)
{
	for (size_t i = fs->n; i-- > 0;)
		if (!strcmp(fs->v[i].name, name))
			return &fs->v[i];
	if (mb_grow((void **)&fs->v, &fs->cap, fs->n + 1, sizeof(*fs->v), 256))
		return NULL;
	memset(&fs->v[fs->n], 0, sizeof(fs->v[0]));
	fs->v[fs->n].name = strdup(name);
	return fs->v[fs->n].name ? &fs->v[fs->n++] : NULL;
}

/*
 * The round is over on side w (netmux still up: its mappings are read now): collect its
 * profile and ledger, symbolize, and keep per phase the functions' samples, the syscalls, and
 * the stacks for the artifacts.
 */
/* The functions of the objects w's netmux has mapped executable (its own, libraries, modules
 * it dlopened): a function of one build only is marked so (ab_fn.only_in). */
static int note_objects(struct ab_session *ss, int w, const struct mb_maps *maps)
{
	int err = 0;

	for (size_t k = 0; k < maps->n && err != -ENOMEM; k++) {
		const struct mb_mapping *m = &maps->v[k];
		size_t len;

		if (m->perms[2] == 'x' && m->path[0] == '/' && !maps__path_deleted(m->path, &len))
			err = fnames_add_file(&ss->names[w], m->path);
	}
	return err == -ENOMEM ? err : 0;
}

static int collect_round(struct ab_session *ss, int w, int round)
{
	static struct mb_maps by_phase[MUXBPF_MAX_PHASES];
	struct ab_side *s = &ss->side[w];
	double period_us = ss->r->period_ns / 1e3;
	struct mb_profile prof = {};
	struct mb_ledger_data led = {};
	struct mb_resolved res = {};
	struct mb_maps maps = {};
	bool ledger = profiler__has_ledger(s->prof);
	int err;

	profiler__pause(s->prof);
	err = maps__read(s->pid, &maps);
	if (!err)
		err = note_objects(ss, w, &maps);
	if (!err)
		err = collect_profile(s->prof, &prof);
	if (!err && ledger)
		err = collect_ledger(s->prof, &led);
	ss->r->ledger = ledger;
	if (!err)
		err = resolve_profile(ss->sym, by_phase, &maps, &prof, (uint32_t)s->pid, &res);
	for (int i = 0; !err && i < ss->o->nphases; i++) {
		unsigned int slot = (unsigned int)i + 1, ph = ss->o->phases[i];
		struct ab_phase *p = &ss->r->phases[i];
		struct fold_table t = {};
		struct fold_view *v;

		err = fold_phase(&prof, &res, slot, (uint32_t)s->pid, FOLD_VIEW(FOLD_BY_FUNCTION),
				 &t);
		if (err)
			break;
		(w ? &p->b[round] : &p->a[round])->samples = t.samples;
		v = &t.by[FOLD_BY_FUNCTION];
		/* under callgrind the samples are of valgrind's translations: functions from the
		 * dumps instead (run_block) */
		for (size_t k = 0; k < v->n && !ss->r->fns_instr; k++) {
			struct fn_acc *f = fn_get(&ss->fns[i], v->rows[k].name);

			if (!f) {
				err = -ENOMEM;
				break;
			}
			f->self[w][round] = v->rows[k].self * period_us;
			f->total[w][round] = v->rows[k].total * period_us;
		}
		fold_table__free(&t);
		if (!err && ledger) {
			struct mb_boundary from = { s->before[slot].t_ns, &s->before[slot].rt,
						    &s->before[slot].inflight };
			struct mb_boundary to = { s->after[slot].t_ns, &s->after[slot].rt,
						  &s->after[slot].inflight };
			struct sys_acc *y = ss->sys[i];
			struct phase_ledger l = {};

			err = ledger_build(&led, slot, (uint32_t)s->pid, &from, &to, &l);
			for (size_t k = 0; !err && k < l.nsys; k++) {
				uint32_t nr = l.sys[k].nr;

				if (nr >= AB_MAX_SYS)
					continue;
				y->seen[nr] = true;
				y->cpu[nr][w][round] = l.sys[k].cpu_ns / 1e3;
				y->calls[nr][w][round] = (double)l.sys[k].count;
			}
			phase_ledger__free(&l);
		}
		for (size_t k = 0; !err && k < prof.n; k++)
			if (prof.samples[k].phase == slot && prof.samples[k].pid == (uint32_t)s->pid)
				err = sprof_add_sample(&s->sp, ph, res.stacks[k].frames,
						       res.stacks[k].n, prof.samples[k].count);
	}
	s->sp.nruns = 1;
	if (err)
		pr_err("ab: failed to collect %s's profile: %s", side_name[w], strerror(-err));
	resolve_free(&res);
	profile__free(&prof);
	ledger_data__free(&led);
	maps__free(&maps);
	return err;
}

/*
 * Round after round, a fresh pair of servers: the difference between two processes of the
 * same binary (their memory layouts; up to 5% on these machines) is then part of the
 * round-to-round spread the statistics see, not a bias every round shares.
 */
static int run_rounds(struct ab_session *ss)
{
	const struct ab_opts *o = ss->o;
	struct ab_result *r = ss->r;
	int err = 0;

	r->nphases = o->nphases;
	for (int i = 0; i < o->nphases; i++)
		r->phases[i].phase = o->phases[i];
	for (int k = 0; k < o->rounds && !err; k++) {
		double t0 = now_ns();

		/* which game starts first alternates too (it may get the quieter CPU, or memory) */
		for (int j = 0; j < 2 && !err; j++)
			if (!o->one_side || (k % 2 ? 1 - j : j) == AB_A)
				err = side_start(ss, k % 2 ? 1 - j : j);
		for (int i = 0; i < o->nphases && !err; i++) {
			struct ab_phase *p = &r->phases[i];
			bool b_first = (k + i) % 2;

			p->b_first[k] = b_first;
			for (int j = 0; j < 2 && !err; j++) {
				int w = b_first ? 1 - j : j;

				if (o->one_side && w == AB_B)
					continue;
				err = run_block(ss, w, p->phase, (unsigned int)i + 1, k,
						w ? &p->b[k] : &p->a[k]);
			}
			if (!err && signals_pending())
				err = -EINTR;
		}
		for (int w = 0; w < (o->one_side ? 1 : 2) && !err; w++)
			err = collect_round(ss, w, k);
		for (int w = 0; w < 2; w++)
			side_stop(&ss->side[w]);
		if (err)
			break;
		for (int i = 0; i < o->nphases; i++)
			r->phases[i].rounds = k + 1;
		if (!o->quiet)
			fprintf(stderr, "muxbpf ab: round %d/%d in %.1f s\n", k + 1, o->rounds,
				(now_ns() - t0) / 1e9);
	}
	return err;
}

/* ---- analysis ---- */

static double fabs_max(const struct ab_fn *f)
{
	return fmax(fabs(f->self.delta), fabs(f->total.delta));
}

static int cmp_fn(const void *x, const void *y)
{
	const struct ab_fn *a = x, *b = y;
	double da = fabs(a->self.delta), db = fabs(b->self.delta);

	if (da != db)
		return da < db ? 1 : -1;
	da = fabs(a->total.delta);
	db = fabs(b->total.delta);
	return da < db ? 1 : da > db ? -1 : strcmp(a->name, b->name);
}

static int cmp_fn_max(const void *x, const void *y)
{
	double da = fabs_max(x), db = fabs_max(y);

	return da < db ? 1 : da > db ? -1 : 0;
}

static int cmp_sys(const void *x, const void *y)
{
	const struct ab_sys *a = x, *b = y;
	double da = fabs(a->cpu.delta), db = fabs(b->cpu.delta);

	return da < db ? 1 : da > db ? -1 : strcmp(a->name, b->name);
}

static void weights(const struct ab_phase *p, double *wa, double *wb)
{
	for (int k = 0; k < p->rounds; k++) {
		wa[k] = (double)p->a[k].cmds;
		wb[k] = (double)p->b[k].cmds;
	}
}

/* AB_ONLY_A or AB_ONLY_B when one build's objects define the function and the other's do not;
 * AB_ONLY_NONE otherwise (in both, or a name no symbol table holds: an inlined function, a
 * bracketed bucket). */
static int only_in(const struct ab_session *ss, const char *name)
{
	bool a = fnames_has(&ss->names[AB_A], name), b = fnames_has(&ss->names[AB_B], name);

	if (ss->o->one_side || a == b)
		return AB_ONLY_NONE;
	return a ? AB_ONLY_A : AB_ONLY_B;
}

static int analyze_functions(struct ab_session *ss, int i)
{
	struct ab_phase *p = &ss->r->phases[i];
	struct fn_set *fs = &ss->fns[i];
	double wa[AB_MAX_ROUNDS], wb[AB_MAX_ROUNDS];
	int err = 0;

	weights(p, wa, wb);
	if (fs->n && !(p->fns = calloc(fs->n, sizeof(*p->fns))))
		return -ENOMEM;
	for (size_t k = 0; !err && k < fs->n; k++) {
		struct ab_fn *f = &p->fns[p->nfns++];

		f->name = fs->v[k].name;
		fs->v[k].name = NULL;
		f->only_in = only_in(ss, f->name);
		err = stats_delta_compare(fs->v[k].self[0], fs->v[k].self[1], wa, wb, p->rounds,
					  NULL, &f->self) ?:
		      stats_delta_compare(fs->v[k].total[0], fs->v[k].total[1], wa, wb, p->rounds,
					  NULL, &f->total);
	}
	/* the largest differences by self or total, then in the order of self */
	qsort(p->fns, p->nfns, sizeof(*p->fns), cmp_fn_max);
	while (p->nfns > (ss->o->one_side ? 4 * AB_FN_KEEP : AB_FN_KEEP))
		free(p->fns[--p->nfns].name);
	qsort(p->fns, p->nfns, sizeof(*p->fns), cmp_fn);
	return err;
}

static int analyze_syscalls(struct ab_session *ss, int i)
{
	struct ab_phase *p = &ss->r->phases[i];
	struct sys_acc *y = ss->sys[i];
	double wa[AB_MAX_ROUNDS], wb[AB_MAX_ROUNDS];
	size_t n = 0;
	int err = 0;

	weights(p, wa, wb);
	for (uint32_t nr = 0; nr < AB_MAX_SYS; nr++)
		n += y->seen[nr];
	if (!n)
		return 0;
	p->sys = calloc(n, sizeof(*p->sys));
	if (!p->sys)
		return -ENOMEM;
	for (uint32_t nr = 0; nr < AB_MAX_SYS && !err; nr++) {
		struct ab_sys *q = &p->sys[p->nsys];

		if (!y->seen[nr])
			continue;
		q->name = syscall_name(nr);
		err = stats_delta_compare(y->cpu[nr][0], y->cpu[nr][1], wa, wb, p->rounds, NULL,
					  &q->cpu) ?:
		      stats_delta_compare(y->calls[nr][0], y->calls[nr][1], wa, wb, p->rounds,
					  NULL, &q->calls);
		p->nsys++;
	}
	qsort(p->sys, p->nsys, sizeof(*p->sys), cmp_sys);
	return err;
}

static int analyze(struct ab_session *ss)
{
	const struct stats_ab_opts instr_opts = { .min_effect = AB_INSTR_MIN_EFFECT };
	struct ab_result *r = ss->r;
	int err = 0;

	for (int i = 0; i < r->nphases && !err; i++) {
		struct ab_phase *p = &r->phases[i];

		if (!p->rounds)
			continue;
		for (int k = 0; k < p->rounds; k++) {
			p->a_us[k] = p->a[k].cmds ? p->a[k].cpu_ns / 1e3 / p->a[k].cmds : 0;
			p->b_us[k] = p->b[k].cmds ? p->b[k].cpu_ns / 1e3 / p->b[k].cmds : 0;
			p->a_ins[k] = p->a[k].cmds ? p->a[k].instructions / p->a[k].cmds : 0;
			p->b_ins[k] = p->b[k].cmds ? p->b[k].instructions / p->b[k].cmds : 0;
		}
		if (ss->o->one_side) /* the gate: no comparison, only A's figures */
			err = 0;
		else if (ss->o->instructions)
			err = stats_ab_compare(p->a_ins, p->b_ins, p->rounds, &instr_opts,
					       &p->cmp) ?:
			      stats_ab_compare(p->a_us, p->b_us, p->rounds, NULL, &p->cmp_time);
		else
			err = stats_ab_compare(p->a_us, p->b_us, p->rounds, NULL, &p->cmp);
		if (!err)
			err = analyze_functions(ss, i);
		if (!err && r->ledger)
			err = analyze_syscalls(ss, i);
	}
	return err;
}

/* ---- artifacts ---- */

static FILE *open_out(const char *dir, const char *sub, const char *name, char *path, size_t n)
{
	FILE *f;

	snprintf(path, n, "%s%s%s/%s", dir, sub ? "/" : "", sub ? sub : "", name);
	f = fopen(path, "we");
	if (!f)
		pr_err("failed to create %s: %s", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path, int err)
{
	if (ferror(f) && !err)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (err)
		pr_err("failed to write %s: %s", path, strerror(-err));
	return err;
}

/* B's stacks as values, A's as the baseline, both in µs of CPU per command. */
static int diff_flame(struct flame *t, const struct ab_session *ss, const struct ab_phase *p)
{
	const char *names[MUXBPF_MAX_STACK_DEPTH + 2];
	uint8_t kinds[MUXBPF_MAX_STACK_DEPTH + 2];
	int err = flame_init(t, "all");

	for (int w = 1; w >= 0 && !err; w--) {
		const struct sprof *sp = &ss->side[w].sp;
		const struct sp_phase *sph = sp->has[p->phase] ? &sp->phases[p->phase] : NULL;
		double cmds = 0, unit;

		for (int k = 0; k < p->rounds; k++)
			cmds += (double)(w ? p->b[k].cmds : p->a[k].cmds);
		unit = cmds > 0 ? sprof_period_ns(sp) / 1e3 / cmds : 0;
		for (size_t i = 0; sph && i < sph->nstacks && !err; i++) {
			const struct sp_stack *s = &sph->stacks[i];
			size_t n = 0;

			for (uint32_t f = s->nr; f-- > 0;) {
				const struct sp_frame *fr = &sp->frames[s->frames[f]];

				names[n] = fr->label;
				kinds[n++] = fr->name ? FLAME_USER : FLAME_UNNAMED;
			}
			err = flame_add(t, names, kinds, n, w ? s->count * unit : 0,
					w ? 0 : s->count * unit);
		}
	}
	if (!err)
		flame_layout(t);
	if (!err)
		flame_figures(t, 1);
	return err;
}

static int write_side(const struct ab_session *ss, int w)
{
	const char *dir = ss->o->out_dir, *sub = w ? "b" : "a";
	const struct ab_side *s = &ss->side[w];
	struct report *rep; /* hundreds of KiB: on the heap, not the stack */
	char path[4096], name[128];
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	err = out_mkdir_p(path);
	if (err) {
		pr_err("failed to create %s: %s", path, strerror(-err));
		return err;
	}
	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	rep->target = ss->o->netmux[w];
	rep->version = ss->r->version[w];
	rep->stacks = &s->sp;
	for (int i = 0; i < ss->r->nphases && !err; i++) {
		unsigned int ph = ss->r->phases[i].phase;
		const struct sp_phase *sph = s->sp.has[ph] ? &s->sp.phases[ph] : NULL;
		struct svg_opts so = { .unit = "samples", .unit_ns = sprof_period_ns(&s->sp) };
		struct flame t;
		char title[256];
		FILE *f;

		if (!sph)
			continue;
		snprintf(name, sizeof(name), "%s.folded", phase_name(ph));
		f = open_out(dir, sub, name, path, sizeof(path));
		if (!f) {
			err = -errno;
			break;
		}
		err = close_out(f, path, folded_write(f, rep, sph));
		if (err)
			break;
		snprintf(name, sizeof(name), "%s.svg", phase_name(ph));
		snprintf(title, sizeof(title), "%s (%s): %s, every round", side_name[w],
			 ss->o->netmux[w], phase_name(ph));
		so.title = title;
		err = flame_from_phase(&t, &s->sp, sph, false);
		if (!err) {
			flame_layout(&t);
			flame_figures(&t, 1); /* every round: the shares' Wilson intervals alone */
			f = open_out(dir, sub, name, path, sizeof(path));
			err = f ? close_out(f, path, svg_write(f, &t, &so)) : -errno;
		}
		flame_free(&t);
	}
	if (!err) {
		snprintf(path, sizeof(path), "%s/%s/profile.pb.gz", dir, sub);
		err = pprof_write(path, rep);
	}
	free(rep);
	return err;
}

static int w_ab_json(FILE *f, const void *r, const void *unused1, const void *unused2)
{
	(void)unused1;
	(void)unused2;
	return ab_json_write(f, r);
}

static int write_artifacts(const struct ab_session *ss)
{
	const char *dir = ss->o->out_dir;
	static const char *const page_files[] = { "ab.txt", "ab.json", "a/profile.pb.gz",
						  "b/profile.pb.gz" };
	char path[4096], name[128], page_path[4096];
	FILE *page = NULL;
	int err = out_mkdir_p(dir);

	for (int w = 0; w < 2 && !err; w++)
		err = write_side(ss, w);
	/* report.html: ab.json's page, each differential graph inline as it is written */
	if (!err) {
		page = open_out(dir, NULL, "report.html", page_path, sizeof(page_path));
		err = page ? 0 : -errno;
	}
	if (!err) {
		html_begin(page, "muxbpf ab");
		err = html_data(page, "ab", page_files, 4, w_ab_json, ss->r, NULL, NULL);
		html_flames_begin(page);
	}
	for (int i = 0; i < ss->r->nphases && !err; i++) {
		const struct ab_phase *p = &ss->r->phases[i];
		struct svg_opts so = { .unit = "us/cmd", .diff = true, .diff_abs = true };
		char title[256], sub[256];
		struct flame t;
		FILE *f;

		snprintf(title, sizeof(title), "%s: B against A, CPU per command (widths: B)",
			 phase_name(p->phase));
		snprintf(sub, sizeof(sub),
			 "red: B spends more, blue: B spends less; B/A %.3f [%.3f, %.3f], %s",
			 p->cmp.ratio, p->cmp.ci_low, p->cmp.ci_high,
			 stats_verdict_name(p->cmp.verdict));
		so.title = title;
		so.subtitle = sub;
		err = diff_flame(&t, ss, p);
		snprintf(name, sizeof(name), "%s.diff.svg", phase_name(p->phase));
		if (!err) {
			f = open_out(dir, NULL, name, path, sizeof(path));
			err = f ? close_out(f, path, svg_write(f, &t, &so)) : -errno;
		}
		if (!err) {
			char prefix[64];

			snprintf(prefix, sizeof(prefix), "%s-", phase_name(p->phase));
			so.embed = true;
			so.id_prefix = prefix;
			html_flame_begin(page, phase_name(p->phase));
			err = svg_write(page, &t, &so);
			html_flame_end(page);
		}
		flame_free(&t);
	}
	if (page && err) {
		fclose(page);
		unlink(page_path);
	} else if (page) {
		err = close_out(page, page_path, html_end(page));
	}
	if (!err) {
		FILE *f = open_out(dir, NULL, "ab.json", path, sizeof(path));

		err = f ? close_out(f, path, ab_json_write(f, ss->r)) : -errno;
	}
	if (!err) { /* what is printed, also as a file */
		FILE *f = open_out(dir, NULL, "ab.txt", path, sizeof(path));

		if (f)
			ab_text_write(f, ss->r);
		err = f ? close_out(f, path, 0) : -errno;
	}
	return err;
}

int ab_run(const struct ab_opts *o, struct ab_result *r)
{
	static struct ab_session ss;
	double t0 = now_ns();
	int err;

	memset(&ss, 0, sizeof(ss));
	ss.o = o;
	ss.r = r;
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->period_ns = 1e9 / o->freq;
	for (int w = 0; w < 2; w++)
		sprof_init(&ss.side[w].sp, o->freq);
	ss.sym = symbolizer__new();
	err = ss.sym ? 0 : -ENOMEM;
	for (int i = 0; i < o->nphases && !err; i++)
		if (!(ss.sys[i] = calloc(1, sizeof(*ss.sys[i]))))
			err = -ENOMEM;
	if (!err)
		err = preflight_bpf();
	if (!err && o->instructions) {
		err = icount_probe(o->isrc, &r->isrc, r->isrc_why, sizeof(r->isrc_why));
		if (err)
			pr_err("ab: --metric instructions: %s", r->isrc_why);
		r->fns_instr = r->isrc == ICOUNT_CALLGRIND;
		if (!err && !o->quiet)
			fprintf(stderr, "muxbpf ab: instructions from %s\n", r->isrc_why);
	}
	if (!err)
		err = run_rounds(&ss);
	for (int w = 0; w < 2; w++)
		fnames_done(&ss.names[w]);
	if (!err)
		err = analyze(&ss);
	r->wall_s = (now_ns() - t0) / 1e9;
	if (!err && o->out_dir)
		err = write_artifacts(&ss);
	for (int w = 0; w < 2; w++) {
		side_stop(&ss.side[w]);
		sprof_free(&ss.side[w].sp);
	}
	for (int i = 0; i < o->nphases; i++) {
		for (size_t k = 0; k < ss.fns[i].n; k++)
			free(ss.fns[i].v[k].name);
		free(ss.fns[i].v);
		free(ss.sys[i]);
	}
	symbolizer__free(ss.sym);
	for (int w = 0; w < 2; w++)
		fnames_free(&ss.names[w]);
	return err;
}

void ab_result_free(struct ab_result *r)
{
	for (int i = 0; i < r->nphases; i++) {
		for (size_t k = 0; k < r->phases[i].nfns; k++)
			free(r->phases[i].fns[k].name);
		free(r->phases[i].fns);
		free(r->phases[i].sys);
	}
	memset(r, 0, sizeof(*r));
}

int ab_main(int argc, char **argv)
{
	static struct ab_result r;
	struct ab_opts o;
	int err = ab_parse(argc, argv, &o), differ = 0;

	if (err)
		return err > 0 ? 0 : 2;
	err = signals_install();
	if (err) {
		pr_err("failed to install signal handlers: %s", strerror(-err));
		return 2;
	}
	if (o.out_dir && (err = out_mkdir_p(o.out_dir))) {
		pr_err("cannot write to the --out directory %s: %s", o.out_dir, strerror(-err));
		return 2;
	}
	err = ab_run(&o, &r);
	if (err) {
		if (err != -EINTR)
			pr_err("ab: run failed: %s", strerror(-err));
		ab_result_free(&r);
		return signals_pending() ? signals_exit_code(signals_pending()) : 2;
	}
	ab_text_write(stdout, &r);
	for (int i = 0; i < r.nphases; i++)
		differ |= r.phases[i].cmp.verdict != STATS_SAME;
	ab_result_free(&r);
	return differ ? 1 : 0;
}
