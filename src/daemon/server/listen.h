/* The control socket's file: parent directory, stale-socket detection,
 * bind and listen, and removal at exit. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct listener {
	int fd;
	char path[108];
	dev_t dev; /* of the socket file we bound, so that exit removes */
	ino_t ino; /* ours and not a successor's */
};

/* Creates the socket's directory if missing (0700 under $XDG_RUNTIME_DIR,
 * else 0755) and checks it is safe: the directory, every directory above
 * it and every symlink on the way (as given and as resolved) belong to
 * root or to our euid, and no one else may write in the directory (nor in
 * an ancestor, unless it is sticky like /tmp). Otherwise a local user
 * could swap the socket for theirs, or make us create, remove or bind
 * where they like. false with a reason naming the directory, its owner
 * and mode in err. */
bool listener_check_dir(const char *path, char *err, size_t errlen);

/* listener_check_dir(), then refuses if another daemon answers on path,
 * replaces a stale socket file, binds with a umask that makes the socket
 * connectable by every user (tenants of any user register; admin requests
 * are checked by peer credentials; no chmod by path afterwards) and
 * listens (nonblocking, close-on-exec). false with a reason in err. */
bool listener_open(struct listener *l, const char *path, char *err,
                   size_t errlen);

/* Removes the socket's file if it is still the one we bound: no new
 * connection can reach the socket from then on. */
void listener_unlink(struct listener *l);
/* listener_unlink(), then closes the socket. */
void listener_close(struct listener *l);
