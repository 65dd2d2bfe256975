/* Whole runs that check the GPU model against what it must reproduce:
 * equal time slices (vGASA Fig. 1), pipelining and vGASA's Flush. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim_test.h"

static void equal_costs_split_the_gpu_in_half(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("a", 30, 1.0, 10.0, 2),
	                              test_tenant("b", 30, 1.0, 10.0, 2)};
	struct sim_scenario sc = test_scenario("none", 10.0, 1.0, t, 2);
	struct sim_result r = test_run(&sc);
	assert_float_equal(r.tenants[0].gpu_share, 0.5, 0.005);
	assert_float_equal(r.tenants[1].gpu_share, 0.5, 0.005);
	assert_float_equal(r.gpu_util, 1.0, 1e-9);
	assert_float_equal(r.tenants[0].fps_mean, 50.0, 0.6);
	assert_float_equal(r.tenants[1].fps_mean, 50.0, 0.6);
	sim_result_finish(&r);

	/* A 50 us switch after every 1 ms quantum: the GPU stays busy, but
	 * only 1 / 1.05 of it runs games. */
	sc.gpu.switch_us = 50.0;
	r = test_run(&sc);
	assert_float_equal(r.gpu_util, 1.0, 1e-9);
	assert_float_equal(r.tenants[0].gpu_share, 0.5 / 1.05, 0.005);
	assert_float_equal(r.tenants[1].gpu_share, 0.5 / 1.05, 0.005);
	/* Window 0 starts with both games in their first CPU phase. */
	assert_float_equal(r.util_per_s[0], 0.999, 1e-9);
	for (size_t w = 1; w < r.n_secs; w++)
		assert_float_equal(r.util_per_s[w], 1.0, 1e-9);
	sim_result_finish(&r);
}

static void cheap_frames_run_twice_as_fast(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("dear", 30, 1.0, 10.0, 2),
	                              test_tenant("cheap", 30, 1.0, 5.0, 2)};
	struct sim_scenario sc = test_scenario("none", 10.0, 1.0, t, 2);
	sc.gpu.switch_us = 50.0;
	struct sim_result r = test_run(&sc);
	double ratio = r.tenants[1].fps_mean / r.tenants[0].fps_mean;
	assert_float_equal(ratio, 2.0, 0.05);
	/* Equal slices, whatever the frames cost. */
	assert_float_equal(r.tenants[0].gpu_share, r.tenants[1].gpu_share,
	                   0.01);
	sim_result_finish(&r);
}

/* First come, first served: each game waits behind the other's frames,
 * so the frame rates even out instead of the shares. */
static void fcfs_evens_frame_rates(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("dear", 30, 1.0, 10.0, 2),
	                              test_tenant("cheap", 30, 1.0, 5.0, 2)};
	struct sim_scenario sc = test_scenario("none", 10.0, 1.0, t, 2);
	sc.gpu.model = SIM_GPU_FCFS;
	struct sim_result r = test_run(&sc);
	assert_float_equal(r.tenants[0].fps_mean, 1000.0 / 15.0, 1.0);
	assert_float_equal(r.tenants[1].fps_mean, 1000.0 / 15.0, 1.0);
	sim_result_finish(&r);
}

static void lone_pipelined_tenant_is_gpu_bound(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("a", 30, 1.0, 3.125, 2)};
	struct sim_scenario sc = test_scenario("none", 5.0, 1.0, t, 1);
	sc.gpu.switch_us = 50.0; /* never paid by a lone context */
	struct sim_result r = test_run(&sc);
	/* 1000 / max(cpu, gpu) */
	assert_true(fabs(rel_err(r.tenants[0].fps_mean, 320.0)) < 0.005);
	assert_float_equal(r.tenants[0].frame_ms_p99, 3.125, 1e-6);
	assert_float_equal(r.gpu_util, 1.0, 1e-9);
	sim_result_finish(&r);
}

static void lone_synchronous_tenant_adds_cpu_and_gpu(void **state)
{
	struct sim_tenant_spec t[] = {test_tenant("a", 30, 1.0, 3.125, 0)};
	struct sim_scenario sc = test_scenario("none", 5.0, 1.0, t, 1);
	struct sim_result r = test_run(&sc);
	/* 1000 / (cpu + gpu) */
	assert_true(fabs(rel_err(r.tenants[0].fps_mean, 1000.0 / 4.125)) <
	            0.005);
	assert_float_equal(r.gpu_util, 3.125 / 4.125, 0.005);
	assert_float_equal(r.tenants[0].gpu_share, 3.125 / 4.125, 0.005);
	sim_result_finish(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(equal_costs_split_the_gpu_in_half),
	    cmocka_unit_test(cheap_frames_run_twice_as_fast),
	    cmocka_unit_test(fcfs_evens_frame_rates),
	    cmocka_unit_test(lone_pipelined_tenant_is_gpu_bound),
	    cmocka_unit_test(lone_synchronous_tenant_adds_cpu_and_gpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
