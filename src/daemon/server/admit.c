/* Who gets a connection, and for how long (server.h): the connection cap
 * that follows the descriptor limit, the per-owner cap (a user and its
 * subordinate uids: owners.h), the hello deadline,
 * the closer's back-pressure, and accept() running out of descriptors.
 * A refused peer gets one error line, if its socket takes it at once, and
 * the reason in the log, at most once a second. */
#include "daemon/server/server.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "ipc/msg.h"
#include "util/log.h"

#define NS_PER_MS 1000000LL

struct server_limits server_budget(size_t nofile,
                                   const struct daemon_config *cfg)
{
	struct server_limits l = {.nofile = nofile};
	const size_t keep = SERVER_FD_FIXED + IPC_RECV_MAX_FDS;
	size_t room = nofile > keep ? nofile - keep : 0;
	l.conn_cap = room / 2;
	if (l.conn_cap > SERVER_MAX_CONNS)
		l.conn_cap = SERVER_MAX_CONNS;
	/* Below the floors the guarantees no longer hold (a message's
	 * descriptors may not fit): batond warns at start. */
	if (l.conn_cap < 16)
		l.conn_cap = 16;
	l.pending_cap = room > l.conn_cap ? room - l.conn_cap : 0;
	if (l.pending_cap < 16)
		l.pending_cap = 16;
	l.per_uid = (size_t)cfg->max_conns_per_uid;
	/* Whatever max_conns_per_uid says, one user (all its uids) never
	 * holds more than half the connections: the other half is
	 * everyone else's. A smaller share would bound a user who really
	 * runs many games below what an operator asked for. */
	if (l.per_uid > l.conn_cap / 2)
		l.per_uid = l.conn_cap / 2;
	l.hello_ns = (int64_t)cfg->hello_timeout_ms * NS_PER_MS;
	return l;
}

/* ---- per-owner connection counts ---- */

static struct uid_conns **bucket(struct server *s, uid_t owner)
{
	size_t n = sizeof(s->uids) / sizeof(s->uids[0]);
	return &s->uids[(owner * 2654435761u) % n];
}

static struct uid_conns *uid_find(struct server *s, uid_t owner)
{
	for (struct uid_conns *u = *bucket(s, owner); u; u = u->next)
		if (u->owner == owner)
			return u;
	return NULL;
}

bool server_uid_add(struct server *s, struct conn *c)
{
	struct uid_conns *u = uid_find(s, c->owner);
	if (!u) {
		u = calloc(1, sizeof(*u));
		if (!u)
			return false;
		u->owner = c->owner;
		struct uid_conns **b = bucket(s, u->owner);
		u->next = *b;
		*b = u;
	}
	u->n++;
	c->owner_conns = u;
	return true;
}

void server_uid_release(struct server *s, struct conn *c)
{
	struct uid_conns *u = c->owner_conns;
	c->owner_conns = NULL;
	if (!u || --u->n > 0)
		return;
	for (struct uid_conns **pp = bucket(s, u->owner); *pp;
	     pp = &(*pp)->next)
		if (*pp == u) {
			*pp = u->next;
			break;
		}
	free(u);
}

/* ---- refusals ---- */

/* A log line at most once a second; the lines held back are counted into
 * the next. */
static void refuse_log(struct server *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void refuse_log(struct server *s, const char *fmt, ...)
{
	unsigned held;
	if (!log_gate_take(&s->refuse_log, daemon_now_ns(), 1000 * NS_PER_MS,
	                   &held))
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (held)
		log_warn("%s (and %u more refusals or accept failures in "
		         "the last second)",
		         msg, held);
	else
		log_warn("%s", msg);
}

/* An accepted socket we will not serve: the reason as one error line if
 * the socket takes it now, then closed (closer.h: its queue may hold the
 * peer's descriptors). */
static void refuse(struct server *s, int fd, const struct ucred *cred,
                   uid_t owner, const char *why)
{
	char *line = ipc_msg_error_line(BATON_ERR_DENIED, why);
	if (line) {
		ssize_t n =
		    send(fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)n;
		free(line);
	}
	refuse_log(s, "refusing a connection of pid %d uid %d: %s",
	           (int)cred->pid, (int)cred->uid, why);
	closer_put_socket(s->closer, fd, owner);
}

static bool trusted(const struct server *s, uid_t uid)
{
	return uid == 0 || uid == s->euid;
}

/* Why a new connection of cred (of owner: owners.h) is refused, or NULL.
 * Who is exempt goes by the real uid: a subordinate uid of root's is a
 * container's, not root. */
static const char *refusal(struct server *s, const struct ucred *cred,
                           uid_t owner, char *buf, size_t len)
{
	/* The last few connections are root's and the daemon's user's, so
	 * that an admin gets in even when many users fill the rest. */
	size_t cap = s->lim.conn_cap;
	if (!trusted(s, cred->uid))
		cap -= SERVER_TRUSTED_RESERVE;
	if (s->n_conns >= cap) {
		snprintf(buf, len, "batond serves %zu connections at most",
		         cap);
		return buf;
	}
	if (closer_pending(s->closer, owner) >= SERVER_MAX_PENDING_PER_UID) {
		snprintf(buf, len,
		         "too many of uid %u's descriptors are still being "
		         "closed",
		         (unsigned)owner);
		return buf;
	}
	struct uid_conns *u = uid_find(s, owner);
	if (!trusted(s, cred->uid) && u && u->n >= s->lim.per_uid) {
		if (owner == cred->uid)
			snprintf(buf, len,
			         "uid %u has %zu connections, the most one "
			         "user may have (max_conns_per_uid)",
			         (unsigned)owner, u->n);
		else
			snprintf(buf, len,
			         "uid %u (a subordinate uid of uid %u) has "
			         "%zu connections with its owner's other "
			         "uids, the most one user may have "
			         "(max_conns_per_uid)",
			         (unsigned)cred->uid, (unsigned)owner, u->n);
		return buf;
	}
	return NULL;
}

/* Takes the listener out of the epoll set for ms (re-armed by the tick):
 * a level-triggered listener that cannot be served would spin. */
static void rest_listener(struct server *s, int64_t ms)
{
	if (s->listen_resume_ns == 0)
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->listener.fd, NULL);
	s->listen_resume_ns = daemon_now_ns() + ms * NS_PER_MS;
}

void server_accept(struct server *s)
{
	/* Bounded per wake-up, so that a connect flood cannot hold off the
	 * tick. */
	for (int k = 0; k < 64; k++) {
		if (closer_pending_total(s->closer) >= s->lim.pending_cap) {
			refuse_log(s,
			           "%zu descriptors wait to be closed; not "
			           "accepting for now",
			           closer_pending_total(s->closer));
			rest_listener(s, SERVER_ACCEPT_BACKOFF_MS);
			return;
		}
		int fd = accept4(s->listener.fd, NULL, NULL,
		                 SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				refuse_log(s,
				           "accept: %s; not accepting for "
				           "%d ms",
				           strerror(errno),
				           SERVER_ACCEPT_BACKOFF_MS);
				rest_listener(s, SERVER_ACCEPT_BACKOFF_MS);
			} else if (errno != EAGAIN && errno != EINTR &&
			           errno != ECONNABORTED) {
				refuse_log(s, "accept: %s", strerror(errno));
			}
			return;
		}
		struct ucred cred;
		socklen_t len = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			refuse_log(s, "SO_PEERCRED: %s", strerror(errno));
			/* No uid to charge: uid -1's lane. */
			closer_put_socket(s->closer, fd, (uid_t)-1);
			continue;
		}
		char buf[200];
		uid_t owner = owner_of(&s->d->owners, cred.uid);
		const char *why = refusal(s, &cred, owner, buf, sizeof(buf));
		if (why) {
			refuse(s, fd, &cred, owner, why);
			continue;
		}
		struct conn *c = conn_new(fd);
		struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP};
		if (c) {
			c->cred = cred;
			c->owner = owner;
			c->born_ns = daemon_now_ns();
			ev.data.ptr = &c->src;
		}
		if (!c || !server_uid_add(s, c) ||
		    epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			if (c)
				server_uid_release(s, c);
			free(c);
			refuse(s, fd, &cred, owner, "out of memory");
			continue;
		}
		c->events = ev.events;
		c->next = s->conns;
		s->conns = c;
		s->n_conns++;
	}
}

bool server_may_read(struct server *s, const struct conn *c)
{
	return closer_pending_total(s->closer) < s->lim.pending_cap &&
	       closer_pending(s->closer, c->owner) < SERVER_MAX_PENDING_PER_UID;
}

void server_owners_changed(struct server *s)
{
	for (struct conn *c = s->conns; c; c = c->next) {
		server_uid_release(s, c);
		c->owner = owner_of(&s->d->owners, c->cred.uid);
		/* Out of memory: it goes uncounted until it closes
		 * (server_uid_release releases no count it lacks). */
		server_uid_add(s, c);
	}
}

void server_limits_tick(struct server *s, int64_t now_ns)
{
	for (struct conn *c = s->conns; c; c = c->next) {
		if (c->dead)
			continue;
		if (!c->hello && now_ns - c->born_ns > s->lim.hello_ns) {
			char msg[96];
			snprintf(msg, sizeof(msg), "no hello within %lld ms",
			         (long long)(s->lim.hello_ns / NS_PER_MS));
			conn_fail(s, c, BATON_ERR_PROTOCOL, msg);
			continue;
		}
		if (c->starved && server_may_read(s, c)) {
			c->starved = false;
			conn_arm(s, c);
		}
	}
	if (s->listen_resume_ns && now_ns >= s->listen_resume_ns) {
		struct epoll_event ev = {.events = EPOLLIN,
		                         .data.ptr = &s->listen_src};
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->listener.fd, &ev) ==
		        0 ||
		    errno == EEXIST)
			s->listen_resume_ns = 0;
	}
}
