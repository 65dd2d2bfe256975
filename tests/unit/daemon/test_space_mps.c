/* Space harvesting through MPS (daemon/tick/space_mps.h, mps_reply.h) against
 * a fake nvidia-cuda-mps-control written here. The fake follows the
 * tool's documented interface (NVIDIA's "Multi-Process Service" guide,
 * "nvidia-cuda-mps-control"): commands on standard input, one a line;
 * get_server_list answers the running servers' pids, one a line; the
 * set commands answer nothing. It appends every command it reads to a
 * log the test reads back, answers the servers in FAKE_MPS_SERVERS and
 * exits with FAKE_MPS_EXIT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/tick/mps_reply.h"
#include "daemon/tick/space_mps.h"

static char dir[64], tool[128], log_path[128];

static const char fake_tool[] =
    "#!/bin/sh\n"
    "while read -r cmd args; do\n"
    "  echo \"$cmd${args:+ $args}\" >> \"$FAKE_MPS_LOG\"\n"
    "  case \"$cmd\" in\n"
    "    get_server_list) printf '%b' \"$FAKE_MPS_SERVERS\" ;;\n"
    "  esac\n"
    "done\n"
    "exit \"${FAKE_MPS_EXIT:-0}\"\n";

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/baton-mps-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(tool, sizeof(tool), "%s/nvidia-cuda-mps-control", dir);
	snprintf(log_path, sizeof(log_path), "%s/commands", dir);
	FILE *f = fopen(tool, "w");
	assert_non_null(f);
	fputs(fake_tool, f);
	fclose(f);
	chmod(tool, 0755);
	setenv("FAKE_MPS_LOG", log_path, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(tool);
	unlink(log_path);
	rmdir(dir);
	return 0;
}

/* The commands the fake read, then a fresh log. */
static void commands(char *out, size_t len)
{
	FILE *f = fopen(log_path, "r");
	size_t n = f ? fread(out, 1, len - 1, f) : 0;
	out[n] = '\0';
	if (f)
		fclose(f);
	unlink(log_path);
}

static void test_percent(void **state)
{
	(void)state;
	assert_int_equal(daemon_mps_percent(33, 132), 25);
	assert_int_equal(daemon_mps_percent(0, 132), 100);  /* no partition */
	assert_int_equal(daemon_mps_percent(1, 132), 1);    /* at least 1 */
	assert_int_equal(daemon_mps_percent(131, 132), 99); /* never more */
	assert_int_equal(daemon_mps_percent(5, 0), 100);
}

static void test_reply(void **state)
{
	(void)state;
	pid_t p[4];
	size_t bad;
	const char *r = "4242\n 17 \r\n\nabc\n0\n-3\n99999999999\n7";
	assert_int_equal(daemon_mps_servers(r, strlen(r), p, 4, &bad), 3);
	assert_int_equal(p[0], 4242);
	assert_int_equal(p[1], 17);
	assert_int_equal(p[2], 7);
	assert_int_equal(bad, 4);
	r = "1\n2\n3\n";
	assert_int_equal(daemon_mps_servers(r, strlen(r), p, 2, &bad), 2);
	assert_int_equal(bad, 1); /* past the room */
	assert_int_equal(daemon_mps_servers("", 0, p, 4, &bad), 0);
}

static void test_set(void **state)
{
	(void)state;
	char err[256] = "", got[1024];
	setenv("FAKE_MPS_SERVERS", "4242\\n4343\\n", 1);
	unsetenv("FAKE_MPS_EXIT");
	assert_int_equal(daemon_mps_set(tool, 25, err, sizeof(err)), 0);
	commands(got, sizeof(got));
	assert_string_equal(got, "get_server_list\n"
	                         "set_default_active_thread_percentage 25\n"
	                         "set_active_thread_percentage 4242 25\n"
	                         "set_active_thread_percentage 4343 25\n");
	/* no server running: the default only */
	setenv("FAKE_MPS_SERVERS", "", 1);
	assert_int_equal(daemon_mps_set(tool, 100, err, sizeof(err)), 0);
	commands(got, sizeof(got));
	assert_string_equal(got, "get_server_list\n"
	                         "set_default_active_thread_percentage 100\n");
	/* a reply that is not a list of pids: nothing set */
	setenv("FAKE_MPS_SERVERS", "Cannot find MPS control daemon\\n", 1);
	assert_int_equal(daemon_mps_set(tool, 25, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a pid"));
	commands(got, sizeof(got));
	assert_string_equal(got, "get_server_list\n");
	/* the tool fails */
	setenv("FAKE_MPS_EXIT", "3", 1);
	setenv("FAKE_MPS_SERVERS", "", 1);
	assert_int_equal(daemon_mps_set(tool, 25, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exited 3"));
	unsetenv("FAKE_MPS_EXIT");
	assert_int_equal(
	    daemon_mps_set("/nonexistent/mps-control", 25, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "exited 127"));
	commands(got, sizeof(got));
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Ticks every 10 ms, for at most 5 s, until the percentage in force is
 * want. */
static void tick_until(struct daemon_mps *m, uint32_t be_count, int want)
{
	for (int i = 0; i < 500 && m->applied != want; i++) {
		daemon_mps_tick(tool, m, "gpu0", be_count, 132, now_ns());
		usleep(10000);
	}
	assert_int_equal(m->applied, want);
}

/* The tick: a helper on each change, never waited for; given back at
 * 100 when the partition goes; nothing with the tool off. */
static void test_tick(void **state)
{
	(void)state;
	char got[1024];
	setenv("FAKE_MPS_SERVERS", "4242\\n", 1);
	struct daemon_mps m = {0};
	int64_t t0 = now_ns();
	daemon_mps_tick(tool, &m, "gpu0", 33, 132, t0);
	assert_true(m.helper > 0);
	assert_true(now_ns() - t0 < 50000000LL); /* it did not wait */
	tick_until(&m, 33, 25);
	commands(got, sizeof(got));
	assert_non_null(strstr(got, "set_active_thread_percentage 4242 25\n"));
	/* unchanged: no helper */
	daemon_mps_tick(tool, &m, "gpu0", 33, 132, now_ns());
	assert_int_equal(m.helper, 0);
	tick_until(&m, 0, 100);
	commands(got, sizeof(got));
	assert_non_null(
	    strstr(got, "set_default_active_thread_percentage 100"));
	/* a failing tool: retried after 5 s, not at every tick */
	setenv("FAKE_MPS_EXIT", "1", 1);
	for (int i = 0; i < 100 && m.retry_ns == 0; i++) {
		daemon_mps_tick(tool, &m, "gpu0", 66, 132, now_ns());
		usleep(10000);
	}
	assert_true(m.retry_ns > now_ns());
	assert_int_equal(m.applied, 100);
	assert_int_equal(m.helper, 0);
	daemon_mps_tick(tool, &m, "gpu0", 66, 132, now_ns());
	assert_int_equal(m.helper, 0);
	unsetenv("FAKE_MPS_EXIT");
	struct daemon_mps off = {0};
	daemon_mps_tick("", &off, "gpu0", 33, 132, now_ns());
	assert_int_equal(off.helper, 0);
	commands(got, sizeof(got));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_percent),
	    cmocka_unit_test(test_reply),
	    cmocka_unit_test(test_set),
	    cmocka_unit_test(test_tick),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
