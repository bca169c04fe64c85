// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The control channel (parsing, a socket and FIFOs end to end, acknowledgements, bad input),
 * target lookup from /proc/net/tcp text and by port/name, and the live session's naming rules.
 * No BPF: runs as any user.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "proc/control.h"
#include "session/live.h"
#include "base/phases.h"
#include "proc/target.h"

static void test_parse(void **state)
{
	struct control_cmd c;
	char err[160];

	(void)state;
	assert_int_equal(control_parse("phase softcode_arith", &c, err, sizeof(err)), 0);
	assert_int_equal(c.verb, CONTROL_PHASE);
	assert_string_equal(c.name, "softcode_arith");
	assert_int_equal(control_parse("  phase   t+60s  ", &c, err, sizeof(err)), 0);
	assert_string_equal(c.name, "t+60s");
	assert_int_equal(control_parse("end", &c, err, sizeof(err)), 0);
	assert_int_equal(c.verb, CONTROL_END);
	assert_int_equal(control_parse("stop", &c, err, sizeof(err)), 0);
	assert_int_equal(c.verb, CONTROL_STOP);
	assert_int_equal(control_parse("status", &c, err, sizeof(err)), 0);
	assert_int_equal(c.verb, CONTROL_STATUS);
	assert_int_equal(control_parse("ping", &c, err, sizeof(err)), 0);
	assert_int_equal(c.verb, CONTROL_PING);

	assert_int_equal(control_parse("", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_parse("phase", &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "usage"));
	assert_int_equal(control_parse("phase a b", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_parse("phase a/b", &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad phase name"));
	assert_int_equal(control_parse("phase aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &c,
				       err, sizeof(err)), -EINVAL); /* 49 characters */
	assert_int_equal(control_parse("stop now", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_parse("STOP", &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown command"));
}

static void test_names(void **state)
{
	char buf[PHASE_NAME_MAX + 1];
	struct run *r = calloc(1, sizeof(*r));

	(void)state;
	assert_true(control_name_ok("a"));
	assert_true(control_name_ok("load.test:2+x-y_z"));
	assert_false(control_name_ok(""));
	assert_false(control_name_ok("a b"));
	assert_false(control_name_ok("é"));

	live_interval_name(60, 0, buf, sizeof(buf));
	assert_string_equal(buf, "t+0s");
	live_interval_name(60, 3, buf, sizeof(buf));
	assert_string_equal(buf, "t+180s");
	live_interval_name(0.5, 3, buf, sizeof(buf));
	assert_string_equal(buf, "t+1.5s");

	/* a name already used gets .2, .3; "outside" is the report's own */
	assert_int_equal(phase_set_name(MUXBPF_PHASE__COUNT, "warm"), 0);
	assert_int_equal(phase_set_name(MUXBPF_PHASE__COUNT + 1, "warm.2"), 0);
	assert_int_equal(phase_set_name(3, "nope"), -EINVAL); /* a netmux phase's id */
	r->windows[0].phase = MUXBPF_PHASE__COUNT;
	r->windows[1].phase = MUXBPF_PHASE__COUNT + 1;
	r->nwindows = 2;
	live_unique_name(r, "cold", buf, sizeof(buf));
	assert_string_equal(buf, "cold");
	live_unique_name(r, "warm", buf, sizeof(buf));
	assert_string_equal(buf, "warm.3");
	live_unique_name(r, "outside", buf, sizeof(buf));
	assert_string_equal(buf, "outside.2");
	assert_string_equal(phase_name(MUXBPF_PHASE__COUNT), "warm");
	free(r);
}

static char dir[64];

static int setup_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mb-test-control.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Wait (up to 2 s) for the next command. */
static int next_cmd(struct control *c, struct control_cmd *cmd)
{
	for (int i = 0; i < 200; i++) {
		struct pollfd p = { .fd = control__fd(c), .events = POLLIN };
		int r = control__next(c, cmd);

		if (r)
			return r;
		poll(&p, 1, 10);
	}
	return 0;
}

static void read_line(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n < size - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		assert_int_equal(poll(&p, 1, 2000), 1);
		assert_int_equal(read(fd, buf + n, 1), 1);
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = 0;
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static void test_socket(void **state)
{
	char path[96], line[256];
	struct control_cmd cmd;
	struct control *c;
	int a, b;

	(void)state;
	snprintf(path, sizeof(path), "%s/ctl", dir);
	c = control__open(path);
	assert_non_null(c);
	a = connect_to(path);
	b = connect_to(path);
	/* a command split across writes, a CRLF line, two clients */
	assert_int_equal(write(a, "pha", 3), 3);
	usleep(20000);
	assert_int_equal(control__next(c, &cmd), 0); /* half a line is no command */
	assert_int_equal(write(a, "se one\r\n", 8), 8);
	assert_int_equal(next_cmd(c, &cmd), 1);
	assert_int_equal(cmd.verb, CONTROL_PHASE);
	assert_string_equal(cmd.name, "one");
	control__reply(c, &cmd, "ok phase %s", cmd.name);
	read_line(a, line, sizeof(line));
	assert_string_equal(line, "ok phase one");
	assert_int_equal(write(b, "ping\n", 5), 5);
	assert_int_equal(next_cmd(c, &cmd), 1);
	assert_int_equal(cmd.verb, CONTROL_PING);
	control__reply(c, &cmd, "ok pong");
	read_line(b, line, sizeof(line));
	assert_string_equal(line, "ok pong");
	/* a bad line is answered by the channel and skipped; the next one still works */
	assert_int_equal(write(b, "jump\nend\n", 9), 9);
	assert_int_equal(next_cmd(c, &cmd), 1);
	assert_int_equal(cmd.verb, CONTROL_END);
	read_line(b, line, sizeof(line));
	assert_non_null(strstr(line, "error unknown command 'jump'"));
	control__reply(c, &cmd, "ok end");
	read_line(b, line, sizeof(line));
	assert_string_equal(line, "ok end");
	/* a client that half-closes after its command still gets the reply */
	assert_int_equal(write(b, "stop", 4), 4);
	shutdown(b, SHUT_WR);
	assert_int_equal(next_cmd(c, &cmd), 1);
	assert_int_equal(cmd.verb, CONTROL_STOP);
	control__reply(c, &cmd, "ok stop");
	read_line(b, line, sizeof(line));
	assert_string_equal(line, "ok stop");
	/* an over-long line is refused whole */
	{
		char big[CONTROL_LINE_MAX + 20];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\n';
		assert_int_equal(write(a, big, sizeof(big)), sizeof(big));
		assert_int_equal(write(a, "status\n", 7), 7);
		assert_int_equal(next_cmd(c, &cmd), 1);
		assert_int_equal(cmd.verb, CONTROL_STATUS);
		read_line(a, line, sizeof(line));
		assert_non_null(strstr(line, "error line longer than"));
	}
	/* a second muxbpf on the same path is refused while this one listens */
	assert_null(control__open(path));
	close(a);
	close(b);
	control__free(c);
	assert_int_equal(access(path, F_OK), -1); /* the socket is removed */
	/* a stale socket file (nobody listening) is replaced; a regular file is not */
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int s = socket(AF_UNIX, SOCK_STREAM, 0);

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
		close(s);
		c = control__open(path);
		assert_non_null(c);
		control__free(c);
		close(open(path, O_CREAT | O_WRONLY, 0600));
		assert_null(control__open(path));
		unlink(path);
	}
}

static void test_fifo(void **state)
{
	char spec[300], ctl[128], ack[128], line[256];
	struct control_cmd cmd;
	struct control *c;
	int w, r;

	(void)state;
	snprintf(ctl, sizeof(ctl), "%s/c", dir);
	snprintf(ack, sizeof(ack), "%s/a", dir);
	snprintf(spec, sizeof(spec), "fifo:%s,%s", ctl, ack);
	c = control__open(spec);
	assert_non_null(c);
	/* the writer's open does not block: muxbpf holds the FIFO open */
	w = open(ctl, O_WRONLY);
	assert_true(w >= 0);
	assert_int_equal(write(w, "phase alpha\n", 12), 12);
	close(w); /* the writer goes away: no EOF for the channel */
	assert_int_equal(next_cmd(c, &cmd), 1);
	assert_string_equal(cmd.name, "alpha");
	control__reply(c, &cmd, "ok phase alpha");
	/* the reply waits in the ACK FIFO for a reader that opens later */
	r = open(ack, O_RDONLY | O_NONBLOCK);
	assert_true(r >= 0);
	read_line(r, line, sizeof(line));
	assert_string_equal(line, "ok phase alpha");
	w = open(ctl, O_WRONLY);
	assert_int_equal(write(w, "stop\n", 5), 5);
	close(w);
	assert_int_equal(next_cmd(c, &cmd), 1);
	assert_int_equal(cmd.verb, CONTROL_STOP);
	close(r);
	control__free(c);
	/* FIFOs muxbpf created are removed; "fifo:" alone is refused */
	assert_int_equal(access(ctl, F_OK), -1);
	assert_null(control__open("fifo:"));
	snprintf(spec, sizeof(spec), "fifo:%s,", ctl);
	assert_null(control__open(spec));
}

static const char tcp[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
	"timeout inode\n"
	"   0: 0100007F:1068 00000000:0000 0A 00000000:00000000 00:00000000 00000000   101        "
	"0 31337 1 0000000000000000 100 0 0 10 0\n"
	"   1: 0100007F:1068 0100007F:D431 01 00000000:00000000 00:00000000 00000000   101        "
	"0 31338 1 0000000000000000 20 4 30 10 -1\n"
	"   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        "
	"0 12345 1 0000000000000000 100 0 0 10 0\n";

static void test_listeners(void **state)
{
	uint64_t inodes[4];

	(void)state;
	/* 0x1068 = 4200: the listener, not the established connection on the same port */
	assert_int_equal(target_parse_listeners(tcp, 4200, inodes, 4), 1);
	assert_int_equal(inodes[0], 31337);
	assert_int_equal(target_parse_listeners(tcp, 22, inodes, 4), 1);
	assert_int_equal(inodes[0], 12345);
	assert_int_equal(target_parse_listeners(tcp, 4201, inodes, 4), 0);
	assert_int_equal(target_parse_listeners("header\ngarbage line\n", 22, inodes, 4), -EINVAL);
}

/* Our own listening socket, found by port; our own threads; a name that matches nothing. */
static void test_find_self(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0), n;
	pid_t *tids, child;

	(void)state;
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s, 1), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
	/* target_by_port skips the caller itself: ask from a child holding no socket */
	child = fork();
	if (child == 0) {
		close(s);
		_exit(target_by_port(ntohs(a.sin_port)) == getppid() ? 0 : 1);
	}
	{
		int st;

		assert_int_equal(waitpid(child, &st, 0), child);
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	close(s);
	n = target_threads(getpid(), &tids);
	assert_int_equal(n, 1);
	assert_int_equal(tids[0], getpid());
	free(tids);
	assert_int_equal(target_by_name("no-such-process-mb"), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_socket, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_fifo, setup_dir, teardown_dir),
		cmocka_unit_test(test_listeners),
		cmocka_unit_test(test_find_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
