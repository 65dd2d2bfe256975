/* Test harness: batond as a subprocess on a temporary socket, and small
 * clients for its control socket and metrics endpoint. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct batond_proc {
	pid_t pid;
	char dir[64];   /* temporary, removed by batond_cleanup */
	char sock[108]; /* dir/batond.sock */
	char log[128];  /* dir/stderr.log: batond's stderr */
	unsigned port;  /* metrics, from the "metrics on" line */
};

/* Starts $BATOND (set by meson) with --socket, --metrics 127.0.0.1:0 and
 * the extra arguments (NULL-terminated, may be NULL); waits for the
 * metrics line and a listening socket. Also exports BATON_SOCKET. */
bool batond_spawn(struct batond_proc *p, const char *const *extra);
/* SIGTERM and wait: the exit status, or -1 if it did not exit in 5 s or
 * died by a signal. */
int batond_term(struct batond_proc *p);
/* Kills it if still running and removes the directory. */
void batond_cleanup(struct batond_proc *p);
/* Prints batond's stderr (for failing tests). */
void batond_dump_log(const struct batond_proc *p);

/* Connects to sock; -1 on failure. */
int connect_unix(const char *sock);
/* Sends bytes and reads one reply line (malloc'ed, without newline), or
 * NULL if the connection closed or nothing came in 5 s. */
char *exchange(int fd, const char *bytes, size_t len);
/* Reads one reply line without sending. */
char *read_line(int fd);
/* A fresh client connection: hello, then line; the reply to line. */
char *client_request(const char *sock, const char *line);
/* true once the peer has closed fd (within 5 s). */
bool wait_closed(int fd);

/* GET path from 127.0.0.1:port; the whole response (malloc'ed) and the
 * status code in *status; NULL on failure. */
char *http_get(unsigned port, const char *path, int *status);

/* Milliseconds of CLOCK_MONOTONIC. */
long long now_ms(void);
