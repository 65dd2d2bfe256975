/* The stuck rule for a hung best-effort kernel (src/core/harvest_stuck.c):
 * the threshold max(stuck_factor x window, window +
 * stuck_slack_s), out-of-bounds inputs ignored, and in core_harvest_tick
 * the stuck tenant's budget and window at 0 and every other BE window
 * closed until it clears. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/harvest.h"
#include "core/harvest_stuck.h"

#define MS 1e-3

static bool overran(const struct core_harvest_params *p, double t, double w)
{
	struct core_be_tenant be = {.inflight_s = t, .inflight_window_s = w};
	return core_harvest_overran(p, &be);
}

/* Defaults: the slack (50 ms) decides short windows, the factor (2) long
 * ones; only past the limit, never at it. */
static void test_threshold(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	assert_false(overran(&p, 59 * MS, 10 * MS));
	assert_false(overran(&p, 60 * MS, 10 * MS));
	assert_true(overran(&p, 61 * MS, 10 * MS));
	assert_false(overran(&p, 199 * MS, 100 * MS));
	assert_true(overran(&p, 201 * MS, 100 * MS));
	/* the crossover: 2w = w + 50 ms at w = 50 ms */
	assert_false(overran(&p, 99 * MS, 50 * MS));
	assert_true(overran(&p, 101 * MS, 50 * MS));
	/* tuned: factor 3, no slack */
	p.stuck_factor = 3.0;
	p.stuck_slack_s = 0.0;
	assert_false(overran(&p, 29 * MS, 10 * MS));
	assert_true(overran(&p, 31 * MS, 10 * MS));
	/* a factor under 1 never flags a sub-launch within its window */
	p.stuck_factor = 0.5;
	assert_false(overran(&p, 9 * MS, 10 * MS));
}

/* Nothing under way, or a window that is not one: never stuck. */
static void test_bad_inputs(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	assert_false(overran(&p, 0.0, 10 * MS));
	assert_false(overran(&p, -5.0, 10 * MS));
	assert_false(overran(&p, 10.0, 0.0));
	assert_false(overran(&p, 10.0, -1.0));
	assert_false(overran(&p, NAN, 10 * MS));
	assert_false(overran(&p, INFINITY, 10 * MS));
	assert_false(overran(&p, 10.0, NAN));
	assert_false(overran(&p, 10.0, INFINITY));
}

/* One game at 60 FPS with 4 ms frames, two BE tenants of equal weight. */
static void tick(struct core_be_tenant be[2], struct core_harvest_gpu *hg)
{
	struct core_harvest_params p = core_harvest_params_default();
	struct core_tenant g = {
	    .sla_fps = 30, .target_fps = 60, .k = 0.004, .frames = 3};
	core_harvest_tick(&p, &g, 1, 0.0, hg, be, 2);
}

static void test_tick_closes_windows(void **state)
{
	(void)state;
	struct core_be_tenant base[2] = {{.weight = 1}, {.weight = 1}};
	struct core_harvest_gpu hg;
	tick(base, &hg);
	assert_int_equal(hg.n_stuck, 0);
	assert_true(base[0].window_s > 0.0 && base[1].window_s > 0.0);
	assert_true(base[0].budget > 0.0 && base[1].budget > 0.0);

	/* in flight within its limit: as if nothing were under way */
	struct core_be_tenant be[2] = {
	    {.weight = 1, .inflight_s = 0.02, .inflight_window_s = 0.005},
	    {.weight = 1}};
	tick(be, &hg);
	assert_int_equal(hg.n_stuck, 0);
	assert_false(be[0].stuck);
	assert_true(be[0].window_s == base[0].window_s);
	assert_true(be[1].window_s == base[1].window_s);

	/* 1 s on a 5 ms window: stuck; it gets nothing, the other's window
	 * closes, the other's budget stands */
	be[0].inflight_s = 1.0;
	tick(be, &hg);
	assert_int_equal(hg.n_stuck, 1);
	assert_true(be[0].stuck);
	assert_false(be[1].stuck);
	assert_true(be[0].budget == 0.0 && be[0].window_s == 0.0);
	assert_true(be[1].window_s == 0.0);
	assert_true(be[1].budget == base[1].budget);
	/* the rest needs a budget: the stuck one waits for the next tick */
	struct core_harvest_params p = core_harvest_params_default();
	assert_true(core_harvest_rest(&p, &be[0], 0.001) < 0.0);

	/* its record arrived (nothing under way): cleared, windows back */
	be[0].inflight_s = 0.0;
	be[0].inflight_window_s = 0.0;
	tick(be, &hg);
	assert_int_equal(hg.n_stuck, 0);
	assert_false(be[0].stuck);
	assert_true(be[0].window_s == base[0].window_s);
	assert_true(be[1].window_s == base[1].window_s);
	assert_true(be[0].budget == base[0].budget);
}

/* With no game the rule holds too: a hung kernel on a non-preemptive GPU
 * holds everything queued behind it. */
static void test_no_game(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_be_tenant be[2] = {
	    {.weight = 3, .inflight_s = 0.5, .inflight_window_s = 0.017},
	    {.weight = 1}};
	struct core_harvest_gpu hg;
	core_harvest_tick(&p, NULL, 0, 0.0, &hg, be, 2);
	assert_int_equal(hg.n_stuck, 1);
	assert_true(be[0].stuck && !be[1].stuck);
	assert_true(be[0].window_s == 0.0 && be[1].window_s == 0.0);
	assert_true(be[1].budget > 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threshold),
	    cmocka_unit_test(test_bad_inputs),
	    cmocka_unit_test(test_tick_closes_windows),
	    cmocka_unit_test(test_no_game),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
