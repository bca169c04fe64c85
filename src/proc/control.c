// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The control channel: a Unix socket or FIFOs, line commands, one acknowledgement each. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "proc/control.h"
#include "base/log.h"

#define MAX_CLIENTS 32

bool control_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > PHASE_NAME_MAX)
		return false;
	for (const char *s = name; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.:+-", *s))
			return false;
	return true;
}

int control_parse(const char *line, struct control_cmd *cmd, char *err, size_t err_size)
{
	char verb[16], arg[CONTROL_LINE_MAX], extra[8];
	int n;

	memset(cmd, 0, sizeof(*cmd));
	n = sscanf(line, "%15s %255s %7s", verb, arg, extra);
	if (n <= 0) {
		snprintf(err, err_size, "empty command");
		return -EINVAL;
	}
	if (!strcmp(verb, "phase")) {
		if (n != 2) {
			snprintf(err, err_size, "usage: phase NAME");
			return -EINVAL;
		}
		if (!control_name_ok(arg)) {
			snprintf(err, err_size, "bad phase name '%.60s' (1-%d of A-Z a-z 0-9 _ . : + -)",
				 arg, PHASE_NAME_MAX);
			return -EINVAL;
		}
		cmd->verb = CONTROL_PHASE;
		memcpy(cmd->name, arg, strlen(arg) + 1); /* control_name_ok: it fits */
		return 0;
	}
	if (n != 1) {
		snprintf(err, err_size, "'%s' takes no argument", verb);
		return -EINVAL;
	}
	if (!strcmp(verb, "end"))
		cmd->verb = CONTROL_END;
	else if (!strcmp(verb, "stop"))
		cmd->verb = CONTROL_STOP;
	else if (!strcmp(verb, "status"))
		cmd->verb = CONTROL_STATUS;
	else if (!strcmp(verb, "ping"))
		cmd->verb = CONTROL_PING;
	else {
		snprintf(err, err_size, "unknown command '%.40s' (phase NAME, end, stop, status, "
			 "ping)", verb);
		return -EINVAL;
	}
	return 0;
}

struct client {
	int in, out; /* the same socket, or the two FIFOs; -1: free slot */
	char buf[CONTROL_LINE_MAX + 1];
	size_t len;
	bool overlong; /* dropping the rest of a line that was too long */
	bool eof;      /* the peer closed its side: answer what it sent, then close */
};

struct control {
	int epfd;
	int listen_fd; /* socket mode, else -1 */
	char path[4096];
	char ack_path[4096];
	bool made_ctl, made_ack; /* FIFOs muxbpf created (removed at the end) */
	struct client clients[MAX_CLIENTS];
	unsigned long replies_lost;
};

static int add_client(struct control *c, int in, int out)
{
	struct epoll_event ev = { .events = EPOLLIN };

	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (c->clients[i].in >= 0)
			continue;
		c->clients[i] = (struct client){ .in = in, .out = out };
		ev.data.u32 = i + 1;
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, in, &ev)) {
			c->clients[i].in = c->clients[i].out = -1;
			return -errno;
		}
		return i;
	}
	return -EMFILE;
}

static void drop_client(struct control *c, int i)
{
	struct client *cl = &c->clients[i];

	if (cl->in < 0)
		return;
	if (!cl->eof)
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, cl->in, NULL);
	if (cl->out != cl->in)
		close(cl->out);
	close(cl->in);
	cl->in = cl->out = -1;
}

/* FIFO mode.  Both ends are opened read-write and non-blocking: writers never block on open,
 * the control FIFO never reads EOF when a writer closes, and acknowledgements wait in the ACK
 * FIFO for a reader (one line per command, in order). */
static int open_fifo(const char *path, bool *made)
{
	struct stat st;
	int fd;

	if (stat(path, &st) == 0) {
		if (!S_ISFIFO(st.st_mode)) {
			pr_err("--control %s: exists and is not a FIFO", path);
			return -EEXIST;
		}
	} else if (mkfifo(path, 0600)) {
		pr_err("--control: cannot create the FIFO %s: %s", path, strerror(errno));
		return -errno;
	} else {
		*made = true;
	}
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		pr_err("--control: cannot open %s: %s", path, strerror(errno));
	return fd < 0 ? -errno : fd;
}

static int open_fifos(struct control *c, const char *spec)
{
	char ctl[4096];
	const char *comma = strchr(spec, ',');
	int in, out = -1, err;

	snprintf(ctl, sizeof(ctl), "%.*s", comma ? (int)(comma - spec) : (int)strlen(spec), spec);
	if (!*ctl || (comma && !comma[1])) {
		pr_err("invalid --control 'fifo:%s' (expected fifo:CTL[,ACK])", spec);
		return -EINVAL;
	}
	snprintf(c->path, sizeof(c->path), "%s", ctl);
	in = open_fifo(ctl, &c->made_ctl);
	if (in < 0)
		return in;
	if (comma) {
		snprintf(c->ack_path, sizeof(c->ack_path), "%s", comma + 1);
		out = open_fifo(comma + 1, &c->made_ack);
		if (out < 0) {
			close(in);
			return out;
		}
	} else {
		/* no ACK FIFO: replies go nowhere */
		out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	}
	err = add_client(c, in, out);
	if (err < 0) {
		close(in);
		close(out);
		return err;
	}
	return 0;
}

/* Socket mode: a stale socket file (nobody listening) is replaced; anything else is refused. */
static int open_socket(struct control *c, const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 0 };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		pr_err("--control %s: a socket path has at most %zu characters", path,
		       sizeof(addr.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	snprintf(c->path, sizeof(c->path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (stat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			pr_err("--control %s: exists and is not a socket (for FIFOs: --control "
			       "fifo:%s)", path, path);
			close(fd);
			return -EEXIST;
		}
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 || errno == EAGAIN) {
			pr_err("--control %s: another process listens there", path);
			close(fd);
			return -EADDRINUSE;
		}
		close(fd);
		unlink(path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return -errno;
	}
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 16)) {
		int err = -errno;

		pr_err("--control: cannot listen on %s: %s", path, strerror(-err));
		close(fd);
		return err;
	}
	c->listen_fd = fd;
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	return 0;
}

struct control *control__open(const char *spec)
{
	struct control *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return NULL;
	c->listen_fd = -1;
	for (int i = 0; i < MAX_CLIENTS; i++)
		c->clients[i].in = c->clients[i].out = -1;
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epfd < 0) {
		free(c);
		return NULL;
	}
	if (!strncmp(spec, "fifo:", 5))
		err = open_fifos(c, spec + 5);
	else
		err = open_socket(c, spec);
	if (err) {
		control__free(c);
		errno = -err;
		return NULL;
	}
	return c;
}

int control__fd(const struct control *c)
{
	return c->epfd;
}

const char *control__path(const struct control *c)
{
	return c->path;
}

static void send_line(struct control *c, int client, const char *line)
{
	struct client *cl = &c->clients[client];
	size_t len = strlen(line);
	ssize_t n;

	if (cl->out < 0)
		return;
	/* MSG_NOSIGNAL where it is a socket; a FIFO's reader keeps it open (we do) */
	if (c->listen_fd >= 0)
		n = send(cl->out, line, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	else
		n = write(cl->out, line, len);
	if (n != (ssize_t)len) {
		c->replies_lost++;
		pr_warn("control: a reply was lost (the client does not read its replies): %.*s",
			(int)(len ? len - 1 : 0), line);
	}
}

void control__reply(struct control *c, const struct control_cmd *cmd, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if (cmd->client < 0 || cmd->client >= MAX_CLIENTS)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n] = '\n';
	line[n + 1] = 0;
	send_line(c, cmd->client, line);
}

static void accept_all(struct control *c)
{
	int fd;

	while ((fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0)
		if (add_client(c, fd, fd) < 0) {
			static const char busy[] = "error too many control clients\n";

			(void)!send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
		}
}

/* A complete line in client i's buffer: parse it.  1 with *cmd, 0 when none. */
static int take_line(struct control *c, int i, struct control_cmd *cmd)
{
	struct client *cl = &c->clients[i];
	char *nl = memchr(cl->buf, '\n', cl->len);
	char line[CONTROL_LINE_MAX + 1], err[160];
	size_t n;

	while (nl) {
		n = nl - cl->buf;
		memcpy(line, cl->buf, n);
		line[n] = 0;
		if (n && line[n - 1] == '\r')
			line[n - 1] = 0;
		memmove(cl->buf, nl + 1, cl->len - n - 1);
		cl->len -= n + 1;
		if (cl->overlong) {
			cl->overlong = false;
		} else if (control_parse(line, cmd, err, sizeof(err)) == 0) {
			cmd->client = i;
			return 1;
		} else if (line[strspn(line, " \t")]) { /* blank lines are ignored */
			struct control_cmd bad = { .client = i };

			control__reply(c, &bad, "error %s", err);
		}
		nl = memchr(cl->buf, '\n', cl->len);
	}
	if (cl->len == CONTROL_LINE_MAX) {
		struct control_cmd bad = { .client = i };

		control__reply(c, &bad, "error line longer than %d characters", CONTROL_LINE_MAX);
		cl->len = 0;
		cl->overlong = true;
	}
	return 0;
}

int control__next(struct control *c, struct control_cmd *cmd)
{
	struct epoll_event ev[8];
	int n;

	/* lines already buffered come first, in client order */
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (c->clients[i].in >= 0 && take_line(c, i, cmd))
			return 1;
	/* a client that closed its side was answered for everything it sent: close it */
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (c->clients[i].in >= 0 && c->clients[i].eof)
			drop_client(c, i);
	n = epoll_wait(c->epfd, ev, 8, 0);
	for (int k = 0; k < n; k++) {
		int i = (int)ev[k].data.u32 - 1;
		struct client *cl;
		ssize_t r;

		if (i < 0) {
			accept_all(c);
			continue;
		}
		cl = &c->clients[i];
		if (cl->in < 0 || cl->eof)
			continue;
		r = read(cl->in, cl->buf + cl->len, CONTROL_LINE_MAX - cl->len);
		if (r > 0) {
			cl->len += r;
		} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
			/* the peer closed (maybe only its writing side: it may wait for the
			 * replies); a last line without a newline still counts */
			cl->eof = true;
			epoll_ctl(c->epfd, EPOLL_CTL_DEL, cl->in, NULL);
			if (cl->len && cl->len < CONTROL_LINE_MAX && cl->buf[cl->len - 1] != '\n')
				cl->buf[cl->len++] = '\n';
		}
	}
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (c->clients[i].in >= 0 && take_line(c, i, cmd))
			return 1;
	return 0;
}

/*
 * FIFO mode: acknowledgements wait in the ACK FIFO only while muxbpf holds it open.  The last
 * one (stop's, just before muxbpf exits) is lost if muxbpf closes it before the reader has
 * opened it, and the reader then blocks in open() for good: wait up to 2 s for it to be read.
 */
static void drain_acks(int fd)
{
	int unread;

	for (int i = 0; i < 200; i++) {
		if (ioctl(fd, FIONREAD, &unread) || unread <= 0)
			return;
		usleep(10 * 1000);
	}
}

void control__free(struct control *c)
{
	if (!c)
		return;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (c->ack_path[0] && c->clients[i].out >= 0)
			drain_acks(c->clients[i].out);
		drop_client(c, i);
	}
	if (c->listen_fd >= 0) {
		close(c->listen_fd);
		unlink(c->path);
	}
	if (c->made_ctl)
		unlink(c->path);
	if (c->made_ack)
		unlink(c->ack_path);
	close(c->epfd);
	free(c);
}
