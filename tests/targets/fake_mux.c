// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A fake netmux for the bad-input and login tests: started like netmux (-c netmux.conf in the
 * game directory), it listens on the config's port on 127.0.0.1 and refuses every login the way
 * netmux does ("Either that player does not exist, or has a different password."), echoing
 * `@pemit me=X` as X.  With FAKE_MUX_ANY=1 in its environment it binds 0.0.0.0 instead: a
 * server that ignores ip_address, which muxbpf must refuse to drive.  With FAKE_MUX_PREAUTH=N
 * every login succeeds and it enforces a limit of N unauthenticated connections (on_accept).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CLIENTS 64

static int config_port(const char *conf)
{
	char line[256];
	int port = 0;
	FILE *f = fopen(conf, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "port %d", &port) == 1)
			break;
	fclose(f);
	return port;
}

struct client {
	int fd;
	int authed; /* logged in (FAKE_MUX_PREAUTH mode) */
	size_t len;
	char line[4096];
};

static struct client cl[MAX_CLIENTS];
static int preauth_max, refuse_left;

static void drop(struct client *c)
{
	close(c->fd);
	c->fd = -1;
}

/* One line from a client: a login, @version, @pemit me=X (echoed), QUIT; the rest is ignored. */
static void on_line(struct client *c, const char *line)
{
	if (!strncmp(line, "connect ", 8)) {
		if (!preauth_max) {
			dprintf(c->fd, "Either that player does not exist, or has a different "
				       "password.\r\n");
			return;
		}
		c->authed = 1;
		dprintf(c->fd, "Welcome to the fake MUX, %s\r\n", line + 8);
	} else if (!strncmp(line, "@pemit me=", 10)) {
		dprintf(c->fd, "%s\r\n", line + 10);
	} else if (preauth_max && !strcmp(line, "@version")) {
		dprintf(c->fd, "MUX 2.14.0.0 fake\r\n");
	} else if (!strcmp(line, "QUIT")) {
		drop(c);
	}
}

static void on_data(struct client *c)
{
	char buf[4096];
	ssize_t n = read(c->fd, buf, sizeof(buf));

	if (n <= 0) {
		drop(c);
		return;
	}
	for (ssize_t i = 0; i < n && c->fd >= 0; i++) {
		if (buf[i] == '\r')
			continue;
		if (buf[i] != '\n') {
			if (c->len < sizeof(c->line) - 1)
				c->line[c->len++] = buf[i];
			continue;
		}
		c->line[c->len] = '\0';
		c->len = 0;
		on_line(c, c->line);
	}
}

/*
 * A new connection.  FAKE_MUX_PREAUTH=N: at most N unauthenticated connections at once, the
 * rest refused the way TinyMUX 2.13+ does (a line, then close); FAKE_MUX_REFUSE=K: the first K
 * connections once someone is logged in (the wizard) refused whatever the count (another client
 * of the same address holding the slots).  Every refusal is logged on stderr.
 */
static void on_accept(int fd)
{
	int pending = 0, authed = 0, slot = -1, refuse;

	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (cl[i].fd < 0)
			slot = slot < 0 ? i : slot;
		else
			pending += !cl[i].authed, authed += cl[i].authed;
	}
	refuse = authed && refuse_left > 0;
	if (slot < 0 || (preauth_max && (pending >= preauth_max || refuse))) {
		refuse_left -= refuse;
		dprintf(fd, "Refused: %d unauthenticated connections already pending from this address "
			    "(max_preauth_sitecons %d)\r\n", pending, preauth_max);
		fprintf(stderr, "fake_mux: refused a connection (%d pending)\n", pending);
		close(fd);
		return;
	}
	cl[slot] = (struct client){ .fd = fd };
	dprintf(fd, "Welcome to the fake MUX.\r\n");
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *conf = "netmux.conf";
	int one = 1, s, port;

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-c"))
			conf = argv[i + 1];
	port = config_port(conf);
	if (port <= 0) {
		fprintf(stderr, "fake_mux: no port in %s\n", conf);
		return 1;
	}
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(getenv("FAKE_MUX_ANY") ? INADDR_ANY : INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 64)) {
		perror("fake_mux: listen");
		return 1;
	}
	fprintf(stderr, "fake_mux: listening on port %d\n", port);
	preauth_max = getenv("FAKE_MUX_PREAUTH") ? atoi(getenv("FAKE_MUX_PREAUTH")) : 0;
	refuse_left = getenv("FAKE_MUX_REFUSE") ? atoi(getenv("FAKE_MUX_REFUSE")) : 0;
	for (int i = 0; i < MAX_CLIENTS; i++)
		cl[i].fd = -1;
	for (;;) {
		struct pollfd pf[MAX_CLIENTS + 1] = { { .fd = s, .events = POLLIN } };
		int idx[MAX_CLIENTS], n = 1;

		for (int i = 0; i < MAX_CLIENTS; i++)
			if (cl[i].fd >= 0) {
				pf[n] = (struct pollfd){ .fd = cl[i].fd, .events = POLLIN };
				idx[n++ - 1] = i;
			}
		if (poll(pf, n, -1) < 0)
			continue;
		for (int k = 1; k < n; k++)
			if (pf[k].revents)
				on_data(&cl[idx[k - 1]]);
		if (pf[0].revents & POLLIN) {
			int c = accept(s, NULL, NULL);

			if (c >= 0)
				on_accept(c);
		}
	}
}
