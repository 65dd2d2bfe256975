/* One control connection (server.h): framing, the hello handshake,
 * permission checks and request dispatch. A message that cannot be parsed
 * ends its connection after an error reply; the daemon goes on serving
 * everyone else. */
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

static void drop_fds(struct conn *c)
{
	for (size_t i = 0; i < c->nfds; i++)
		close(c->fds[i]);
	c->nfds = 0;
}

void conn_free(struct server *s, struct conn *c)
{
	if (c->tenant)
		daemon_remove_tenant(s->d, c->tenant);
	drop_fds(c);
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

/* Queues one encoded line (takes it) and tries to send at once. */
static void send_line(struct server *s, struct conn *c, char *line)
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

static void reply_error(struct server *s, struct conn *c, const char *code,
                        const char *message)
{
	send_line(s, c, ipc_msg_error_line(code, message));
}

/* The error goes out (as far as the socket takes it at once) and the
 * connection ends. */
static void fail(struct server *s, struct conn *c, const char *code,
                 const char *message)
{
	log_info("peer pid %d uid %d: %s: %s", (int)c->cred.pid,
	         (int)c->cred.uid, code, message);
	reply_error(s, c, code, message);
	c->dead = true;
}

static bool is_admin(const struct server *s, const struct conn *c)
{
	return c->cred.uid == 0 || c->cred.uid == s->euid ||
	       c->cred.gid == s->egid;
}

static void hello(struct server *s, struct conn *c,
                  const struct ipc_msg_hello *h)
{
	c->hello = true;
	if (h->role == IPC_ROLE_CLIENT) {
		drop_fds(c);
		send_line(s, c, ipc_msg_welcome(-1));
		return;
	}
	if (c->nfds != 1) {
		char msg[96];
		snprintf(msg, sizeof(msg),
		         "a tenant hello carries exactly one memfd, got %zu",
		         c->nfds);
		fail(s, c, BATON_ERR_SHM, msg);
		return;
	}
	char err[160];
	struct ipc_shm shm;
	bool ok = ipc_shm_map(c->fds[0], &shm, err, sizeof(err));
	/* The mapping stays valid without the descriptor. */
	drop_fds(c);
	if (!ok) {
		fail(s, c, BATON_ERR_SHM, err);
		return;
	}
	c->tenant_role = true;
	c->tenant = daemon_add_tenant(s->d, h->name, c->cred.pid, h->sla_fps,
	                              h->fixed_fps, &shm, daemon_now_ns());
	if (!c->tenant) {
		ipc_shm_unmap(&shm);
		fail(s, c, BATON_ERR_INVALID, "out of memory");
		return;
	}
	send_line(s, c, ipc_msg_welcome(c->tenant->id));
}

static void apply_set(struct tenant *t, const struct ipc_msg_set *m)
{
	if (m->has_sla)
		t->sla_fps = m->sla_fps;
	if (m->has_fixed)
		t->fixed_fps = m->fixed_fps;
}

static void set(struct server *s, struct conn *c, const struct ipc_msg_set *m)
{
	if (!m->has_name) {
		/* A tenant's own registration, on its own connection. */
		if (!c->tenant) {
			reply_error(s, c, BATON_ERR_INVALID,
			            "set without a name needs a tenant "
			            "connection");
			return;
		}
		apply_set(c->tenant, m);
		send_line(s, c, ipc_msg_ok());
		return;
	}
	if (!is_admin(s, c)) {
		reply_error(s, c, BATON_ERR_DENIED,
		            "only the daemon's user or group may set another "
		            "tenant");
		return;
	}
	/* Every tenant of that name: two instances of one game are one
	 * thing to an operator. */
	size_t hits = 0;
	for (size_t i = 0; i < s->d->n_tenants; i++) {
		struct tenant *t = s->d->tenants[i];
		if (!t->corrupt && strcmp(t->name, m->name) == 0) {
			apply_set(t, m);
			hits++;
		}
	}
	if (!hits) {
		reply_error(s, c, BATON_ERR_NOT_FOUND,
		            "no tenant of that name");
		return;
	}
	send_line(s, c, ipc_msg_ok());
}

static void policy(struct server *s, struct conn *c,
                   const struct ipc_msg_policy *m)
{
	if (!is_admin(s, c)) {
		reply_error(s, c, BATON_ERR_DENIED,
		            "only the daemon's user or group may change the "
		            "policy");
		return;
	}
	const struct core_policy *p = core_policy_find(m->name);
	if (!p) {
		reply_error(s, c, BATON_ERR_INVALID,
		            "policy must be sa, fsa, esa or none");
		return;
	}
	if (p != s->d->policy)
		log_info("policy %s -> %s (uid %d)", s->d->policy->name,
		         p->name, (int)c->cred.uid);
	s->d->policy = p;
	send_line(s, c, ipc_msg_ok());
}

static void status(struct server *s, struct conn *c)
{
	if (!is_admin(s, c)) {
		reply_error(s, c, BATON_ERR_DENIED,
		            "only the daemon's user or group may ask for "
		            "status");
		return;
	}
	send_line(s, c, ipc_msg_encode(daemon_status(s->d)));
}

static void handle(struct server *s, struct conn *c, const char *line,
                   size_t len)
{
	struct ipc_msg m;
	struct ipc_msg_error e;
	if (!ipc_msg_parse(line, len, &m, &e)) {
		fail(s, c, e.code, e.message);
		return;
	}
	if (!c->hello && m.type != IPC_MSG_HELLO) {
		fail(s, c, BATON_ERR_PROTOCOL,
		     "the first message must be "
		     "a hello");
		return;
	}
	switch (m.type) {
	case IPC_MSG_HELLO:
		if (c->hello)
			fail(s, c, BATON_ERR_PROTOCOL, "hello sent twice");
		else
			hello(s, c, &m.hello);
		break;
	case IPC_MSG_SET:
		set(s, c, &m.set);
		break;
	case IPC_MSG_POLICY:
		policy(s, c, &m.policy);
		break;
	case IPC_MSG_STATUS:
		status(s, c);
		break;
	}
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
			handle(s, c, line, len);
		if (c->dead)
			break;
		if (got < 0) {
			fail(s, c, BATON_ERR_PROTOCOL,
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
			drop_fds(c);
		if (n == -EAGAIN)
			break;
		if (n == 0 || n == -ECONNRESET) {
			c->dead = true;
			break;
		}
		if (n < 0) {
			fail(s, c, BATON_ERR_PROTOCOL,
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
			handle(s, c, line, len);
	}
}
