/* Placement holds (core/place_hold.h): a placed session's seat counts in
 * the next placement until it registers or lapses; the table is bounded
 * per user and in all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/place_hold.h"

#define S 1000000000LL

static void two_idle(struct core_place_gpu g[2])
{
	for (int i = 0; i < 2; i++)
		g[i] =
		    (struct core_place_gpu){.eligible = true, .admits = true};
}

/* Two sessions placed at the same instant under spread: the second
 * sees the first's seat and goes to the other GPU. Without the hold
 * both went to GPU 0. */
static void test_spread_sees_the_hold(void **state)
{
	(void)state;
	struct core_place_holds hs = {0};
	struct core_place_gpu g[2];
	two_idle(g);
	core_place_holds_apply(&hs, 0, g, 2, NULL);
	int first = core_place_pick(g, 2, CORE_PLACE_SPREAD);
	assert_int_equal(first, 0);
	core_place_holds_add(&hs, (uint32_t)first, 1000, 0.2, 0, 30 * S);
	two_idle(g);
	uint32_t held[2];
	core_place_holds_apply(&hs, S, g, 2, held);
	assert_int_equal(held[0], 1);
	assert_int_equal(held[1], 0);
	assert_true(g[0].load > 0.19 && g[0].tenants == 1);
	assert_int_equal(core_place_pick(g, 2, CORE_PLACE_SPREAD), 1);
}

/* The session registers (its hold is used up), or the hold lapses:
 * either way the seat is gone. Another user's registration takes
 * nothing. */
static void test_taken_or_lapsed(void **state)
{
	(void)state;
	struct core_place_holds hs = {0};
	struct core_place_gpu g[2];
	core_place_holds_add(&hs, 1, 1000, 0.1, 0, 30 * S);
	core_place_holds_add(&hs, 1, 1000, 0.1, 0, 10 * S);
	assert_false(core_place_holds_take(&hs, 1, 2000));
	assert_false(core_place_holds_take(&hs, 0, 1000));
	assert_true(core_place_holds_take(&hs, 1, 1000));
	uint32_t held[2];
	two_idle(g);
	core_place_holds_apply(&hs, S, g, 2, held);
	assert_int_equal(held[1], 1);
	two_idle(g);
	core_place_holds_apply(&hs, 30 * S, g, 2, held);
	assert_int_equal(held[1], 0);
	assert_true(g[1].load == 0.0);
}

/* One user placing without end keeps at most its share of seats; the
 * others' holds stay. Holds off (0) keep nothing. */
static void test_bounded(void **state)
{
	(void)state;
	struct core_place_holds hs = {0};
	core_place_holds_add(&hs, 0, 7, 0.1, 0, 30 * S);
	for (int i = 0; i < 1000; i++)
		core_place_holds_add(&hs, 1, 65534, 0.1, i, 30 * S);
	struct core_place_gpu g[2];
	uint32_t held[2];
	two_idle(g);
	core_place_holds_apply(&hs, 1000, g, 2, held);
	assert_int_equal(held[0], 1);
	assert_int_equal(held[1], CORE_PLACE_HOLDS_PER_UID);
	core_place_holds_add(&hs, 0, 8, 0.1, 0, 0);
	two_idle(g);
	core_place_holds_apply(&hs, 1000, g, 2, held);
	assert_int_equal(held[0], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spread_sees_the_hold),
	    cmocka_unit_test(test_taken_or_lapsed),
	    cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
