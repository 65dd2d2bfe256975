#include "daemon/listen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static bool make_parent(const char *path, char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return true; /* relative to cwd, or directly under / */
	*slash = '\0';
	struct stat st;
	if (stat(dir, &st) == 0)
		return true;
	/* A per-user runtime directory keeps its contents private; the
	 * system one must let every user's games reach the socket. */
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	size_t xl = xdg ? strlen(xdg) : 0;
	mode_t mode =
	    xl && strncmp(dir, xdg, xl) == 0 && dir[xl] == '/' ? 0700 : 0755;
	if (mkdir(dir, mode) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %m", dir);
		return false;
	}
	chmod(dir, mode); /* umask must not narrow it */
	return true;
}

/* true if something accepts connections on path. */
static bool someone_listens(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	int rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	/* EAGAIN: a listener with a full backlog is still a listener. */
	bool alive = rc == 0 || errno == EAGAIN || errno == EINPROGRESS;
	close(fd);
	return alive;
}

bool listener_open(struct listener *l, const char *path, char *err,
                   size_t errlen)
{
	*l = (struct listener){.fd = -1};
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return false;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	snprintf(l->path, sizeof(l->path), "%s", path);
	if (!make_parent(path, err, errlen))
		return false;

	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen,
			         "%s exists and is not a socket; not touching "
			         "it",
			         path);
			return false;
		}
		if (someone_listens(&sa)) {
			snprintf(err, errlen,
			         "another batond is answering on %s", path);
			return false;
		}
		/* Stale: left by a daemon that died. */
		unlink(path);
	}

	l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l->fd < 0) {
		snprintf(err, errlen, "socket: %m");
		return false;
	}
	if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(err, errlen, "bind %s: %m", l->path);
		goto fail;
	}
	if (chmod(path, 0666) < 0 || stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %m", l->path);
		unlink(path);
		goto fail;
	}
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	if (listen(l->fd, 64) < 0) {
		snprintf(err, errlen, "listen %s: %m", l->path);
		unlink(path);
		goto fail;
	}
	return true;
fail:
	close(l->fd);
	l->fd = -1;
	return false;
}

void listener_close(struct listener *l)
{
	if (l->fd < 0)
		return;
	struct stat st;
	if (lstat(l->path, &st) == 0 && st.st_dev == l->dev &&
	    st.st_ino == l->ino)
		unlink(l->path);
	close(l->fd);
	l->fd = -1;
}
