/* Data with file descriptors over a Unix stream socket (SCM_RIGHTS). libc
 * only: the shim sends its memfd with the hello, the daemon receives it. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* The most descriptors one receive accepts; any beyond are closed. */
#define IPC_MAX_FDS 4

/* sendmsg of len bytes with fd attached (fd < 0: none). MSG_NOSIGNAL, so a
 * vanished peer is an EPIPE, not a signal in someone's game. Returns bytes
 * sent or -errno. */
ssize_t ipc_send_with_fd(int sock, const void *buf, size_t len, int fd);

/* recvmsg of up to len bytes. Descriptors that arrive are stored in fds (at
 * most max_fds, *nfds says how many, all O_CLOEXEC) and any beyond max_fds
 * are closed at once, so a peer cannot make the receiver leak them. Returns
 * bytes read (0 at end of stream) or -errno; -EPROTO if the kernel had to
 * truncate the control data (descriptors may have been lost). */
ssize_t ipc_recv_with_fds(int sock, void *buf, size_t len, int *fds,
                          size_t max_fds, size_t *nfds);
