/* batond against its users: the per-uid tenant
 * cap, admin by a supplementary group, set by id and uid with a name of
 * several users refused, and no raw client byte in the log. The real batond
 * on a temporary socket; the tests that need another user fork a child that
 * becomes uid 65534 and skip when not root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "fake_tenant.h"
#include "harness.h"
#include "status_lookup.h"

#define NOBODY 65534

static void spawn(struct batond_proc *p, const char *const *args)
{
	if (!batond_spawn(p, args)) {
		batond_dump_log(p);
		batond_cleanup(p);
		fail_msg("batond did not start");
	}
}

/* Drops to uid/gid 65534 with the given supplementary groups. */
static bool become_nobody(const gid_t *groups, size_t n)
{
	return setgroups(n, groups) == 0 && setgid(NOBODY) == 0 &&
	       setuid(NOBODY) == 0;
}

/* One uid may not have more than max_tenants_per_uid registered: the one
 * past it is refused with an error naming the uid and the limit; once one
 * leaves, another may come. */
static void test_tenant_cap_per_uid(void **state)
{
	(void)state;
	static const char *const args[] = {"--max-tenants-per-uid", "3", NULL};
	struct batond_proc p;
	spawn(&p, args);
	static struct fake_tenant t[4];
	char err[256];
	for (int i = 0; i < 3; i++)
		if (!fake_tenant_register(&t[i], p.sock, "capped", 30, err,
		                          sizeof(err)))
			fail_msg("tenant %d: %s", i, err);
	assert_false(fake_tenant_register(&t[3], p.sock, "capped", 30, err,
	                                  sizeof(err)));
	char uid[32];
	snprintf(uid, sizeof(uid), "uid %u", (unsigned)getuid());
	if (!strstr(err, uid) || !strstr(err, "3 tenants") ||
	    !strstr(err, "max_tenants_per_uid"))
		fail_msg("refusal does not name the uid and the limit: %s",
		         err);
	fake_tenant_stop(&t[0]);
	bool again = false;
	for (int i = 0; i < 50 && !again; i++) {
		again = fake_tenant_register(&t[0], p.sock, "capped", 30, err,
		                             sizeof(err));
		if (!again)
			usleep(20000);
	}
	assert_true(again);
	for (int i = 0; i < 3; i++)
		fake_tenant_stop(&t[i]);
	batond_cleanup(&p);
}

static int status_as_nobody(const char *sock, const gid_t *groups, size_t n)
{
	if (!become_nobody(groups, n))
		return 10;
	char *r = client_request(sock, "{\"type\":\"status\"}\n");
	if (!r)
		return 11;
	int rc = strstr(r, "\"type\":\"status\"") ? 0
	         : reply_is_error(r, "denied")    ? 1
	                                          : 12;
	free(r);
	return rc;
}

static int child_status(pid_t pid)
{
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* admin_group: a member, by a supplementary group only, may ask for
 * status; the same user without the group may not. */
static void test_admin_by_supplementary_group(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* needs root to become another user */
	static const char *const args[] = {"--admin-group", "4242", NULL};
	struct batond_proc p;
	spawn(&p, args);
	gid_t admin = 4242, other = 4243;
	pid_t a = fork();
	assert_true(a >= 0);
	if (a == 0)
		_exit(status_as_nobody(p.sock, &admin, 1));
	int ra = child_status(a);
	pid_t b = fork();
	assert_true(b >= 0);
	if (b == 0)
		_exit(status_as_nobody(p.sock, &other, 1));
	int rb = child_status(b);
	batond_cleanup(&p);
	assert_int_equal(ra, 0); /* granted */
	assert_int_equal(rb, 1); /* denied */
}

/* A child as nobody that registers a tenant called name and holds it until
 * its pipe closes. */
static pid_t nobody_tenant(const char *sock, const char *name, int *hold)
{
	int up[2], down[2];
	if (pipe(up) < 0 || pipe(down) < 0)
		return -1;
	pid_t pid = fork();
	if (pid != 0) {
		close(up[1]);
		close(down[0]);
		char c = 0;
		bool ok = pid > 0 && read(up[0], &c, 1) == 1 && c == 'y';
		close(up[0]);
		*hold = down[1];
		return ok ? pid : -1;
	}
	close(up[0]);
	close(down[1]);
	static struct fake_tenant t;
	char err[256];
	bool ok = become_nobody(NULL, 0) &&
	          fake_tenant_register(&t, sock, name, 30, err, sizeof(err));
	if (write(up[1], ok ? "y" : "n", 1) != 1 || !ok)
		_exit(1);
	char c;
	while (read(down[0], &c, 1) > 0)
		;
	_exit(0);
}

/* A set request from a child as nobody: 0 ok, 1 denied, 2 other. */
static int set_as_nobody(const char *sock, const char *line)
{
	if (!become_nobody(NULL, 0))
		return 10;
	char *r = client_request(sock, line);
	int rc = r && strstr(r, "\"type\":\"ok\"") ? 0
	         : reply_is_error(r, "denied")     ? 1
	                                           : 2;
	free(r);
	return rc;
}

static double sla_of(const struct batond_proc *p, unsigned uid)
{
	char *r = client_request(p->sock, "{\"type\":\"status\"}\n");
	json_t *st = r ? json_loads(r, 0, NULL) : NULL;
	free(r);
	double sla = -1;
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(st, "tenants"), i, t)
	{
		if (json_integer_value(json_object_get(t, "uid")) == uid)
			sla = json_number_value(json_object_get(t, "sla_fps"));
	}
	json_decref(st);
	return sla;
}

/* set by name, id, uid and all: a name that two users run is refused with
 * both listed; --uid, --id or --all picks; a user who is not admin may set
 * their own tenant, never another's, by name or by id. */
static void test_set_addresses_tenants(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* needs root to become another user */
	struct batond_proc p;
	spawn(&p, NULL);
	static struct fake_tenant mine;
	char err[256], line[192];
	if (!fake_tenant_register(&mine, p.sock, "game", 30, err, sizeof(err)))
		fail_msg("root's game: %s", err);
	int hold = -1;
	pid_t child = nobody_tenant(p.sock, "game", &hold);
	assert_true(child > 0);

	char *r = client_request(p.sock, "{\"type\":\"set\",\"name\":\"game\","
	                                 "\"sla_fps\":31}\n");
	if (!reply_is_error(r, "invalid") || !strstr(r, "uid 0") ||
	    !strstr(r, "uid 65534"))
		fail_msg("a name of two users' tenants: %s", r ? r : "(none)");
	free(r);
	assert_float_equal(sla_of(&p, 0), 30, 0);

	r = client_request(p.sock, "{\"type\":\"set\",\"name\":\"game\","
	                           "\"uid\":0,\"sla_fps\":31}\n");
	assert_non_null(strstr(r, "\"ok\""));
	free(r);
	assert_float_equal(sla_of(&p, 0), 31, 0);
	assert_float_equal(sla_of(&p, NOBODY), 30, 0);

	snprintf(line, sizeof(line),
	         "{\"type\":\"set\",\"id\":%lld,\"sla_fps\":32}\n", mine.id);
	r = client_request(p.sock, line);
	assert_non_null(strstr(r, "\"ok\""));
	free(r);
	assert_float_equal(sla_of(&p, 0), 32, 0);

	r = client_request(p.sock, "{\"type\":\"set\",\"name\":\"game\","
	                           "\"all\":true,\"sla_fps\":33}\n");
	assert_non_null(strstr(r, "\"ok\""));
	free(r);
	assert_float_equal(sla_of(&p, 0), 33, 0);
	assert_float_equal(sla_of(&p, NOBODY), 33, 0);

	r = client_request(p.sock, "{\"type\":\"set\",\"id\":999999,"
	                           "\"sla_fps\":33}\n");
	assert_true(reply_is_error(r, "not_found"));
	free(r);

	/* nobody: root's game by id, by name: denied; its own by uid: ok */
	const char *asks[] = {
	    line,
	    "{\"type\":\"set\",\"name\":\"game\","
	    "\"fixed_fps\":1}\n",
	    "{\"type\":\"set\",\"uid\":65534,\"sla_fps\":40}\n"};
	int want[] = {1, 1, 0};
	for (int i = 0; i < 3; i++) {
		pid_t c = fork();
		assert_true(c >= 0);
		if (c == 0)
			_exit(set_as_nobody(p.sock, asks[i]));
		int got = child_status(c);
		if (got != want[i])
			fail_msg("as nobody: %s -> %d, expected %d", asks[i],
			         got, want[i]);
	}
	assert_float_equal(sla_of(&p, 0), 33, 0);
	assert_float_equal(sla_of(&p, NOBODY), 40, 0);

	close(hold);
	child_status(child);
	fake_tenant_stop(&mine);
	batond_cleanup(&p);
}

/* A client's raw bytes (escape sequences, BEL) never reach the log: the
 * parser's error quotes them, conn_fail logs it escaped. */
static void test_log_escapes_peer_bytes(void **state)
{
	(void)state;
	setenv("BATON_LOG", "info", 1);
	struct batond_proc p;
	spawn(&p, NULL);
	unsetenv("BATON_LOG");
	int fd = connect_unix(p.sock);
	assert_true(fd >= 0);
	static const char evil[] =
	    "{\"type\":\"hello\"\x1b[2J\x07\x1b]0;owned\x07 zz}\n";
	char *r = exchange(fd, evil, sizeof(evil) - 1);
	assert_true(reply_is_error(r, "protocol"));
	free(r);
	close(fd);
	usleep(200000);
	FILE *f = fopen(p.log, "rb");
	assert_non_null(f);
	int c, raw = 0;
	bool logged = false;
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	for (size_t i = 0; i < n; i++) {
		c = (unsigned char)buf[i];
		if (c == 0x1b || c == 0x07)
			raw++;
	}
	logged = strstr(buf, "invalid JSON") != NULL;
	batond_cleanup(&p);
	assert_true(logged);
	assert_int_equal(raw, 0);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tenant_cap_per_uid),
	    cmocka_unit_test(test_admin_by_supplementary_group),
	    cmocka_unit_test(test_set_addresses_tenants),
	    cmocka_unit_test(test_log_escapes_peer_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
