/* The engine as a whole: determinism, errors, the frame loop's inputs
 * (start/stop, scenes, traces). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim_test.h"

/* Three contending games with jitter and scene changes, as in vGASA's
 * Sec. 4.1 setup. */
static struct sim_scene dirt_scenes[] = {{.at_s = 4.0, .gpu_ms = 14.0},
                                         {.at_s = 8.0, .gpu_ms = 12.0}};
static struct sim_scene sc2_scenes[] = {{.at_s = 3.0, .cpu_ms = 12.0}};

static struct sim_scenario three_games(struct sim_tenant_spec *t,
                                       const char *policy)
{
	t[0] = test_tenant("dirt3", 30, 14.0, 12.5, 2);
	t[0].jitter = 0.15;
	t[0].scenes = dirt_scenes;
	t[0].n_scenes = 2;
	t[1] = test_tenant("starcraft2", 30, 10.0, 8.5, 2);
	t[1].jitter = 0.2;
	t[1].scenes = sc2_scenes;
	t[1].n_scenes = 1;
	t[1].pacer = SIM_PACER_RELATIVE;
	t[1].sleep_granularity_ms = 1.0;
	t[2] = test_tenant("farcry2", 30, 5.0, 6.0, 0);
	t[2].jitter = 0.1;
	struct sim_scenario sc = test_scenario(policy, 12.0, 2.0, t, 3);
	sc.gpu.switch_us = 50.0;
	sc.seed = 1234;
	return sc;
}

static void assert_same_result(const struct sim_result *a,
                               const struct sim_result *b)
{
	assert_int_equal(a->events, b->events);
	assert_true(a->gpu_util == b->gpu_util);
	assert_int_equal(a->n_secs, b->n_secs);
	assert_memory_equal(a->util_per_s, b->util_per_s,
	                    a->n_secs * sizeof(double));
	assert_int_equal(a->n_tenants, b->n_tenants);
	for (size_t i = 0; i < a->n_tenants; i++) {
		const struct sim_tenant_result *x = &a->tenants[i],
		                               *y = &b->tenants[i];
		assert_true(x->fps_mean == y->fps_mean);
		assert_true(x->fps_p1 == y->fps_p1);
		assert_true(x->frame_ms_p99 == y->frame_ms_p99);
		assert_true(x->below_sla_pct == y->below_sla_pct);
		assert_true(x->gpu_share == y->gpu_share);
		assert_int_equal(x->n_secs, y->n_secs);
		assert_memory_equal(x->fps_per_s, y->fps_per_s,
		                    x->n_secs * sizeof(double));
		assert_memory_equal(x->target_per_s, y->target_per_s,
		                    x->n_secs * sizeof(double));
	}
}

static void same_seed_same_result(void **state)
{
	const char *policies[] = {"none", "sa", "fsa", "esa"};
	for (size_t p = 0; p < 4; p++) {
		struct sim_tenant_spec t[3];
		struct sim_scenario sc = three_games(t, policies[p]);
		struct sim_result a = test_run(&sc), b = test_run(&sc);
		assert_same_result(&a, &b);
		assert_string_equal(a.policy, policies[p]);
		assert_true(a.events > 1000);

		/* Another seed draws other costs (a paced game's rate may
		 * well be the same, its GPU time is not). */
		sc.seed = 4321;
		struct sim_result c = test_run(&sc);
		assert_true(c.tenants[0].gpu_share != a.tenants[0].gpu_share);
		sim_result_finish(&a);
		sim_result_finish(&b);
		sim_result_finish(&c);
	}
}

/* The built-in vGASA scenario, through the parser, cut to 20 s. */
static void builtin_vgasa_is_deterministic(void **state)
{
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load("vgasa", &sc, &err))
		fail_msg("vgasa: %s: %s", err.field, err.msg);
	sc.duration_s = 20.0;
	struct sim_result a = test_run(&sc), b = test_run(&sc);
	assert_same_result(&a, &b);
	assert_int_equal(a.n_tenants, 3);
	assert_int_equal(a.n_secs, 20);
	sim_result_finish(&a);
	sim_result_finish(&b);
	sim_scenario_finish(&sc);
}

static void warmup_not_shorter_than_duration_fails(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("a", 30, 1.0, 3.0, 2)};
	struct sim_scenario sc = test_scenario("none", 5.0, 5.0, t, 1);
	struct sim_result r;
	struct sim_error err;
	assert_false(sim_run(&sc, &r, &err));
	assert_string_equal(err.field, "warmup_s");
	assert_non_null(strstr(err.msg, "shorter than the duration"));
	assert_null(r.tenants);
	assert_int_equal(r.n_tenants, 0);

	sc.warmup_s = 6.0;
	assert_false(sim_run(&sc, &r, &err));
	assert_string_equal(err.field, "warmup_s");
}

static void bad_scenarios_fail_clearly(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("a", 30, 1.0, 3.0, 2)};
	struct sim_scenario sc = test_scenario("nope", 5.0, 1.0, t, 1);
	struct sim_result r;
	struct sim_error err;
	assert_false(sim_run(&sc, &r, &err));
	assert_string_equal(err.field, "policy.name");

	sc = test_scenario("sa", 5.0, 1.0, t, 0);
	assert_false(sim_run(&sc, &r, &err));
	assert_string_equal(err.field, "tenants");

	sc = test_scenario("sa", 5.0, 1.0, t, 1);
	sc.gpu.quantum_ms = 0.0;
	assert_false(sim_run(&sc, &r, &err));
	assert_string_equal(err.field, "gpu.quantum_ms");

	sc = test_scenario("sa", 5.0, 1.0, t, 1);
	t[0].cpu_ms = 0.0;
	t[0].gpu_ms = 0.0;
	assert_false(sim_run(&sc, &r, &err));
	assert_string_equal(err.field, "tenants.[0].gpu_ms");

	double zero[] = {0.0, 0.0};
	t[0].trace_cpu_ms = zero;
	t[0].trace_gpu_ms = zero;
	t[0].n_trace = 2;
	assert_false(sim_run(&sc, &r, &err));
	assert_string_equal(err.field, "tenants.[0].trace");
}

/* A game that joins at 2 s and leaves at 4 s shows frames only then and
 * takes the GPU from the other only then. */
static void start_and_stop(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("stay", 30, 1.0, 4.0, 2),
	                              test_tenant("visit", 30, 1.0, 4.0, 2)};
	t[1].start_s = 2.0;
	t[1].stop_s = 4.0;
	struct sim_scenario sc = test_scenario("sa", 6.0, 0.0, t, 2);
	struct sim_result r = test_run(&sc);
	const struct sim_tenant_result *stay = &r.tenants[0],
	                               *visit = &r.tenants[1];
	assert_float_equal(visit->fps_per_s[0], 0.0, 0.0);
	assert_float_equal(visit->fps_per_s[1], 0.0, 0.0);
	assert_true(visit->fps_per_s[2] > 25.0);
	assert_true(visit->fps_per_s[3] > 25.0);
	/* At most the frames in flight at 4 s still finish. */
	assert_true(visit->fps_per_s[4] <= 2.0);
	assert_float_equal(visit->fps_per_s[5], 0.0, 0.0);
	/* Unpaced while off the roster. */
	assert_float_equal(visit->target_per_s[0], 0.0, 0.0);
	assert_float_equal(visit->target_per_s[5], 0.0, 0.0);
	assert_true(visit->target_per_s[3] > 0.0);
	assert_true(stay->target_per_s[0] > 0.0);
	assert_true(stay->fps_per_s[3] > 25.0);
	sim_result_finish(&r);
}

/* A scene change moves the costs; a cost <= 0 in a scene keeps the old. */
static void scenes_change_costs(void **state)
{
	struct sim_scene scenes[] = {
	    {.at_s = 2.0, .cpu_ms = 0.0, .gpu_ms = 3.0},
	    {.at_s = 4.0, .cpu_ms = 3.0, .gpu_ms = -1.0}};
	struct sim_tenant_spec t[] = {test_tenant("a", 30, 1.0, 1.0, 0)};
	t[0].scenes = scenes;
	t[0].n_scenes = 2;
	struct sim_scenario sc = test_scenario("none", 6.0, 0.0, t, 1);
	struct sim_result r = test_run(&sc);
	assert_float_equal(r.tenants[0].fps_per_s[1], 500.0, 1.0);
	assert_float_equal(r.tenants[0].fps_per_s[3], 250.0, 1.0);
	assert_float_equal(r.tenants[0].fps_per_s[5], 1000.0 / 6.0, 1.0);
	sim_result_finish(&r);
}

static void trace_replays_in_a_loop(void **state)
{
	double cpu[] = {1.0, 1.0}, gpu[] = {2.0, 4.0};
	struct sim_tenant_spec t[] = {test_tenant("a", 30, 0.0, 0.0, 0)};
	t[0].trace_cpu_ms = cpu;
	t[0].trace_gpu_ms = gpu;
	t[0].n_trace = 2;
	t[0].jitter = 0.5; /* ignored by traces */
	struct sim_scenario sc = test_scenario("none", 4.0, 1.0, t, 1);
	struct sim_result r = test_run(&sc);
	/* Frames of 3 and 5 ms alternate: 2 frames per 8 ms. */
	assert_float_equal(r.tenants[0].fps_mean, 250.0, 0.5);
	assert_float_equal(r.tenants[0].frame_ms_p99, 5.0, 1e-6);
	sim_result_finish(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(same_seed_same_result),
	    cmocka_unit_test(builtin_vgasa_is_deterministic),
	    cmocka_unit_test(warmup_not_shorter_than_duration_fails),
	    cmocka_unit_test(bad_scenarios_fail_clearly),
	    cmocka_unit_test(start_and_stop),
	    cmocka_unit_test(scenes_change_costs),
	    cmocka_unit_test(trace_replays_in_a_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
