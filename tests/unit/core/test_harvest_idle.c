/* The idle-priority lane (src/core/harvest_idle.c): off by default; for
 * CPU-device tenants only; window continuous_s and budget min(cap,
 * w / max w) in it; closed by overload and by a stuck tenant; and, through
 * the control tick, a tenant in the lane takes no space partition. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/controller.h"
#include "core/harvest.h"
#include "core/harvest_idle.h"
#include "core/harvest_space.h"

#define MS 1e-3

/* One game at 30 FPS with 10 ms frames; BE tenants after
 * core_harvest_tick. */
static void tick(const struct core_harvest_params *p,
                 struct core_harvest_gpu *hg, struct core_be_tenant *be,
                 size_t n)
{
	struct core_tenant g = {.sla_fps = 30,
	                        .target_fps = 30,
	                        .fps = 30,
	                        .frames = 3,
	                        .k = 0.010};
	core_harvest_tick(p, &g, 1, 0.0, hg, be, n);
}

static void test_off_by_default(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	assert_false(p.idle_lane);
	struct core_harvest_gpu hg = {0};
	struct core_be_tenant be = {.weight = 1, .idle_capable = true};
	tick(&p, &hg, &be, 1);
	double budget = be.budget, window = be.window_s;
	assert_int_equal(core_harvest_idle(&p, &hg, false, &be, 1), 0);
	assert_false(be.idle);
	assert_float_equal(be.budget, budget, 0.0);
	assert_float_equal(be.window_s, window, 0.0);
}

/* Only a CPU device: a GPU tenant keeps the time window and budget. */
static void test_cpu_device_only(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	p.idle_lane = true;
	struct core_harvest_gpu hg = {0};
	struct core_be_tenant be[2] = {
	    {.weight = 1, .idle_capable = true},
	    {.weight = 1},
	};
	tick(&p, &hg, be, 2);
	/* the time split: (1 - 0.3 - 0.05) / 2 each, Eq. 1's window halved */
	assert_float_equal(be[1].budget, 0.325, 1e-12);
	double w = be[1].window_s;
	assert_float_equal(w, (1.0 / 30 - 0.010 - 0.001) / 2, 1e-12);
	assert_int_equal(core_harvest_idle(&p, &hg, false, be, 2), 1);
	assert_true(be[0].idle);
	assert_float_equal(be[0].budget, 1.0, 0.0);
	assert_float_equal(be[0].window_s, p.continuous_s, 0.0);
	assert_false(be[1].idle);
	assert_float_equal(be[1].budget, 0.325, 1e-12);
	assert_float_equal(be[1].window_s, w, 0.0);
}

/* Weights: the heaviest never rests, the others in proportion; a cap
 * still holds. */
static void test_weights_and_caps(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	p.idle_lane = true;
	struct core_harvest_gpu hg = {0};
	struct core_be_tenant be[3] = {
	    {.weight = 3, .idle_capable = true},
	    {.weight = 1, .idle_capable = true},
	    {.weight = 3, .cap = 0.5, .idle_capable = true},
	};
	tick(&p, &hg, be, 3);
	assert_int_equal(core_harvest_idle(&p, &hg, false, be, 3), 3);
	assert_float_equal(be[0].budget, 1.0, 1e-12);
	assert_float_equal(be[1].budget, 1.0 / 3, 1e-12);
	assert_float_equal(be[2].budget, 0.5, 1e-12);
	for (int i = 0; i < 3; i++)
		assert_float_equal(be[i].window_s, p.continuous_s, 0.0);
	/* a weight that is no number counts as 1 */
	be[0].weight = NAN;
	be[2].weight = 1;
	tick(&p, &hg, be, 3);
	core_harvest_idle(&p, &hg, false, be, 3);
	assert_float_equal(be[0].budget, 1.0, 1e-12);
	assert_float_equal(be[1].budget, 1.0, 1e-12);
}

/* Overload, or a stuck tenant anywhere on the GPU: nobody in the lane;
 * the time rules (and the stuck rule's shut windows) stand. */
static void test_closed(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	p.idle_lane = true;
	struct core_harvest_gpu hg = {0};
	struct core_be_tenant be[2] = {
	    {.weight = 1, .idle_capable = true},
	    {.weight = 1, .idle_capable = true},
	};
	tick(&p, &hg, be, 2);
	double budget = be[0].budget;
	assert_int_equal(core_harvest_idle(&p, &hg, true, be, 2), 0);
	assert_false(be[0].idle || be[1].idle);
	assert_float_equal(be[0].budget, budget, 0.0);
	/* tenant 1's sub-launch hung: 1 s in flight for a 10 ms window */
	be[1].inflight_s = 1.0;
	be[1].inflight_window_s = 10 * MS;
	tick(&p, &hg, be, 2);
	assert_int_equal(hg.n_stuck, 1);
	assert_int_equal(core_harvest_idle(&p, &hg, false, be, 2), 0);
	assert_false(be[0].idle);
	assert_float_equal(be[0].window_s, 0.0, 0.0);
	assert_true(be[1].stuck);
	assert_float_equal(be[1].budget, 0.0, 0.0);
	/* it reports: the lane opens again */
	be[1].inflight_s = 0.0;
	tick(&p, &hg, be, 2);
	assert_int_equal(core_harvest_idle(&p, &hg, false, be, 2), 2);
}

/* Through the control tick with space harvesting on: the only
 * partition-capable tenant is in the lane, so the device is never
 * divided; with the lane off it is, after the hold. */
static void test_lane_takes_no_partition(void **state)
{
	(void)state;
	for (int lane = 0; lane < 2; lane++) {
		struct core_params cp = core_params_default();
		struct core_harvest_params p = core_harvest_params_default();
		p.idle_lane = lane;
		p.space.sm_total = 4;
		struct core_harvest_gpu hg = {0};
		struct core_space_gpu sp = {0};
		/* its process keeps the 3 units it would get busy */
		struct core_be_tenant be = {.weight = 1,
		                            .idle_capable = true,
		                            .space = true,
		                            .cpu_use = 3.0};
		struct core_gpu gpu = {0};
		gpu.harvest = (struct core_harvest_stage){
		    .params = &p,
		    .be = &be,
		    .n_be = 1,
		    .out = &hg,
		    .games_seen = true,
		    .dt_s = 0.5,
		    .space = &sp,
		};
		struct core_tenant g = {.sla_fps = 30, .fps = 30};
		uint32_t split = 0;
		for (int i = 0; i < 40; i++) {
			g.frames = 15;
			g.gpu_busy_s = 15 * 0.005; /* 15 % of the device */
			gpu.harvest.now_s = 0.5 * i;
			core_controller_tick(&core_policy_sa, &cp, &gpu, &g, 1);
			if (sp.be_count > 0)
				split = sp.split;
		}
		assert_int_equal(be.idle, lane);
		if (lane)
			assert_int_equal(split, 0);
		else
			assert_int_equal(split, 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_off_by_default),
	    cmocka_unit_test(test_cpu_device_only),
	    cmocka_unit_test(test_weights_and_caps),
	    cmocka_unit_test(test_closed),
	    cmocka_unit_test(test_lane_takes_no_partition),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
