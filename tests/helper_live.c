// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A game and a client that live outside muxbpf, for tests/e2e/attach.sh and bench/long_idle.sh.
 *
 *   helper_live serve [NETMUX]
 *       start a netmux (src/game.c's throwaway game), print "PID PORT" and a newline, run until
 *       stdin closes or SIGTERM/SIGINT, then shut it down
 *   helper_live drive PORT CONTROL PHASES SCALE [IDLE_SECONDS]
 *       drive the comma list PHASES against PORT with src/drive.c's driver, each window marked
 *       through muxbpf's control socket CONTROL: "phase NAME" before (waiting for its "ok"),
 *       "end" after; set-up outside the windows stays outside every phase
 *   helper_live ctl CONTROL COMMAND...
 *       send one command, print the reply; exit 0 on "ok ...", 1 otherwise
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "drive.h"
#include "game.h"
#include "phases.h"

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
				   .template = MUXBPF_DEFAULT_TEMPLATE };
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
	if (rc == 2)
		fprintf(stderr, "usage: helper_live serve [NETMUX] | drive PORT CONTROL PHASES SCALE "
			"[IDLE_S] | ctl CONTROL COMMAND...\n");
	return rc;
}
