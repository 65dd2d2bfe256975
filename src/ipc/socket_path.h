/* Where batond listens: $BATON_SOCKET if set, else
 * $XDG_RUNTIME_DIR/baton/batond.sock, else (root, or no runtime dir)
 * /run/baton/batond.sock. libc only: the shim uses it too. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Writes the path into buf; false if it does not fit. */
bool ipc_socket_path(char *buf, size_t len);
