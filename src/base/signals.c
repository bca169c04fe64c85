// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* SIGINT / SIGTERM / SIGHUP: record the first, exit on the second (see signals.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/signals.h"

static volatile sig_atomic_t pending;
static volatile pid_t target_pgid;
static const char *volatile stage;
static int pipe_fds[2] = { -1, -1 };

static void say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;
}

/* Async-signal-safe only: write, kill, _exit. */
static void on_signal(int sig)
{
	int saved = errno;
	char one = 1;
	ssize_t n;

	if (pending) {
		pid_t pg = target_pgid;

		if (pg > 0)
			kill(-pg, SIGKILL);
		say("muxbpf: second signal: exiting now");
		if (stage) {
			say(", abandoning ");
			say(stage);
		}
		say("\n");
		_exit(signals_exit_code(sig));
	}
	pending = sig;
	n = write(pipe_fds[1], &one, 1);
	(void)n;
	say(sig == SIGINT ? "\nmuxbpf: SIGINT" : sig == SIGTERM ? "muxbpf: SIGTERM" : "muxbpf: SIGHUP");
	say(": stopping; the report covers what was measured (signal again to exit at once)\n");
	errno = saved;
}

int signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal };

	if (pipe_fds[0] < 0 && pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	/* No SA_RESTART: a blocking call returns EINTR and its loop checks signals_pending(). */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

int signals_pending(void)
{
	return pending;
}

int signals_fd(void)
{
	return pipe_fds[0];
}

void signals_set_target(pid_t pgid)
{
	target_pgid = pgid;
}

void signals_set_stage(const char *s)
{
	stage = s;
}

int signals_exit_code(int sig)
{
	return 128 + sig;
}

const char *signal_name(int sig)
{
	static char buf[32];
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
	else
		snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}
