#include "daemon/server/listen.h"

#include "daemon/server/safe_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Creates dir if it is missing (0700 under $XDG_RUNTIME_DIR, else 0755)
 * with exactly that mode: the umask is lifted around mkdir() instead of a
 * chmod() by path afterwards, which could hit whatever someone put there
 * in between. If someone else created it first (EEXIST), the ownership
 * checks that follow decide. */
static bool make_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(dir, &st) == 0 || errno != ENOENT)
		return true;
	/* A per-user runtime directory keeps its contents private; the
	 * system one must let every user's games reach the socket. */
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	size_t xl = xdg ? strlen(xdg) : 0;
	mode_t mode =
	    xl && strncmp(dir, xdg, xl) == 0 && dir[xl] == '/' ? 0700 : 0755;
	mode_t old = umask(0);
	int rc = mkdir(dir, mode);
	int e = errno;
	umask(old);
	if (rc < 0 && e != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(e));
		return false;
	}
	return true;
}

bool listener_check_dir(const char *path, char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	if (strlen(path) >= sizeof(dir)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return false;
	}
	safe_dir_of(path, dir, sizeof(dir));
	return make_dir(dir, err, errlen) &&
	       safe_dir_check("socket directory", dir, err, errlen);
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
	if (!listener_check_dir(path, err, errlen))
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
	/* Every user's games connect (admin requests are checked by peer
	 * credentials): the socket is born 0666. The umask, process-wide,
	 * is changed only here, before any other thread exists. */
	mode_t old = umask(0111);
	int rc = bind(l->fd, (struct sockaddr *)&sa, sizeof(sa));
	int e = errno;
	umask(old);
	if (rc < 0) {
		snprintf(err, errlen, "bind %s: %s", l->path, strerror(e));
		goto fail;
	}
	if (lstat(path, &st) < 0) {
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

void listener_unlink(struct listener *l)
{
	if (l->fd < 0)
		return;
	struct stat st;
	if (lstat(l->path, &st) == 0 && st.st_dev == l->dev &&
	    st.st_ino == l->ino)
		unlink(l->path);
}

void listener_close(struct listener *l)
{
	if (l->fd < 0)
		return;
	listener_unlink(l);
	close(l->fd);
	l->fd = -1;
}
