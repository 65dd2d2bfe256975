/* Whom the client sides (the shim, the baton CLI, the best-effort SDK) are
 * talking to: the daemon's uid from SO_PEERCRED, and whether to trust it.
 * A socket path can be replaced by whoever may write its directory; only a
 * daemon run by root or by ourselves may pace us or see our shared memory.
 * Inside a user namespace the kernel shows every uid not mapped there as
 * the overflow uid, root's daemon included: such a peer is trusted only on
 * a path nobody inside the namespace could have put it on (the rule is in
 * docs/security.md, "The control socket"). libc only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The uid of the process at the other end of the connected Unix socket fd
 * (as of its bind/listen). false with errno set if the kernel will not
 * say. */
bool ipc_peer_uid(int fd, uid_t *uid);

/* What the trust rule knows of the process that applies it; the unit tests
 * make up their own. */
struct ipc_trust_env {
	uid_t uid, euid;
	/* Not in the initial user namespace (or we could not tell). */
	bool namespaced;
	/* What a uid not mapped in our namespace reads as. */
	uid_t overflow_uid;
	int (*lstat)(const char *path, struct stat *st);
	char *(*realpath)(const char *path, char *resolved);
};

/* true if text, the contents of a /proc/PID/uid_map, is the initial user
 * namespace's: exactly one extent mapping every uid to itself
 * ("0 0 4294967295"). */
bool ipc_uid_map_is_initial(const char *text);

/* This process: its uids, and whether it runs in a user namespace (from
 * /proc/self/uid_map, read once; unreadable counts as namespaced) and the
 * overflow uid (/proc/sys/kernel/overflowuid, read once; 65534 when
 * unreadable). */
struct ipc_trust_env ipc_trust_env_self(void);

/* true if a daemon that reads as uid, reached through the socket path,
 * may be trusted under env: uid 0; our real or effective uid, unless that
 * is the overflow uid in a namespace; in a namespace, the overflow uid
 * (someone outside it) only if the socket and every directory above it
 * belong to uid 0 or the overflow uid and no directory may be written by
 * group or others. Else false with why set to what follows "the daemon on
 * PATH " in a message, e.g. "runs as uid 1002, not root or you". */
bool ipc_daemon_uid_trusted(const struct ipc_trust_env *env, uid_t uid,
                            const char *path, char *why, size_t whylen);

/* ipc_peer_uid() on fd, then ipc_daemon_uid_trusted() for this process and
 * the path fd was connected through. *uid is the peer's uid when the
 * kernel said it ((uid_t)-1 if not). false with why set as above, or to
 * "cannot be identified (REASON)". */
bool ipc_daemon_trusted(int fd, const char *path, uid_t *uid, char *why,
                        size_t whylen);
