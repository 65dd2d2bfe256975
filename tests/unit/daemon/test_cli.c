/* baton status / set / policy (src/cli/cmd_*.c) against a real batond. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "fake_tenant.h"
#include "harness.h"
#include "ipc/proto.h"

/* What a command printed, and its exit status. */
struct run {
	int rc;
	char out[1 << 20];
	char err[4096];
};

static void slurp(int fd, char *buf, size_t len)
{
	lseek(fd, 0, SEEK_SET);
	ssize_t n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

static void run_cmd(struct run *r, int (*cmd)(int, char **), int argc, ...)
{
	char *argv[8];
	va_list ap;
	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	char o[] = "/tmp/baton-cli-out-XXXXXX",
	     e[] = "/tmp/baton-cli-err-XXXXXX";
	int ofd = mkstemp(o), efd = mkstemp(e);
	unlink(o);
	unlink(e);
	fflush(stdout);
	fflush(stderr);
	int so = dup(1), se = dup(2);
	dup2(ofd, 1);
	dup2(efd, 2);
	r->rc = cmd(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp(ofd, r->out, sizeof(r->out));
	slurp(efd, r->err, sizeof(r->err));
}

/* `baton status --watch` in a child until SIGINT: it must exit 0 having
 * printed `mark` (a line every redraw has) at least twice. */
static void watch_redraws(struct run *r, const char *mark)
{
	pid_t pid = fork();
	if (pid == 0) {
		run_cmd(r, cmd_status, 2, "status", "--watch");
		int n = 0;
		for (char *s = r->out; (s = strstr(s, mark)); s++)
			n++;
		_exit(r->rc == 0 && n >= 2 ? 0 : 10 + (n < 100 ? n : 100));
	}
	struct timespec wait = {2, 500000000};
	nanosleep(&wait, NULL);
	kill(pid, SIGINT);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_daemon_not_running(void **state)
{
	(void)state;
	setenv("BATON_SOCKET", "/tmp/baton-nobody-here.sock", 1);
	struct run *r = malloc(sizeof(*r));
	run_cmd(r, cmd_status, 1, "status");
	assert_int_equal(r->rc, CLI_EXIT_NO_DAEMON);
	assert_non_null(strstr(r->err, "/tmp/baton-nobody-here.sock"));
	run_cmd(r, cmd_set, 3, "set", "game", "fps=30");
	assert_int_equal(r->rc, CLI_EXIT_NO_DAEMON);
	run_cmd(r, cmd_policy, 2, "policy", "sa");
	assert_int_equal(r->rc, CLI_EXIT_NO_DAEMON);
	free(r);
}

static void test_usage(void **state)
{
	(void)state;
	struct run *r = malloc(sizeof(*r));
	run_cmd(r, cmd_status, 2, "status", "--help");
	assert_int_equal(r->rc, 0);
	assert_non_null(strstr(r->out, "Usage: baton status"));
	run_cmd(r, cmd_status, 2, "status", "--bogus");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 2, "set", "--help");
	assert_int_equal(r->rc, 0);
	run_cmd(r, cmd_set, 2, "set", "game");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 3, "set", "game", "speed=3");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 3, "set", "game", "fps=-1");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 3, "set", "game", "sla=0");
	assert_int_equal(r->rc, 2);
	/* under 1 FPS: an SLA of 5e-324 would mean unpaced */
	run_cmd(r, cmd_set, 3, "set", "game", "sla=5e-324");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 3, "set", "game", "fps=0.5");
	assert_int_equal(r->rc, 2);
	/* by id and uid: numbers; --all needs a name; one name */
	run_cmd(r, cmd_set, 4, "set", "--id", "x", "fps=30");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 4, "set", "--id", "0", "fps=30");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 3, "set", "--uid", "fps=30");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 3, "set", "--all", "fps=30");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 4, "set", "game", "other", "fps=30");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 3, "set", "--id", "3");
	assert_int_equal(r->rc, 2);
	run_cmd(r, cmd_set, 2, "set", "--help");
	assert_non_null(strstr(r->out, "--id N"));
	assert_non_null(strstr(r->out, "--uid U"));
	assert_non_null(strstr(r->out, "--all"));
	run_cmd(r, cmd_policy, 2, "policy", "--help");
	assert_int_equal(r->rc, 0);
	assert_non_null(strstr(r->out, "esa"));
	run_cmd(r, cmd_policy, 2, "policy", "fastest");
	assert_int_equal(r->rc, 2);
	free(r);
}

static void test_against_daemon(void **state)
{
	(void)state;
	struct batond_proc p;
	if (!batond_spawn(&p, NULL)) {
		batond_dump_log(&p);
		fail_msg("batond did not start");
	}
	static struct fake_tenant t;
	char err[256];
	if (!fake_tenant_start(&t, p.sock, "game", 30, 50, err, sizeof(err)))
		fail_msg("tenant: %s", err);
	struct timespec settle = {0, 500000000};
	nanosleep(&settle, NULL);
	struct run *r = malloc(sizeof(*r));

	run_cmd(r, cmd_status, 1, "status");
	assert_int_equal(r->rc, 0);
	assert_non_null(strstr(r->out, "NAME"));
	assert_non_null(strstr(r->out, "game"));
	assert_non_null(strstr(r->out, "GPU 0: policy sa, utilization"));

	run_cmd(r, cmd_status, 2, "status", "--json");
	assert_int_equal(r->rc, 0);
	json_t *j = json_loads(r->out, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_string(json_object_get(j, "policy")));
	assert_true(json_is_number(json_object_get(j, "gpu_util")));
	json_t *g = json_array_get(json_object_get(j, "tenants"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "name")),
	                    "game");
	assert_true(json_is_integer(json_object_get(g, "pid")));
	const char *nums[] = {"sla_fps", "target_fps", "fps", "frame_ms_p99",
	                      "gpu_share"};
	for (int i = 0; i < 5; i++)
		assert_true(json_is_number(json_object_get(g, nums[i])));
	json_decref(j);

	run_cmd(r, cmd_set, 3, "set", "game", "fps=20");
	assert_int_equal(r->rc, 0);
	run_cmd(r, cmd_set, 4, "set", "game", "fps=0", "sla=40");
	assert_int_equal(r->rc, 0);
	run_cmd(r, cmd_set, 3, "set", "nobody", "fps=20");
	assert_int_equal(r->rc, 1);
	assert_non_null(strstr(r->err, "not_found"));
	/* by id and by owner */
	json_t *st = NULL;
	run_cmd(r, cmd_status, 2, "status", "--json");
	st = json_loads(r->out, 0, NULL);
	json_t *first = json_array_get(json_object_get(st, "tenants"), 0);
	char id[32], uid[32];
	snprintf(id, sizeof(id), "%lld",
	         (long long)json_integer_value(json_object_get(first, "id")));
	snprintf(uid, sizeof(uid), "%lld",
	         (long long)json_integer_value(json_object_get(first, "uid")));
	json_decref(st);
	run_cmd(r, cmd_set, 4, "set", "--id", id, "sla=41");
	assert_int_equal(r->rc, 0);
	run_cmd(r, cmd_set, 5, "set", "game", "--uid", uid, "sla=42");
	assert_int_equal(r->rc, 0);
	run_cmd(r, cmd_set, 4, "set", "game", "--all", "sla=40");
	assert_int_equal(r->rc, 0);
	run_cmd(r, cmd_set, 4, "set", "--id", "999999", "sla=40");
	assert_int_equal(r->rc, 1);
	assert_non_null(strstr(r->err, "not_found"));

	run_cmd(r, cmd_policy, 2, "policy", "esa");
	assert_int_equal(r->rc, 0);
	run_cmd(r, cmd_policy, 1, "policy");
	assert_int_equal(r->rc, 0);
	assert_string_equal(r->out, "esa\n");
	run_cmd(r, cmd_status, 2, "status", "--json");
	j = json_loads(r->out, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "policy")),
	                    "esa");
	g = json_array_get(json_object_get(j, "tenants"), 0);
	assert_float_equal(json_number_value(json_object_get(g, "sla_fps")), 40,
	                   0);
	json_decref(j);

	/* --watch redraws until SIGINT, then exits 0. */
	watch_redraws(r, "GPU 0:");

	/* The daemon goes away: an I/O failure is 4 on connect. */
	fake_tenant_stop(&t);
	assert_int_equal(batond_term(&p), 0);
	run_cmd(r, cmd_status, 1, "status");
	assert_int_equal(r->rc, CLI_EXIT_NO_DAEMON);
	batond_cleanup(&p);
	free(r);
}

/* baton set cap=, the CAP column, baton capacity: usage errors (2), a
 * cap on the tenant (status shows it), and capacity's exit status: 5
 * while no period has been sampled, 0 once a light GPU has been quiet
 * for cap_quiet periods; --json carries the reply. */
static void test_caps_and_capacity(void **state)
{
	(void)state;
	struct run *r = malloc(sizeof(*r));
	const char *bad_set[] = {"cap=0",   "cap=1.5",
	                         "cap=nan", "cap=-0.1",
	                         "cap=",    "work_conserving=maybe"};
	for (size_t i = 0; i < sizeof(bad_set) / sizeof(bad_set[0]); i++) {
		run_cmd(r, cmd_set, 3, "set", "game", bad_set[i]);
		if (r->rc != CLI_EXIT_USAGE)
			fail_msg("set game %s: %d", bad_set[i], r->rc);
	}
	run_cmd(r, cmd_capacity, 1, "capacity");
	assert_int_equal(r->rc, CLI_EXIT_USAGE);
	run_cmd(r, cmd_capacity, 3, "capacity", "--cost", "5");
	assert_int_equal(r->rc, CLI_EXIT_USAGE);
	run_cmd(r, cmd_capacity, 5, "capacity", "--profile", "g", "--sla",
	        "30");
	assert_int_equal(r->rc, CLI_EXIT_USAGE);
	run_cmd(r, cmd_capacity, 5, "capacity", "--cost", "0", "--sla", "30");
	assert_int_equal(r->rc, CLI_EXIT_USAGE);
	run_cmd(r, cmd_capacity, 2, "capacity", "--help");
	assert_int_equal(r->rc, 0);
	assert_non_null(strstr(r->out, "Exit status: 0 it fits, 5"));

	struct batond_proc p;
	if (!batond_spawn(&p, NULL)) {
		batond_dump_log(&p);
		fail_msg("batond did not start");
	}
	static struct fake_tenant t;
	char err[256];
	if (!fake_tenant_start(&t, p.sock, "game", 30, 50, err, sizeof(err)))
		fail_msg("tenant: %s", err);
	run_cmd(r, cmd_capacity, 5, "capacity", "--cost", "2", "--sla", "30");
	assert_int_equal(r->rc, CLI_EXIT_NO_FIT);
	assert_non_null(strstr(r->out, "does not fit: "));
	run_cmd(r, cmd_set, 3, "set", "game", "cap=0.25");
	assert_int_equal(r->rc, 0);
	run_cmd(r, cmd_set, 3, "set", "game", "work_conserving=yes");
	assert_int_equal(r->rc, 0);
	run_cmd(r, cmd_set, 3, "set", "nosuch", "cap=0.25");
	assert_int_equal(r->rc, 1);
	assert_non_null(strstr(r->err, "not_found"));
	run_cmd(r, cmd_capacity, 3, "capacity", "--profile", "nosuch");
	assert_int_equal(r->rc, 1);
	assert_non_null(strstr(r->err, "nosuch"));
	struct timespec settle = {0, 300000000};
	nanosleep(&settle, NULL);
	run_cmd(r, cmd_status, 1, "status");
	assert_int_equal(r->rc, 0);
	assert_non_null(strstr(r->out, "CAP"));
	assert_non_null(strstr(r->out, " 0.25 "));
	assert_non_null(strstr(r->out, "total load"));
	run_cmd(r, cmd_status, 2, "status", "--json");
	json_t *j = json_loads(r->out, 0, NULL);
	json_t *g = json_array_get(json_object_get(j, "tenants"), 0);
	assert_float_equal(json_number_value(json_object_get(g, "cap")), 0.25,
	                   0);
	assert_true(json_is_true(json_object_get(g, "work_conserving")));
	assert_true(json_is_number(json_object_get(j, "total_load")));
	json_decref(j);

	/* A light GPU (50 FPS x a few us): fits once 1 + cap_quiet periods
	 * ended quietly (about 4 s); the profile it learned too. */
	int rc = -1;
	for (int i = 0; i < 80 && rc != 0; i++) {
		struct timespec tenth = {0, 100000000};
		nanosleep(&tenth, NULL);
		run_cmd(r, cmd_capacity, 6, "capacity", "--cost", "2", "--sla",
		        "30", "--json");
		rc = r->rc;
	}
	assert_int_equal(rc, 0);
	j = json_loads(r->out, 0, NULL);
	assert_true(json_is_true(json_object_get(j, "fits")));
	assert_true(json_integer_value(json_object_get(j, "more")) >= 1);
	/* cost x SLA x the overhead the tenants cause beyond their
	 * reports (the fake's and the machine's), at least 1 */
	double overhead = json_number_value(json_object_get(j, "overhead"));
	assert_true(overhead >= 1.0);
	assert_float_equal(json_number_value(json_object_get(j, "newcomer")),
	                   0.06 * overhead, 1e-9);
	json_decref(j);
	run_cmd(r, cmd_capacity, 1 + 2, "capacity", "--profile", "game");
	if (r->rc != 0 && !strstr(r->err, "learned"))
		fail_msg("profile game: %d %s%s", r->rc, r->out, r->err);
	fake_tenant_stop(&t);
	batond_cleanup(&p);
	free(r);
}

/* Tenant i's name as batond sees it, and as JSON inside the hello. Some
 * need escaping and some are not ASCII; all fit the table's 20 columns. */
static void tenant_name(int i, char *name, char *json, size_t len)
{
	if (i % 10 == 3) {
		snprintf(name, len, "say \"%03d\"", i);
		snprintf(json, len, "say \\\"%03d\\\"", i);
	} else if (i % 10 == 7) {
		snprintf(name, len, "Spiel-%03d-\u00fc\u00df", i);
		snprintf(json, len, "%s", name);
	} else {
		snprintf(name, len, "tenant-%03d", i);
		snprintf(json, len, "%s", name);
	}
}

/* 200 tenants: a status reply of some 35 kB, many times BATON_MSG_MAX.
 * --json lists every one with its name, the table has a row for each,
 * and --watch redraws them all. */
static void test_status_of_200_tenants(void **state)
{
	(void)state;
	enum { N = 200 };
	struct batond_proc p;
	/* all of this process's uid: past the per-uid cap */
	static const char *const no_cap[] = {"--max-tenants-per-uid", "0",
	                                     NULL};
	if (!batond_spawn(&p, no_cap)) {
		batond_dump_log(&p);
		fail_msg("batond did not start");
	}
	static struct fake_tenant t[N];
	char name[64], json[64], err[256];
	for (int i = 0; i < N; i++) {
		tenant_name(i, name, json, sizeof(name));
		if (!fake_tenant_register(&t[i], p.sock, json, 30, err,
		                          sizeof(err)))
			fail_msg("tenant %d: %s", i, err);
	}
	struct run *r = malloc(sizeof(*r));

	run_cmd(r, cmd_status, 2, "status", "--json");
	assert_int_equal(r->rc, 0);
	assert_true(strlen(r->out) > 4 * BATON_MSG_MAX);
	json_t *j = json_loads(r->out, 0, NULL);
	assert_non_null(j);
	json_t *list = json_object_get(j, "tenants");
	assert_int_equal(json_array_size(list), N);
	/* In registration order, each with its own name. */
	for (int i = 0; i < N; i++) {
		tenant_name(i, name, json, sizeof(name));
		json_t *e = json_array_get(list, (size_t)i);
		assert_string_equal(
		    json_string_value(json_object_get(e, "name")), name);
		assert_int_equal(json_integer_value(json_object_get(e, "id")),
		                 t[i].id);
	}
	json_decref(j);

	run_cmd(r, cmd_status, 1, "status");
	assert_int_equal(r->rc, 0);
	int lines = 0;
	for (char *s = r->out; (s = strchr(s, '\n')); s++)
		lines++;
	assert_int_equal(lines, N + 2); /* the header and the GPU line */
	for (int i = 0; i < N; i++) {
		tenant_name(i, name, json, sizeof(name));
		char row[80];
		snprintf(row, sizeof(row), " %llu %s ",
		         (unsigned long long)t[i].id, name);
		if (!strstr(r->out, row))
			fail_msg("no row for %s in:\n%s", name, r->out);
	}

	tenant_name(N - 1, name, json, sizeof(name));
	watch_redraws(r, name);

	for (int i = 0; i < N; i++)
		fake_tenant_stop(&t[i]);
	assert_int_equal(batond_term(&p), 0);
	batond_cleanup(&p);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_daemon_not_running),
	    cmocka_unit_test(test_usage),
	    cmocka_unit_test(test_against_daemon),
	    cmocka_unit_test(test_caps_and_capacity),
	    cmocka_unit_test(test_status_of_200_tenants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
