#include "shim/shim_conn.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ipc/fdpass.h"
#include "ipc/linebuf.h"
#include "ipc/peer_cred.h"
#include "shim/shim_hello.h"

/* The thread's state. Static: there is one thread per process, and the
 * fork child starts its own with fresh values. */
static struct shim_config conn_cfg;
static enum shim_api conn_api;
static int conn_memfd = -1;
/* The connected socket, so that the fork child can close it. */
static _Atomic int conn_sock = -1;
/* shim_conn_absent(); written by the thread only (and the fork child). */
static _Atomic bool conn_absent;

bool shim_conn_absent(void)
{
	return atomic_load_explicit(&conn_absent, memory_order_relaxed);
}

static void set_absent(bool absent)
{
	atomic_store_explicit(&conn_absent, absent, memory_order_relaxed);
}

static void pause_ns(long long ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000,
	                      .tv_nsec = ns % 1000000000};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int dial(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	memcpy(addr.sun_path, conn_cfg.socket, sizeof(addr.sun_path) - 1);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads the first line the daemon sends. Returns 1 for a welcome, 0 for
 * anything else (an error reply), -1 if the connection ended first. */
static int read_reply(int fd, struct ipc_linebuf *lb, char *line)
{
	for (;;) {
		size_t len;
		int got = ipc_linebuf_take(lb, line, &len);
		if (got < 0)
			return -1;
		if (got > 0) {
			if (strstr(line, "\"welcome\""))
				return 1;
			shim_log(SHIM_LOG_ERROR, "batond refused us: %s", line);
			return 0;
		}
		size_t avail;
		char *space = ipc_linebuf_space(lb, &avail);
		ssize_t n = read(fd, space, avail);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		ipc_linebuf_commit(lb, (size_t)n);
	}
}

/* Blocks until the daemon closes the connection (or it fails). The daemon
 * may send more lines; none of them needs an answer today. */
static void hold(int fd)
{
	char buf[512];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
	}
}

/* true if the daemon on fd runs as root or as us (or, seen from a user
 * namespace, as someone outside it on a path only root could have made:
 * ipc/peer_cred.h). Anyone who can write the socket's directory can put
 * their own daemon there; it must not get our control block (it would pace
 * us: down to 1 FPS) nor our memfd. The game then runs unpaced, as with no
 * daemon at all, and says so once per impostor uid. */
static bool daemon_trusted(int fd)
{
	static uid_t warned_uid;
	static bool warned;
	uid_t uid;
	char why[PATH_MAX + 256];
	if (ipc_daemon_trusted(fd, conn_cfg.socket, &uid, why, sizeof(why)))
		return true;
	if (!warned || uid != warned_uid)
		shim_log(SHIM_LOG_ERROR,
		         "the daemon on %s %s; not registering with it (we run "
		         "as uid %u): the game runs unpaced",
		         conn_cfg.socket, why, (unsigned)geteuid());
	warned = true;
	warned_uid = uid;
	return false;
}

/* One registration: connect, check who answers, hello + memfd, reply,
 * hold. Returns how long to wait before the next one. */
static long long session(const char *hello, size_t hello_len)
{
	static struct ipc_linebuf lb;
	static char line[BATON_MSG_MAX];
	/* Said once per outage, not four times a second. */
	static bool unreachable;
	int fd = dial();
	if (fd < 0) {
		if (!unreachable)
			shim_log(SHIM_LOG_INFO, "cannot reach batond at %s: %s",
			         conn_cfg.socket, strerror(errno));
		unreachable = true;
		set_absent(true);
		return SHIM_CONN_RETRY_NS;
	}
	unreachable = false;
	if (!daemon_trusted(fd)) {
		set_absent(true);
		close(fd);
		return SHIM_CONN_REFUSED_RETRY_NS;
	}
	atomic_store(&conn_sock, fd);
	long long retry = SHIM_CONN_RETRY_NS;
	ssize_t sent = ipc_send_with_fd(fd, hello, hello_len, conn_memfd);
	if (sent != (ssize_t)hello_len) {
		shim_log(SHIM_LOG_WARN, "sending the hello failed: %s",
		         sent < 0 ? strerror((int)-sent) : "short write");
	} else {
		ipc_linebuf_init(&lb);
		int r = read_reply(fd, &lb, line);
		if (r > 0) {
			set_absent(false);
			shim_log(SHIM_LOG_INFO, "registered with batond as %s",
			         conn_cfg.name);
			hold(fd);
			shim_log(SHIM_LOG_INFO, "lost batond; reconnecting");
		} else if (r == 0) {
			retry = SHIM_CONN_REFUSED_RETRY_NS;
		}
	}
	/* Whatever ended this session, batond is not pacing us now; the
	 * control block keeps what it last wrote, if anything. */
	set_absent(true);
	atomic_store(&conn_sock, -1);
	close(fd);
	return retry;
}

static void *conn_main(void *arg)
{
	(void)arg;
	char hello[BATON_MSG_MAX];
	size_t len =
	    shim_hello_format(hello, sizeof(hello), &conn_cfg, conn_api);
	if (!len) {
		shim_log(SHIM_LOG_ERROR, "hello does not fit; not registering");
		return NULL;
	}
	for (;;)
		pause_ns(session(hello, len));
	return NULL;
}

bool shim_conn_start(const struct shim_config *cfg, enum shim_api api,
                     int memfd)
{
	conn_cfg = *cfg;
	conn_api = api;
	conn_memfd = memfd;
	pthread_attr_t attr;
	if (pthread_attr_init(&attr) != 0)
		return false;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* Our needs are a few kB (sanitizer builds need more); a game's
	 * default stack size can be 8 MB of address space or more. */
	pthread_attr_setstacksize(&attr, 256 * 1024);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int err = pthread_create(&t, &attr, conn_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		shim_log(SHIM_LOG_ERROR, "cannot start the shim thread: %s",
		         strerror(err));
		return false;
	}
	pthread_setname_np(t, "baton-shim");
	return true;
}

void shim_conn_forget_in_child(void)
{
	int fd = atomic_exchange(&conn_sock, -1);
	if (fd >= 0)
		close(fd);
	set_absent(false);
}
