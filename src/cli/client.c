#include "cli/client.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "ipc/msg.h"
#include "ipc/peer_cred.h"
#include "ipc/socket_path.h"

int cli_client_open(struct cli_client *c, const char *prog)
{
	*c = (struct cli_client){.fd = -1, .prog = prog};
	if (!ipc_socket_path(c->path, sizeof(c->path))) {
		fprintf(stderr, "%s: the socket path is too long\n", prog);
		return CLI_EXIT_FAILURE;
	}
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	memcpy(sa.sun_path, c->path, sizeof(c->path));
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		fprintf(stderr, "%s: socket: %s\n", prog, strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		bool absent = e == ENOENT || e == ECONNREFUSED;
		fprintf(stderr, "%s: %s %s (%s)\n", prog,
		        absent ? "batond is not running: nothing listens on"
		               : "cannot reach batond on",
		        c->path, strerror(e));
		cli_client_close(c);
		return absent ? CLI_EXIT_NO_DAEMON : CLI_EXIT_FAILURE;
	}
	/* Whoever can write the socket's directory can answer in batond's
	 * place, with a made-up status or an accepted `set`. */
	uid_t uid;
	char why[PATH_MAX + 256];
	if (!ipc_daemon_trusted(c->fd, c->path, &uid, why, sizeof(why))) {
		fprintf(stderr,
		        "%s: the daemon on %s %s; refusing to trust it\n", prog,
		        c->path, why);
		cli_client_close(c);
		return CLI_EXIT_FAILURE;
	}
	json_t *hello = json_pack("{s:s, s:i, s:s}", "type", "hello", "version",
	                          BATON_PROTO_VERSION, "role", "client");
	json_t *welcome = NULL;
	int rc = cli_client_request(c, hello, &welcome);
	if (rc == CLI_EXIT_OK) {
		const char *type =
		    json_string_value(json_object_get(welcome, "type"));
		if (!type || strcmp(type, "welcome") != 0) {
			fprintf(stderr, "%s: batond did not welcome us\n",
			        prog);
			rc = CLI_EXIT_FAILURE;
		}
	}
	json_decref(welcome);
	if (rc != CLI_EXIT_OK)
		cli_client_close(c);
	return rc;
}

static bool send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Reads until the buffer holds a newline; returns its offset or -1. */
static ssize_t read_line(struct cli_client *c)
{
	for (;;) {
		char *nl = c->buf ? memchr(c->buf, '\n', c->len) : NULL;
		if (nl)
			return nl - c->buf;
		if (c->len >= CLI_REPLY_MAX) {
			fprintf(stderr, "%s: reply longer than %u bytes\n",
			        c->prog, CLI_REPLY_MAX);
			return -1;
		}
		if (c->cap - c->len < 4096) {
			size_t cap = c->cap ? c->cap * 2 : 8192;
			char *b = realloc(c->buf, cap);
			if (!b) {
				fprintf(stderr, "%s: out of memory\n", c->prog);
				return -1;
			}
			c->buf = b;
			c->cap = cap;
		}
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		int r = poll(&p, 1, CLI_TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			fprintf(stderr, "%s: batond did not answer in %d s\n",
			        c->prog, CLI_TIMEOUT_MS / 1000);
			return -1;
		}
		ssize_t n =
		    r < 0 ? -1
		          : recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "%s: batond closed the connection\n",
			        c->prog);
			return -1;
		}
		c->len += (size_t)n;
	}
}

int cli_client_request(struct cli_client *c, json_t *req, json_t **reply)
{
	*reply = NULL;
	char *line = ipc_msg_encode(req);
	if (!line) {
		fprintf(stderr, "%s: out of memory\n", c->prog);
		return CLI_EXIT_FAILURE;
	}
	bool sent = send_all(c->fd, line, strlen(line));
	free(line);
	if (!sent) {
		fprintf(stderr, "%s: cannot send to batond: %s\n", c->prog,
		        strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	ssize_t nl = read_line(c);
	if (nl < 0)
		return CLI_EXIT_FAILURE;
	json_error_t jerr;
	json_t *r = json_loadb(c->buf, (size_t)nl, 0, &jerr);
	c->len -= (size_t)nl + 1;
	memmove(c->buf, c->buf + nl + 1, c->len);
	const char *type = json_string_value(json_object_get(r, "type"));
	if (!r || !json_is_object(r) || !type) {
		fprintf(stderr, "%s: malformed reply from batond\n", c->prog);
		json_decref(r);
		return CLI_EXIT_FAILURE;
	}
	if (strcmp(type, "error") == 0) {
		const char *code =
		    json_string_value(json_object_get(r, "code"));
		const char *msg =
		    json_string_value(json_object_get(r, "message"));
		fprintf(stderr, "%s: batond refused: %s%s%s\n", c->prog,
		        code ? code : "error", msg ? ": " : "", msg ? msg : "");
		json_decref(r);
		return CLI_EXIT_FAILURE;
	}
	*reply = r;
	return CLI_EXIT_OK;
}

void cli_client_close(struct cli_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	c->fd = -1;
	c->buf = NULL;
	c->len = c->cap = 0;
}
