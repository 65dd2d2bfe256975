/* One control connection's I/O (server.h): reading and framing its bytes
 * and descriptors, queueing and writing its replies. What a message asks
 * for is handled in requests.c. */
#include "daemon/server.h"

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
	ipc_linebuf_init(&c->in);
	return c;
}

void conn_drop_fds(struct conn *c)
{
	for (size_t i = 0; i < c->nfds; i++)
		close(c->fds[i]);
	c->nfds = 0;
}

void conn_free(struct server *s, struct conn *c)
{
	if (c->tenant)
		daemon_remove_tenant(s->d, c->tenant);
	conn_drop_fds(c);
	close(c->fd);
	free(c->out);
	free(c);
}

static void arm_out(struct server *s, struct conn *c, bool on)
{
	if (c->want_out == on)
		return;
	struct epoll_event ev = {
	    .events = EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0),
	    .data.ptr = &c->src,
	};
	if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->want_out = on;
}

void conn_writable(struct server *s, struct conn *c)
{
	size_t done = 0;
	while (done < c->out_len) {
		ssize_t n = send(c->fd, c->out + done, c->out_len - done,
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
	memmove(c->out, c->out + done, c->out_len - done);
	c->out_len -= done;
	arm_out(s, c, c->out_len > 0 && !c->dead);
}

void conn_send_line(struct server *s, struct conn *c, char *line)
{
	if (!line) {
		log_error("out of memory encoding a reply");
		c->dead = true;
		return;
	}
	size_t n = strlen(line);
	if (c->out_len + n > SERVER_MAX_OUT) {
		log_warn("peer pid %d does not read its replies; dropping it",
		         (int)c->cred.pid);
		free(line);
		c->dead = true;
		return;
	}
	if (c->out_len + n > c->out_cap) {
		size_t cap = (c->out_len + n) * 2;
		char *o = realloc(c->out, cap);
		if (!o) {
			free(line);
			c->dead = true;
			return;
		}
		c->out = o;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, line, n);
	c->out_len += n;
	free(line);
	conn_writable(s, c);
}

/* Bounded work per wake-up, so that one chatty peer cannot starve the
 * epoch timer or the others. */
#define READS_PER_WAKE 8

void conn_readable(struct server *s, struct conn *c)
{
	char line[BATON_MSG_MAX];
	for (int r = 0; r < READS_PER_WAKE && !c->dead; r++) {
		size_t len;
		int got = 0;
		while (!c->dead &&
		       (got = ipc_linebuf_take(&c->in, line, &len)) == 1)
			conn_handle_line(s, c, line, len);
		if (c->dead)
			break;
		if (got < 0) {
			conn_fail(s, c, BATON_ERR_PROTOCOL,
			          "message longer than BATON_MSG_MAX bytes");
			break;
		}
		size_t avail;
		char *dst = ipc_linebuf_space(&c->in, &avail);
		size_t nfds = 0;
		ssize_t n =
		    ipc_recv_with_fds(c->fd, dst, avail, c->fds + c->nfds,
		                      IPC_MAX_FDS - c->nfds, &nfds);
		c->nfds += nfds;
		/* Descriptors are welcome only with the hello. */
		if (c->hello)
			conn_drop_fds(c);
		if (n == -EAGAIN)
			break;
		if (n == 0 || n == -ECONNRESET) {
			c->dead = true;
			break;
		}
		if (n < 0) {
			conn_fail(s, c, BATON_ERR_PROTOCOL,
			          n == -EPROTO ? "too many descriptors"
			                       : "receive failed");
			break;
		}
		ipc_linebuf_commit(&c->in, (size_t)n);
	}
	/* Lines already buffered when the read budget ran out. */
	if (!c->dead) {
		size_t len;
		while (!c->dead && ipc_linebuf_take(&c->in, line, &len) == 1)
			conn_handle_line(s, c, line, len);
	}
}
