/* Whether a socket's path could only have been put where it is by root (as
 * we read uids): the half of the daemon trust rule (peer_cred.h) that
 * looks at the file system. libc only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "ipc/peer_cred.h"

/* true if the socket path, as given and as resolved, is a socket owned by
 * uid 0 or env's overflow uid, every directory from / down to it is owned
 * by one of those and none may be written by group or others (a sticky
 * bit does not help: whoever can create there can put a socket there),
 * and every symlink on the way is owned by one of those. Else false with
 * problem set to what follows "its socket PATH ", e.g. "is in a directory
 * others can write (/tmp: owner uid 65534, mode 1777)". */
bool ipc_socket_placed_by_root(const struct ipc_trust_env *env,
                               const char *path, char *problem, size_t len);
