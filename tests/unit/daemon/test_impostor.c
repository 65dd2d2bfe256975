/* The admin commands (src/cli/client.c) against an impostor: a "daemon"
 * run by uid 65534 on the socket path, as anyone who can write the
 * socket's directory could put there. It welcomes every client and
 * answers every request with a made-up status; the commands must refuse
 * to believe it. Needs root (to be another uid); skipped elsewhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"

#define NOBODY 65534

static const char fake_status[] =
    "{\"type\":\"status\",\"policy\":\"none\",\"gpu_util\":0,"
    "\"other_util\":0,\"sla_util\":0,\"common_fps\":0,\"overload\":false,"
    "\"tenants\":[]}\n";

/* The impostor's loop: every line it reads gets an answer (a welcome to
 * a hello, else the fake status). */
static void serve(int lfd)
{
	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		char buf[4096];
		ssize_t n;
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			const char *r =
			    strstr(buf, "hello")
			        ? "{\"type\":\"welcome\",\"version\":1}\n"
			        : fake_status;
			if (write(fd, r, strlen(r)) < 0)
				break;
			memset(buf, 0, sizeof(buf));
		}
		close(fd);
	}
}

struct impostor {
	char dir[48];
	char sock[108];
	pid_t pid;
};

static void impostor_start(struct impostor *im)
{
	snprintf(im->dir, sizeof(im->dir), "/tmp/baton-impostor-XXXXXX");
	assert_non_null(mkdtemp(im->dir));
	/* Its own directory, as in a world-writable /tmp/baton. */
	assert_int_equal(chown(im->dir, NOBODY, NOBODY), 0);
	assert_int_equal(chmod(im->dir, 0755), 0);
	snprintf(im->sock, sizeof(im->sock), "%s/batond.sock", im->dir);
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	im->pid = fork();
	assert_true(im->pid >= 0);
	if (im->pid == 0) {
		close(ready[0]);
		if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
			_exit(100);
		int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", im->sock);
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    listen(lfd, 8) < 0)
			_exit(101);
		if (write(ready[1], "r", 1) != 1)
			_exit(102);
		close(ready[1]);
		serve(lfd);
	}
	close(ready[1]);
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	setenv("BATON_SOCKET", im->sock, 1);
}

static void impostor_stop(struct impostor *im)
{
	kill(im->pid, SIGKILL);
	waitpid(im->pid, NULL, 0);
	unlink(im->sock);
	rmdir(im->dir);
}

/* Runs cmd with stderr in err. */
static int run_cmd(int (*cmd)(int, char **), char **argv, int argc, char *err,
                   size_t len)
{
	char e[] = "/tmp/baton-impostor-err-XXXXXX";
	int efd = mkstemp(e);
	assert_true(efd >= 0);
	unlink(e);
	fflush(stderr);
	int se = dup(2);
	dup2(efd, 2);
	int so = dup(1);
	int null = open("/dev/null", O_WRONLY);
	dup2(null, 1);
	int rc = cmd(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(null);
	lseek(efd, 0, SEEK_SET);
	ssize_t n = read(efd, err, len - 1);
	err[n > 0 ? n : 0] = '\0';
	close(efd);
	return rc;
}

static void test_cli_refuses_impostor(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		print_message("needs root to run the impostor as uid %d\n",
		              NOBODY);
		skip();
	}
	struct impostor im;
	impostor_start(&im);
	char want[256];
	snprintf(want, sizeof(want),
	         "the daemon on %s runs as uid %d, not root or you; refusing "
	         "to trust it",
	         im.sock, NOBODY);
	char err[4096];
	char *status[] = {"status", NULL};
	int rc = run_cmd(cmd_status, status, 1, err, sizeof(err));
	char *set[] = {"set", "game", "fps=1", NULL};
	int rc_set = run_cmd(cmd_set, set, 3, err + strlen(err),
	                     sizeof(err) - strlen(err));
	impostor_stop(&im);
	if (rc != CLI_EXIT_FAILURE || rc_set != CLI_EXIT_FAILURE ||
	    !strstr(err, want))
		fail_msg("status exited %d, set %d; stderr:\n%s", rc, rc_set,
		         err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cli_refuses_impostor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
