/* A game whose rate is not bound by its GPU share (cpu_stretch): the
 * simulator's model of it, and ESA holding one common rate with it (the
 * built-in esa-bottleneck scenario). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim_test.h"

/* Alone, a stretched game is not stretched: nobody else has work. Next to
 * a busy game its CPU phase grows with the stretch, so it runs slower than
 * the same game unstretched does next to the same neighbour. */
static void stretch_grows_with_contention(void **state)
{
	(void)state;
	double fps[2][2];
	for (int busy = 0; busy < 2; busy++)
		for (int st = 0; st < 2; st++) {
			struct sim_tenant_spec t[2] = {
			    test_tenant("game", 30, 4.0, 4.0, 0),
			    test_tenant("hog", 30, 0.5, 8.0, 0)};
			t[0].cpu_stretch = st ? 2.0 : 0.0;
			struct sim_scenario sc =
			    test_scenario("none", 10.0, 2.0, t, busy ? 2 : 1);
			struct sim_result r = test_run(&sc);
			fps[busy][st] = r.tenants[0].fps_mean;
			sim_result_finish(&r);
		}
	assert_float_equal(fps[0][1], fps[0][0], fps[0][0] * 1e-9);
	assert_true(fps[1][1] < 0.8 * fps[1][0]);
}

/* ESA: one common rate (every game within 5% of the mean) although one
 * game cannot reach U / sum k, and never under the SLA. */
static void esa_holds_one_rate_with_a_latency_bound_game(void **state)
{
	(void)state;
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load("esa-bottleneck", &sc, &err))
		fail_msg("esa-bottleneck: %s: %s", err.field, err.msg);
	struct sim_result r = test_run(&sc);
	assert_int_equal(r.n_tenants, 3);
	double mean = 0.0;
	for (size_t i = 0; i < r.n_tenants; i++)
		mean += r.tenants[i].fps_mean / (double)r.n_tenants;
	for (size_t i = 0; i < r.n_tenants; i++) {
		double f = r.tenants[i].fps_mean;
		if (fabs(f / mean - 1.0) > 0.05)
			fail_msg("%s at %.2f FPS, %.1f%% from the common %.2f",
			         r.tenants[i].name, f, (f / mean - 1.0) * 100.0,
			         mean);
		assert_true(r.tenants[i].below_sla_pct == 0.0);
	}
	assert_true(mean > 30.0);
	sim_result_finish(&r);
	sim_scenario_finish(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(stretch_grows_with_contention),
	    cmocka_unit_test(esa_holds_one_rate_with_a_latency_bound_game),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
