/* A new game's first frames (shim_core.c, pick_period): with BATON_SLA it
 * is paced at its SLA from the first Present until batond's control block
 * says otherwise, and runs free once registration is known to fail (no
 * daemon, no pacing). The shim sets itself up once per process, so each
 * case runs in a child of its own; batond is played by a thread that
 * takes the hello and the memfd, never answers, and writes the control
 * block when the case says. Timing checks take medians and bounds a busy
 * machine cannot break: a paced interval is never shorter than the period
 * (less the time to read the clock), a free one is far shorter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipc/control.h"
#include "ipc/fdpass.h"
#include "ipc/shm_layout.h"
#include "shim/shim.h"
#include "shim/shim_clock.h"
#include "shim/shim_conn.h"

#define MS       1000000LL
#define SLA_FPS  "50"
#define SLA      (20 * MS)  /* its period */
#define FAST     (10 * MS)  /* the period the fake batond sets */
#define FREE_MAX (SLA / 10) /* an unpaced frame loop's median interval */
#define N_MEDIAN 25

/* In the child: a failed check prints where and exits nonzero. */
#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__,       \
			        __LINE__, #c);                                 \
			return 1;                                              \
		}                                                              \
	} while (0)

struct fake_batond {
	char dir[64], sock[108];
	int listen_fd;
	pthread_t thread;
	struct ipc_shm shm; /* the tenant's region, once registered */
	atomic_bool registered;
};

static void *serve(void *arg)
{
	struct fake_batond *b = arg;
	int fd = accept(b->listen_fd, NULL, NULL);
	if (fd < 0)
		return NULL;
	char buf[4096];
	int fds[IPC_RECV_MAX_FDS];
	size_t nfds = 0;
	ssize_t n = ipc_recv_with_fds(fd, buf, sizeof(buf), fds, &nfds);
	char err[160];
	if (n > 0 && nfds == 1 &&
	    ipc_shm_map(fds[0], &b->shm, err, sizeof(err)))
		atomic_store(&b->registered, true);
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	/* Registration stays pending: no welcome, the connection held. */
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return NULL;
}

static bool fake_batond_start(struct fake_batond *b)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->dir, sizeof(b->dir), "/tmp/baton-shim-start-XXXXXX");
	if (!mkdtemp(b->dir))
		return false;
	snprintf(b->sock, sizeof(b->sock), "%s/batond.sock", b->dir);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", b->sock);
	b->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (b->listen_fd < 0 ||
	    bind(b->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(b->listen_fd, 4) < 0)
		return false;
	setenv("BATON_SOCKET", b->sock, 1);
	return pthread_create(&b->thread, NULL, serve, b) == 0;
}

static void fake_batond_cleanup(struct fake_batond *b)
{
	unlink(b->sock);
	rmdir(b->dir);
}

static bool wait_for(atomic_bool *flag)
{
	for (int i = 0; i < 500 && !atomic_load(flag); i++) {
		struct timespec ts = {0, 10 * MS};
		nanosleep(&ts, NULL);
	}
	return atomic_load(flag);
}

static void set_period(struct fake_batond *b, int64_t period)
{
	struct ipc_control_values v = {
	    .target_period_ns = period,
	    .policy_epoch = 1,
	    .flags = BATON_CONTROL_VALID,
	};
	ipc_control_write(b->shm.control, &v);
}

/* One frame with a fake Present; returns when Present was called. */
static int64_t frame(void)
{
	uint64_t f = shim_frame_begin(SHIM_API_GL);
	int64_t present = shim_now_ns();
	shim_frame_end(f);
	return present;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median interval of the next N_MEDIAN frames, after one frame to
 * take up a period just set. */
static int64_t median_interval(void)
{
	int64_t iv[N_MEDIAN], prev = frame();
	prev = frame();
	for (int i = 0; i < N_MEDIAN; i++) {
		int64_t p = frame();
		iv[i] = p - prev;
		prev = p;
	}
	qsort(iv, N_MEDIAN, sizeof(iv[0]), cmp_i64);
	return iv[N_MEDIAN / 2];
}

/* A paced median is never shorter than the period; a busy machine (other
 * tests, host steal) makes frames late and the median longer, so the upper
 * bound only has to tell the periods the cases use apart (10 and 20 ms). */
static bool near(int64_t got, int64_t want)
{
	return got > want * 99 / 100 && got < want * 125 / 100;
}

/* BATON_SLA, batond reachable but not answering yet: paced at the SLA
 * from the first interval on, then whatever the control block says. */
static int case_sla_until_batond_says(void)
{
	struct fake_batond b;
	CHECK(fake_batond_start(&b));
	setenv("BATON_SLA", SLA_FPS, 1);
	/* The first interval is paced: the first frame's begin anchors the
	 * grid at a time it reads after t0, and the second Present is a
	 * period after the anchor at the soonest. (Not p2 - p1: p1 is read
	 * after the begin returns, and a preempted or ASan-slowed first
	 * begin puts it well past the anchor.) */
	int64_t t0 = shim_now_ns();
	frame();
	int64_t p2 = frame();
	CHECK(p2 - t0 >= SLA);
	CHECK(near(median_interval(), SLA));
	CHECK(wait_for(&b.registered));
	CHECK(!shim_conn_absent());
	CHECK(near(median_interval(), SLA)); /* still no word from batond */
	set_period(&b, FAST);
	CHECK(near(median_interval(), FAST));
	set_period(&b, 0); /* batond: unpaced (policy none) */
	CHECK(median_interval() < FREE_MAX);
	fake_batond_cleanup(&b);
	return 0;
}

/* Without BATON_SLA the shim knows no rate: free until the block (which
 * batond writes at registration), then the block's. */
static int case_no_sla_free_until_the_block(void)
{
	struct fake_batond b;
	CHECK(fake_batond_start(&b));
	unsetenv("BATON_SLA");
	frame();
	CHECK(wait_for(&b.registered));
	CHECK(median_interval() < FREE_MAX);
	set_period(&b, SLA);
	CHECK(near(median_interval(), SLA));
	fake_batond_cleanup(&b);
	return 0;
}

/* BATON_SLA but nothing listens: fail open, free once the shim's thread
 * found no daemon. */
static int case_no_daemon_runs_free(void)
{
	setenv("BATON_SLA", SLA_FPS, 1);
	setenv("BATON_SOCKET", "/nonexistent/baton.sock", 1);
	frame();
	for (int i = 0; i < 500 && !shim_conn_absent(); i++) {
		struct timespec ts = {0, 10 * MS};
		nanosleep(&ts, NULL);
	}
	CHECK(shim_conn_absent());
	CHECK(median_interval() < FREE_MAX);
	return 0;
}

/* BATON_SLA and a "daemon" of another uid (65534) on the socket, as
 * anyone who can write the socket's directory could start: the shim must
 * not hand it the memfd (it would pace us) and runs free, as with no
 * daemon. The impostor reports on a pipe whether it got a descriptor. */
#define NOBODY 65534
static int case_impostor_runs_free(void)
{
	char dir[] = "/tmp/baton-shim-impostor-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(chown(dir, NOBODY, NOBODY) == 0);
	char sock[108];
	snprintf(sock, sizeof(sock), "%s/batond.sock", dir);
	int report[2];
	CHECK(pipe(report) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(report[0]);
		if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
			_exit(100);
		int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    listen(lfd, 4) < 0 || write(report[1], "L", 1) != 1)
			_exit(101);
		for (;;) {
			int fd = accept(lfd, NULL, NULL);
			char buf[4096];
			int fds[IPC_RECV_MAX_FDS];
			size_t nfds = 0;
			ssize_t n =
			    ipc_recv_with_fds(fd, buf, sizeof(buf), fds, &nfds);
			if (n > 0 && nfds > 0 && write(report[1], "F", 1) != 1)
				_exit(102);
			close(fd);
		}
	}
	close(report[1]);
	char c = 0;
	CHECK(read(report[0], &c, 1) == 1 && c == 'L');
	setenv("BATON_SLA", SLA_FPS, 1);
	setenv("BATON_SOCKET", sock, 1);
	frame();
	for (int i = 0; i < 500 && !shim_conn_absent(); i++) {
		struct timespec ts = {0, 10 * MS};
		nanosleep(&ts, NULL);
	}
	bool absent = shim_conn_absent();
	int64_t median = median_interval();
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* Its report is complete now: empty, or 'F' if it got our memfd. */
	ssize_t got = read(report[0], &c, 1);
	unlink(sock);
	rmdir(dir);
	CHECK(got == 0);
	CHECK(absent);
	CHECK(median < FREE_MAX);
	return 0;
}

static void run_in_child(int (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsetenv("BATON_FPS");
		_exit(fn());
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_sla_until_batond_says(void **state)
{
	(void)state;
	run_in_child(case_sla_until_batond_says);
}

static void test_no_sla_free_until_the_block(void **state)
{
	(void)state;
	run_in_child(case_no_sla_free_until_the_block);
}

static void test_no_daemon_runs_free(void **state)
{
	(void)state;
	run_in_child(case_no_daemon_runs_free);
}

static void test_impostor_runs_free(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		print_message("needs root to run the impostor as uid %d\n",
		              NOBODY);
		skip();
	}
	run_in_child(case_impostor_runs_free);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sla_until_batond_says),
	    cmocka_unit_test(test_no_sla_free_until_the_block),
	    cmocka_unit_test(test_no_daemon_runs_free),
	    cmocka_unit_test(test_impostor_runs_free),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
