/* batond as a subprocess on a temporary socket: registration, pacing,
 * hostile clients, permissions, metrics and shutdown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/server/server.h"
#include "fake_tenant.h"
#include "harness.h"
#include "ipc/fdpass.h"
#include "ipc/ring.h"

static const char *const args_sla30[] = {"--sla", "30", NULL};

/* The daemon and up to two fake games, on the heap: a failed assertion
 * jumps out of a test, and the teardown must still stop the games'
 * threads before their state goes away. */
struct fixture {
	struct batond_proc p;
	struct fake_tenant t[2];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!batond_spawn(&f->p, args_sla30)) {
		batond_dump_log(&f->p);
		batond_cleanup(&f->p);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	for (int i = 0; i < 2; i++)
		fake_tenant_stop(&f->t[i]);
	batond_cleanup(&f->p);
	free(f);
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* The status reply as JSON (asserts it is one). */
static json_t *get_status(const struct batond_proc *p)
{
	char *r = client_request(p->sock, "{\"type\":\"status\"}\n");
	assert_non_null(r);
	json_t *j = json_loads(r, 0, NULL);
	free(r);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "type")),
	                    "status");
	return j;
}

/* The status entry of the tenant of that name (borrowed from st). */
static json_t *find(json_t *st, const char *name)
{
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(st, "tenants"), i, t)
	{
		if (strcmp(json_string_value(json_object_get(t, "name")),
		           name) == 0)
			return t;
	}
	return NULL;
}

static double num(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static void assert_error(char *reply, const char *code)
{
	if (!reply)
		fail_msg("no reply (expected error %s)", code);
	json_t *j = json_loads(reply, 0, NULL);
	assert_non_null(j);
	const char *c = json_string_value(json_object_get(j, "code"));
	if (!c || strcmp(c, code) != 0)
		fail_msg("expected error %s, got %s", code, reply);
	json_decref(j);
	free(reply);
}

static void assert_ok(char *reply)
{
	if (!reply || !strstr(reply, "{\"type\":\"ok\"}"))
		fail_msg("expected ok, got %s", reply ? reply : "(nothing)");
	free(reply);
}

static void start_game(struct fake_tenant *t, const struct batond_proc *p,
                       const char *name, double sla)
{
	char err[256];
	if (!fake_tenant_start(t, p->sock, name, sla, 50.0, err, sizeof(err)))
		fail_msg("tenant %s: %s", name, err);
}

/* Waits until the control block's period is within tol of want_ns. */
static bool wait_period(struct fake_tenant *t, double want_ns, double tol,
                        int ms)
{
	for (long long end = now_ms() + ms; now_ms() < end; sleep_ms(20)) {
		double got = (double)atomic_load(&t->period_ns);
		if (fabs(got - want_ns) <= tol * want_ns)
			return true;
	}
	fprintf(stderr, "period %lld, wanted %.0f\n",
	        (long long)atomic_load(&t->period_ns), want_ns);
	return false;
}

static void test_tenant_paced_then_dropped(void **state)
{
	struct fixture *fx = *state;
	struct batond_proc *p = &fx->p;
	struct fake_tenant *t = &fx->t[0];
	start_game(t, p, "game", 0); /* the daemon's default SLA: 30 */

	json_t *st = get_status(p);
	json_t *e = find(st, "game");
	assert_non_null(e);
	assert_int_equal(json_integer_value(json_object_get(e, "pid")),
	                 getpid());
	assert_float_equal(num(e, "sla_fps"), 30.0, 1e-9);
	assert_string_equal(json_string_value(json_object_get(st, "policy")),
	                    "sa");
	json_decref(st);

	/* SA aims at SLA * (1 + 1%); the fake paces to what it is told and
	 * would run at 50 free, so the loop settles on the reference. */
	double want = 1e9 / (30.0 * 1.01);
	/* Registration already wrote the reference (test_paced_from_
	 * registration); the ticks that follow hold it there. */
	assert_true(t->start_valid);
	assert_int_equal(t->start_period_ns, llround(want));
	for (long long end = now_ms() + 1000;
	     atomic_load(&t->epoch) == 0 && now_ms() < end;)
		sleep_ms(20);
	assert_true(atomic_load(&t->epoch) > 0);
	if (!wait_period(t, want, 0.02, 5000)) {
		batond_dump_log(p);
		fail_msg("target period never settled near %.0f ns", want);
	}
	sleep_ms(1200); /* a full second of frames at the target */
	st = get_status(p);
	e = find(st, "game");
	assert_non_null(e);
	assert_float_equal(num(e, "target_fps"), 30.3, 0.6);
	assert_float_equal(num(e, "fps"), 30.3, 1.5);
	assert_true(num(e, "frame_ms_p99") > 30.0);
	assert_true(num(e, "gpu_share") > 0.0);
	assert_true(num(st, "gpu_util") > 0.0);
	json_decref(st);

	/* Closing the connection drops the tenant at once, well within one
	 * epoch (100 ms). */
	fake_tenant_stop(t);
	long long t0 = now_ms();
	for (;;) {
		st = get_status(p);
		bool gone = find(st, "game") == NULL;
		json_decref(st);
		if (gone)
			break;
		if (now_ms() - t0 > 100)
			fail_msg("tenant still listed %lld ms after closing",
			         now_ms() - t0);
		sleep_ms(5);
	}
}

/* A tenant hello with the given descriptor (-1: none); the reply. */
static char *tenant_hello(int fd, int memfd, int version)
{
	char hello[256];
	int n = snprintf(hello, sizeof(hello),
	                 "{\"type\":\"hello\",\"version\":%d,\"role\":"
	                 "\"tenant\",\"name\":\"evil\"}\n",
	                 version);
	if (ipc_send_with_fd(fd, hello, (size_t)n, memfd) != n)
		return NULL;
	return read_line(fd);
}

static void test_hostile_clients(void **state)
{
	struct fixture *fx = *state;
	struct batond_proc *p = &fx->p;
	struct fake_tenant *t = &fx->t[0];
	start_game(t, p, "game", 30);
	sleep_ms(300);
	uint64_t frames0 = atomic_load(&t->frames);
	uint64_t epoch0 = atomic_load(&t->epoch);

	/* garbage */
	int fd = connect_unix(p->sock);
	assert_error(exchange(fd, "garbage\n", 8), "protocol");
	assert_true(wait_closed(fd));
	close(fd);

	/* an oversized line */
	fd = connect_unix(p->sock);
	char *big = malloc(3 * 4096);
	memset(big, ' ', 3 * 4096);
	assert_error(exchange(fd, big, 3 * 4096), "protocol");
	free(big);
	assert_true(wait_closed(fd));
	close(fd);

	/* a request before the hello */
	fd = connect_unix(p->sock);
	assert_error(exchange(fd, "{\"type\":\"status\"}\n", 18), "protocol");
	assert_true(wait_closed(fd));
	close(fd);

	/* a wrong version */
	fd = connect_unix(p->sock);
	static const char v2[] =
	    "{\"type\":\"hello\",\"version\":2,\"role\":\"client\"}\n";
	assert_error(exchange(fd, v2, strlen(v2)), "version");
	assert_true(wait_closed(fd));
	close(fd);

	/* a wrongly typed field */
	fd = connect_unix(p->sock);
	static const char typed[] = "{\"type\":\"hello\",\"version\":1,"
	                            "\"role\":\"tenant\",\"name\":42}\n";
	assert_error(exchange(fd, typed, strlen(typed)), "invalid");
	assert_true(wait_closed(fd));
	close(fd);

	/* an unsealed memfd of the right size with a valid header: only the
	 * missing seals are wrong */
	int mfd = memfd_create("evil", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_int_equal(ftruncate(mfd, BATON_SHM_SIZE), 0);
	struct ipc_shm good;
	int gfd = ipc_shm_create(1, &good);
	assert_true(gfd >= 0);
	assert_int_equal(pwrite(mfd, good.base, BATON_SHM_SIZE, 0),
	                 (ssize_t)BATON_SHM_SIZE);
	ipc_shm_unmap(&good);
	close(gfd);
	fd = connect_unix(p->sock);
	assert_error(tenant_hello(fd, mfd, 1), "shm");
	assert_true(wait_closed(fd));
	close(fd);
	close(mfd);

	/* a tenant hello without its memfd */
	fd = connect_unix(p->sock);
	assert_error(tenant_hello(fd, -1, 1), "shm");
	assert_true(wait_closed(fd));
	close(fd);

	/* The game kept being served throughout: still listed, the daemon
	 * still ticks for it, and it still renders. */
	sleep_ms(300);
	json_t *st = get_status(p);
	assert_non_null(find(st, "game"));
	assert_null(find(st, "evil"));
	json_decref(st);
	assert_true(atomic_load(&t->epoch) > epoch0);
	assert_true(atomic_load(&t->frames) > frames0);
	fake_tenant_stop(t);
}

static void test_corrupt_ring_dropped(void **state)
{
	struct fixture *fx = *state;
	struct batond_proc *p = &fx->p;
	struct ipc_shm shm;
	int mfd = ipc_shm_create((uint32_t)getpid(), &shm);
	assert_true(mfd >= 0);
	int fd = connect_unix(p->sock);
	char *w = tenant_hello(fd, mfd, 1);
	assert_non_null(w);
	assert_non_null(strstr(w, "welcome"));
	free(w);
	json_t *st = get_status(p);
	assert_non_null(find(st, "evil"));
	json_decref(st);
	/* A record with seq 12345 at index 0. */
	struct baton_frame f = {.present_ns = 1};
	ipc_ring_push(shm.ring, shm.records, &f);
	shm.records[0].seq = 12345;
	assert_error(read_line(fd), "shm");
	assert_true(wait_closed(fd));
	st = get_status(p);
	assert_null(find(st, "evil"));
	json_decref(st);
	close(fd);
	close(mfd);
	ipc_shm_unmap(&shm);
}

static void test_admin_requests(void **state)
{
	struct fixture *fx = *state;
	struct batond_proc *p = &fx->p;
	struct fake_tenant *t = &fx->t[0];
	start_game(t, p, "game", 30);

	/* Pin it: the block carries 1/20 s at the next epoch. */
	assert_ok(client_request(
	    p->sock,
	    "{\"type\":\"set\",\"name\":\"game\",\"fixed_fps\":20}\n"));
	assert_true(wait_period(t, 5e7, 0.001, 1000));
	assert_error(client_request(p->sock, "{\"type\":\"set\",\"name\":"
	                                     "\"nobody\",\"fixed_fps\":20}\n"),
	             "not_found");
	/* A set without a name is only for a tenant's own connection. */
	assert_error(
	    client_request(p->sock, "{\"type\":\"set\",\"sla_fps\":20}\n"),
	    "invalid");
	/* The tenant changes its own SLA on its own connection. */
	assert_ok(exchange(t->sock, "{\"type\":\"set\",\"sla_fps\":40}\n", 29));
	json_t *st = get_status(p);
	assert_float_equal(num(find(st, "game"), "sla_fps"), 40.0, 1e-9);
	json_decref(st);

	assert_ok(client_request(p->sock,
	                         "{\"type\":\"policy\",\"name\":\"none\"}\n"));
	assert_ok(client_request(
	    p->sock, "{\"type\":\"set\",\"name\":\"game\",\"fixed_fps\":0}\n"));
	/* Unpinned under "none": run free, period 0. */
	assert_true(wait_period(t, 0, 0, 1000));
	st = get_status(p);
	assert_string_equal(json_string_value(json_object_get(st, "policy")),
	                    "none");
	json_decref(st);
	assert_error(client_request(
	                 p->sock, "{\"type\":\"policy\",\"name\":\"fast\"}\n"),
	             "invalid");
	fake_tenant_stop(t);
}

/* In a child with another uid and gid: every admin request is denied,
 * while the connection itself works, and the gpus request is answered. */
static int other_user(const char *sock)
{
	if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
		return 10;
	const char *reqs[] = {
	    "{\"type\":\"status\"}\n",
	    "{\"type\":\"policy\",\"name\":\"esa\"}\n",
	    "{\"type\":\"set\",\"name\":\"game\",\"fixed_fps\":10}\n",
	};
	for (int i = 0; i < 3; i++) {
		char *r = client_request(sock, reqs[i]);
		if (!r)
			return 20 + i;
		bool denied = strstr(r, "\"code\":\"denied\"") != NULL;
		free(r);
		if (!denied)
			return 30 + i;
	}
	/* The GPUs are anyone's to ask (baton run --gpu): names and core
	 * sets, no tenant. */
	char *r = client_request(sock, "{\"type\":\"gpus\"}\n");
	if (!r)
		return 40;
	bool ok = strstr(r, "\"type\":\"gpus\"") && strstr(r, "\"gpu0\"") &&
	          !strstr(r, "\"game\"");
	free(r);
	return ok ? 0 : 41;
}

static void test_admin_denied_for_other_uid(void **state)
{
	struct fixture *fx = *state;
	struct batond_proc *p = &fx->p;
	if (geteuid() != 0)
		skip(); /* needs root to become another user */
	/* the set names another user's tenant */
	start_game(&fx->t[0], p, "game", 30);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(other_user(p->sock));
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The daemon's own user is allowed, and the policy did not move. */
	json_t *st = get_status(p);
	assert_string_equal(json_string_value(json_object_get(st, "policy")),
	                    "sa");
	json_decref(st);
}

static void test_metrics(void **state)
{
	struct fixture *fx = *state;
	struct batond_proc *p = &fx->p;
	struct fake_tenant *t = &fx->t[0];
	/* JSON-escaped: the daemon sees game "one". */
	start_game(t, p, "game \\\"one\\\"", 30);
	sleep_ms(400);
	int code = 0;
	char *r = http_get(p->port, "/metrics", &code);
	assert_non_null(r);
	assert_int_equal(code, 200);
	/* Without metrics_names in the config, tenants are their id and
	 * uid: /metrics answers every local user. */
	char label[96];
	snprintf(label, sizeof(label), "\",uid=\"%u\"}", (unsigned)getuid());
	const char *expect[] = {
	    "# TYPE baton_tenant_target_fps gauge",
	    "# HELP baton_tenant_fps ",
	    "baton_tenant_fps{id=\"",
	    label,
	    ",quantile=\"0.5\"} ",
	    ",quantile=\"0.9\"} ",
	    ",quantile=\"0.99\"} ",
	    "# TYPE baton_tenant_below_sla_seconds_total counter",
	    "baton_tenant_gpu_share{",
	    "baton_gpu_utilization{gpu=\"0\"} ",
	    "baton_gpu_other_utilization{gpu=\"0\"} ",
	    "baton_policy_info{policy=\"sa\"} 1\n",
	    "baton_daemon_tick_seconds ",
	};
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		if (!strstr(r, expect[i]))
			fail_msg("missing \"%s\" in:\n%s", expect[i], r);
	if (strstr(r, "name=") || strstr(r, "game") || strstr(r, "pid="))
		fail_msg("a tenant name or pid in:\n%s", r);
	free(r);
	r = http_get(p->port, "/elsewhere", &code);
	assert_non_null(r);
	assert_int_equal(code, 404);
	free(r);
	fake_tenant_stop(t);
}

static void test_sigterm_removes_socket(void **state)
{
	struct fixture *fx = *state;
	struct batond_proc *p = &fx->p;
	struct fake_tenant *t = &fx->t[0];
	start_game(t, p, "game", 30);
	struct stat st;
	assert_int_equal(stat(p->sock, &st), 0);
	assert_int_equal(batond_term(p), 0);
	assert_int_equal(stat(p->sock, &st), -1);
	/* The game notices the daemon is gone. */
	assert_true(wait_closed(t->sock));
	fake_tenant_stop(t);
}

static void test_second_daemon_refused(void **state)
{
	struct fixture *fx = *state;
	struct batond_proc *p = &fx->p;
	/* A second batond on the same socket exits 1 and leaves it alone. */
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
	         "'%s' --socket '%s' --metrics off 2>'%s/second.log'",
	         getenv("BATOND"), p->sock, p->dir);
	int rc = system(cmd);
	assert_true(WIFEXITED(rc));
	assert_int_equal(WEXITSTATUS(rc), 1);
	snprintf(cmd, sizeof(cmd), "%s/second.log", p->dir);
	FILE *f = fopen(cmd, "r");
	char line[256] = "";
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	unlink(cmd);
	assert_non_null(strstr(line, "another batond"));
	json_t *st = get_status(p);
	json_decref(st);
}

static void test_stale_socket_replaced(void **state)
{
	(void)state;
	/* A socket file nobody listens on, as a killed daemon leaves. */
	char dir[] = "/tmp/batond-stale-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char sock[108];
	snprintf(sock, sizeof(sock), "%s/batond.sock", dir);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	const char *args[] = {"--socket", sock, NULL};
	struct batond_proc p2;
	bool ok = batond_spawn(&p2, args);
	if (!ok)
		batond_dump_log(&p2);
	assert_true(ok);
	assert_int_equal(batond_term(&p2), 0);
	batond_cleanup(&p2);
	rmdir(dir);
}

/* A daemon whose first tick is 10 s away: what a new tenant's control
 * block holds comes from its registration. Under SA the welcome finds the
 * start target, SLA * (1 + sla_margin), and the game runs at it at once;
 * under "none" the block says unpaced. */
static void test_paced_from_registration(void **state)
{
	(void)state;
	static const char *const sa[] = {"--sla", "30", "--epoch-ms", "10000",
	                                 NULL};
	struct batond_proc p;
	if (!batond_spawn(&p, sa)) {
		batond_dump_log(&p);
		fail_msg("batond did not start");
	}
	static struct fake_tenant t;
	char err[256];
	if (!fake_tenant_start(&t, p.sock, "game", 0, 50.0, err, sizeof(err)))
		fail_msg("tenant: %s", err);
	assert_true(t.start_valid);
	assert_int_equal(t.start_period_ns, llround(1e9 / 30.3));
	long long t0 = now_ms();
	uint64_t f0 = atomic_load(&t.frames);
	sleep_ms(1000);
	double fps = (double)(atomic_load(&t.frames) - f0) * 1000.0 /
	             (double)(now_ms() - t0);
	/* No tick yet, and the game, 50 FPS free, ran at the start target
	 * (one frame either way). */
	assert_int_equal(atomic_load(&t.epoch), 0);
	if (fps > 30.3 + 1.0)
		fail_msg("%.1f FPS before the first tick, not 30.3", fps);
	fake_tenant_stop(&t);
	batond_cleanup(&p);

	static const char *const none[] = {"--policy", "none", "--epoch-ms",
	                                   "10000", NULL};
	if (!batond_spawn(&p, none)) {
		batond_dump_log(&p);
		fail_msg("batond did not start");
	}
	if (!fake_tenant_start(&t, p.sock, "game", 30, 50.0, err, sizeof(err)))
		fail_msg("tenant: %s", err);
	assert_true(t.start_valid);
	assert_int_equal(t.start_period_ns, 0);
	fake_tenant_stop(&t);
	batond_cleanup(&p);
}

/* Registers a tenant that never renders and keeps nothing but its
 * connection (the daemon maps the memfd itself). The socket, or -1. */
static int register_quiet(const char *sock, const char *name)
{
	struct ipc_shm shm;
	int mfd = ipc_shm_create((uint32_t)getpid(), &shm);
	if (mfd < 0)
		return -1;
	ipc_shm_unmap(&shm);
	int fd = connect_unix(sock);
	char hello[192];
	int n = snprintf(hello, sizeof(hello),
	                 "{\"type\":\"hello\",\"version\":1,\"role\":"
	                 "\"tenant\",\"name\":\"%s\"}\n",
	                 name);
	char *w = fd >= 0 && ipc_send_with_fd(fd, hello, (size_t)n, mfd) == n
	              ? read_line(fd)
	              : NULL;
	close(mfd);
	bool ok = w && strstr(w, "\"welcome\"");
	free(w);
	if (!ok && fd >= 0)
		close(fd);
	return ok ? fd : -1;
}

/* As many tenants as batond serves connections, less the one asking for
 * status, started with the usual soft limit of 1024 descriptors (batond
 * raises its own): all registered, all in one status reply (far longer
 * than BATON_MSG_MAX) with their names, and the loop kept ticking for a
 * tenant that renders meanwhile. */
static void test_status_at_max_tenants(void **state)
{
	(void)state;
	enum { N = SERVER_MAX_CONNS - 1 };
	struct rlimit rl, low;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < N + 64)
		skip(); /* this test itself needs that many descriptors */
	low = rl;
	low.rlim_cur = 1024;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	struct batond_proc p;
	/* all of this process's uid: past the per-uid cap */
	static const char *const no_cap[] = {"--max-tenants-per-uid", "0",
	                                     NULL};
	bool up = batond_spawn(&p, no_cap);
	rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	if (!up) {
		batond_dump_log(&p);
		fail_msg("batond did not start");
	}
	static struct fake_tenant game;
	char err[256];
	if (!fake_tenant_start(&game, p.sock, "game", 30, 50.0, err,
	                       sizeof(err)))
		fail_msg("tenant: %s", err);
	static int fds[N];
	char name[32];
	for (int i = 1; i < N; i++) {
		snprintf(name, sizeof(name), "quiet-%04d", i);
		fds[i] = register_quiet(p.sock, name);
		if (fds[i] < 0) {
			batond_dump_log(&p);
			fail_msg("tenant %d of %d was not registered", i + 1,
			         N);
		}
	}
	uint64_t epoch0 = atomic_load(&game.epoch);
	long long t0 = now_ms();
	char *r = client_request(p.sock, "{\"type\":\"status\"}\n");
	long long took = now_ms() - t0;
	assert_non_null(r);
	size_t bytes = strlen(r);
	json_t *st = json_loads(r, 0, NULL);
	free(r);
	assert_non_null(st);
	json_t *list = json_object_get(st, "tenants");
	assert_int_equal(json_array_size(list), N);
	assert_non_null(find(st, "game"));
	for (int i = 1; i < N; i++) {
		snprintf(name, sizeof(name), "quiet-%04d", i);
		if (!find(st, name))
			fail_msg("%s is not in the status reply", name);
	}
	json_decref(st);
	printf("status of %d tenants: %zu bytes in %lld ms\n", N, bytes, took);
	assert_true(bytes > 16 * BATON_MSG_MAX);
	sleep_ms(500);
	assert_true(atomic_load(&game.epoch) > epoch0);
	for (int i = 1; i < N; i++)
		close(fds[i]);
	fake_tenant_stop(&game);
	assert_int_equal(batond_term(&p), 0);
	batond_cleanup(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	    T(test_tenant_paced_then_dropped),
	    T(test_hostile_clients),
	    T(test_corrupt_ring_dropped),
	    T(test_admin_requests),
	    T(test_admin_denied_for_other_uid),
	    T(test_metrics),
	    T(test_sigterm_removes_socket),
	    T(test_second_daemon_refused),
	    cmocka_unit_test(test_stale_socket_replaced),
	    cmocka_unit_test(test_paced_from_registration),
	    cmocka_unit_test(test_status_at_max_tenants),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
