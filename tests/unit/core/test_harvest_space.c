/* Space harvesting at the control tick (src/core/harvest_space.c): the
 * GPU's aggregate load through COMBO's decision, the hold before the
 * device is divided, the split from Eq. 5, the safe switch when the
 * games grow, and every condition that joins the device again. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/harvest.h"
#include "core/harvest_space.h"

#define TICK 0.1

static struct core_combo_params params(uint32_t units)
{
	struct core_combo_params p = core_harvest_params_default().space;
	p.sm_total = units;
	return p;
}

/* Ticks of a steady load until the partition is in force; returns how
 * many it took (0 if it never was within max). */
static int settle(const struct core_combo_params *p, struct core_space_gpu *s,
                  double u, int max)
{
	for (int i = 1; i <= max; i++) {
		core_space_tick(p, s, u, false, false, 1, TICK);
		if (s->be_count > 0)
			return i;
	}
	return 0;
}

/* Off by default; a device of one unit cannot be divided. */
static void test_off(void **state)
{
	(void)state;
	struct core_combo_params p = core_harvest_params_default().space;
	assert_true(p.sm_total < 2);
	struct core_space_gpu s = {0};
	assert_int_equal(settle(&p, &s, 0.3, 100), 0);
	assert_int_equal(s.split, 0);
	p.sm_total = 1;
	assert_int_equal(settle(&p, &s, 0.3, 100), 0);
}

/* A steady 30 % of a 2-core device: a full window and the 1 s hold of
 * stable ticks, then games on core 0 (ceil(2 x 0.3 x 1.0516) = 1) and
 * best-effort work on core 1; the first integrated tick is held (a
 * change of scheme), so the partition comes the tick after. */
static void test_divides_after_hold(void **state)
{
	(void)state;
	struct core_combo_params p = params(2);
	struct core_space_gpu s = {0};
	int n = settle(&p, &s, 0.30, 100);
	/* window 8 ticks, then stable_s grows by 0.1 a tick to 1 s */
	assert_true(n >= (int)(p.hold_s / TICK));
	assert_true(n <= (int)(p.hold_s / TICK) + (int)p.window + 2);
	assert_int_equal(s.scheme, CORE_COMBO_INTEGRATED);
	assert_int_equal(s.split, 1);
	assert_int_equal(s.be_first, 1);
	assert_int_equal(s.be_count, 1);
	assert_int_equal(s.switches, 1);
	/* Eq. 5 on 8 units: ceil(8 x 0.3 x 1.0516) = 3, BE gets 5 */
	struct core_combo_params p8 = params(8);
	struct core_space_gpu s8 = {0};
	assert_true(settle(&p8, &s8, 0.30, 100) > 0);
	assert_int_equal(s8.split, 3);
	assert_int_equal(s8.be_first, 3);
	assert_int_equal(s8.be_count, 5);
}

/* A load that swings by more than Eq. 3's 10 % across groups never
 * divides, and one such tick joins a divided device at once; a swing
 * inside one group (0.2 and 0.3 of 2 units both need one) divides. */
static void test_swing_joins(void **state)
{
	(void)state;
	struct core_combo_params p = params(8);
	struct core_space_gpu s = {0};
	for (int i = 0; i < 100; i++) {
		/* Eq. 5: 2 units at 0.2, 4 at 0.4 */
		core_space_tick(&p, &s, i % 2 ? 0.2 : 0.4, false, false, 1,
		                TICK);
		assert_int_equal(s.be_count, 0);
		assert_int_equal(s.split, 0);
	}
	s = (struct core_space_gpu){0};
	assert_true(settle(&p, &s, 0.2, 100) > 0);
	assert_int_equal(s.split, 2);
	core_space_tick(&p, &s, 0.4, false, false, 1, TICK);
	assert_int_equal(s.scheme, CORE_COMBO_RELAXED);
	assert_int_equal(s.split, 0);
	assert_int_equal(s.be_count, 0);
	assert_int_equal(s.switches, 2);

	struct core_combo_params p2 = params(2);
	struct core_space_gpu s2 = {0};
	int n = 0;
	for (int i = 0; i < 100 && s2.be_count == 0; i++, n++)
		core_space_tick(&p2, &s2, i % 2 ? 0.2 : 0.3, false, false, 1,
		                TICK);
	assert_int_equal(s2.split, 1);
	assert_int_equal(s2.be_count, 1);
	assert_true(n <= (int)(p2.hold_s / TICK) + (int)p2.window + 2);
}

/* On 8 units, a load that creeps up inside Eq. 3's band grows the render
 * group: that tick holds the partition (Fig. 11), the next gives the
 * smaller one. */
static void test_growth_holds(void **state)
{
	(void)state;
	struct core_combo_params p = params(8);
	struct core_space_gpu s = {0};
	assert_true(settle(&p, &s, 0.34, 100) > 0);
	assert_int_equal(s.split, 3);
	core_space_tick(&p, &s, 0.35, false, false, 1, TICK);
	/* ceil(8 x 0.35 x 1.0516) = 3: the same group, no hold */
	assert_int_equal(s.split, 3);
	assert_int_equal(s.be_count, 5);
	core_space_tick(&p, &s, 0.36, false, false, 1, TICK);
	/* ceil(8 x 0.36 x 1.0516) = 4: grown, held */
	assert_int_equal(s.split, 4);
	assert_true(s.held);
	assert_int_equal(s.be_count, 0);
	core_space_tick(&p, &s, 0.36, false, false, 1, TICK);
	assert_int_equal(s.split, 4);
	assert_false(s.held);
	assert_int_equal(s.be_first, 4);
	assert_int_equal(s.be_count, 4);
}

/* No best-effort tenant, quiet games, overload, a load too big to leave
 * a unit: no partition, and the hold starts over. */
static void test_joins(void **state)
{
	(void)state;
	struct core_combo_params p = params(2);
	struct core_space_gpu s = {0};
	assert_true(settle(&p, &s, 0.3, 100) > 0);
	core_space_tick(&p, &s, 0.3, false, false, 0, TICK);
	assert_int_equal(s.split, 0);
	assert_int_equal(s.be_count, 0);
	/* the hold again from the start, once the tenant is back */
	core_space_tick(&p, &s, 0.3, false, false, 1, TICK);
	assert_int_equal(s.be_count, 0);
	assert_true(settle(&p, &s, 0.3, 100) > 5);

	core_space_tick(&p, &s, 0.3, true, false, 1, TICK);
	assert_int_equal(s.be_count, 0);
	assert_true(settle(&p, &s, 0.3, 100) > 0);
	core_space_tick(&p, &s, 0.3, false, true, 1, TICK);
	assert_int_equal(s.be_count, 0);
	assert_int_equal(s.split, 0);

	/* 0.5 of 2 units: ceil(2 x 0.5 x 1.0516) = 2, the whole device */
	struct core_space_gpu big = {0};
	assert_int_equal(settle(&p, &big, 0.5, 100), 0);
	assert_int_equal(big.split, 0);
	/* nonsense in: nothing divided */
	struct core_space_gpu bad = {0};
	assert_int_equal(settle(&p, &bad, NAN, 50), 0);
	assert_int_equal(settle(&p, &bad, -1.0, 50), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_off),
	    cmocka_unit_test(test_divides_after_hold),
	    cmocka_unit_test(test_swing_joins),
	    cmocka_unit_test(test_growth_holds),
	    cmocka_unit_test(test_joins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
