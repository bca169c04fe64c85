// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A game and a client that live outside muxbpf, for tests/e2e/attach.sh and bench/long_idle.sh.
 *
 *   helper_live serve [NETMUX [TEMPLATE]]
 *       start a netmux (src/game.c's throwaway game; TEMPLATE: the game template, as --game),
 *       print "PID PORT" and a newline, run until
 *       stdin closes or SIGTERM/SIGINT, then shut it down
 *   helper_live drive PORT CONTROL PHASES SCALE [IDLE_SECONDS]
 *       drive the comma list PHASES against PORT with src/drive.c's driver, each window marked
 *       through muxbpf's control socket CONTROL: "phase NAME" before (waiting for its "ok"),
 *       "end" after; set-up outside the windows stays outside every phase
 *   helper_live ctl CONTROL COMMAND...
 *       send one command, print the reply; exit 0 on "ok ...", 1 otherwise
 *   helper_live softcode PORT CONTROL COUNT
 *       the softcode views' test game: as the wizard, create SoftObj with $slow
 *       (iter(lnum(200),...)), $fast (add(100,2)) and $ufn (u(#N/FN_HEAVY) on HeavyObj), then
 *       windows: "mixed" (the three interleaved, COUNT times each), then "slow", "fast", "ufn"
 *       alone (COUNT each); prints "HEAVY #N".  Each reply is 3 characters ($slow and $ufn
 *       reply with their result's strlen()): writing a reply happens between commands, where
 *       the exact mode shares time out evenly per command, so the commands differ only in the
 *       work inside them.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/un.h>
#include "proc/drive.h"
#include "proc/game.h"
#include "base/phases.h"

static int ctl_fd = -1;

static int ctl_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	/* muxbpf creates the socket once it is ready: wait for it (10 s) */
	for (int i = 0; i < 200; i++) {
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			return fd;
		usleep(50000);
	}
	fprintf(stderr, "helper_live: cannot connect to %s: %s\n", path, strerror(errno));
	close(fd);
	return -1;
}

/* Send one line, read one reply line into buf.  0 when the reply starts with "ok". */
static int ctl_cmd(int fd, const char *cmd, char *buf, size_t size)
{
	size_t len = 0;
	char line[512];

	snprintf(line, sizeof(line), "%s\n", cmd);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		return -errno;
	while (len < size - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 30000) != 1)
			return -ETIMEDOUT;
		n = read(fd, buf + len, 1);
		if (n <= 0)
			return -EPIPE;
		if (buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = 0;
	return strncmp(buf, "ok", 2) ? -EBADMSG : 0;
}

static int hook_begin(void *ctx, unsigned int phase)
{
	char cmd[128], reply[512];

	(void)ctx;
	snprintf(cmd, sizeof(cmd), "phase %s", phase_name(phase));
	if (ctl_cmd(ctl_fd, cmd, reply, sizeof(reply))) {
		fprintf(stderr, "helper_live: '%s' -> '%s'\n", cmd, reply);
		return -EIO;
	}
	return 0;
}

static int hook_end(void *ctx, unsigned int phase)
{
	char reply[512];

	(void)ctx;
	(void)phase;
	if (ctl_cmd(ctl_fd, "end", reply, sizeof(reply))) {
		fprintf(stderr, "helper_live: 'end' -> '%s'\n", reply);
		return -EIO;
	}
	return 0;
}

static int drive(int argc, char **argv)
{
	struct drive_opts dopts = { .chunk = 256, .timeout_ms = 30000 };
	struct phase_hooks hooks = { .begin = hook_begin, .end = hook_end };
	struct phase_result results[MUXBPF_PHASE__COUNT] = {};
	unsigned int phases[MUXBPF_PHASE__COUNT];
	struct driver *d;
	int n, err;

	if (argc < 6)
		return 2;
	dopts.scale = atof(argv[5]);
	dopts.idle_seconds = argc > 6 ? atof(argv[6]) : 8;
	n = phases_parse(argv[4], phases, MUXBPF_PHASE__COUNT);
	if (n < 0)
		return 2;
	ctl_fd = ctl_connect(argv[3]);
	if (ctl_fd < 0)
		return 1;
	d = driver__new(atoi(argv[2]), &dopts);
	if (!d)
		return 1;
	err = driver__run(d, phases, n, &hooks, results);
	for (int i = 0; i < n; i++)
		printf("%s %s %.3f s %llu cmds%s%s\n", phase_name(results[i].phase),
		       results[i].ok ? "ok" : "FAILED", results[i].wall_s,
		       (unsigned long long)results[i].commands, results[i].ok ? "" : ": ",
		       results[i].ok ? "" : results[i].error);
	driver__free(d);
	close(ctl_fd);
	return err ? 1 : 0;
}

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static int serve(int argc, char **argv)
{
	struct game_opts gopts = { .netmux = argc > 2 ? argv[2] : MUXBPF_DEFAULT_NETMUX,
				   .template = argc > 3 ? argv[3] : MUXBPF_DEFAULT_TEMPLATE };
	struct sigaction sa = { .sa_handler = on_signal };
	struct game *g = game__new(&gopts);
	char c;

	if (!g)
		return 1;
	if (game__spawn_paused(g) || game__release(g) || game__wait_ready(g, 20000)) {
		game__free(g);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("%d %d\n", game__pid(g), game__port(g));
	fflush(stdout);
	while (!quit && read(0, &c, 1) > 0)
		;
	game__stop(g, 0);
	game__free(g);
	return 0;
}

static int ctl(int argc, char **argv)
{
	char cmd[512] = "", reply[1024];
	int fd, err;

	if (argc < 4)
		return 2;
	for (int i = 3; i < argc; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "%s%s", i > 3 ? " " : "",
			 argv[i]);
	fd = ctl_connect(argv[2]);
	if (fd < 0)
		return 1;
	err = ctl_cmd(fd, cmd, reply, sizeof(reply));
	printf("%s\n", reply);
	close(fd);
	return err ? 1 : 0;
}

/* Read from the game until n more non-empty lines arrived (or one containing want). */
static int game_lines(int fd, int n, const char *want, char *last, size_t size)
{
	static char buf[1 << 16];
	static size_t len;

	while (n > 0 || want) {
		char *nl;
		ssize_t r;

		while ((nl = memchr(buf, '\n', len))) {
			size_t used = nl - buf + 1, l = nl - buf;

			*nl = 0;
			if (l && buf[l - 1] == '\r')
				buf[--l] = 0;
			if (l && strspn(buf, "\xff\xfb\xfd\x19\x01\x03") < l) {
				if (last)
					snprintf(last, size, "%.500s", buf);
				if (want && strstr(buf, want))
					want = NULL;
				else
					n--;
			}
			memmove(buf, buf + used, len - used);
			len -= used;
			if (n <= 0 && !want)
				return 0;
		}
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 60000) != 1)
			return -ETIMEDOUT;
		r = read(fd, buf + len, sizeof(buf) - len - 1);
		if (r <= 0)
			return -EPIPE;
		len += r;
	}
	return 0;
}

static int game_send(int fd, const char *text)
{
	return write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* One window: COUNT rounds of the commands in cmds, each command answered by one line. */
static int sc_window(int gfd, int cfd, const char *name, const char *const *cmds, int ncmds,
		     int count)
{
	char line[8192], reply[512];
	int sent = 0, err;

	snprintf(line, sizeof(line), "phase %s", name);
	if ((err = ctl_cmd(cfd, line, reply, sizeof(reply))))
		return err;
	/*
	 * 48 commands per chunk in every window: netmux sleeps between chunks, and waking costs
	 * more on a loaded machine; the same commands per wakeup keep the windows comparable
	 */
	while (sent < count) {
		int per = 48 / ncmds, chunk = count - sent < per ? count - sent : per;

		line[0] = 0;
		for (int i = 0; i < chunk; i++)
			for (int c = 0; c < ncmds; c++)
				snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s\r\n",
					 cmds[c]);
		if ((err = game_send(gfd, line)) || (err = game_lines(gfd, chunk * ncmds, NULL,
								       NULL, 0)))
			return err;
		sent += chunk;
	}
	return ctl_cmd(cfd, "end", reply, sizeof(reply));
}

static int softcode(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	static const char *const mixed[] = { "slow", "ufn", "fast" };
	char last[512], cmd[512];
	int gfd, cfd, one = 1, count, heavy = -1, err;

	if (argc < 5)
		return 2;
	sa.sin_port = htons(atoi(argv[2]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	count = atoi(argv[4]);
	/* the game may still be booting: try for 20 s */
	for (int i = 0; i < 400; i++) {
		gfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(gfd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		close(gfd);
		gfd = -1;
		usleep(50000);
	}
	if (gfd < 0) {
		fprintf(stderr, "helper_live: cannot connect to port %s: %s\n", argv[2],
			strerror(errno));
		return 1;
	}
	setsockopt(gfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	err = game_send(gfd, "connect wizard potrzebie\r\n@pemit me=LOGGEDIN\r\n");
	if (!err)
		err = game_lines(gfd, 0, "LOGGEDIN", NULL, 0);
	if (!err)
		err = game_send(gfd, "@create HeavyObj\r\n");
	if (!err)
		err = game_lines(gfd, 0, "created as object", last, sizeof(last));
	if (!err && (!strstr(last, "#") || sscanf(strstr(last, "#"), "#%d", &heavy) != 1))
		err = -EBADMSG;
	if (!err) {
		snprintf(cmd, sizeof(cmd),
			 "&FN_HEAVY HeavyObj=[iter(lnum(100),add(##,1))]\r\n"
			 "@create SoftObj\r\n"
			 "&CMD_SLOW SoftObj=$slow:@pemit %%#=[strlen(iter(lnum(200),mul(##,2)))]\r\n"
			 "&CMD_FAST SoftObj=$fast:@pemit %%#=[add(100,2)]\r\n"
			 "&CMD_UFN SoftObj=$ufn:@pemit %%#=[strlen(u(#%d/FN_HEAVY))]\r\n"
			 "@pemit me=SETUPDONE\r\n", heavy);
		err = game_send(gfd, cmd);
	}
	if (!err)
		err = game_lines(gfd, 0, "SETUPDONE", NULL, 0);
	/* one round outside any window: the first run of each $-command warms the caches */
	if (!err)
		err = game_send(gfd, "slow\r\nufn\r\nfast\r\n");
	if (!err)
		err = game_lines(gfd, 3, NULL, NULL, 0);
	if (err) {
		fprintf(stderr, "helper_live: the softcode game's set-up failed: %s\n", strerror(-err));
		return 1;
	}
	printf("HEAVY #%d\n", heavy);
	fflush(stdout);
	cfd = ctl_connect(argv[3]);
	if (cfd < 0)
		return 1;
	err = sc_window(gfd, cfd, "mixed", mixed, 3, count);
	for (int i = 0; !err && i < 3; i++)
		err = sc_window(gfd, cfd, mixed[i], &mixed[i], 1, count);
	if (err)
		fprintf(stderr, "helper_live: a softcode window failed: %s\n", strerror(-err));
	close(cfd);
	close(gfd);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && !strcmp(argv[1], "serve"))
		rc = serve(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "drive"))
		rc = drive(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "ctl"))
		rc = ctl(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "softcode"))
		rc = softcode(argc, argv);
	if (rc == 2)
		fprintf(stderr, "usage: helper_live serve [NETMUX [TEMPLATE]] | drive PORT CONTROL PHASES SCALE "
			"[IDLE_S] | ctl CONTROL COMMAND... | softcode PORT CONTROL COUNT\n");
	return rc;
}
