/* Data with file descriptors over a Unix stream socket (SCM_RIGHTS). libc
 * only: the shim sends its memfd with the hello, the daemon receives it. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* The most descriptors one message can carry (the kernel's SCM_MAX_FD). A
 * receive has room for all of them: were the control buffer smaller, the
 * kernel would drop the excess itself, and dropping the last reference to
 * a peer's descriptor runs its release (a TCP socket lingering on a full
 * send buffer, a FUSE file) in the receiving thread. */
#define IPC_RECV_MAX_FDS 253

/* sendmsg of len bytes with fd attached (fd < 0: none). MSG_NOSIGNAL, so a
 * vanished peer is an EPIPE, not a signal in someone's game. Returns bytes
 * sent or -errno. */
ssize_t ipc_send_with_fd(int sock, const void *buf, size_t len, int fd);

/* recvmsg of up to len bytes. Every descriptor that arrives is stored in
 * fds (all O_CLOEXEC) and *nfds says how many, whatever the return: they
 * are the caller's to close, nothing here closes one (see
 * IPC_RECV_MAX_FDS). Returns bytes read (0 at end of stream) or -errno;
 * -EPROTO if the kernel still truncated the control data (it could not
 * install every descriptor, e.g. EMFILE). */
ssize_t ipc_recv_with_fds(int sock, void *buf, size_t len,
                          int fds[IPC_RECV_MAX_FDS], size_t *nfds);
