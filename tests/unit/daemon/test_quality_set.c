/* The quality pin through the real batond: a game whose fake shim
 * declares levels in its quality area (shm.h) shows them in status, takes
 * {"type":"set","level":N} into its control block and gives it back with
 * -1; a level it did not declare, and a game with no declarations, are
 * refused with nothing changed. As uid 65534 (skipped when not root):
 * another user's game is denied, one's own game may be pinned. */
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
#include "ipc/control.h"
#include "status_lookup.h"

#define NOBODY 65534

/* What libbaton.so writes for a game of three levels and one type. */
static void declare(struct baton_quality *a)
{
	strcpy(a->game_id, "arena");
	a->n_levels = 3;
	a->default_level = 1;
	strcpy(a->level_names[0], "low");
	strcpy(a->level_names[1], "medium");
	strcpy(a->level_names[2], "high");
	a->n_types = 1;
	a->types[0] = (struct baton_quality_type){.id = 7, .vertices = 100};
	atomic_store_explicit(&a->decl_seq, 1u, memory_order_release);
}

/* The control block's quality_level once it equals want, within 2 s;
 * else the last one read. */
static uint32_t wait_level(struct fake_tenant *t, uint32_t want)
{
	struct ipc_control_values v = {0};
	for (int i = 0; i < 200; i++) {
		if (ipc_control_read(t->shm.control, &v) &&
		    v.quality_level == want)
			break;
		usleep(10000);
	}
	return v.quality_level;
}

/* A set of level on tenant id: the reply, owned by the caller. */
static char *set_level(const char *sock, long long id, int level)
{
	char line[128];
	snprintf(line, sizeof(line),
	         "{\"type\":\"set\",\"id\":%lld,\"level\":%d}\n", id, level);
	return client_request(sock, line);
}

static bool is_ok(const char *r)
{
	return r && strstr(r, "\"type\":\"ok\"");
}

/* The set, retried for 2 s while batond has not read the declarations
 * yet (refused invalid until its next tick). */
static char *set_level_soon(const char *sock, long long id, int level)
{
	char *r = NULL;
	for (int i = 0; i < 200; i++) {
		free(r);
		r = set_level(sock, id, level);
		if (!reply_is_error(r, "invalid"))
			break;
		usleep(10000);
	}
	return r;
}

static void test_pin_level(void **state)
{
	(void)state;
	struct batond_proc p;
	if (!batond_spawn(&p, NULL)) {
		batond_dump_log(&p);
		batond_cleanup(&p);
		fail_msg("batond did not start");
	}
	static struct fake_tenant game, plain;
	char err[256];
	if (!fake_tenant_start(&game, p.sock, "arena", 30, 200, err,
	                       sizeof(err)) ||
	    !fake_tenant_start(&plain, p.sock, "plain", 30, 200, err,
	                       sizeof(err)))
		fail_msg("register: %s", err);
	declare(game.shm.quality);

	char *r = set_level_soon(p.sock, game.id, 2);
	if (!is_ok(r))
		fail_msg("set level 2: %s", r ? r : "(none)");
	free(r);
	assert_int_equal(wait_level(&game, 3), 3);
	json_t *e = status_entry(p.sock, "tenants", game.id);
	json_t *q = json_object_get(e, "quality");
	assert_non_null(q);
	assert_string_equal(json_string_value(json_object_get(q, "game")),
	                    "arena");
	assert_int_equal(json_array_size(json_object_get(q, "levels")), 3);
	assert_int_equal(json_integer_value(json_object_get(q, "level")), 2);
	assert_true(json_is_true(json_object_get(q, "pinned")));
	json_decref(e);

	/* Not a level of this game; a game with no declarations. */
	r = set_level(p.sock, game.id, 3);
	assert_true(reply_is_error(r, "invalid"));
	free(r);
	r = set_level(p.sock, plain.id, 0);
	assert_true(reply_is_error(r, "invalid"));
	free(r);
	e = status_entry(p.sock, "tenants", plain.id);
	assert_null(json_object_get(e, "quality"));
	json_decref(e);
	assert_int_equal(wait_level(&game, 3), 3);

	/* Unpinned: no level written, the game keeps its default. */
	r = set_level(p.sock, game.id, -1);
	assert_true(is_ok(r));
	free(r);
	assert_int_equal(wait_level(&game, 0), 0);
	e = status_entry(p.sock, "tenants", game.id);
	q = json_object_get(e, "quality");
	assert_int_equal(json_integer_value(json_object_get(q, "level")), 1);
	assert_false(json_is_true(json_object_get(q, "pinned")));
	json_decref(e);

	/* As nobody: root's game is denied, nothing changed; nobody's own
	 * game may be pinned. */
	if (geteuid() == 0) {
		pid_t c = fork();
		assert_true(c >= 0);
		if (c == 0) {
			if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 ||
			    setuid(NOBODY) != 0)
				_exit(10);
			char *d = set_level(p.sock, game.id, 0);
			if (!reply_is_error(d, "denied"))
				_exit(11);
			free(d);
			static struct fake_tenant own;
			char e2[256];
			if (!fake_tenant_start(&own, p.sock, "mine", 30, 200,
			                       e2, sizeof(e2)))
				_exit(12);
			declare(own.shm.quality);
			char *o = set_level_soon(p.sock, own.id, 0);
			int rc = !is_ok(o)                  ? 13
			         : wait_level(&own, 1) != 1 ? 14
			                                    : 0;
			free(o);
			fake_tenant_stop(&own);
			_exit(rc);
		}
		int st;
		assert_int_equal(waitpid(c, &st, 0), c);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
		assert_int_equal(wait_level(&game, 0), 0);
	}
	fake_tenant_stop(&game);
	fake_tenant_stop(&plain);
	batond_cleanup(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pin_level),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
