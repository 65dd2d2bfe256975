/* Space harvesting through MPS (space_mps.h). */
#include "daemon/tick/space_mps.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/tick/mps_reply.h"
#include "util/log.h"

#define MPS_SERVERS_MAX 64
#define MPS_RETRY_NS    5000000000LL

int daemon_mps_percent(uint32_t be_count, unsigned units)
{
	if (be_count == 0 || units == 0)
		return 100;
	int pct = (int)((uint64_t)be_count * 100u / units);
	return pct < 1 ? 1 : pct > 100 ? 100 : pct;
}

/* In the tool's child: its stdin and stdout the pipes, nothing else of
 * batond's open. */
static void exec_tool(const char *control, int in, int out)
{
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
		_exit(127);
	syscall(SYS_close_range, 3u, ~0u, 0u);
	execl(control, control, (char *)NULL);
	_exit(127);
}

/* Runs the tool with input on its stdin; its stdout in out (NUL-ended,
 * cut at len - 1). 0 if it exited 0. */
static int run_tool(const char *control, const char *input, char *out,
                    size_t len, char *err, size_t errlen)
{
	int to[2], from[2];
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0)
		exec_tool(control, to[0], from[1]);
	close(to[0]);
	close(from[1]);
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(to[1]);
		close(from[0]);
		return -1;
	}
	size_t n = strlen(input);
	for (size_t off = 0; off < n;) {
		ssize_t w = write(to[1], input + off, n - off);
		if (w <= 0)
			break; /* its exit status says */
		off += (size_t)w;
	}
	close(to[1]);
	size_t got = 0;
	for (ssize_t r; (r = read(from[0], out + got, len - 1 - got)) > 0;)
		if ((got += (size_t)r) == len - 1)
			break;
	out[got] = '\0';
	close(from[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	snprintf(err, errlen, "%s %s %d", control,
	         WIFEXITED(st) ? "exited" : "was killed by signal",
	         WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return -1;
}

int daemon_mps_set(const char *control, int pct, char *err, size_t errlen)
{
	char reply[2048], cmds[4096];
	if (run_tool(control, "get_server_list\n", reply, sizeof(reply), err,
	             errlen) < 0)
		return -1;
	pid_t servers[MPS_SERVERS_MAX];
	size_t bad;
	size_t n = daemon_mps_servers(reply, strlen(reply), servers,
	                              MPS_SERVERS_MAX, &bad);
	if (bad > 0) {
		snprintf(err, errlen,
		         "get_server_list: %zu lines that are not a pid", bad);
		return -1;
	}
	int len = snprintf(cmds, sizeof(cmds),
	                   "set_default_active_thread_percentage %d\n", pct);
	for (size_t i = 0; i < n; i++)
		len += snprintf(cmds + len, sizeof(cmds) - (size_t)len,
		                "set_active_thread_percentage %d %d\n",
		                (int)servers[i], pct);
	return run_tool(control, cmds, reply, sizeof(reply), err, errlen);
}

/* The helper process: daemon_mps_set, its exit status the result. */
static pid_t start_helper(const char *control, int pct)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	signal(SIGPIPE, SIG_IGN);
	alarm(MPS_HELPER_S); /* kept across exec: the tool's too */
	char err[256];
	if (daemon_mps_set(control, pct, err, sizeof(err)) == 0)
		_exit(0);
	fprintf(stderr, "batond: MPS helper: %s\n", err);
	_exit(1);
}

static void reap(struct daemon_mps *m, const char *gpu, int64_t now_ns)
{
	int st = 0;
	pid_t r = waitpid(m->helper, &st, WNOHANG);
	if (r == 0 || (r < 0 && errno == EINTR))
		return;
	m->helper = 0;
	if (r > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		m->applied = m->pending;
		m->failed_said = false;
		log_info("%s: MPS: best-effort clients made from now on are "
		         "held to %d %% of the SMs",
		         gpu, m->applied);
		return;
	}
	m->retry_ns = now_ns + MPS_RETRY_NS;
	if (!m->failed_said)
		log_warn("%s: MPS: could not set the active thread "
		         "percentage to %d (its line above says why); "
		         "trying again every 5 s",
		         gpu, m->pending);
	m->failed_said = true;
}

void daemon_mps_tick(const char *control, struct daemon_mps *m, const char *gpu,
                     uint32_t be_count, unsigned units, int64_t now_ns)
{
	if (!control || !control[0])
		return;
	if (m->helper > 0)
		reap(m, gpu, now_ns);
	int pct = daemon_mps_percent(be_count, units);
	if (m->helper > 0 || pct == m->applied || now_ns < m->retry_ns)
		return;
	m->pending = pct;
	m->helper = start_helper(control, pct);
	if (m->helper < 0) {
		m->helper = 0;
		m->retry_ns = now_ns + MPS_RETRY_NS;
	}
}
