/* batond's event loop: one epoll over the listening socket, the client
 * connections, a signalfd (SIGTERM, SIGINT) and a timerfd at the epoch.
 * Everything runs on this one thread except libmicrohttpd's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "daemon/daemon.h"
#include "daemon/listen.h"
#include "ipc/fdpass.h"
#include "ipc/linebuf.h"

/* The most connections served at once; more are closed on accept, so a
 * flood cannot exhaust the daemon's descriptors. */
#define SERVER_MAX_CONNS 1024
/* A peer that does not read its replies is dropped past this backlog. */
#define SERVER_MAX_OUT (1u << 20)

/* What an epoll event points at. */
enum source_kind { SRC_LISTEN, SRC_SIGNAL, SRC_TIMER, SRC_CONN };

struct source {
	enum source_kind kind;
};

struct conn {
	struct source src; /* first: epoll data points here */
	int fd;
	struct ucred cred; /* SO_PEERCRED at accept */
	struct ipc_linebuf in;
	int fds[IPC_MAX_FDS]; /* received, not yet claimed by a hello */
	size_t nfds;
	bool hello;
	bool tenant_role;
	struct tenant *tenant; /* registered by this connection */
	char *out;
	size_t out_len, out_cap;
	bool want_out; /* EPOLLOUT armed */
	bool dead;     /* close once the current event is handled */
	struct conn *next;
};

struct server {
	struct daemon *d;
	struct listener listener;
	int epfd, sigfd, timerfd;
	struct source listen_src, signal_src, timer_src;
	struct conn *conns;
	size_t n_conns;
	gid_t egid;
	uid_t euid;
};

/* Blocks SIGTERM and SIGINT (call before any thread starts, so that they
 * all inherit the mask) and opens the signalfd, timerfd, epoll and the
 * listening socket. false with a reason in err. */
bool server_open(struct server *s, struct daemon *d, char *err, size_t errlen);
/* Serves until SIGTERM or SIGINT (returns 0) or a fatal error (1). */
int server_run(struct server *s);
/* Closes every connection (dropping their tenants) and the socket, whose
 * file is removed. */
void server_close(struct server *s);

/* conn.c: one connection's bytes, messages and replies. */
struct conn *conn_new(int fd);
void conn_free(struct server *s, struct conn *c);
/* Reads what is available and handles each complete message. */
void conn_readable(struct server *s, struct conn *c);
/* Writes queued replies. */
void conn_writable(struct server *s, struct conn *c);
/* Queues one encoded line (takes it; NULL means out of memory) and tries
 * to send at once. */
void conn_send_line(struct server *s, struct conn *c, char *line);
/* Closes the descriptors received and not claimed by a hello. */
void conn_drop_fds(struct conn *c);

/* requests.c: what a message asks for. */
/* Handles one complete line. */
void conn_handle_line(struct server *s, struct conn *c, const char *line,
                      size_t len);
/* The error goes out (as far as the socket takes it at once) and the
 * connection ends. */
void conn_fail(struct server *s, struct conn *c, const char *code,
               const char *message);
