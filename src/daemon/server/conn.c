/* One control connection's I/O (server.h): reading and framing its bytes
 * and its descriptor, queueing and writing its replies. What a message
 * asks for is handled in requests.c.
 *
 * Backpressure: a connection is read only while none of its replies wait
 * to go out; the lines it already sent wait in its input buffer. So a
 * peer that never reads holds at most one request's replies here, and
 * the socket's own buffers fill on its side, not ours. */
#include "daemon/server/server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "ipc/msg.h"
#include "util/log.h"

struct conn *conn_new(int fd)
{
	struct conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->src.kind = SRC_CONN;
	c->fd = fd;
	c->memfd = -1;
	ipc_linebuf_init(&c->in);
	return c;
}

void conn_drop_fds(struct server *s, struct conn *c)
{
	closer_put(s->closer, c->memfd, c->owner);
	c->memfd = -1;
}

static size_t queued(const struct conn *c)
{
	return c->out_len - c->out_off;
}

static void out_release(struct server *s, struct conn *c)
{
	s->out_total -= c->out_cap;
	free(c->out);
	c->out = NULL;
	c->out_off = c->out_len = c->out_cap = 0;
}

void conn_free(struct server *s, struct conn *c)
{
	if (c->tenant)
		daemon_remove_tenant(s->d, c->tenant);
	conn_drop_fds(s, c);
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	closer_put_socket(s->closer, c->fd, c->owner);
	out_release(s, c);
	server_uid_release(s, c);
	free(c);
}

void conn_arm(struct server *s, struct conn *c)
{
	if (c->dead)
		return;
	uint32_t want = queued(c)    ? EPOLLOUT
	                : c->starved ? 0
	                             : EPOLLIN | EPOLLRDHUP;
	if (want == c->events)
		return;
	struct epoll_event ev = {.events = want, .data.ptr = &c->src};
	if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->events = want;
	else
		c->dead = true;
}

/* Sends what the socket takes now; the bytes sent. */
static size_t send_now(struct conn *c, const char *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = send(c->fd, buf + done, len - done,
		                 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				c->dead = true;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

void conn_writable(struct server *s, struct conn *c)
{
	c->out_off += send_now(c, c->out + c->out_off, queued(c));
	if (queued(c) == 0)
		out_release(s, c);
	conn_arm(s, c);
}

/* May the backlog of c grow to hold cap bytes? Drops c if not. */
static bool out_allowed(struct server *s, struct conn *c, size_t bytes,
                        size_t cap)
{
	const char *why = NULL;
	if (bytes > SERVER_MAX_OUT)
		why = "does not read its replies";
	else if (s->out_total - c->out_cap + cap > SERVER_MAX_OUT_TOTAL)
		why = "would pass the replies' memory cap of every connection";
	if (!why)
		return true;
	log_warn("peer pid %d uid %d %s (%zu bytes queued); dropping it",
	         (int)c->cred.pid, (int)c->cred.uid, why, bytes);
	c->dead = true;
	return false;
}

void conn_send_line(struct server *s, struct conn *c, char *line)
{
	if (!line) {
		log_error("out of memory encoding a reply");
		c->dead = true;
		return;
	}
	if (c->dead) {
		free(line);
		return;
	}
	size_t n = strlen(line);
	if (queued(c) == 0) {
		/* Usually the socket takes it all and nothing is copied;
		 * else the line itself becomes the backlog. */
		size_t sent = send_now(c, line, n);
		if (sent == n || c->dead ||
		    !out_allowed(s, c, n - sent, n + 1)) {
			free(line);
			return;
		}
		out_release(s, c);
		c->out = line;
		c->out_cap = n + 1;
		c->out_off = sent;
		c->out_len = n;
		s->out_total += c->out_cap;
		conn_arm(s, c);
		return;
	}
	/* Behind a backlog (a request with more than one reply): moved to
	 * the front once, here, rather than on every partial send. */
	size_t have = queued(c);
	size_t need = have + n;
	size_t cap = need > c->out_cap ? need * 2 : c->out_cap;
	if (!out_allowed(s, c, need, cap)) {
		free(line);
		return;
	}
	memmove(c->out, c->out + c->out_off, have);
	c->out_off = 0;
	c->out_len = have;
	if (cap > c->out_cap) {
		char *o = realloc(c->out, cap);
		if (!o) {
			free(line);
			c->dead = true;
			return;
		}
		s->out_total += cap - c->out_cap;
		c->out = o;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, line, n);
	c->out_len += n;
	free(line);
	conn_writable(s, c);
}

/* Descriptors that came with the bytes just read: one, before the hello,
 * is the tenant's memfd (requests.c checks it); anything else ends the
 * connection. None is closed here (closer.h). */
static void take_fds(struct server *s, struct conn *c, int *fds, size_t n)
{
	if (n == 1 && !c->hello && c->memfd < 0) {
		c->memfd = fds[0];
		return;
	}
	for (size_t i = 0; i < n; i++)
		closer_put(s->closer, fds[i], c->owner);
	char msg[128];
	snprintf(msg, sizeof(msg),
	         "%zu descriptor(s) sent; only one memfd, with a tenant "
	         "hello, is accepted",
	         n);
	conn_fail(s, c, BATON_ERR_PROTOCOL, msg);
}

/* Bounded work per wake-up, so that one chatty peer cannot starve the
 * epoch timer or the others. */
#define READS_PER_WAKE 8

/* Handles buffered lines until one leaves a reply waiting; false if the
 * connection must not be read further now. */
static bool handle_buffered(struct server *s, struct conn *c)
{
	char line[BATON_MSG_MAX];
	size_t len;
	int got = 0;
	while (!c->dead && queued(c) == 0 &&
	       (got = ipc_linebuf_take(&c->in, line, &len)) == 1)
		conn_handle_line(s, c, line, len);
	if (c->dead || queued(c) > 0)
		return false;
	if (got < 0) {
		conn_fail(s, c, BATON_ERR_PROTOCOL,
		          "message longer than BATON_MSG_MAX bytes");
		return false;
	}
	return true;
}

void conn_readable(struct server *s, struct conn *c)
{
	for (int r = 0; r < READS_PER_WAKE; r++) {
		if (!handle_buffered(s, c))
			break;
		if (!server_may_read(s, c)) {
			c->starved = true;
			break;
		}
		size_t avail;
		char *dst = ipc_linebuf_space(&c->in, &avail);
		int fds[IPC_RECV_MAX_FDS];
		size_t nfds = 0;
		ssize_t n = ipc_recv_with_fds(c->fd, dst, avail, fds, &nfds);
		if (n > 0)
			ipc_linebuf_commit(&c->in, (size_t)n);
		if (nfds)
			take_fds(s, c, fds, nfds);
		if (c->dead || n == -EAGAIN)
			break;
		if (n == 0 || n == -ECONNRESET) {
			c->dead = true;
			break;
		}
		if (n < 0) {
			conn_fail(s, c, BATON_ERR_PROTOCOL,
			          n == -EPROTO ? "control data truncated"
			                       : "receive failed");
			break;
		}
	}
	/* Lines already buffered when the read budget ran out. */
	handle_buffered(s, c);
	conn_arm(s, c);
}

void conn_fail(struct server *s, struct conn *c, const char *code,
               const char *message)
{
	/* The message may quote what the peer sent (jansson's error text,
	 * a name): escaped, no raw byte of a client reaches the log. */
	char safe[1024];
	log_info("peer pid %d uid %u: %s: %s", (int)c->cred.pid,
	         (unsigned)c->cred.uid, code,
	         ipc_escape(safe, sizeof(safe), message));
	conn_send_line(s, c, ipc_msg_error_line(code, message));
	c->dead = true;
}
