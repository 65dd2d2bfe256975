/* Line framing for a nonblocking stream socket: bytes go in as they
 * arrive, whole lines (one JSON message each) come out. The buffer is
 * BATON_MSG_MAX bytes, so a line longer than that (newline included) is a
 * protocol error, never an allocation. libc only. */
#pragma once

#include <stddef.h>

#include "ipc/proto.h"

struct ipc_linebuf {
	size_t len;
	char data[BATON_MSG_MAX];
};

void ipc_linebuf_init(struct ipc_linebuf *lb);

/* Where the next bytes go and how many fit (0 when full). */
char *ipc_linebuf_space(struct ipc_linebuf *lb, size_t *avail);
/* n bytes were written at ipc_linebuf_space. */
void ipc_linebuf_commit(struct ipc_linebuf *lb, size_t n);

/* Moves the first complete line into out (at least BATON_MSG_MAX bytes),
 * without its newline and NUL-terminated, and sets *len. Returns 1 if a
 * line was taken, 0 if more bytes are needed, -EMSGSIZE if the buffer is
 * full and holds no newline: the line is too long. */
int ipc_linebuf_take(struct ipc_linebuf *lb, char *out, size_t *len);

/* Copies up to n bytes in (ipc_linebuf_space + commit in one step, for
 * callers that already hold the bytes). Returns how many were taken. */
size_t ipc_linebuf_feed(struct ipc_linebuf *lb, const void *buf, size_t n);
