#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pause_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

int connect_unix(const char *sock)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0;
}

bool batond_spawn(struct batond_proc *p, const char *const *extra)
{
	memset(p, 0, sizeof(*p));
	const char *bin = getenv("BATOND");
	if (!bin)
		return false;
	snprintf(p->dir, sizeof(p->dir), "/tmp/batond-test-XXXXXX");
	if (!mkdtemp(p->dir))
		return false;
	/* Other users (the uid test) must reach the socket. */
	chmod(p->dir, 0755);
	snprintf(p->sock, sizeof(p->sock), "%s/batond.sock", p->dir);
	/* A --socket among the extra arguments wins, as on the command
	 * line. */
	for (size_t i = 0; extra && extra[i] && extra[i + 1]; i++)
		if (strcmp(extra[i], "--socket") == 0)
			snprintf(p->sock, sizeof(p->sock), "%s", extra[i + 1]);
	snprintf(p->log, sizeof(p->log), "%s/stderr.log", p->dir);
	setenv("BATON_SOCKET", p->sock, 1);

	const char *argv[32] = {bin, "--socket", p->sock, "--metrics",
	                        "127.0.0.1:0"};
	size_t argc = 5;
	for (size_t i = 0; extra && extra[i] && argc < 31; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;
	p->pid = fork();
	if (p->pid < 0) {
		p->pid = 0;
		return false;
	}
	if (p->pid == 0) {
		/* A test that dies (a failed assertion can crash a threaded
		 * test) must not leave a daemon behind holding its pipes. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int fd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		              0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	char buf[8192];
	for (long long end = now_ms() + 5000; now_ms() < end; pause_ms(20)) {
		int status;
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			p->pid = 0;
			return false;
		}
		if (!read_file(p->log, buf, sizeof(buf)))
			continue;
		const char *m = strstr(buf, "batond: metrics on http://");
		if (!m || sscanf(m, "batond: metrics on http://127.0.0.1:%u",
		                 &p->port) != 1)
			continue;
		int fd = connect_unix(p->sock);
		if (fd >= 0) {
			close(fd);
			return true;
		}
	}
	return false;
}

int batond_term(struct batond_proc *p)
{
	if (p->pid <= 0)
		return -1;
	kill(p->pid, SIGTERM);
	for (long long end = now_ms() + 5000; now_ms() < end; pause_ms(10)) {
		int status;
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			p->pid = 0;
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		}
	}
	return -1;
}

void batond_dump_log(const struct batond_proc *p)
{
	char buf[16384];
	if (read_file(p->log, buf, sizeof(buf)))
		fprintf(stderr, "--- batond stderr ---\n%s---\n", buf);
}

void batond_cleanup(struct batond_proc *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		p->pid = 0;
	}
	if (p->dir[0]) {
		unlink(p->sock);
		unlink(p->log);
		rmdir(p->dir);
		p->dir[0] = '\0';
	}
}

char *read_line(int fd)
{
	char *buf = malloc(1 << 20);
	size_t len = 0;
	long long end = now_ms() + 5000;
	while (len < (1 << 20) - 1) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int left = (int)(end - now_ms());
		if (left <= 0 || poll(&pf, 1, left) != 1)
			break;
		/* Up to the first newline only, found by peeking: the rest
		 * stays for the next line. */
		size_t room = (1 << 20) - 1 - len;
		ssize_t n = recv(fd, buf + len, room, MSG_PEEK);
		if (n <= 0)
			break;
		char *nl = memchr(buf + len, '\n', (size_t)n);
		size_t take = nl ? (size_t)(nl - (buf + len)) + 1 : (size_t)n;
		n = recv(fd, buf + len, take, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (nl && (size_t)n == take) {
			buf[len - 1] = '\0';
			return buf;
		}
	}
	free(buf);
	return NULL;
}

char *exchange(int fd, const char *bytes, size_t len)
{
	if (send(fd, bytes, len, MSG_NOSIGNAL) != (ssize_t)len)
		return NULL;
	return read_line(fd);
}

char *client_request(const char *sock, const char *line)
{
	int fd = connect_unix(sock);
	if (fd < 0)
		return NULL;
	static const char hello[] =
	    "{\"type\":\"hello\",\"version\":1,\"role\":\"client\"}\n";
	char *w = exchange(fd, hello, strlen(hello));
	char *r = NULL;
	if (w && strstr(w, "\"welcome\""))
		r = exchange(fd, line, strlen(line));
	free(w);
	close(fd);
	return r;
}

bool wait_closed(int fd)
{
	char c;
	for (long long end = now_ms() + 5000; now_ms() < end;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, 100) == 1) {
			ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
			if (n == 0 || (n < 0 && errno != EAGAIN))
				return true;
		}
	}
	return false;
}

char *http_get(unsigned port, const char *path, int *status)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET,
	                         .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return NULL;
	}
	char req[256];
	int n = snprintf(req, sizeof(req),
	                 "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
		close(fd);
		return NULL;
	}
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (long long end = now_ms() + 5000; now_ms() < end;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, 100) != 1)
			continue;
		ssize_t r = recv(fd, buf + len, cap - 1 - len, 0);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", status) != 1) {
		free(buf);
		return NULL;
	}
	return buf;
}
