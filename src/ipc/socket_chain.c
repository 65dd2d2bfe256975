#include "ipc/socket_chain.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* One component p of the path; last is the socket itself. */
static bool component_ok(const struct ipc_trust_env *env, const char *p,
                         bool last, char *problem, size_t len)
{
	struct stat st;
	if (env->lstat(p, &st) != 0) {
		snprintf(problem, len, "cannot be examined (%s: %s)", p,
		         strerror(errno));
		return false;
	}
	unsigned owner = (unsigned)st.st_uid;
	unsigned mode = (unsigned)(st.st_mode & 07777);
	if (st.st_uid != 0 && st.st_uid != env->overflow_uid) {
		snprintf(problem, len,
		         "%s %s, which belongs to uid %u, not root",
		         last ? "is" : "is under", p, owner);
		return false;
	}
	/* Its target is checked on the resolved path. */
	if (S_ISLNK(st.st_mode))
		return true;
	if (last) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(problem, len, "is not a socket");
			return false;
		}
		return true;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(problem, len, "is under %s, which is not a directory",
		         p);
		return false;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(problem, len,
		         "is in a directory others can write (%s: owner uid "
		         "%u, mode %04o)",
		         p, owner, mode);
		return false;
	}
	return true;
}

/* Every component of path: / (if absolute), each directory, the socket. */
static bool chain_ok(const struct ipc_trust_env *env, const char *path,
                     char *problem, size_t len)
{
	char p[PATH_MAX];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(p)) {
		snprintf(problem, len, "has no usable path");
		return false;
	}
	memcpy(p, path, n + 1);
	if (p[0] == '/' && !component_ok(env, "/", false, problem, len))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (p[i] != '/' || p[i - 1] == '/')
			continue;
		p[i] = '\0';
		bool ok = component_ok(env, p, false, problem, len);
		p[i] = '/';
		if (!ok)
			return false;
	}
	return component_ok(env, p, true, problem, len);
}

bool ipc_socket_placed_by_root(const struct ipc_trust_env *env,
                               const char *path, char *problem, size_t len)
{
	/* As given (its symlinks), then where it leads: once every directory
	 * on both is root's and closed to others, nobody else can have put
	 * the socket there nor swap it. */
	if (!chain_ok(env, path, problem, len))
		return false;
	char real[PATH_MAX];
	if (!env->realpath(path, real)) {
		snprintf(problem, len, "cannot be resolved (%s)",
		         strerror(errno));
		return false;
	}
	return chain_ok(env, real, problem, len);
}
