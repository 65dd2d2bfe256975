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

/* Creates the parent directory if missing (0700 under $XDG_RUNTIME_DIR,
 * else 0755), refuses if another daemon answers on path, replaces a stale
 * socket file, binds, makes it connectable by every user (tenants of any
 * user register; admin requests are checked by peer credentials) and
 * listens (nonblocking, close-on-exec). false with a reason in err. */
bool listener_open(struct listener *l, const char *path, char *err,
                   size_t errlen);

/* Closes the socket and removes its file if it is still the one we bound. */
void listener_close(struct listener *l);
