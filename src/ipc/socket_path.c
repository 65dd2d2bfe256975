#include "ipc/socket_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The fallback for root and for processes without a session (system
 * services, games started by a launcher outside a login session). */
#define SYSTEM_SOCKET "/run/baton/batond.sock"

static bool put(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s%s", a, b);
	return n >= 0 && (size_t)n < len;
}

bool ipc_socket_path(char *buf, size_t len)
{
	if (!buf || len == 0)
		return false;
	const char *env = getenv("BATON_SOCKET");
	if (env && *env)
		return put(buf, len, env, "");
	/* root's XDG_RUNTIME_DIR (/run/user/0) is not where a system daemon
	 * listens: root always uses the system path. */
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	if (geteuid() != 0 && xdg && xdg[0] == '/')
		return put(buf, len, xdg, "/baton/batond.sock");
	return put(buf, len, SYSTEM_SOCKET, "");
}
