/* The control tick: coefficient learning, pinned and free tenants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/controller.h"

static void test_learns_gpu_seconds_per_frame(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t = {
	    .sla_fps = 30, .fps = 30, .frames = 3, .gpu_busy_s = 0.030};
	core_controller_tick(&core_policy_sa, &p, &gpu, &t, 1);
	assert_float_equal(t.k, 0.010, 1e-12);
	t.gpu_busy_s = 0.060;
	core_controller_tick(&core_policy_sa, &p, &gpu, &t, 1);
	assert_float_equal(t.k, 0.010 + p.k_alpha * 0.010, 1e-12);
	/* an epoch with no frame teaches nothing */
	t.frames = 0;
	double k = t.k;
	core_controller_tick(&core_policy_sa, &p, &gpu, &t, 1);
	assert_float_equal(t.k, k, 0.0);
}

static void test_targets(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[3] = {
	    {.sla_fps = 30, .fps = 0},
	    {.sla_fps = 30, .fixed_fps = 45, .fps = 44},
	    {.sla_fps = 60, .fps = 0},
	};
	core_controller_tick(&core_policy_sa, &p, &gpu, t, 3);
	assert_float_equal(t[0].target_fps, 30 * (1 + p.sla_margin), 1e-9);
	assert_float_equal(t[1].target_fps, 45, 0.0);
	assert_float_equal(t[2].target_fps, 60 * (1 + p.sla_margin), 1e-9);
	core_controller_tick(&core_policy_none, &p, &gpu, t, 3);
	assert_float_equal(t[0].target_fps, 0, 0.0);
	assert_float_equal(t[1].target_fps, 45, 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_learns_gpu_seconds_per_frame),
	    cmocka_unit_test(test_targets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
