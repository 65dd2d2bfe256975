#include "ipc/peer_cred.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc/socket_chain.h"

bool ipc_peer_uid(int fd, uid_t *uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    len != sizeof(cred))
		return false;
	*uid = cred.uid;
	return true;
}

bool ipc_uid_map_is_initial(const char *text)
{
	unsigned long inner, outer, count;
	int used = 0;
	if (sscanf(text, " %lu %lu %lu %n", &inner, &outer, &count, &used) != 3)
		return false;
	/* %n after the trailing space: nothing may follow the extent. */
	return text[used] == '\0' && inner == 0 && outer == 0 &&
	       count == 4294967295UL;
}

/* A small /proc file into buf; false if it cannot be read whole. */
static bool read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0 || (size_t)n >= len - 1)
		return false;
	buf[n] = '\0';
	return true;
}

static bool self_namespaced;
static uid_t self_overflow_uid = 65534;

static void read_namespace(void)
{
	char buf[512];
	/* Fail safe: a map we cannot read counts as a namespace's, so that
	 * the overflow uid never passes for "us". */
	self_namespaced = !read_small("/proc/self/uid_map", buf, sizeof(buf)) ||
	                  !ipc_uid_map_is_initial(buf);
	char *end;
	if (read_small("/proc/sys/kernel/overflowuid", buf, sizeof(buf))) {
		unsigned long v = strtoul(buf, &end, 10);
		if (end != buf && (*end == '\n' || *end == '\0') &&
		    v <= UINT32_MAX)
			self_overflow_uid = (uid_t)v;
	}
}

struct ipc_trust_env ipc_trust_env_self(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_namespace);
	return (struct ipc_trust_env){
	    .uid = getuid(),
	    .euid = geteuid(),
	    .namespaced = self_namespaced,
	    .overflow_uid = self_overflow_uid,
	    .lstat = lstat,
	    .realpath = realpath,
	};
}

bool ipc_daemon_uid_trusted(const struct ipc_trust_env *env, uid_t uid,
                            const char *path, char *why, size_t whylen)
{
	/* Root, or the namespace's own root: it controls every process of
	 * the namespace already. */
	if (uid == 0)
		return true;
	/* In a namespace the overflow uid means "unmapped", not "us" even
	 * when we run as it: every process of our namespace and of those
	 * below it has a uid mapped here, so this peer is outside. */
	bool outside = env->namespaced && uid == env->overflow_uid;
	if (!outside && (uid == env->uid || uid == env->euid))
		return true;
	if (!outside) {
		snprintf(why, whylen, "runs as uid %u, not root or you",
		         (unsigned)uid);
		return false;
	}
	/* Root outside, or another user outside: the kernel does not say
	 * which. Only where nobody in here could have put a socket. */
	char problem[PATH_MAX + 128];
	if (ipc_socket_placed_by_root(env, path, problem, sizeof(problem)))
		return true;
	snprintf(why, whylen,
	         "runs as the overflow uid %u (outside this user namespace) "
	         "and its socket %s %s",
	         (unsigned)uid, path, problem);
	return false;
}

bool ipc_daemon_trusted(int fd, const char *path, uid_t *uid, char *why,
                        size_t whylen)
{
	*uid = (uid_t)-1;
	if (!ipc_peer_uid(fd, uid)) {
		snprintf(why, whylen, "cannot be identified (%s)",
		         strerror(errno));
		return false;
	}
	struct ipc_trust_env env = ipc_trust_env_self();
	return ipc_daemon_uid_trusted(&env, *uid, path, why, whylen);
}
