/* What a control connection asks for (server.h): the hello handshake,
 * permission checks and request dispatch. A message that cannot be parsed
 * ends its connection after an error reply; the daemon goes on serving
 * everyone else. */
#include "daemon/server.h"

#include <stdio.h>
#include <string.h>

#include "ipc/msg.h"
#include "util/log.h"

static void reply_error(struct server *s, struct conn *c, const char *code,
                        const char *message)
{
	conn_send_line(s, c, ipc_msg_error_line(code, message));
}

void conn_fail(struct server *s, struct conn *c, const char *code,
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
		conn_drop_fds(c);
		conn_send_line(s, c, ipc_msg_welcome(-1));
		return;
	}
	if (c->nfds != 1) {
		char msg[96];
		snprintf(msg, sizeof(msg),
		         "a tenant hello carries exactly one memfd, got %zu",
		         c->nfds);
		conn_fail(s, c, BATON_ERR_SHM, msg);
		return;
	}
	char err[160];
	struct ipc_shm shm;
	bool ok = ipc_shm_map(c->fds[0], &shm, err, sizeof(err));
	/* The mapping stays valid without the descriptor. */
	conn_drop_fds(c);
	if (!ok) {
		conn_fail(s, c, BATON_ERR_SHM, err);
		return;
	}
	c->tenant_role = true;
	c->tenant =
	    daemon_add_tenant(s->d, h->name, c->cred.pid, c->cred.uid,
	                      h->sla_fps, h->fixed_fps, &shm, daemon_now_ns());
	if (!c->tenant) {
		ipc_shm_unmap(&shm);
		conn_fail(s, c, BATON_ERR_INVALID, "out of memory");
		return;
	}
	conn_send_line(s, c, ipc_msg_welcome(c->tenant->id));
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
		conn_send_line(s, c, ipc_msg_ok());
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
	conn_send_line(s, c, ipc_msg_ok());
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
	conn_send_line(s, c, ipc_msg_ok());
}

static void status(struct server *s, struct conn *c)
{
	if (!is_admin(s, c)) {
		reply_error(s, c, BATON_ERR_DENIED,
		            "only the daemon's user or group may ask for "
		            "status");
		return;
	}
	conn_send_line(s, c, ipc_msg_encode(daemon_status(s->d)));
}

void conn_handle_line(struct server *s, struct conn *c, const char *line,
                      size_t len)
{
	struct ipc_msg m;
	struct ipc_msg_error e;
	if (!ipc_msg_parse(line, len, &m, &e)) {
		conn_fail(s, c, e.code, e.message);
		return;
	}
	if (!c->hello && m.type != IPC_MSG_HELLO) {
		conn_fail(s, c, BATON_ERR_PROTOCOL,
		          "the first message must be "
		          "a hello");
		return;
	}
	switch (m.type) {
	case IPC_MSG_HELLO:
		if (c->hello)
			conn_fail(s, c, BATON_ERR_PROTOCOL, "hello sent twice");
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
