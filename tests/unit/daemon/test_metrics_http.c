/* The metrics endpoint in this process (metrics.h): what it labels tenants
 * with, a port that is taken, descriptors past FD_SETSIZE and connections
 * that hold their slot without asking anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/report/metrics.h"
#include "harness.h"

/* The second one declared quality levels and runs at level 2. */
static const struct metrics_tenant tenants[2] = {
    {.id = 42, .uid = 1234, .name = "secret-game", .pid = 4321, .fps = 60},
    {.id = 43,
     .uid = 1234,
     .name = "arena",
     .pid = 77,
     .has_quality = true,
     .quality_level = 2},
};

static char *scrape(bool names)
{
	char err[256];
	unsigned port = 0;
	struct metrics *m =
	    metrics_start("127.0.0.1", 0, names, &port, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	struct metrics_snapshot s = {
	    .policy = "sa", .tenants = tenants, .n = 2};
	assert_true(metrics_publish(m, &s));
	int code = 0;
	char *r = http_get(port, "/metrics", &code);
	metrics_stop(m);
	assert_non_null(r);
	assert_int_equal(code, 200);
	return r;
}

static void test_names_only_when_asked(void **state)
{
	(void)state;
	char *r = scrape(false);
	assert_non_null(
	    strstr(r, "baton_tenant_fps{id=\"42\",uid=\"1234\"} 60\n"));
	if (strstr(r, "secret-game") || strstr(r, "4321"))
		fail_msg("name or pid without metrics_names:\n%s", r);
	free(r);
	r = scrape(true);
	assert_non_null(strstr(r, "baton_tenant_fps{id=\"42\",uid=\"1234\","
	                          "name=\"secret-game\",pid=\"4321\"} 60\n"));
	free(r);
}

/* baton_tenant_quality_level: the level of the game that declared
 * levels, no line for the one that did not. */
static void test_quality_level_only_with_levels(void **state)
{
	(void)state;
	char *r = scrape(false);
	assert_non_null(strstr(r, "# TYPE baton_tenant_quality_level gauge\n"));
	assert_non_null(strstr(
	    r, "\nbaton_tenant_quality_level{id=\"43\",uid=\"1234\"} 2\n"));
	if (strstr(r, "baton_tenant_quality_level{id=\"42\""))
		fail_msg("a level for a game without levels:\n%s", r);
	free(r);
}

/* A listener on 127.0.0.1 (any port); its port in *port. */
static int listener(unsigned *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	socklen_t len = sizeof(sa);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static void test_port_taken_says_why(void **state)
{
	(void)state;
	unsigned port;
	int fd = listener(&port);
	char err[256] = "", want[64];
	unsigned bound = 0;
	struct metrics *m =
	    metrics_start("127.0.0.1", port, false, &bound, err, sizeof(err));
	close(fd);
	metrics_stop(m);
	assert_null(m);
	snprintf(want, sizeof(want), "127.0.0.1:%u", port);
	if (!strstr(err, want) || !strstr(err, "Address already in use"))
		fail_msg("\"%s\" does not name %s and the error", err, want);
}

/* select() cannot watch a descriptor at or past FD_SETSIZE: the server
 * must serve from up there all the same. */
static void test_past_fd_setsize(void **state)
{
	(void)state;
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rlim_t want = FD_SETSIZE + 64;
	if (rl.rlim_max < want) {
		print_message("RLIMIT_NOFILE hard limit %llu is too low\n",
		              (unsigned long long)rl.rlim_max);
		skip();
	}
	struct rlimit saved = rl;
	rl.rlim_cur = want;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	/* Every descriptor below FD_SETSIZE taken. */
	int *held = calloc(FD_SETSIZE, sizeof(int));
	int n = 0, fd;
	while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0 &&
	       fd < FD_SETSIZE)
		held[n++] = fd;
	if (fd >= 0)
		close(fd); /* the first free one is past FD_SETSIZE */
	char err[256] = "";
	unsigned port = 0;
	struct metrics *m =
	    metrics_start("127.0.0.1", 0, false, &port, err, sizeof(err));
	int code = 0;
	char *r = m ? http_get(port, "/metrics", &code) : NULL;
	metrics_stop(m);
	for (int i = 0; i < n; i++)
		close(held[i]);
	free(held);
	setrlimit(RLIMIT_NOFILE, &saved);
	if (!m)
		fail_msg("%s", err);
	assert_non_null(r);
	assert_int_equal(code, 200);
	free(r);
}

/* More idle connections than the old limit of 16 (they send part of a
 * request and stop): a scrape is still answered at once, and they are
 * dropped after METRICS_TIMEOUT_S. */
static void test_idle_connections_do_not_starve(void **state)
{
	(void)state;
	char err[256];
	unsigned port = 0;
	struct metrics *m =
	    metrics_start("127.0.0.1", 0, false, &port, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	enum { IDLE = 32 };
	int fds[IDLE];
	struct sockaddr_in sa = {.sin_family = AF_INET,
	                         .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	for (int i = 0; i < IDLE; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_int_equal(
		    connect(fds[i], (struct sockaddr *)&sa, sizeof(sa)), 0);
		assert_int_equal(send(fds[i], "GET /met", 8, 0), 8);
	}
	long long t0 = now_ms();
	int code = 0;
	char *r = http_get(port, "/metrics", &code);
	long long dt = now_ms() - t0;
	assert_non_null(r);
	assert_int_equal(code, 200);
	free(r);
	if (dt > 1000)
		fail_msg("the scrape took %lld ms", dt);
	/* Dropped once idle for the timeout: each reads end of file. */
	struct timeval tv = {METRICS_TIMEOUT_S + 3, 0};
	int closed = 0;
	for (int i = 0; i < IDLE; i++) {
		setsockopt(fds[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		char buf[512];
		ssize_t got;
		while ((got = recv(fds[i], buf, sizeof(buf), 0)) > 0)
			;
		closed += got == 0;
		close(fds[i]);
	}
	metrics_stop(m);
	assert_int_equal(closed, IDLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_only_when_asked),
	    cmocka_unit_test(test_quality_level_only_with_levels),
	    cmocka_unit_test(test_port_taken_says_why),
	    cmocka_unit_test(test_past_fd_setsize),
	    cmocka_unit_test(test_idle_connections_do_not_starve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
