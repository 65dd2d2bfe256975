/* Whom the client sides (the shim, the baton CLI) are talking to: the
 * daemon's uid from SO_PEERCRED, and whether to trust it. A socket path
 * can be replaced by whoever may write its directory; only a daemon run by
 * root or by ourselves may pace us or see our shared memory. libc only. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* The uid of the process at the other end of the connected Unix socket fd
 * (as of its bind/listen). false with errno set if the kernel will not
 * say. */
bool ipc_peer_uid(int fd, uid_t *uid);

/* true for a daemon uid we trust: root, or our own real or effective
 * uid. */
bool ipc_daemon_uid_trusted(uid_t uid);
