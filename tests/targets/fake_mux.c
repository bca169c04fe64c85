// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A fake netmux for the bad-input tests: started like netmux (-c netmux.conf in the game
 * directory), it listens on the config's port on 127.0.0.1 and refuses every login the way
 * netmux does ("Either that player does not exist, or has a different password."), echoing
 * `@pemit me=X` as X.  With FAKE_MUX_ANY=1 in its environment it binds 0.0.0.0 instead: a
 * server that ignores ip_address, which muxbpf must refuse to drive.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

static void serve(int fd)
{
	char buf[4096], line[4096];
	size_t len = 0;
	ssize_t n;

	dprintf(fd, "Welcome to the fake MUX.\r\n");
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\r')
				continue;
			if (buf[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			if (!strncmp(line, "connect ", 8))
				dprintf(fd, "Either that player does not exist, or has a different "
					    "password.\r\n");
			else if (!strncmp(line, "@pemit me=", 10))
				dprintf(fd, "%s\r\n", line + 10);
		}
	}
	close(fd);
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
	for (;;) {
		int c = accept(s, NULL, NULL);

		if (c >= 0)
			serve(c);
	}
}
