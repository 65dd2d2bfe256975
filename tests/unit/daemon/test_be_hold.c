/* What a game's claims do to the best-effort windows through the real
 * batond (docs/harvesting.md, "The rules"): a game asking for 1000 FPS
 * that presents 5 leaves a BE tenant its window (before: 0, its 1 ms
 * target taken for its period), and status and /metrics say nothing holds
 * the window shut; a game that reports no GPU time shuts it for its first
 * 2 s, named in status as the holder, and not after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "fake_tenant.h"
#include "harness.h"
#include "ipc/control.h"

static int64_t window_of(const struct fake_tenant *t)
{
	struct ipc_control_values v;
	return ipc_control_read(t->shm.control, &v) ? v.be_window_ns : -1;
}

/* Polls (5 s) until the BE window passes want_ns. */
static bool await_window(const struct fake_tenant *t, int64_t want_ns)
{
	for (int i = 0; i < 250; i++, usleep(20000))
		if (window_of(t) > want_ns)
			return true;
	return false;
}

/* status's be_hold: its reason (into why) and tenant id. */
static long long hold_of(const char *sock, char *why, size_t len)
{
	char *r = client_request(sock, "{\"type\":\"status\"}\n");
	json_t *st = r ? json_loads(r, 0, NULL) : NULL;
	free(r);
	json_t *h = json_object_get(st, "be_hold");
	const char *reason = json_string_value(json_object_get(h, "reason"));
	snprintf(why, len, "%s", reason ? reason : "(none)");
	long long id =
	    (long long)json_integer_value(json_object_get(h, "tenant"));
	json_decref(st);
	return id;
}

/* One game frame with no GPU time measured (gpu_ns -1): the record
 * writer of the BE stand-in, with a game's flags. */
static void frame_no_gpu(struct fake_tenant *t)
{
	fake_be_launch(t, -1, 0, 0, 0);
}

static void test_sla_claim_and_no_cost(void **state)
{
	(void)state;
	struct batond_proc p;
	if (!batond_spawn(&p, NULL)) {
		batond_dump_log(&p);
		fail_msg("batond did not start");
	}
	static struct fake_tenant be, greedy, nocost;
	char err[256], why[32];
	if (!fake_be_register(&be, p.sock, "be", "", err, sizeof(err)))
		fail_msg("register: %s", err);
	/* 2 ms of GPU a frame, 5 FPS, an SLA of 1000 */
	if (!fake_tenant_start(&greedy, p.sock, "greedy", 1000, 5, err,
	                       sizeof(err)))
		fail_msg("greedy: %s", err);
	sleep(1);
	if (!await_window(&be, 50000000)) {
		batond_dump_log(&p);
		fail_msg("BE window %lld ns beside a game at SLA 1000 showing "
		         "5 FPS (its frames 200 ms apart)",
		         (long long)window_of(&be));
	}
	assert_int_equal(hold_of(p.sock, why, sizeof(why)), 0);
	assert_string_equal(why, "open");
	fake_tenant_stop(&greedy);

	/* registers and presents, never a GPU time (raw ring records) */
	if (!fake_tenant_register(&nocost, p.sock, "nocost", 30, err,
	                          sizeof(err)))
		fail_msg("nocost: %s", err);
	bool named = false;
	for (int i = 0; i < 15 && !named; i++) {
		frame_no_gpu(&nocost);
		usleep(33000);
		named = hold_of(p.sock, why, sizeof(why)) == nocost.id &&
		        strcmp(why, "cost") == 0;
	}
	assert_true(named);
	assert_int_equal(window_of(&be), 0);
	bool open = false;
	for (int i = 0; i < 150 && !open; i++) { /* 5 s */
		frame_no_gpu(&nocost);
		usleep(33000);
		open = window_of(&be) > 0;
	}
	if (!open)
		fail_msg("the window stayed shut by a game with no GPU time");
	assert_int_equal(hold_of(p.sock, why, sizeof(why)), 0);
	fake_tenant_stop(&nocost);
	fake_tenant_stop(&be);
	batond_cleanup(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sla_claim_and_no_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
