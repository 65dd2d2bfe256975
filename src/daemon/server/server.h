/* batond's event loop: one epoll over the listening socket, the client
 * connections, a signalfd (SIGTERM, SIGINT; SIGHUP reads the
 * subordinate-uid file again) and a timerfd at the epoch.
 * Everything runs on this one thread except libmicrohttpd's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "daemon/server/closer.h"
#include "daemon/daemon.h"
#include "daemon/server/listen.h"
#include "ipc/fdpass.h"
#include "ipc/linebuf.h"
#include "ipc/msg.h"
#include "util/log_gate.h"

/* The most connections served at once, whatever the descriptor limit;
 * more are refused on accept, so a flood cannot exhaust the daemon's
 * descriptors. The cap in force (server.conn_cap) follows RLIMIT_NOFILE:
 * see server_budget(). */
#define SERVER_MAX_CONNS 1024
/* Descriptors batond keeps for itself: stdio, epoll, signalfd, timerfd,
 * the listener, the metrics server's own (32 in all, with room to spare)
 * and its clients. */
#define SERVER_FD_FIXED (32 + METRICS_MAX_CONNS)
/* A peer that does not read its replies is dropped past this backlog
 * (twice the longest status reply: about 700 KB since the capacity
 * fields, test_tick.c). */
#define SERVER_MAX_OUT (2u << 20)
/* All connections' queued replies together: the connection whose reply
 * would pass it is dropped. Each connection queues at most one request's
 * replies (reading stops while they wait), so only admins' status replies
 * (about 350 bytes a tenant) come near it. */
#define SERVER_MAX_OUT_TOTAL (32u << 20)
/* Descriptors of one owner (owners.h) waiting in the closer (closer.h)
 * past which its new connections are refused and its open ones no longer
 * read. */
#define SERVER_MAX_PENDING_PER_UID 64
/* Connections only root and the daemon's own user may take. */
#define SERVER_TRUSTED_RESERVE 8
/* How long the listener rests after accept() ran out of descriptors. */
#define SERVER_ACCEPT_BACKOFF_MS 100

/* What an epoll event points at. */
enum source_kind { SRC_LISTEN, SRC_SIGNAL, SRC_TIMER, SRC_CONN };

struct source {
	enum source_kind kind;
};

/* Connections per owner (admit.c; daemon/server/owners.h). */
struct uid_conns {
	uid_t owner;
	size_t n;
	struct uid_conns *next;
};

struct conn {
	struct source src; /* first: epoll data points here */
	int fd;
	struct ucred cred; /* SO_PEERCRED at accept */
	/* Whose limits it counts against (owners.h): cred.uid, or the user
	 * whose subordinate uid that is. Its closer lane is this owner's. */
	uid_t owner;
	struct uid_conns *owner_conns;
	int64_t born_ns; /* accept time: the hello deadline runs from it */
	struct ipc_linebuf in;
	int memfd; /* received with the hello's bytes; -1: none */
	bool hello;
	bool tenant_role;
	struct tenant *tenant; /* registered by this connection */
	/* Queued replies: out[out_off..out_len) is still to go; freed once
	 * it has all gone. */
	char *out;
	size_t out_off, out_len, out_cap;
	uint32_t events; /* the epoll mask in force */
	bool starved;    /* not read for now: its uid's descriptors back up
	                    in the closer (re-armed by the tick) */
	bool dead;       /* close once the current event is handled */
	struct conn *next;
};

/* The limits in force (server_budget). */
struct server_limits {
	size_t nofile;      /* RLIMIT_NOFILE at start */
	size_t conn_cap;    /* connections at once */
	size_t per_uid;     /* connections of one owner (owners.h; not of
	                       root's or our uid) */
	size_t pending_cap; /* descriptors in the closer, every uid */
	int64_t hello_ns;   /* from accept to a complete hello */
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
	struct closer *closer;
	struct server_limits lim;
	size_t out_total;           /* bytes allocated for queued replies */
	struct uid_conns *uids[64]; /* hash of owner -> connections */
	/* The listener is out of the epoll set until this time (0: it is
	 * in): accept ran out of descriptors, or the closer is full. */
	int64_t listen_resume_ns;
	/* Refusals and accept failures, logged at most once a second. */
	struct log_gate refuse_log; /* refusals: one line a second */
};

/* The limits for a descriptor limit of nofile and the configuration:
 * SERVER_FD_FIXED and one message's worth of descriptors
 * (IPC_RECV_MAX_FDS) kept free, half the rest for connections (at most
 * SERVER_MAX_CONNS) and half for descriptors waiting in the closer; one
 * owner (owners.h: a user with its subordinate uids) at most
 * max_conns_per_uid connections and never more than half of them, so
 * that whatever the configuration one user alone leaves the other half
 * to everyone else. A limit of at least SERVER_FD_FIXED + IPC_RECV_MAX_FDS +
 * 2 * SERVER_MAX_CONNS gives the full cap. */
struct server_limits server_budget(size_t nofile,
                                   const struct daemon_config *cfg);

/* Blocks SIGTERM, SIGINT and SIGHUP (call before any thread starts, so that
 * they all inherit the mask) and opens the signalfd, timerfd, epoll and the
 * listening socket. false with a reason in err. */
bool server_open(struct server *s, struct daemon *d, char *err, size_t errlen);
/* Serves until SIGTERM or SIGINT (returns 0) or a fatal error (1). */
int server_run(struct server *s);
/* Closes every connection (dropping their tenants) and the socket, whose
 * file is removed. */
void server_close(struct server *s);

/* conn.c: one connection's bytes, messages and replies. */
struct conn *conn_new(int fd);
/* Drops its tenant, hands its descriptors to the closer and frees it
 * (after EPOLL_CTL_DEL: the caller's). */
void conn_free(struct server *s, struct conn *c);
/* Handles the lines already buffered and reads what is available, as
 * long as no reply waits to go out (backpressure). */
void conn_readable(struct server *s, struct conn *c);
/* Writes queued replies; once they are out, reading resumes. */
void conn_writable(struct server *s, struct conn *c);
/* Queues one encoded line (takes it; NULL means out of memory) and tries
 * to send at once. */
void conn_send_line(struct server *s, struct conn *c, char *line);
/* Hands the descriptor received and not claimed by a hello to the
 * closer. */
void conn_drop_fds(struct server *s, struct conn *c);
/* Sets the epoll mask the connection's state asks for: EPOLLOUT while
 * replies wait, else EPOLLIN unless starved. */
void conn_arm(struct server *s, struct conn *c);

/* admit.c: accepting, the limits, refusals. */
/* Accepts what the listener holds. */
void server_accept(struct server *s);
/* false if c may not be read now: its owner's descriptors (or
 * everyone's) back up in the closer. */
bool server_may_read(struct server *s, const struct conn *c);
/* Once an epoch: the hello deadline, re-arming starved connections and
 * a resting listener. */
void server_limits_tick(struct server *s, int64_t now_ns);
/* Counts c against c->owner (at accept) and releases it (at free). */
bool server_uid_add(struct server *s, struct conn *c);
void server_uid_release(struct server *s, struct conn *c);
/* After the owners were read again (SIGHUP): every connection counted
 * against its owner under the new ranges. */
void server_owners_changed(struct server *s);

/* requests.c: what a message asks for. */
/* Handles one complete line. */
void conn_handle_line(struct server *s, struct conn *c, const char *line,
                      size_t len);
/* The error goes out (as far as the socket takes it at once) and the
 * connection ends. */
void conn_fail(struct server *s, struct conn *c, const char *code,
               const char *message);

/* Shared by capacity and place (requests.c): a session's cost and SLA
 * for a profile, and its encoder and VRAM needs (admit_res.h), a
 * configured app's, else what batond learned about the asker's own
 * tenants of that name; false when neither knows it. */
struct core_res_need;
bool server_profile_cost(const struct daemon *d, const struct conn *c,
                         const char *profile, double *cost_s, double *sla,
                         struct core_res_need *need, const char **source);

/* place.c: where a new session goes (`baton run` without --gpu). */
void server_place(struct server *s, struct conn *c,
                  const struct ipc_msg_place *m);
/* A GPU as the gpus and place replies show it: name, device, pci, uuid,
 * cpus and kind (NULL when out of memory). */
json_t *server_gpu_json(const struct daemon_gpu *g);
