/* The event loop of server.h. */
#include "daemon/server/server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "util/log.h"

static bool watch(struct server *s, int fd, struct source *src, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = src};
	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) == 0;
}

bool server_open(struct server *s, struct daemon *d, char *err, size_t errlen)
{
	*s = (struct server){
	    .d = d,
	    .epfd = -1,
	    .sigfd = -1,
	    .timerfd = -1,
	    .listen_src = {SRC_LISTEN},
	    .signal_src = {SRC_SIGNAL},
	    .timer_src = {SRC_TIMER},
	    .euid = geteuid(),
	    .egid = getegid(),
	};
	s->listener.fd = -1;
	/* Writes to vanished peers are EPIPE, never a signal. */
	signal(SIGPIPE, SIG_IGN);
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
	    (s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		snprintf(err, errlen, "signalfd: %s", strerror(errno));
		goto fail;
	}
	s->timerfd =
	    timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->timerfd < 0 || s->epfd < 0) {
		snprintf(err, errlen, "timerfd/epoll: %s", strerror(errno));
		goto fail;
	}
	s->closer = closer_new();
	if (!s->closer) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		rl.rlim_cur = 1024;
	s->lim = server_budget(rl.rlim_cur, &d->cfg);
	if (!listener_open(&s->listener, d->cfg.socket_path, err, errlen))
		goto fail;
	long long ns = (long long)d->cfg.epoch_ms * 1000000LL;
	struct itimerspec its = {
	    .it_interval = {ns / 1000000000LL, ns % 1000000000LL},
	    .it_value = {ns / 1000000000LL, ns % 1000000000LL},
	};
	if (timerfd_settime(s->timerfd, 0, &its, NULL) < 0 ||
	    !watch(s, s->listener.fd, &s->listen_src, EPOLLIN) ||
	    !watch(s, s->sigfd, &s->signal_src, EPOLLIN) ||
	    !watch(s, s->timerfd, &s->timer_src, EPOLLIN)) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		goto fail;
	}
	return true;
fail:
	server_close(s);
	return false;
}

/* Frees every connection marked dead, and those whose tenant the last
 * tick found corrupt. */
static void reap(struct server *s)
{
	for (struct conn **pp = &s->conns; *pp;) {
		struct conn *c = *pp;
		if (c->tenant && c->tenant->corrupt) {
			/* The error was logged by the tick; tell the shim. */
			char *line = ipc_msg_error_line(
			    BATON_ERR_SHM, "telemetry ring failed validation");
			if (line) {
				send(c->fd, line, strlen(line),
				     MSG_NOSIGNAL | MSG_DONTWAIT);
				free(line);
			}
			c->dead = true;
		}
		if (!c->dead) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		s->n_conns--;
		conn_free(s, c);
	}
}

static void conn_event(struct server *s, struct conn *c, uint32_t events)
{
	if (c->dead)
		return;
	if (events & EPOLLOUT)
		conn_writable(s, c);
	if (c->dead)
		return;
	bool waiting = c->out_off < c->out_len;
	if ((events & (EPOLLHUP | EPOLLERR)) && (waiting || c->starved)) {
		/* The peer is gone (or broken) while we would not read it:
		 * nothing to wait for. */
		c->dead = true;
		return;
	}
	/* Reading also handles the lines that waited for the replies just
	 * sent (backpressure). */
	if (!waiting)
		conn_readable(s, c);
}

static void tick(struct server *s)
{
	uint64_t expirations;
	if (read(s->timerfd, &expirations, sizeof(expirations)) < 0)
		return;
	/* Late or missed expirations make one longer epoch, measured as
	 * such by daemon_tick. */
	daemon_tick(s->d, daemon_now_ns());
}

/* SIGHUP: the subordinate-uid file again (owners.h), applied at once to
 * every connection and tenant. Nothing else of the configuration is read
 * again. */
static void reload_owners(struct server *s)
{
	log_info("SIGHUP: reading %s again", s->d->cfg.subuid_path[0]
	                                         ? s->d->cfg.subuid_path
	                                         : "no subordinate-uid file");
	if (!daemon_load_owners(s->d))
		log_warn("out of memory reading the subordinate uids; every "
		         "uid is its own owner");
	server_owners_changed(s);
}

/* How often the limits are looked after (the hello deadline, starved
 * connections, a resting listener), whatever the epoch. */
#define HOUSEKEEPING_MS 100

int server_run(struct server *s)
{
	enum { MAX_EVENTS = 64 };
	struct epoll_event ev[MAX_EVENTS];
	int64_t kept = daemon_now_ns();
	for (;;) {
		int n = epoll_wait(s->epfd, ev, MAX_EVENTS, HOUSEKEEPING_MS);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_error("epoll_wait: %s", strerror(errno));
			return 1;
		}
		for (int i = 0; i < n; i++) {
			struct source *src = ev[i].data.ptr;
			switch (src->kind) {
			case SRC_LISTEN:
				server_accept(s);
				break;
			case SRC_SIGNAL: {
				struct signalfd_siginfo si;
				if (read(s->sigfd, &si, sizeof(si)) !=
				    sizeof(si))
					break;
				if (si.ssi_signo == SIGHUP) {
					reload_owners(s);
					break;
				}
				log_info("signal %u: shutting down",
				         si.ssi_signo);
				return 0;
			}
			case SRC_TIMER:
				tick(s);
				break;
			case SRC_CONN:
				conn_event(s, (struct conn *)src, ev[i].events);
				break;
			}
		}
		int64_t now = daemon_now_ns();
		if (now - kept >= HOUSEKEEPING_MS * 1000000LL) {
			server_limits_tick(s, now);
			kept = now;
		}
		/* After the batch: an event later in it may still point at a
		 * connection closed earlier in it. */
		reap(s);
	}
}

/* Connections still in the listen backlog may hold a peer's descriptors
 * in flight, which closing the listener would release on this thread
 * (closer.h): a lingering socket queued there would hold up the shutdown.
 * So the file goes first (nothing new can connect), then the backlog is
 * accepted into the closer, then the listener is closed by the caller. */
static void drain_backlog(struct server *s)
{
	if (s->listener.fd < 0 || !s->closer)
		return;
	listener_unlink(&s->listener);
	int fd;
	while ((fd = accept4(s->listener.fd, NULL, NULL,
	                     SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0 ||
	       errno == EINTR) {
		if (fd < 0)
			continue;
		struct ucred cred = {.uid = (uid_t)-1};
		socklen_t len = sizeof(cred);
		getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len);
		closer_put_socket(s->closer, fd, cred.uid);
	}
}

void server_close(struct server *s)
{
	while (s->conns) {
		struct conn *c = s->conns;
		s->conns = c->next;
		conn_free(s, c);
	}
	s->n_conns = 0;
	drain_backlog(s);
	closer_free(s->closer, 1000);
	s->closer = NULL;
	listener_close(&s->listener);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->timerfd >= 0)
		close(s->timerfd);
	if (s->sigfd >= 0)
		close(s->sigfd);
	s->epfd = s->timerfd = s->sigfd = -1;
}
