/* Best-effort tenants through the real batond
 * (docs/harvesting.md "In batond"): registration and its errors, the
 * per-uid cap shared with games, status and /metrics, set weight and cap,
 * a tenant that dies in the middle of a sub-launch, and a user who is not
 * admin (a child that becomes uid 65534; skipped when not root). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "fake_tenant.h"
#include "harness.h"
#include "status_lookup.h"
#include "ipc/control.h"
#include "ipc/fdpass.h"

#define NOBODY 65534

static void spawn(struct batond_proc *p, const char *const *args)
{
	if (!batond_spawn(p, args)) {
		batond_dump_log(p);
		batond_cleanup(p);
		fail_msg("batond did not start");
	}
}

/* batond with a config file holding text. */
static void spawn_with_config(struct batond_proc *p, const char *text)
{
	char cfg[] = "/tmp/batond-be-XXXXXX";
	int fd = mkstemp(cfg);
	assert_true(fd >= 0);
	size_t len = strlen(text);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	const char *const args[] = {"--config", cfg, NULL};
	spawn(p, args);
	unlink(cfg);
}

static size_t be_count(const struct batond_proc *p)
{
	char *r = client_request(p->sock, "{\"type\":\"status\"}\n");
	json_t *st = r ? json_loads(r, 0, NULL) : NULL;
	free(r);
	size_t n = json_array_size(json_object_get(st, "be"));
	json_decref(st);
	return n;
}

/* The budget its control block holds now (GPU s per s). */
static double budget(const struct fake_tenant *t)
{
	struct ipc_control_values v;
	if (!ipc_control_read(t->shm.control, &v))
		return -1.0;
	return v.cap_ns_per_s * 1e-9;
}

/* Polls until the control block's budget is within tol of want (5 s). */
static bool await_budget(const struct fake_tenant *t, double want, double tol)
{
	for (int i = 0; i < 250; i++) {
		double b = budget(t);
		if (b >= want - tol && b <= want + tol)
			return true;
		usleep(20000);
	}
	return false;
}

static int open_fds(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;
}

/* Registers, gets a budget and continuous mode from the ticks, shows in
 * status and /metrics, reports its sub-launches; set weight and cap; a
 * field that does not apply to the kind is refused. */
static void test_register_status_metrics_set(void **state)
{
	(void)state;
	struct batond_proc p;
	spawn(&p, NULL);
	static struct fake_tenant be, game;
	char err[256];
	if (!fake_be_register(&be, p.sock, "matmul",
	                      "\"weight\":2,\"cap\":0.5,\"api\":\"opencl\"",
	                      err, sizeof(err)))
		fail_msg("register: %s", err);
	assert_true(be.id > 0);
	struct ipc_control_values v;
	assert_true(ipc_control_read(be.shm.control, &v));
	assert_true(v.flags & BATON_CONTROL_VALID);
	/* alone: its cap binds (1 - util_margin = 0.95 > 0.5) */
	if (!await_budget(&be, 0.5, 1e-9))
		fail_msg("budget %g, want its cap 0.5", budget(&be));
	bool cont = false;
	for (int i = 0; i < 100 && !cont; i++) {
		fake_be_launch(&be, 3000000, 1000000, 4, BATON_FRAME_BE);
		usleep(10000);
		ipc_control_read(be.shm.control, &v);
		cont = v.flags & BATON_CONTROL_BE_CONTINUOUS;
	}
	assert_true(cont);
	assert_true(v.be_window_ns > 0);
	json_t *row = status_entry(p.sock, "be", be.id);
	assert_non_null(row);
	assert_string_equal(json_string_value(json_object_get(row, "kind")),
	                    "be");
	assert_string_equal(json_string_value(json_object_get(row, "mode")),
	                    "continuous");
	assert_float_equal(json_number_value(json_object_get(row, "weight")), 2,
	                   0);
	assert_float_equal(json_number_value(json_object_get(row, "cap")), 0.5,
	                   0);
	assert_true(json_number_value(json_object_get(row, "units_per_s")) >
	            0.0);
	assert_true(json_integer_value(json_object_get(row, "units")) > 0);
	json_decref(row);

	int code;
	char *m = http_get(p.port, "/metrics", &code);
	assert_int_equal(code, 200);
	static const char *const fams[] = {"baton_be_work_units_per_second",
	                                   "baton_be_gpu_share",
	                                   "baton_be_wait_ratio",
	                                   "baton_be_budget",
	                                   "baton_be_window_seconds",
	                                   "baton_be_continuous"};
	for (size_t i = 0; i < 6; i++) {
		char want[128];
		snprintf(want, sizeof(want), "%s{id=\"%lld\",uid=\"%u\"}",
		         fams[i], be.id, (unsigned)getuid());
		if (!strstr(m, want))
			fail_msg("no %s in:\n%s", want, m);
	}
	if (strstr(m, "matmul"))
		fail_msg("a name without metrics_names:\n%s", m);
	free(m);

	/* set: weight and cap on the BE tenant; weight on a game refused,
	 * sla on the BE tenant refused, nothing changed */
	if (!fake_tenant_register(&game, p.sock, "game", 30, err, sizeof(err)))
		fail_msg("game: %s", err);
	char line[160];
	snprintf(line, sizeof(line),
	         "{\"type\":\"set\",\"id\":%lld,\"weight\":7,\"cap\":0.25}\n",
	         be.id);
	char *r = client_request(p.sock, line);
	if (!r || !strstr(r, "\"ok\""))
		fail_msg("set weight: %s", r ? r : "(none)");
	free(r);
	assert_float_equal(status_number(p.sock, "be", be.id, "weight"), 7, 0);
	assert_float_equal(status_number(p.sock, "be", be.id, "cap"), 0.25, 0);
	snprintf(line, sizeof(line),
	         "{\"type\":\"set\",\"id\":%lld,\"weight\":3}\n", game.id);
	r = client_request(p.sock, line);
	if (!reply_is_error(r, "invalid") || !strstr(r, "\\\"weight\\\""))
		fail_msg("weight on a game: %s", r ? r : "(none)");
	free(r);
	snprintf(line, sizeof(line),
	         "{\"type\":\"set\",\"id\":%lld,\"sla_fps\":40}\n", be.id);
	r = client_request(p.sock, line);
	if (!reply_is_error(r, "invalid") || !strstr(r, "sla_fps"))
		fail_msg("sla on a BE tenant: %s", r ? r : "(none)");
	free(r);
	assert_float_equal(status_number(p.sock, "be", be.id, "weight"), 7, 0);

	/* records of the wrong kind are dropped, the tenant stays */
	for (int i = 0; i < 5; i++)
		fake_be_launch(&be, 1000000, 0, 1, 0);
	usleep(300000);
	assert_true(status_number(p.sock, "be", be.id, "bad_records") >= 5);
	fake_tenant_stop(&be);
	fake_tenant_stop(&game);
	batond_cleanup(&p);
}

/* Malformed BE hellos end only their connection, with an error naming the
 * field; one without a memfd is refused as a game's is; the per-uid cap
 * counts games and BE tenants together. */
static void test_bad_hellos_and_uid_cap(void **state)
{
	(void)state;
	static const char *const args[] = {"--max-tenants-per-uid", "2", NULL};
	struct batond_proc p;
	spawn(&p, args);
	static struct fake_tenant ok, game, third, bad;
	char err[256];
	if (!fake_be_register(&ok, p.sock, "ok", "", err, sizeof(err)))
		fail_msg("register: %s", err);
	static const struct {
		const char *extra, *says;
	} bads[] = {
	    {"\"weight\":0", "weight"},    {"\"weight\":1001", "weight"},
	    {"\"cap\":0", "cap"},          {"\"cap\":2", "cap"},
	    {"\"sla_fps\":30", "sla_fps"},
	};
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		assert_false(fake_be_register(&bad, p.sock, "bad",
		                              bads[i].extra, err, sizeof(err)));
		/* the reply is JSON: its quotes escaped */
		char want[64];
		snprintf(want, sizeof(want), "\\\"%s\\\"", bads[i].says);
		if (!strstr(err, "\"invalid\"") || !strstr(err, want))
			fail_msg("%s: %s", bads[i].extra, err);
	}
	/* no memfd */
	int fd = connect_unix(p.sock);
	assert_true(fd >= 0);
	static const char h[] = "{\"type\":\"hello\",\"version\":1,\"role\":"
	                        "\"be\",\"name\":\"x\"}\n";
	char *r = exchange(fd, h, sizeof(h) - 1);
	if (!reply_is_error(r, "shm"))
		fail_msg("no memfd: %s", r ? r : "(none)");
	free(r);
	assert_true(wait_closed(fd));
	close(fd);
	/* the daemon still serves, and the good one is there */
	assert_int_equal(be_count(&p), 1);

	if (!fake_tenant_register(&game, p.sock, "game", 30, err, sizeof(err)))
		fail_msg("game: %s", err);
	assert_false(
	    fake_be_register(&third, p.sock, "third", "", err, sizeof(err)));
	if (!strstr(err, "denied") || !strstr(err, "max_tenants_per_uid"))
		fail_msg("past the cap: %s", err);
	fake_tenant_stop(&ok);
	fake_tenant_stop(&game);
	batond_cleanup(&p);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The window in a tenant's control block now (ns). */
static int64_t window_of(const struct fake_tenant *t)
{
	struct ipc_control_values v;
	return ipc_control_read(t->shm.control, &v) ? v.be_window_ns : -1;
}

/* A BE tenant that dies between releasing a sub-launch and reporting it
 * (the record never comes), its release stamped and hung long enough to
 * be stuck: its connection, descriptor and tenant go, the other BE
 * tenant's budget is recomputed without it, and the windows its stuck
 * flag shut open again. */
static void test_dies_mid_sub_launch(void **state)
{
	(void)state;
	struct batond_proc p;
	spawn(&p, NULL);
	static struct fake_tenant stay;
	char err[256];
	if (!fake_be_register(&stay, p.sock, "stay", "", err, sizeof(err)))
		fail_msg("register: %s", err);
	assert_true(await_budget(&stay, 0.95, 1e-6));
	int fds = open_fds(p.pid);
	assert_true(fds > 0);
	int go[2], done[2];
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		static struct fake_tenant dying;
		char e[256];
		if (!fake_be_register(&dying, p.sock, "dying", "", e,
		                      sizeof(e)))
			_exit(1);
		fake_be_launch(&dying, 2000000, 0, 1, BATON_FRAME_BE);
		/* the next one released on a 5 ms window, as the SDK
		 * stamps it (shm.h), and never reported */
		atomic_store(&dying.shm.ring->be_inflight_window_ns, 5000000);
		atomic_store(&dying.shm.ring->be_inflight_ns, mono_ns());
		char x = 1;
		if (write(done[1], &x, 1) != 1)
			_exit(2);
		/* "in a kernel" until the parent has seen the split */
		if (read(go[0], &x, 1) != 1)
			_exit(3);
		_exit(0); /* no goodbye: the kernel closes everything */
	}
	char x;
	assert_int_equal(read(done[0], &x, 1), 1);
	/* two equal weights: half of 0.95 each */
	assert_true(await_budget(&stay, 0.475, 1e-6));
	assert_int_equal(be_count(&p), 2);
	/* its kernel hangs: stuck, the other's window shut */
	bool shut = false;
	for (int i = 0; i < 250 && !shut; i++, usleep(20000))
		shut = window_of(&stay) == 0;
	assert_true(shut);
	assert_int_equal(write(go[1], &x, 1), 1);
	int status;
	assert_int_equal(waitpid(c, &status, 0), c);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!await_budget(&stay, 0.95, 1e-6))
		fail_msg("budget %g after the other died", budget(&stay));
	assert_int_equal(be_count(&p), 1);
	/* the hung tenant's stuck flag went with it */
	bool open = false;
	for (int i = 0; i < 250 && !open; i++, usleep(20000))
		open = window_of(&stay) > 0;
	assert_true(open);
	int after = -1;
	for (int i = 0; i < 100 && after != fds; i++) {
		after = open_fds(p.pid);
		usleep(20000);
	}
	assert_int_equal(after, fds);
	for (int i = 0; i < 2; i++) {
		close(go[i]);
		close(done[i]);
	}
	fake_tenant_stop(&stay);
	batond_cleanup(&p);
}

/* The stuck flag of a tenant id as status reports it: 1, 0, or -1 if
 * the row or the field is missing. */
static int stuck_in_status(const struct batond_proc *p, long long id)
{
	json_t *row = status_entry(p->sock, "be", id);
	json_t *v = json_object_get(row, "stuck");
	int r = json_is_boolean(v) ? json_is_true(v) : -1;
	json_decref(row);
	return r;
}

/* Polls status until id's stuck flag is want (5 s). */
static bool await_stuck(const struct batond_proc *p, long long id, int want)
{
	for (int i = 0; i < 250; i++) {
		if (stuck_in_status(p, id) == want)
			return true;
		usleep(20000);
	}
	return false;
}

/* id's baton_be_stuck sample on /metrics: 1, 0, or -1 if absent. */
static int stuck_in_metrics(const struct batond_proc *p, long long id)
{
	int code;
	char *m = http_get(p->port, "/metrics", &code);
	char want[96];
	snprintf(want, sizeof(want), "baton_be_stuck{id=\"%lld\",uid=\"%u\"} ",
	         id, (unsigned)getuid());
	const char *at = m && code == 200 ? strstr(m, want) : NULL;
	int r = at ? atoi(at + strlen(want)) : -1;
	if (m && !strstr(m, "# HELP baton_be_stuck "))
		r = -1;
	free(m);
	return r;
}

/* Lines of batond's log that contain needle. */
static int log_lines(const struct batond_proc *p, const char *needle)
{
	FILE *f = fopen(p->log, "r");
	if (!f)
		return -1;
	char line[1024];
	int n = 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* A hung kernel: a BE tenant whose ring header says its
 * sub-launch was released long ago on a 5 ms window is STUCK in status
 * and on /metrics, gets no budget and no window, and the other BE
 * tenant's window closes while its budget stands; the stamp cleared and
 * the record in, both clear, with one log line each way. batond runs
 * with a harvest group: its continuous_ms sets the windows. */
static void test_stuck(void **state)
{
	(void)state;
	struct batond_proc p;
	setenv("BATON_LOG", "info", 1); /* the line that it cleared */
	spawn_with_config(&p, "harvest = { continuous_ms = 25; };\n");
	unsetenv("BATON_LOG");
	static struct fake_tenant hung, other;
	char err[256];
	if (!fake_be_register(&hung, p.sock, "hung", "", err, sizeof(err)) ||
	    !fake_be_register(&other, p.sock, "other", "", err, sizeof(err)))
		fail_msg("register: %s", err);
	assert_true(await_budget(&hung, 0.475, 1e-6));
	assert_true(await_budget(&other, 0.475, 1e-6));
	/* continuous (no game), 25 ms split between two equal weights */
	bool split = false;
	for (int i = 0; i < 250 && !split; i++, usleep(20000))
		split = window_of(&hung) == 12500000 &&
		        window_of(&other) == 12500000;
	if (!split)
		fail_msg("windows %lld and %lld ns, want 12.5 ms each",
		         (long long)window_of(&hung),
		         (long long)window_of(&other));
	assert_int_equal(stuck_in_status(&p, hung.id), 0);
	assert_int_equal(stuck_in_metrics(&p, hung.id), 0);

	/* released 2 s ago (before its registration: batond counts from
	 * that) on a 5 ms window, never reported */
	atomic_store(&hung.shm.ring->be_inflight_window_ns, 5000000);
	atomic_store(&hung.shm.ring->be_inflight_ns, mono_ns() - 2000000000LL);
	if (!await_stuck(&p, hung.id, 1)) {
		batond_dump_log(&p);
		fail_msg("not stuck");
	}
	assert_int_equal(stuck_in_status(&p, other.id), 0);
	assert_int_equal(stuck_in_metrics(&p, hung.id), 1);
	assert_int_equal(stuck_in_metrics(&p, other.id), 0);
	assert_true(status_number(p.sock, "be", hung.id, "inflight_ms") > 55);
	assert_float_equal(status_number(p.sock, "be", hung.id, "budget"), 0,
	                   0);
	assert_float_equal(status_number(p.sock, "be", hung.id, "window_ms"), 0,
	                   0);
	assert_float_equal(status_number(p.sock, "be", other.id, "window_ms"),
	                   0, 0);
	assert_int_equal(window_of(&hung), 0);
	assert_int_equal(window_of(&other), 0);
	assert_true(budget(&hung) == 0.0);
	assert_true(await_budget(&other, 0.475, 1e-6));
	/* its registration and the stuck line */
	assert_int_equal(log_lines(&p, "\"hung\" pid"), 2);

	/* the record arrives: the stamp cleared, one sub-launch reported */
	atomic_store(&hung.shm.ring->be_inflight_ns, 0);
	fake_be_launch(&hung, 2000000, 0, 1, BATON_FRAME_BE);
	if (!await_stuck(&p, hung.id, 0))
		fail_msg("still stuck");
	assert_true(await_budget(&hung, 0.475, 1e-6));
	split = false;
	for (int i = 0; i < 250 && !split; i++, usleep(20000))
		split = window_of(&hung) > 0 && window_of(&other) > 0;
	assert_true(split);
	assert_int_equal(stuck_in_metrics(&p, hung.id), 0);
	assert_int_equal(log_lines(&p, "stuck: its sub-launch has run"), 1);
	assert_int_equal(log_lines(&p, "no longer stuck"), 1);

	/* hostile stamps are ignored: a release in the future, a window
	 * over 10 s */
	atomic_store(&hung.shm.ring->be_inflight_ns,
	             mono_ns() + 3600000000000LL);
	usleep(300000);
	assert_int_equal(stuck_in_status(&p, hung.id), 0);
	atomic_store(&hung.shm.ring->be_inflight_window_ns, 20000000000LL);
	atomic_store(&hung.shm.ring->be_inflight_ns, 1);
	usleep(300000);
	assert_int_equal(stuck_in_status(&p, hung.id), 0);
	assert_true(window_of(&other) > 0);
	fake_tenant_stop(&hung);
	fake_tenant_stop(&other);
	batond_cleanup(&p);
}

/* As nobody: registers its own BE tenant, sets its weight; setting root's
 * is denied (by id and by name); root's weight stays. */
static int nobody_run(const char *sock, long long root_id)
{
	if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 ||
	    setuid(NOBODY) != 0)
		return 100;
	static struct fake_tenant t;
	char err[256];
	if (!fake_be_register(&t, sock, "mine", "\"weight\":2", err,
	                      sizeof(err)))
		return 101;
	char lines[3][160];
	snprintf(lines[0], sizeof(lines[0]),
	         "{\"type\":\"set\",\"id\":%lld,\"weight\":5}\n", t.id);
	snprintf(lines[1], sizeof(lines[1]),
	         "{\"type\":\"set\",\"id\":%lld,\"weight\":9}\n", root_id);
	snprintf(lines[2], sizeof(lines[2]),
	         "{\"type\":\"set\",\"name\":\"rootbe\",\"cap\":0.1}\n");
	const char *want[3] = {"\"type\":\"ok\"", "\"code\":\"denied\"",
	                       "\"code\":\"denied\""};
	int bits = 0;
	for (int i = 0; i < 3; i++) {
		char *r = client_request(sock, lines[i]);
		if (r && strstr(r, want[i]))
			bits |= 1 << i;
		free(r);
	}
	usleep(300000); /* hold the tenant while the parent looks */
	return bits;
}

static void test_nobody(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* needs root to become another user */
	struct batond_proc p;
	spawn(&p, NULL);
	static struct fake_tenant root;
	char err[256];
	if (!fake_be_register(&root, p.sock, "rootbe", "\"weight\":1", err,
	                      sizeof(err)))
		fail_msg("root's: %s", err);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0)
		_exit(nobody_run(p.sock, root.id));
	/* its own set lands while it holds its tenant */
	double w = -1;
	for (int k = 0; k < 50 && w != 5; k++) {
		usleep(10000);
		char *r = client_request(p.sock, "{\"type\":\"status\"}\n");
		json_t *st = r ? json_loads(r, 0, NULL) : NULL;
		free(r);
		json_t *t;
		size_t i;
		json_array_foreach(json_object_get(st, "be"), i, t)
		{
			if (json_integer_value(json_object_get(t, "uid")) ==
			    NOBODY)
				w = json_number_value(
				    json_object_get(t, "weight"));
		}
		json_decref(st);
	}
	int status;
	assert_int_equal(waitpid(c, &status, 0), c);
	int bits = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	assert_float_equal(status_number(p.sock, "be", root.id, "weight"), 1,
	                   0);
	assert_float_equal(status_number(p.sock, "be", root.id, "cap"), 0, 0);
	fake_tenant_stop(&root);
	batond_cleanup(&p);
	if (bits != 7)
		fail_msg("as nobody: answers 0x%x, expected 0x7 (own weight "
		         "ok, root's denied by id and by name)",
		         bits);
	assert_float_equal(w, 5, 0);
}

/* The idle lane as nobody (core/harvest_idle.h): with idle_lane on, an
 * unprivileged tenant whose hello asks for it gets the lane (the IDLE
 * flag, the continuous window, the whole device as budget) for itself
 * only: root's tenant, which did not ask, keeps the time rules. Exit
 * bits: 1 the flag, 2 the window and budget. */
static int nobody_lane(const char *sock)
{
	if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 ||
	    setuid(NOBODY) != 0)
		return 100;
	static struct fake_tenant t;
	char err[256];
	if (!fake_be_register(&t, sock, "lane",
	                      "\"partition\":true,\"idle\":true", err,
	                      sizeof(err)))
		return 101;
	int bits = 0;
	for (int i = 0; i < 250 && bits != 3; i++, usleep(20000)) {
		struct ipc_control_values v;
		if (!ipc_control_read(t.shm.control, &v))
			continue;
		bits =
		    (v.flags & BATON_CONTROL_BE_IDLE ? 1 : 0) |
		    (v.be_window_ns == 17000000 && v.cap_ns_per_s == 1000000000u
		         ? 2
		         : 0);
	}
	usleep(300000); /* hold the tenant while the parent looks */
	return bits;
}

static void test_idle_lane_nobody(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* needs root to become another user */
	struct batond_proc p;
	spawn_with_config(&p, "harvest = { idle_lane = true; };\n");
	static struct fake_tenant root;
	char err[256];
	if (!fake_be_register(&root, p.sock, "rootbe", "", err, sizeof(err)))
		fail_msg("root's: %s", err);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0)
		_exit(nobody_lane(p.sock));
	/* while it holds its tenant: status and metrics say who is in the
	 * lane; root's control block has the time split, no flag */
	bool seen = false;
	json_int_t theirs = -1;
	for (int k = 0; k < 250 && !seen; k++, usleep(20000)) {
		char *r = client_request(p.sock, "{\"type\":\"status\"}\n");
		json_t *st = r ? json_loads(r, 0, NULL) : NULL;
		free(r);
		json_t *t;
		size_t i;
		json_array_foreach(json_object_get(st, "be"), i, t)
		{
			bool lane =
			    json_is_true(json_object_get(t, "idle_lane"));
			if (json_integer_value(json_object_get(t, "uid")) ==
			    NOBODY) {
				seen = lane;
				theirs = json_integer_value(
				    json_object_get(t, "id"));
			} else {
				assert_false(lane);
			}
		}
		json_decref(st);
	}
	assert_true(seen);
	struct ipc_control_values v;
	assert_true(ipc_control_read(root.shm.control, &v));
	assert_false(v.flags & BATON_CONTROL_BE_IDLE);
	assert_true(await_budget(&root, 0.475, 1e-6));
	int code;
	char *m = http_get(p.port, "/metrics", &code);
	assert_int_equal(code, 200);
	char want[128];
	snprintf(want, sizeof(want),
	         "baton_be_idle_lane{id=\"%lld\",uid=\"0\"} 0", root.id);
	if (!strstr(m, want))
		fail_msg("no %s in:\n%s", want, m);
	snprintf(want, sizeof(want),
	         "baton_be_idle_lane{id=\"%lld\",uid=\"65534\"} 1",
	         (long long)theirs);
	if (!strstr(m, want))
		fail_msg("no %s in:\n%s", want, m);
	free(m);
	int status;
	assert_int_equal(waitpid(c, &status, 0), c);
	int bits = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	fake_tenant_stop(&root);
	batond_cleanup(&p);
	if (bits != 3)
		fail_msg("as nobody: 0x%x, expected 0x3 (the flag, the "
		         "17 ms window and the whole device)",
		         bits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_register_status_metrics_set),
	    cmocka_unit_test(test_bad_hellos_and_uid_cap),
	    cmocka_unit_test(test_dies_mid_sub_launch),
	    cmocka_unit_test(test_stuck),
	    cmocka_unit_test(test_nobody),
	    cmocka_unit_test(test_idle_lane_nobody),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
