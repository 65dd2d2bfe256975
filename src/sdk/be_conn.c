/* Registration with batond as a best-effort tenant (ipc/proto.h, role
 * "be"), without a thread: baton_be_next calls be_conn_poll, which costs
 * one poll(2) while registered and a connect attempt every BE_RETRY_NS
 * while not. Only a daemon run by root or by us gets our memfd (as the
 * shim, shim_conn.c): anyone who can write the socket's directory could
 * put their own there and hold our work back forever. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc/fdpass.h"
#include "ipc/linebuf.h"
#include "ipc/peer_cred.h"
#include "ipc/json_escape.h"
#include "ipc/proto.h"
#include "sdk/be_internal.h"

/* x >= 0 with six decimals, by hand: printf's follows LC_NUMERIC. */
static void fixed6(char *out, size_t len, double x)
{
	long long micro = (long long)(x * 1e6 + 0.5);
	snprintf(out, len, "%lld.%06lld", micro / 1000000, micro % 1000000);
}

size_t be_hello_format(char *buf, size_t len, const char *name, double weight,
                       double cap, bool partition, bool idle)
{
	char esc[BE_NAME_MAX * 6 + 1], w[32], c[48] = "";
	if (!ipc_json_escape(esc, sizeof(esc), name))
		return 0;
	fixed6(w, sizeof(w), weight);
	if (cap > 0.0 && cap <= 1.0) {
		char v[32];
		fixed6(v, sizeof(v), cap);
		snprintf(c, sizeof(c), ",\"cap\":%s", v);
	}
	int n = snprintf(buf, len,
	                 "{\"type\":\"hello\",\"version\":%d,\"role\":\"be\","
	                 "\"name\":\"%s\",\"weight\":%s%s%s%s}\n",
	                 BATON_PROTO_VERSION, esc, w, c,
	                 partition ? ",\"partition\":true" : "",
	                 idle ? ",\"idle\":true" : "");
	if (n < 0 || (size_t)n >= len || n > BATON_MSG_MAX)
		return 0;
	return (size_t)n;
}

void be_conn_close(struct baton_be *be)
{
	if (be->sock >= 0)
		close(be->sock);
	be->sock = -1;
	be->connected = false;
	be->ctl_seen = false;
}

/* The first line batond sends, within BE_REPLY_NS: 1 welcome, 0 anything
 * else (an error), -1 no line in time, -2 the connection ended. */
static int read_reply(int fd)
{
	struct ipc_linebuf lb;
	char line[BATON_MSG_MAX];
	ipc_linebuf_init(&lb);
	int64_t end = be_now_ns() + BE_REPLY_NS;
	for (;;) {
		size_t len;
		int got = ipc_linebuf_take(&lb, line, &len);
		if (got < 0)
			return -1;
		if (got > 0) {
			if (strstr(line, "\"welcome\""))
				return 1;
			be_log(BE_LOG_CONN, "batond refused us: %s", line);
			return 0;
		}
		int64_t left = end - be_now_ns();
		if (left <= 0)
			return -1;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, (int)(left / 1000000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		size_t avail;
		char *space = ipc_linebuf_space(&lb, &avail);
		ssize_t n = read(fd, space, avail);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -2;
		ipc_linebuf_commit(&lb, (size_t)n);
	}
}

/* One attempt; sets redial_ns for the next one when it fails. It runs on
 * the caller's thread, so nothing in it may block for long: the socket is
 * nonblocking (a full backlog is a failed attempt, not a wait) and the
 * welcome is waited for at most BE_REPLY_NS. */
static void dial(struct baton_be *be, int64_t now)
{
	be->redial_ns = now + BE_RETRY_NS;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	memcpy(addr.sun_path, be->socket, sizeof(addr.sun_path) - 1);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		if (!be->said_absent)
			be_log(BE_LOG_CONN,
			       "cannot reach batond at %s (%s): running "
			       "the probe loop",
			       be->socket, strerror(errno));
		be->said_absent = true;
		close(fd);
		return;
	}
	uid_t uid;
	char why[PATH_MAX + 256];
	if (!ipc_daemon_trusted(fd, be->socket, &uid, why, sizeof(why))) {
		be_log(BE_LOG_CONN,
		       "the daemon on %s %s; not registering: running the "
		       "probe loop",
		       be->socket, why);
		be->redial_ns = now + BE_REFUSED_NS;
		close(fd);
		return;
	}
	char hello[BATON_MSG_MAX];
	size_t len = be_hello_format(
	    hello, sizeof(hello), be->name, be->opt.weight, be->opt.cap,
	    be->opt.cpu_device != 0 || be->gpu_fits,
	    be->opt.cpu_device != 0 && !be->idle_refused);
	/* What an earlier daemon left there is not this one's word. */
	be->reg_seq = atomic_load(&be->shm.control->seq);
	ssize_t sent = len ? ipc_send_with_fd(fd, hello, len, be->memfd) : -1;
	int r = sent == (ssize_t)len ? read_reply(fd) : -2;
	if (r <= 0) {
		/* A refusal will be repeated, and a daemon that takes the
		 * hello but does not answer would cost us BE_REPLY_NS a
		 * try: both are tried again only after BE_REFUSED_NS. */
		if (r == 0 || r == -1)
			be->redial_ns = now + BE_REFUSED_NS;
		if (r == -1)
			be_log(BE_LOG_CONN, "batond did not answer our hello "
			                    "in time: running the probe loop");
		close(fd);
		return;
	}
	be->sock = fd;
	be->connected = true;
	be->said_absent = false;
	be_log(BE_LOG_CONN, "registered with batond as %s", be->name);
}

bool be_conn_poll(struct baton_be *be, int64_t now)
{
	if (be->opt.no_daemon)
		return false;
	if (be->sock >= 0) {
		struct pollfd p = {.fd = be->sock, .events = POLLIN};
		if (poll(&p, 1, 0) <= 0)
			return true;
		/* Anything readable: a line we do not need, or the end. */
		char buf[512];
		ssize_t n = p.revents & POLLIN
		                ? recv(be->sock, buf, sizeof(buf), MSG_DONTWAIT)
		                : 0;
		if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
			return true;
		be_log(BE_LOG_LOST, "lost batond: back to the probe loop");
		be_conn_close(be);
		be->redial_ns = now + BE_RETRY_NS;
		return false;
	}
	if (now >= be->redial_ns)
		dial(be, now);
	return be->connected;
}
