// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * drive.c: the reply checker on transcripts recorded from netmux 2.12 (tests/transcripts/),
 * split at every byte, with telnet IAC bytes anywhere; then, when netmux is built, every phase
 * against a real game at a small scale (MUXBPF_DRIVE_SCALE and MUXBPF_DRIVE_IDLE override it and
 * print cmd/s and netmux's CPU/wall per phase).
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "testutil.h"
#include "proc/drive.h"
#include "proc/game.h"
#include "base/phases.h"

struct buf {
	char *p;
	size_t n;
};

/* A transcript, from the repository root or next to BUILD/tests/test_drive. */
static FILE *open_transcript(const char *name)
{
	char exe[256], path[320];
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "tests/transcripts/%s", name);
	f = fopen(path, "rb");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (f || n <= 0)
		return f;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(path, sizeof(path), "%s/../../tests/transcripts/%s", exe, name);
	return fopen(path, "rb");
}

static struct buf load(const char *name)
{
	struct buf b = {};
	FILE *f = open_transcript(name);

	if (!f)
		fail_msg("transcript %s not found (run from the repository root)", name);
	fseek(f, 0, SEEK_END);
	b.n = ftell(f);
	rewind(f);
	b.p = malloc(b.n + 1);
	assert_non_null(b.p);
	assert_int_equal(fread(b.p, 1, b.n, f), b.n);
	fclose(f);
	return b;
}

/* The chunks a transcript answers: first command, count, sentinel. */
struct chunk_spec {
	uint64_t first;
	int n;
	const char *sentinel;
};

static char *const look_lines[] = {
	"Auxiliary Room(#11RF)",
	"Contents:",
	"Places_function_object(#10s)",
	"SGP - Global Parent Object(#4s)",
};

static struct reply_check *checker(unsigned int phase, int nobj, const struct chunk_spec *c)
{
	struct reply_check *rc = reply_check__new();

	assert_non_null(rc);
	assert_int_equal(reply_check__phase(rc, phase, nobj), 0);
	if (phase == MUXBPF_PHASE_DISPATCH)
		assert_int_equal(reply_check__set_look(rc, look_lines, 4), 0);
	for (; c->sentinel; c++)
		assert_int_equal(reply_check__expect(rc, c->first, c->n, c->sentinel), 0);
	return rc;
}

/* Feed b in two reads split at `at` (or byte by byte when at == SIZE_MAX). */
static int feed_split(struct reply_check *rc, const struct buf *b, size_t at)
{
	int err = 0;

	if (at == SIZE_MAX) {
		for (size_t i = 0; i < b->n && !err; i++)
			err = reply_check__feed(rc, b->p + i, 1);
		return err;
	}
	return reply_check__feed(rc, b->p, at) ?: reply_check__feed(rc, b->p + at, b->n - at);
}

/* The transcript checks out however the reads split it, sentinels included. */
static void expect_good(const char *name, unsigned int phase, int nobj,
			const struct chunk_spec *chunks, uint64_t replies)
{
	struct buf b = load(name);

	for (size_t at = 0; at <= b.n + 1; at++) {
		struct reply_check *rc = checker(phase, nobj, chunks);
		int err = feed_split(rc, &b, at == b.n + 1 ? SIZE_MAX : at);

		if (err)
			fail_msg("%s split at %zu: %s", name, at, reply_check__error(rc));
		assert_int_equal(reply_check__pending(rc), 0);
		assert_int_equal(reply_check__replies(rc), replies);
		reply_check__free(rc);
	}
	free(b.p);
}

/* The transcript fails with an error that contains each of the fragments. */
static void expect_bad(const struct buf *b, unsigned int phase, int nobj,
		       const struct chunk_spec *chunks, const char *const *frags)
{
	struct reply_check *rc = checker(phase, nobj, chunks);
	const char *err;

	assert_int_equal(reply_check__feed(rc, b->p, b->n), -EBADMSG);
	err = reply_check__error(rc);
	assert_non_null(err);
	for (; *frags; frags++)
		if (!strstr(err, *frags))
			fail_msg("error '%s' lacks '%s'", err, *frags);
	/* sticky: more input does not clear it */
	assert_int_equal(reply_check__feed(rc, "45\r\n", 4), -EBADMSG);
	reply_check__free(rc);
}

/* ---- good transcripts -------------------------------------------------------------------- */

static void test_login_banner_iac(void **state)
{
	struct buf b = load("login.raw");
	struct reply_check *rc =
		checker(MUXBPF_PHASE_NONE, 0, (struct chunk_spec[]){ { 0, 0, "SENT0" }, {} });

	(void)state;
	assert_int_equal((unsigned char)b.p[0], 0xff);
	assert_int_equal(reply_check__feed(rc, b.p, b.n), 0);
	assert_int_equal(reply_check__pending(rc), 0);
	/* the IAC negotiation in front of the banner is gone, the text intact */
	assert_string_equal(reply_check__line(rc, 0), "Welcome to TinyMUX");
	reply_check__free(rc);
	free(b.p);
	expect_good("login.raw", MUXBPF_PHASE_NONE, 0,
		    (struct chunk_spec[]){ { 0, 0, "SENT0" }, {} }, 0);
}

static void test_create(void **state)
{
	(void)state;
	expect_good("create.raw", MUXBPF_PHASE_CREATE, 0,
		    (struct chunk_spec[]){ { 0, 5, "SENT1" }, {} }, 5);
}

static void test_attrwrite(void **state)
{
	(void)state;
	expect_good("attrwrite.raw", MUXBPF_PHASE_ATTRWRITE, 5,
		    (struct chunk_spec[]){ { 0, 60, "SENT2" }, {} }, 60);
}

static void test_attrread(void **state)
{
	(void)state;
	expect_good("attrread.raw", MUXBPF_PHASE_ATTRREAD, 5,
		    (struct chunk_spec[]){ { 0, 40, "SENT3" }, {} }, 40);
}

static void test_dump(void **state)
{
	(void)state;
	expect_good("dump.raw", MUXBPF_PHASE_DUMP, 5,
		    (struct chunk_spec[]){ { 0, 1, "DUMPED" }, {} }, 0);
}

static void test_dispatch(void **state)
{
	(void)state;
	expect_good("dispatch.raw", MUXBPF_PHASE_DISPATCH, 5,
		    (struct chunk_spec[]){ { 0, 3, "SENT7" }, {} }, 12);
}

static void test_softcode(void **state)
{
	(void)state;
	expect_good("arith.raw", MUXBPF_PHASE_SOFTCODE_ARITH, 5,
		    (struct chunk_spec[]){ { 0, 5, "SENT9" }, {} }, 5);
	expect_good("list.raw", MUXBPF_PHASE_SOFTCODE_LIST, 5,
		    (struct chunk_spec[]){ { 0, 3, "SENT10" }, {} }, 3);
}

/* netmux's IAC SB TTYPE SEND IAC SE between two chunks in flight. */
static void test_iac_between_chunks(void **state)
{
	(void)state;
	expect_good("arith_iac.raw", MUXBPF_PHASE_SOFTCODE_ARITH, 5,
		    (struct chunk_spec[]){ { 0, 3, "SENT11" }, { 3, 3, "SENT12" }, {} }, 6);
}

/* Telnet sequences inside a line (and inside a sentinel) vanish; IAC IAC is a data byte. */
static void test_iac_inside_lines(void **state)
{
	static const char text[] = "4\xff\xf9"
				   "5\r\n4\xff\xfb\x01"
				   "5\r\n\xff\xfa\x18\x01\xff\xf0"
				   "45\r\nSE\xff\xfd\x03NT1\r\n";
	struct buf b = { (char *)text, sizeof(text) - 1 };
	struct chunk_spec one[] = { { 0, 3, "SENT1" }, {} };
	static const char bad[] = "45\r\n4\xff\xff"
				  "5\r\n";

	(void)state;
	for (size_t at = 0; at <= b.n; at++) {
		struct reply_check *rc = checker(MUXBPF_PHASE_SOFTCODE_ARITH, 0, one);

		if (feed_split(rc, &b, at))
			fail_msg("split at %zu: %s", at, reply_check__error(rc));
		assert_int_equal(reply_check__pending(rc), 0);
		reply_check__free(rc);
	}
	expect_bad(&(struct buf){ (char *)bad, sizeof(bad) - 1 }, MUXBPF_PHASE_SOFTCODE_ARITH, 0,
		   one, (const char *const[]){ "command 1 ", "expected '45'", NULL });
}

/* ---- bad transcripts --------------------------------------------------------------------- */

static void test_attrread_wrong_value(void **state)
{
	struct buf b = load("attrread_bad.raw");

	(void)state;
	expect_bad(&b, MUXBPF_PHASE_ATTRREAD, 5, (struct chunk_spec[]){ { 0, 40, "SENT5" }, {} },
		   (const char *const[]){ "attrread: command 17 ", "get(perfobj2/perf5)",
					  "'value 2 for attribute 6'",
					  "expected 'value 2 for attribute 5'", NULL });
	free(b.p);
}

/* With command 17 right again, the cleared attribute (no reply at all) is caught at 31. */
static void test_attrread_missing_reply(void **state)
{
	struct buf b = load("attrread_bad.raw");
	char *p = strstr(b.p, "value 2 for attribute 6\r\nvalue 3 for attribute 6");

	(void)state;
	assert_non_null(p);
	p[strlen("value 2 for attribute ")] = '5';
	expect_bad(
		&b, MUXBPF_PHASE_ATTRREAD, 5, (struct chunk_spec[]){ { 0, 40, "SENT5" }, {} },
		(const char *const[]){ "command 31 ", "expected 'value 1 for attribute 7'", NULL });
	free(b.p);
}

/* The attribute values are checked in order: the same replies for other objects fail. */
static void test_attrread_wrong_nobj(void **state)
{
	struct buf b = load("attrread.raw");

	(void)state;
	expect_bad(&b, MUXBPF_PHASE_ATTRREAD, 4, (struct chunk_spec[]){ { 0, 40, "SENT3" }, {} },
		   (const char *const[]){ "command 4 ", NULL });
	free(b.p);
}

static void test_huh(void **state)
{
	struct buf b = load("huh.raw");

	(void)state;
	expect_bad(&b, MUXBPF_PHASE_DISPATCH, 5, (struct chunk_spec[]){ { 0, 3, "SENT8" }, {} },
		   (const char *const[]){ "dispatch: ", "Huh?", NULL });
	/* also where any reply is accepted */
	expect_bad(&b, MUXBPF_PHASE_NONE, 5, (struct chunk_spec[]){ { 0, 3, "SENT8" }, {} },
		   (const char *const[]){ "Huh?", NULL });
	free(b.p);
}

/* One @create fewer answered than sent: the count does not match. */
static void test_create_count(void **state)
{
	struct buf b = load("create.raw");

	(void)state;
	expect_bad(&b, MUXBPF_PHASE_CREATE, 0, (struct chunk_spec[]){ { 0, 6, "SENT1" }, {} },
		   (const char *const[]){ "create: no reply to command 5 ", "@create perfobj5",
					  NULL });
	/* and names are checked: this transcript is not commands 10..14 */
	expect_bad(&b, MUXBPF_PHASE_CREATE, 0, (struct chunk_spec[]){ { 10, 5, "SENT1" }, {} },
		   (const char *const[]){ "command 10 ", NULL });
	free(b.p);
}

static void test_wrong_phase_and_extra(void **state)
{
	struct buf b = load("list.raw");
	struct buf extra = { "45\r\n45\r\nSENT1\r\n", 15 };

	(void)state;
	expect_bad(&b, MUXBPF_PHASE_SOFTCODE_ARITH, 0,
		   (struct chunk_spec[]){ { 0, 3, "SENT10" }, {} },
		   (const char *const[]){ "softcode_arith: command 0 ", NULL });
	expect_bad(&extra, MUXBPF_PHASE_SOFTCODE_ARITH, 0,
		   (struct chunk_spec[]){ { 0, 1, "SENT1" }, {} },
		   (const char *const[]){ "unexpected line '45'", NULL });
	free(b.p);
}

static void test_errors_anywhere(void **state)
{
	static const char *const lines[] = {
		"Permission denied.\r\n",
		"Either that player does not exist, or has a different password.\r\n",
		"I don\xE2\x80\x99t see that here.\r\n",
		NULL,
	};

	(void)state;
	for (int i = 0; lines[i]; i++) {
		struct buf b = { (char *)lines[i], strlen(lines[i]) };

		expect_bad(&b, MUXBPF_PHASE_IDLE, 0, (struct chunk_spec[]){ {} },
			   (const char *const[]){ "netmux answered", NULL });
	}
}

static void test_phase_busy(void **state)
{
	struct reply_check *rc = checker(MUXBPF_PHASE_SOFTCODE_ARITH, 0,
					 (struct chunk_spec[]){ { 0, 1, "SENT1" }, {} });

	(void)state;
	assert_int_equal(reply_check__phase(rc, MUXBPF_PHASE_NONE, 0), -EBUSY);
	assert_int_equal(reply_check__feed(rc, "45\r\nSENT1\r\n", 11), 0);
	assert_int_equal(reply_check__phase(rc, MUXBPF_PHASE_NONE, 0), 0);
	reply_check__free(rc);
}

/* ---- commands and counts ----------------------------------------------------------------- */

static void test_counts(void **state)
{
	static const struct {
		unsigned int phase;
		uint64_t one, small;
	} want[] = {
		{ MUXBPF_PHASE_CREATE, 1500, 75 },
		{ MUXBPF_PHASE_ATTRWRITE, 18000, 900 },
		{ MUXBPF_PHASE_DUMP, 1, 1 },
		{ MUXBPF_PHASE_ATTRREAD, 20000, 1000 },
		{ MUXBPF_PHASE_IDLE, 0, 0 },
		{ MUXBPF_PHASE_DISPATCH, 20000, 1000 },
		{ MUXBPF_PHASE_SOFTCODE_ARITH, 20000, 1000 },
		{ MUXBPF_PHASE_SOFTCODE_LIST, 8000, 400 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(driver_phase_commands(want[i].phase, 1.0), want[i].one);
		assert_int_equal(driver_phase_commands(want[i].phase, 0.05), want[i].small);
	}
	assert_int_equal(driver_phase_commands(MUXBPF_PHASE_CREATE, 1e-6), 1);
	assert_int_equal(driver_phase_commands(MUXBPF_PHASE_ATTRWRITE, 1e-6), 12);
	assert_int_equal(driver_phase_commands(MUXBPF_PHASE_BOOT, 1.0), 0);
}

static void test_commands(void **state)
{
	char buf[128];

	(void)state;
	driver_phase_command(MUXBPF_PHASE_CREATE, 7, 0, buf, sizeof(buf));
	assert_string_equal(buf, "@create perfobj7");
	driver_phase_command(MUXBPF_PHASE_ATTRWRITE, 13, 75, buf, sizeof(buf));
	assert_string_equal(buf, "&perf1 perfobj1=value 1 for attribute 1");
	driver_phase_command(MUXBPF_PHASE_ATTRREAD, 1501, 1500, buf, sizeof(buf));
	assert_string_equal(buf, "@pemit me=[get(perfobj1/perf1)]");
	driver_phase_command(MUXBPF_PHASE_SOFTCODE_LIST, 0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "@pemit me=[iter(lnum(50),mul(##,2))]");
	assert_int_equal(driver_phase_command(MUXBPF_PHASE_IDLE, 0, 0, buf, sizeof(buf)), -EINVAL);
}

/* A server that accepts and says nothing: the login times out with a clear error. */
static void test_silent_server(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct drive_opts o = { .timeout_ms = 200 };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	assert_null(driver__new(ntohs(sa.sin_port), &o));
	assert_int_equal(errno, ETIMEDOUT);
	close(fd);
}

/* ---- a real game ------------------------------------------------------------------------- */

/* The game and driver under test, freed by the teardown when an assertion cut a test short. */
static struct game *live_game;
static struct driver *live_driver;

static int free_live(void **state)
{
	(void)state;
	driver__free(live_driver);
	game__free(live_game);
	live_driver = NULL;
	live_game = NULL;
	return 0;
}

struct hook_log {
	pid_t pid;
	int n;
	unsigned int calls[64]; /* phase, or phase | 0x100 for end */
	unsigned long long cpu0, cpu_ns[MUXBPF_PHASE__COUNT];
};

/* ns on CPU of every thread of pid (first field of schedstat). */
static unsigned long long cpu_ns(pid_t pid)
{
	unsigned long long sum = 0, v;
	char path[300];
	struct dirent *e;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.32s/schedstat", pid, e->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%llu", &v) == 1)
			sum += v;
		if (f)
			fclose(f);
	}
	closedir(dir);
	return sum;
}

static int hook_begin(void *ctx, unsigned int phase)
{
	struct hook_log *h = ctx;

	h->calls[h->n++ % 64] = phase;
	h->cpu0 = cpu_ns(h->pid);
	return 0;
}

static int hook_end(void *ctx, unsigned int phase)
{
	struct hook_log *h = ctx;

	h->calls[h->n++ % 64] = phase | 0x100;
	h->cpu_ns[phase] = cpu_ns(h->pid) - h->cpu0;
	return 0;
}

static double env_double(const char *name, double def)
{
	const char *v = getenv(name);

	return v && *v ? atof(v) : def;
}

static void print_results(const struct phase_result *r, int n, const struct hook_log *h)
{
	for (int i = 0; i < n; i++)
		fprintf(stderr, "# %-15s %7llu cmds %8.4f s %9.0f cmd/s  netmux cpu/wall %.2f\n",
			phase_name(r[i].phase), (unsigned long long)r[i].commands, r[i].wall_s,
			r[i].wall_s > 0 ? r[i].commands / r[i].wall_s : 0,
			r[i].wall_s > 0 ? h->cpu_ns[r[i].phase] / 1e9 / r[i].wall_s : 0);
}

static void check_results(const struct phase_result *r, const unsigned int *phases, int n,
			  double scale, double idle)
{
	for (int i = 0; i < n; i++) {
		if (!r[i].ok)
			fail_msg("%s not ok: %s", phase_name(r[i].phase), r[i].error);
		assert_int_equal(r[i].phase, phases[i]);
		assert_int_equal(r[i].commands, driver_phase_commands(phases[i], scale));
		assert_true(r[i].wall_s > 0);
	}
	assert_true(r[4].wall_s >= idle && r[4].wall_s < idle + 0.5);
}

static struct game *start_game(void)
{
	struct game_opts o = { .netmux = MUXBPF_DEFAULT_NETMUX,
			       .template = MUXBPF_DEFAULT_TEMPLATE };
	struct game *g = live_game = game__new(&o);

	assert_non_null(g);
	assert_int_equal(game__spawn_paused(g), 0);
	assert_int_equal(game__release(g), 0);
	assert_int_equal(game__wait_ready(g, 10000), 0);
	return g;
}

/* Shut down through the driver; nothing of netmux and its directory may remain. */
static void finish_game(struct game *g, struct driver *d)
{
	char dir[256];
	pid_t pid = game__pid(g);

	snprintf(dir, sizeof(dir), "%s", game__dir(g));
	assert_int_equal(driver__shutdown(d), 0);
	assert_int_equal(game__stop(g, 10000), 0);
	free_live(NULL);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(kill(-pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(access(dir, F_OK), -1);
}

static void test_real_all_phases(void **state)
{
	double scale = env_double("MUXBPF_DRIVE_SCALE", 0.05);
	double idle = env_double("MUXBPF_DRIVE_IDLE", 0.5);
	struct drive_opts o = { .scale = scale, .idle_seconds = idle };
	struct phase_result r[MUXBPF_PHASE__COUNT];
	unsigned int phases[MUXBPF_PHASE__COUNT];
	struct hook_log log = {};
	struct phase_hooks h = { .begin = hook_begin, .end = hook_end, .ctx = &log };
	struct driver *d;
	struct game *g;
	int n;

	(void)state;
	need_netmux();
	n = phases_parse(
		"create,attrwrite,dump,attrread,idle,dispatch,softcode_arith,softcode_list", phases,
		MUXBPF_PHASE__COUNT);
	assert_int_equal(n, 8);
	g = start_game();
	log.pid = game__pid(g);
	d = live_driver = driver__new(game__port(g), &o);
	assert_non_null(d);
	assert_int_equal(strncmp(driver__version(d), "MUX 2.12", 8), 0);
	assert_int_equal(driver__run(d, phases, n, &h, r), 0);
	if (getenv("MUXBPF_DRIVE_SCALE"))
		print_results(r, n, &log);
	check_results(r, phases, n, scale, idle);
	assert_int_equal(log.n, 2 * n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(log.calls[2 * i], phases[i]);
		assert_int_equal(log.calls[2 * i + 1], phases[i] | 0x100);
	}
	finish_game(g, d);
}

/* attrread alone: create and attrwrite run first as setup, outside any window. */
static void test_real_setup_outside_window(void **state)
{
	struct drive_opts o = { .scale = 0.02 };
	unsigned int phases[] = { MUXBPF_PHASE_ATTRREAD };
	struct hook_log log = {};
	struct phase_hooks h = { .begin = hook_begin, .end = hook_end, .ctx = &log };
	struct phase_result r[1];
	struct driver *d;
	struct game *g;

	(void)state;
	need_netmux();
	g = start_game();
	d = live_driver = driver__new(game__port(g), &o);
	assert_non_null(d);
	assert_int_equal(driver__run(d, phases, 1, &h, r), 0);
	assert_true(r[0].ok);
	assert_int_equal(r[0].commands, 400);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.calls[0], MUXBPF_PHASE_ATTRREAD);
	finish_game(g, d);
}

/* The round hook asks for 3 rounds: every round's replies checked, end() once per window. */
static int hook_round(void *ctx, unsigned int phase, unsigned int rounds, uint64_t commands)
{
	struct hook_log *h = ctx;

	h->calls[h->n++ % 64] = phase | 0x200;
	assert_int_equal(commands, rounds * driver_phase_commands(phase, 0.02));
	return rounds < 3;
}

/* Rounds: a phase whose work repeats runs it again while the hook asks; the others once. */
static void test_real_rounds(void **state)
{
	struct drive_opts o = { .scale = 0.02 };
	unsigned int phases[] = { MUXBPF_PHASE_ATTRWRITE, MUXBPF_PHASE_DISPATCH };
	struct hook_log log = {};
	struct phase_hooks h = { .begin = hook_begin, .end = hook_end, .round = hook_round,
				 .ctx = &log };
	struct phase_result r[2];
	struct driver *d;
	struct game *g;

	(void)state;
	assert_false(driver_phase_repeats(MUXBPF_PHASE_BOOT));
	assert_false(driver_phase_repeats(MUXBPF_PHASE_CREATE));
	assert_false(driver_phase_repeats(MUXBPF_PHASE_ATTRWRITE));
	assert_false(driver_phase_repeats(MUXBPF_PHASE_DUMP));
	assert_false(driver_phase_repeats(MUXBPF_PHASE_IDLE));
	assert_true(driver_phase_repeats(MUXBPF_PHASE_ATTRREAD));
	assert_true(driver_phase_repeats(MUXBPF_PHASE_DISPATCH));
	assert_true(driver_phase_repeats(MUXBPF_PHASE_SOFTCODE_ARITH));
	assert_true(driver_phase_repeats(MUXBPF_PHASE_SOFTCODE_LIST));
	need_netmux();
	g = start_game();
	d = live_driver = driver__new(game__port(g), &o);
	assert_non_null(d);
	assert_int_equal(driver__run(d, phases, 2, &h, r), 0);
	assert_true(r[0].ok && r[1].ok);
	assert_int_equal(r[0].rounds, 1);
	assert_int_equal(r[1].rounds, 3);
	assert_int_equal(r[1].commands, 3 * driver_phase_commands(MUXBPF_PHASE_DISPATCH, 0.02));
	/* begin, end of attrwrite (no round call); begin, 3 rounds, end of dispatch */
	assert_int_equal(log.n, 7);
	assert_int_equal(log.calls[1], MUXBPF_PHASE_ATTRWRITE | 0x100);
	for (int i = 3; i < 6; i++)
		assert_int_equal(log.calls[i], MUXBPF_PHASE_DISPATCH | 0x200);
	assert_int_equal(log.calls[6], MUXBPF_PHASE_DISPATCH | 0x100);
	finish_game(g, d);
}

/* netmux dies in the middle of a phase: a prompt error naming the phase, not a timeout. */
static void test_real_server_dies(void **state)
{
	struct drive_opts o = { .scale = 1, .timeout_ms = 20000 };
	unsigned int phases[] = { MUXBPF_PHASE_SOFTCODE_LIST };
	struct phase_result r[1];
	struct game *g;
	struct driver *d;
	struct timespec t0, t1;
	pid_t pid, killer;

	(void)state;
	need_netmux();
	g = start_game();
	pid = game__pid(g);
	d = live_driver = driver__new(game__port(g), &o);
	assert_non_null(d);
	killer = fork();
	if (killer == 0) { /* kill netmux 50 ms into the phase */
		usleep(50000);
		kill(pid, SIGKILL);
		_exit(0);
	}
	assert_true(killer > 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(driver__run(d, phases, 1, NULL, r), -ECONNRESET);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_false(r[0].ok);
	assert_non_null(strstr(r[0].error, "softcode_list"));
	assert_non_null(strstr(r[0].error, "closed"));
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	waitpid(killer, NULL, 0);
	free_live(NULL);
	assert_int_equal(kill(-pid, 0), -1);
}

/* netmux stops answering in the middle of a phase: the timeout names the phase. */
static void test_real_server_hangs(void **state)
{
	struct drive_opts o = { .scale = 1, .timeout_ms = 300 };
	unsigned int phases[] = { MUXBPF_PHASE_SOFTCODE_LIST };
	struct phase_result r[1];
	struct game *g;
	pid_t pid, stopper;

	(void)state;
	need_netmux();
	g = start_game();
	pid = game__pid(g);
	assert_non_null(live_driver = driver__new(game__port(g), &o));
	stopper = fork();
	if (stopper == 0) {
		usleep(50000);
		kill(pid, SIGSTOP);
		_exit(0);
	}
	assert_true(stopper > 0);
	assert_int_equal(driver__run(live_driver, phases, 1, NULL, r), -ETIMEDOUT);
	waitpid(stopper, NULL, 0);
	kill(pid, SIGCONT);
	assert_non_null(strstr(r[0].error, "softcode_list: netmux sent nothing for 300 ms"));
	/* the driver can still shut netmux down cleanly after a failed run */
	assert_int_equal(driver__shutdown(live_driver), 0);
	assert_int_equal(game__stop(g, 10000), 0);
	free_live(NULL);
	assert_int_equal(kill(-pid, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_login_banner_iac),
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_attrwrite),
		cmocka_unit_test(test_attrread),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_softcode),
		cmocka_unit_test(test_iac_between_chunks),
		cmocka_unit_test(test_iac_inside_lines),
		cmocka_unit_test(test_attrread_wrong_value),
		cmocka_unit_test(test_attrread_missing_reply),
		cmocka_unit_test(test_attrread_wrong_nobj),
		cmocka_unit_test(test_huh),
		cmocka_unit_test(test_create_count),
		cmocka_unit_test(test_wrong_phase_and_extra),
		cmocka_unit_test(test_errors_anywhere),
		cmocka_unit_test(test_phase_busy),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_silent_server),
		cmocka_unit_test_teardown(test_real_all_phases, free_live),
		cmocka_unit_test_teardown(test_real_setup_outside_window, free_live),
		cmocka_unit_test_teardown(test_real_rounds, free_live),
		cmocka_unit_test_teardown(test_real_server_dies, free_live),
		cmocka_unit_test_teardown(test_real_server_hangs, free_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
