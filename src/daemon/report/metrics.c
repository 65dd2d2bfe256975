/* The HTTP side of metrics.h: libmicrohttpd in its own polling thread. */
#include "daemon/report/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

struct metrics {
	struct MHD_Daemon *mhd;
	bool names; /* metrics_snapshot.names */
	pthread_mutex_t lock;
	/* the published snapshot, owned */
	char policy[16];
	/* Every scalar of the last snapshot, copied whole so that a field
	 * added to it cannot be forgotten here; its pointers are re-aimed at
	 * the copies below. */
	struct metrics_snapshot snap;
	struct metrics_tenant *tenants;
	size_t n, cap;
	struct metrics_be *be;
	size_t n_be, cap_be;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
                             const char *type, char *body, size_t len)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status,
                            const char *msg)
{
	char *body = strdup(msg);
	if (!body)
		return MHD_NO;
	return reply(c, status, "text/plain; charset=utf-8", body,
	             strlen(body));
}

/* Formats under the lock: the snapshot is small and a scrape is rare (a
 * few per minute), so copying it out first would buy nothing. */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
                              const char *url, const char *method,
                              const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
	struct metrics *m = cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
		            "only GET is served\n");
	if (strcmp(url, "/metrics") != 0)
		return text(c, MHD_HTTP_NOT_FOUND, "not found; try /metrics\n");
	pthread_mutex_lock(&m->lock);
	struct metrics_snapshot s = m->snap;
	s.policy = m->policy;
	s.tenants = m->tenants;
	s.n = m->n;
	s.be = m->be;
	s.n_be = m->n_be;
	s.names = m->names;
	size_t len = 0;
	char *body = metrics_format(&s, &len);
	pthread_mutex_unlock(&m->lock);
	if (!body)
		return MHD_NO;
	return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4", body, len);
}

bool metrics_publish(struct metrics *m, const struct metrics_snapshot *s)
{
	pthread_mutex_lock(&m->lock);
	bool ok = true;
	if (s->n > m->cap) {
		struct metrics_tenant *t =
		    realloc(m->tenants, s->n * sizeof(*t));
		if (t) {
			m->tenants = t;
			m->cap = s->n;
		} else {
			ok = false;
		}
	}
	if (ok && s->n_be > m->cap_be) {
		struct metrics_be *b = realloc(m->be, s->n_be * sizeof(*b));
		if (b) {
			m->be = b;
			m->cap_be = s->n_be;
		} else {
			ok = false;
		}
	}
	if (ok) {
		snprintf(m->policy, sizeof(m->policy), "%s", s->policy);
		m->snap = *s;
		if (s->n)
			memcpy(m->tenants, s->tenants,
			       s->n * sizeof(*m->tenants));
		m->n = s->n;
		if (s->n_be)
			memcpy(m->be, s->be, s->n_be * sizeof(*m->be));
		m->n_be = s->n_be;
	}
	pthread_mutex_unlock(&m->lock);
	return ok;
}

/* The listening socket, bound here rather than by libmicrohttpd so that a
 * failure says why (errno). -1 with the reason in err. */
static int listen_on(const struct addrinfo *ai, const char *host, unsigned port,
                     char *err, size_t errlen)
{
	bool v6 = ai->ai_family == AF_INET6;
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		snprintf(err, errlen, "cannot serve metrics on %s%s%s:%u: %s",
		         v6 ? "[" : "", host, v6 ? "]" : "", port,
		         strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

struct metrics *metrics_start(const char *host, unsigned port, bool names,
                              unsigned *bound, char *err, size_t errlen)
{
	char service[8];
	snprintf(service, sizeof(service), "%u", port);
	struct addrinfo hints = {
	    .ai_family = AF_UNSPEC,
	    .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	};
	struct addrinfo *ai = NULL;
	int rc = getaddrinfo(host, service, &hints, &ai);
	if (rc != 0) {
		snprintf(err, errlen, "metrics address %s: %s", host,
		         gai_strerror(rc));
		return NULL;
	}
	int fd = listen_on(ai, host, port, err, errlen);
	unsigned flags = MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	freeaddrinfo(ai);
	if (fd < 0)
		return NULL;
	struct metrics *m = calloc(1, sizeof(*m));
	if (!m) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	snprintf(m->policy, sizeof(m->policy), "none");
	m->names = names;
	/* Not select(): it cannot watch a descriptor past FD_SETSIZE, and
	 * batond holds more than that many with enough tenants. */
	flags |= MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES
	             ? MHD_USE_EPOLL_INTERNAL_THREAD
	             : MHD_USE_POLL_INTERNAL_THREAD;
	m->mhd = MHD_start_daemon(
	    flags, 0, NULL, NULL, handle, m, MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_CONNECTION_LIMIT, METRICS_MAX_CONNS,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, METRICS_MAX_PER_IP,
	    MHD_OPTION_CONNECTION_TIMEOUT, METRICS_TIMEOUT_S, MHD_OPTION_END);
	if (!m->mhd) {
		snprintf(err, errlen, "cannot serve metrics on %s:%u", host,
		         port);
		/* Ours again unless libmicrohttpd closed it on its way out. */
		if (fcntl(fd, F_GETFD) >= 0)
			close(fd);
		metrics_stop(m);
		return NULL;
	}
	*bound = port;
	struct sockaddr_storage sa;
	socklen_t salen = sizeof(sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &salen) == 0) {
		if (sa.ss_family == AF_INET)
			*bound = ntohs(((struct sockaddr_in *)&sa)->sin_port);
		else if (sa.ss_family == AF_INET6)
			*bound = ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
	}
	return m;
}

void metrics_stop(struct metrics *m)
{
	if (!m)
		return;
	if (m->mhd)
		MHD_stop_daemon(m->mhd);
	pthread_mutex_destroy(&m->lock);
	free(m->tenants);
	free(m->be);
	free(m);
}
