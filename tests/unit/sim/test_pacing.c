/* The controller closes the loop through the simulated frame pacing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim_test.h"

/* The first tick sees the game free at 320 FPS; the PI loop then settles
 * on the reference within a few seconds, which the warm-up leaves out. */
static void sa_holds_a_lone_game_at_its_sla(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("a", 45, 1.0, 3.125, 2)};
	struct sim_scenario sc = test_scenario("sa", 30.0, 10.0, t, 1);
	struct sim_result r = test_run(&sc);
	const struct sim_tenant_result *a = &r.tenants[0];
	double want = 45.0 * (1.0 + sc.params.sla_margin);
	assert_true(fabs(rel_err(a->fps_mean, want)) < 0.01);
	assert_true(fabs(rel_err(a->target_per_s[29], want)) < 0.001);
	/* 45.45 FPS puts 45 or 46 frames in every second. */
	assert_float_equal(a->below_sla_pct, 0.0, 0.0);
	assert_true(a->fps_p1 >= 45.0);
	/* The GPU does only the work of those frames. */
	assert_float_equal(r.gpu_util, want * 3.125e-3, 0.002);
	assert_float_equal(a->gpu_share, r.gpu_util, 1e-12);
	sim_result_finish(&r);
}

static void none_lets_it_run_free(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("a", 45, 1.0, 3.125, 2)};
	struct sim_scenario sc = test_scenario("none", 20.0, 2.0, t, 1);
	struct sim_result r = test_run(&sc);
	assert_true(fabs(rel_err(r.tenants[0].fps_mean, 320.0)) < 0.005);
	assert_float_equal(r.tenants[0].target_per_s[10], 0.0, 0.0);
	sim_result_finish(&r);
}

/* vGASA Sec. 4.2's setup: a 320 FPS game held at 60 with Eq. 1's relative
 * sleep through a 1 ms timer and a Flush before Present. The open loop
 * misses (sleeps round up), the PI loop pulls the rate back. */
static void relative_pacer_through_coarse_timer(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("pp", 60, 1.0, 2.125, 0)};
	t[0].pacer = SIM_PACER_RELATIVE;
	t[0].sleep_granularity_ms = 1.0;
	t[0].jitter = 0.02;
	struct sim_scenario sc = test_scenario("sa", 30.0, 5.0, t, 1);
	sc.params.sla_margin = 0.0;
	struct sim_result r = test_run(&sc);
	assert_true(fabs(rel_err(r.tenants[0].fps_mean, 60.0)) < 0.03);
	sim_result_finish(&r);
}

static void fixed_rate_tenant_is_pinned(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("a", 30, 1.0, 3.0, 2),
	                              test_tenant("b", 30, 1.0, 3.0, 2)};
	t[1].fixed_fps = 100.0;
	struct sim_scenario sc = test_scenario("none", 10.0, 2.0, t, 2);
	struct sim_result r = test_run(&sc);
	assert_true(fabs(rel_err(r.tenants[1].fps_mean, 100.0)) < 0.01);
	assert_float_equal(r.tenants[1].target_per_s[5], 100.0, 0.0);
	/* The free one takes what is left of the time slices. */
	assert_true(r.tenants[0].fps_mean > 150.0);
	sim_result_finish(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sa_holds_a_lone_game_at_its_sla),
	    cmocka_unit_test(none_lets_it_run_free),
	    cmocka_unit_test(relative_pacer_through_coarse_timer),
	    cmocka_unit_test(fixed_rate_tenant_is_pinned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
