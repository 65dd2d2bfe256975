/* Caps and admission through the real batond: published caps
 * from an app entry, the hello (lowers, never raises) and `set cap`;
 * their errors; status and /metrics; the capacity request, which any
 * user may send; and a user who is not admin, who may cap its own tenant
 * but not root's. The parts as another user fork a child that becomes
 * uid 65534 and are skipped when not root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "fake_tenant.h"
#include "harness.h"
#include "status_lookup.h"

#define NOBODY 65534

static char cfg_path[64];

static void spawn(struct batond_proc *p)
{
	snprintf(cfg_path, sizeof(cfg_path), "/tmp/baton-caps-%d.cfg",
	         (int)getpid());
	FILE *f = fopen(cfg_path, "w");
	assert_non_null(f);
	fputs("apps = ( { name = \"glmark2\"; cap = 0.5; cost_ms = 5; "
	      "sla = 30; } );\n"
	      "user_caps = ( { uid = 65534; cap = 0.2; } );\n",
	      f);
	fclose(f);
	const char *const args[] = {"--config", cfg_path, NULL};
	if (!batond_spawn(p, args)) {
		batond_dump_log(p);
		batond_cleanup(p);
		unlink(cfg_path);
		fail_msg("batond did not start");
	}
}

static char *ask(const struct batond_proc *p, const char *fmt, long long id)
{
	char line[256];
	snprintf(line, sizeof(line), fmt, id);
	return client_request(p->sock, line);
}

static void test_caps_from_config_hello_and_set(void **state)
{
	(void)state;
	struct batond_proc p;
	spawn(&p);
	static struct fake_tenant app, lower, raise, plain, higher;
	char err[256];
	/* The name goes into the hello as given: a cap rides along. */
	if (!fake_tenant_register(&app, p.sock, "glmark2", 30, err,
	                          sizeof(err)) ||
	    !fake_tenant_register(&lower, p.sock,
	                          "glmark2\",\"cap\":0.3,\"x\":\"", 30, err,
	                          sizeof(err)) ||
	    !fake_tenant_register(&raise, p.sock,
	                          "other\",\"cap\":0.4,\"x\":\"", 30, err,
	                          sizeof(err)) ||
	    !fake_tenant_register(&plain, p.sock, "plain", 30, err,
	                          sizeof(err)) ||
	    !fake_tenant_register(&higher, p.sock,
	                          "glmark2\",\"cap\":0.9,\"x\":\"", 30, err,
	                          sizeof(err)))
		fail_msg("register: %s", err);
	assert_float_equal(status_number(p.sock, "tenants", app.id, "cap"), 0.5,
	                   0); /* app entry */
	assert_float_equal(status_number(p.sock, "tenants", lower.id, "cap"),
	                   0.3, 0); /* lowered */
	assert_float_equal(status_number(p.sock, "tenants", raise.id, "cap"),
	                   0.4, 0); /* no entry */
	assert_float_equal(status_number(p.sock, "tenants", plain.id, "cap"), 0,
	                   0);
	/* a hello may lower its app entry's cap, never raise it */
	assert_float_equal(status_number(p.sock, "tenants", higher.id, "cap"),
	                   0.5, 0);
	fake_tenant_stop(&higher);
	/* the first tick gives each capped tenant a budget within its cap */
	usleep(350000);
	double b = status_number(p.sock, "tenants", app.id, "budget");
	assert_true(b > 0.0 && b <= 0.5);
	assert_float_equal(status_number(p.sock, "tenants", plain.id, "budget"),
	                   0, 0);

	char *r =
	    ask(&p, "{\"type\":\"set\",\"id\":%lld,\"cap\":0.25}\n", app.id);
	assert_non_null(strstr(r, "\"ok\""));
	free(r);
	assert_float_equal(status_number(p.sock, "tenants", app.id, "cap"),
	                   0.25, 0);
	usleep(250000);
	b = status_number(p.sock, "tenants", app.id, "budget");
	assert_true(b > 0.0 && b <= 0.25);

	r = ask(&p, "{\"type\":\"set\",\"id\":%lld,\"cap\":1.5}\n", app.id);
	if (!reply_is_error(r, "invalid") || !strstr(r, "(0, 1]"))
		fail_msg("cap 1.5: %s", r ? r : "(none)");
	free(r);
	r = ask(&p, "{\"type\":\"set\",\"id\":%lld,\"cap\":0.5}\n", 999999);
	assert_true(reply_is_error(r, "not_found"));
	free(r);
	r = client_request(p.sock, "{\"type\":\"set\",\"name\":\"nosuch\","
	                           "\"cap\":0.5}\n");
	assert_true(reply_is_error(r, "not_found"));
	free(r);
	assert_float_equal(status_number(p.sock, "tenants", app.id, "cap"),
	                   0.25, 0);
	/* cap 0 removes it; the budget follows at the next tick */
	r = ask(&p, "{\"type\":\"set\",\"id\":%lld,\"cap\":0}\n", raise.id);
	assert_non_null(strstr(r, "\"ok\""));
	free(r);
	usleep(250000);
	assert_float_equal(status_number(p.sock, "tenants", raise.id, "cap"), 0,
	                   0);
	assert_float_equal(status_number(p.sock, "tenants", raise.id, "budget"),
	                   0, 0);

	/* capacity: a configured profile, a cost and SLA, an unknown one */
	r = client_request(p.sock, "{\"type\":\"capacity\","
	                           "\"profile\":\"glmark2\"}\n");
	json_t *c = r ? json_loads(r, 0, NULL) : NULL;
	if (!c || strcmp(json_string_value(json_object_get(c, "type")),
	                 "capacity") != 0)
		fail_msg("capacity: %s", r ? r : "(none)");
	assert_float_equal(json_number_value(json_object_get(c, "newcomer")),
	                   0.005 * 30, 1e-9);
	assert_string_equal(json_string_value(json_object_get(c, "source")),
	                    "config");
	assert_non_null(json_object_get(c, "fits"));
	assert_non_null(json_object_get(c, "reason"));
	json_decref(c);
	free(r);
	r = client_request(p.sock, "{\"type\":\"capacity\",\"cost_ms\":2,"
	                           "\"sla_fps\":60}\n");
	assert_non_null(strstr(r, "\"type\":\"capacity\""));
	free(r);
	r = client_request(p.sock, "{\"type\":\"capacity\","
	                           "\"profile\":\"nosuch\"}\n");
	if (!reply_is_error(r, "not_found") || !strstr(r, "nosuch"))
		fail_msg("unknown profile: %s", r ? r : "(none)");
	free(r);

	int code;
	char *m = http_get(p.port, "/metrics", &code);
	assert_int_equal(code, 200);
	char want[96];
	snprintf(want, sizeof(want), "baton_tenant_cap{id=\"%lld\",", app.id);
	char want_bound[96];
	snprintf(want_bound, sizeof(want_bound),
	         "baton_tenant_cap_bound{id=\"%lld\",", app.id);
	if (!strstr(m, want) || !strstr(m, want_bound) ||
	    !strstr(m, "baton_admissible_sessions{gpu=\"0\","
	               "profile=\"glmark2\"}") ||
	    !strstr(m, "baton_gpu_total_load{gpu=\"0\"}") ||
	    !strstr(m, "baton_gpu_capacity_severe{gpu=\"0\"} 0"))
		fail_msg("metrics lack the capacity series:\n%s", m);
	free(m);

	/* a departure: its cap returns to the pool */
	json_t *st = NULL;
	fake_tenant_stop(&app);
	fake_tenant_stop(&lower);
	usleep(250000);
	r = client_request(p.sock, "{\"type\":\"status\"}\n");
	st = r ? json_loads(r, 0, NULL) : NULL;
	free(r);
	assert_float_equal(json_number_value(json_object_get(st, "cap_pool")),
	                   1.0, 1e-9);
	json_decref(st);
	fake_tenant_stop(&raise);
	fake_tenant_stop(&plain);
	batond_cleanup(&p);
	unlink(cfg_path);
}

static int child_status(pid_t pid)
{
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* As nobody: registers its own tenant, then sends each line on a client
 * connection; exit status: bit i set when line i was answered as want[i]
 * says (ok, capacity, denied). */
static int nobody_run(const char *sock, long long root_id)
{
	if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 ||
	    setuid(NOBODY) != 0)
		return 100;
	static struct fake_tenant t;
	char err[256];
	if (!fake_tenant_register(&t, sock, "mine", 30, err, sizeof(err)))
		return 101;
	char lines[4][160];
	snprintf(lines[0], sizeof(lines[0]),
	         "{\"type\":\"capacity\",\"cost_ms\":2,\"sla_fps\":30}\n");
	snprintf(lines[1], sizeof(lines[1]),
	         "{\"type\":\"set\",\"uid\":65534,\"cap\":0.5}\n");
	snprintf(lines[2], sizeof(lines[2]),
	         "{\"type\":\"set\",\"id\":%lld,\"cap\":0.1}\n", root_id);
	snprintf(lines[3], sizeof(lines[3]),
	         "{\"type\":\"set\",\"name\":\"rootgame\",\"cap\":0.1}\n");
	const char *want[4] = {"\"type\":\"capacity\"", "\"type\":\"ok\"",
	                       "\"code\":\"denied\"", "\"code\":\"denied\""};
	int bits = 0;
	for (int i = 0; i < 4; i++) {
		char *r = client_request(sock, lines[i]);
		if (r && strstr(r, want[i]))
			bits |= 1 << i;
		free(r);
	}
	/* hold the tenant while the parent checks its cap */
	usleep(400000);
	return bits;
}

/* Who may do what: nobody may ask capacity, may cap its own tenant, is
 * denied on root's (by id and by name); root's cap stays. Its own cap is
 * then limited by its user cap (0.2) in the budget. */
static void test_nobody_caps_and_capacity(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* needs root to become another user */
	struct batond_proc p;
	spawn(&p);
	static struct fake_tenant root;
	char err[256];
	if (!fake_tenant_register(&root, p.sock,
	                          "rootgame\",\"cap\":0.3,"
	                          "\"x\":\"",
	                          30, err, sizeof(err)))
		fail_msg("root's game: %s", err);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0)
		_exit(nobody_run(p.sock, root.id));
	usleep(300000);
	char *r = client_request(p.sock, "{\"type\":\"status\"}\n");
	json_t *st = r ? json_loads(r, 0, NULL) : NULL;
	free(r);
	double nobody_cap = -1, nobody_budget = -1;
	json_t *t;
	size_t i;
	json_array_foreach(json_object_get(st, "tenants"), i, t)
	{
		if (json_integer_value(json_object_get(t, "uid")) == NOBODY) {
			nobody_cap =
			    json_number_value(json_object_get(t, "cap"));
			nobody_budget =
			    json_number_value(json_object_get(t, "budget"));
		}
	}
	json_decref(st);
	int bits = child_status(c);
	assert_float_equal(status_number(p.sock, "tenants", root.id, "cap"),
	                   0.3, 0);
	fake_tenant_stop(&root);
	batond_cleanup(&p);
	unlink(cfg_path);
	if (bits != 15)
		fail_msg("as nobody: answers 0x%x, expected 0xf (capacity, "
		         "own cap ok, root's denied by id and by name)",
		         bits);
	assert_float_equal(nobody_cap, 0.5, 0);
	assert_true(nobody_budget > 0.0 && nobody_budget <= 0.2 + 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_caps_from_config_hello_and_set),
	    cmocka_unit_test(test_nobody_caps_and_capacity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
