/* The event loop of server.h. */
#include "daemon/server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
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

static void accept_all(struct server *s)
{
	for (;;) {
		int fd = accept4(s->listener.fd, NULL, NULL,
		                 SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR)
				log_warn("accept: %s", strerror(errno));
			return;
		}
		struct ucred cred;
		socklen_t len = sizeof(cred);
		if (s->n_conns >= SERVER_MAX_CONNS ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			log_warn("refusing a connection (%zu open)",
			         s->n_conns);
			close(fd);
			continue;
		}
		struct conn *c = conn_new(fd);
		if (!c || !watch(s, fd, &c->src, EPOLLIN | EPOLLRDHUP)) {
			free(c);
			close(fd);
			continue;
		}
		c->cred = cred;
		c->next = s->conns;
		s->conns = c;
		s->n_conns++;
	}
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

static void tick(struct server *s)
{
	uint64_t expirations;
	if (read(s->timerfd, &expirations, sizeof(expirations)) < 0)
		return;
	/* Late or missed expirations make one longer epoch, measured as
	 * such by daemon_tick. */
	daemon_tick(s->d, daemon_now_ns());
}

int server_run(struct server *s)
{
	enum { MAX_EVENTS = 64 };
	struct epoll_event ev[MAX_EVENTS];
	for (;;) {
		int n = epoll_wait(s->epfd, ev, MAX_EVENTS, -1);
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
				accept_all(s);
				break;
			case SRC_SIGNAL: {
				struct signalfd_siginfo si;
				if (read(s->sigfd, &si, sizeof(si)) ==
				    sizeof(si)) {
					log_info("signal %u: shutting down",
					         si.ssi_signo);
					return 0;
				}
				break;
			}
			case SRC_TIMER:
				tick(s);
				break;
			case SRC_CONN: {
				struct conn *c = (struct conn *)src;
				if (c->dead)
					break;
				if (ev[i].events & EPOLLOUT)
					conn_writable(s, c);
				if (ev[i].events & (EPOLLIN | EPOLLHUP |
				                    EPOLLRDHUP | EPOLLERR))
					conn_readable(s, c);
				break;
			}
			}
		}
		/* After the batch: an event later in it may still point at a
		 * connection closed earlier in it. */
		reap(s);
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
	listener_close(&s->listener);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->timerfd >= 0)
		close(s->timerfd);
	if (s->sigfd >= 0)
		close(s->sigfd);
	s->epfd = s->timerfd = s->sigfd = -1;
}
