/* The control tick: coefficient learning, pinned and free tenants, reach
 * (limited and cap-bound tenants), overload, and ESA's one rate over a toy
 * plant. */
#include <math.h>
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

/* A toy plant for one epoch: a game that costs k GPU seconds per frame and
 * cannot run faster than max_fps whatever its share (its frame is bound by
 * something else). Paced at target (0: free), it runs at
 * min(target, max_fps) and the pacer sleeps the difference. wobble adds a
 * sliver of sleep now and then, as a real pacer's jitter does. */
static void plant(struct core_tenant *t, double k, double max_fps,
                  double epoch_s, bool wobble)
{
	double fps = t->target_fps > 0.0 && t->target_fps < max_fps
	                 ? t->target_fps
	                 : max_fps;
	t->fps = fps;
	t->frames = (uint32_t)lround(fps * epoch_s);
	t->gpu_busy_s = k * t->frames;
	t->sleep_s = t->frames * (1.0 / fps - 1.0 / max_fps);
	t->paced_frames = t->sleep_s > 1e-9 ? t->frames : 0;
	if (wobble && t->paced_frames == 0) {
		t->paced_frames = 1;
		t->sleep_s = 0.0002;
	}
}

/* An SA game that cannot reach its SLA is reported limited and its target
 * is not wound up toward the reference it cannot reach, even when its
 * pacer sleeps a sliver now and then. */
static void test_sa_limited_tenant_is_reported_and_bounded(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t = {.sla_fps = 30};
	double ref = 30 * (1 + p.sla_margin), highest = 0.0;
	bool seen_limited = false;
	for (int i = 0; i < 300; i++) {
		core_controller_tick(&core_policy_sa, &p, &gpu, &t, 1);
		if (t.target_fps > highest)
			highest = t.target_fps;
		seen_limited |= t.limited;
		plant(&t, 0.01, 20.0, p.epoch_s, true);
	}
	assert_true(t.limited);
	assert_true(seen_limited);
	assert_float_equal(t.reach_fps, 20.0, 0.5);
	/* bounded: a step's proportional kick at most, no integral */
	assert_true(highest < ref * 1.1);

	/* the game gets lighter: it reaches its reference and is not limited
	 * any more */
	for (int i = 0; i < 50; i++) {
		core_controller_tick(&core_policy_sa, &p, &gpu, &t, 1);
		plant(&t, 0.01, 100.0, p.epoch_s, false);
	}
	assert_false(t.limited);
	assert_float_equal(t.fps, ref, ref * 0.02);
}

/* ESA with one game bound elsewhere: the common rate comes down to what it
 * reaches, so all three run at one rate; when it can go faster again the
 * rate climbs back to U / sum k. */
static void test_esa_one_rate_whatever_the_bottleneck(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[3] = {
	    {.sla_fps = 30}, {.sla_fps = 30}, {.sla_fps = 30}};
	const double k = 0.004, ideal = 0.95 / (3 * k);
	double max_fps[3] = {400, 50, 400};
	for (int i = 0; i < 300; i++) {
		core_controller_tick(&core_policy_esa, &p, &gpu, t, 3);
		for (int j = 0; j < 3; j++)
			plant(&t[j], k, max_fps[j], p.epoch_s, true);
	}
	double lo = t[0].fps, hi = t[0].fps;
	for (int j = 1; j < 3; j++) {
		lo = fmin(lo, t[j].fps);
		hi = fmax(hi, t[j].fps);
	}
	assert_true(hi <= lo * 1.05);
	assert_float_equal(gpu.common_fps, 50.0, 50.0 * 0.05);
	assert_true(gpu.esa_ceiling > 0.0);

	max_fps[1] = 400;
	for (int i = 0; i < 400; i++) {
		core_controller_tick(&core_policy_esa, &p, &gpu, t, 3);
		for (int j = 0; j < 3; j++)
			plant(&t[j], k, max_fps[j], p.epoch_s, false);
	}
	assert_float_equal(gpu.esa_ceiling, 0.0, 0.0);
	assert_float_equal(gpu.common_fps, ideal, ideal * 0.01);
	for (int j = 0; j < 3; j++) {
		assert_false(t[j].limited);
		assert_float_equal(t[j].fps, ideal, ideal * 0.05);
	}
}

/* A toy plant with a cap: a game of k GPU seconds per frame whose CPU
 * allows max_fps, held by its budget gate to cap / k. Paced at target, it
 * runs at the lowest of the three; the wait is the pacer's while the
 * target binds, else mostly the gate's (pacer_part of it the pacer's: the
 * two overlap on some frames). old_report folds the gate's share into the
 * pacing sleep, as before the shim reported it apart. */
static void capped_plant(struct core_tenant *t, double k, double max_fps,
                         double cap, double pacer_part, bool old_report,
                         double epoch_s)
{
	double fps = max_fps;
	if (cap / k < fps)
		fps = cap / k;
	bool paced = t->target_fps > 0.0 && t->target_fps < fps;
	if (paced)
		fps = t->target_fps;
	t->fps = fps;
	t->frames = (uint32_t)lround(fps * epoch_s);
	t->gpu_busy_s = k * t->frames;
	double wait = t->frames * (1.0 / fps - 1.0 / max_fps);
	t->sleep_s = paced ? wait : wait * pacer_part;
	t->gate_s = paced ? 0.0 : wait - t->sleep_s;
	if (old_report) {
		t->sleep_s += t->gate_s;
		t->gate_s = 0.0;
	}
	t->paced_frames = t->sleep_s > 1e-9 ? t->frames : 0;
}

/* SA at an SLA of 60 for a game whose cap affords 30 FPS: the gate holds
 * it, so its target is not wound up (no positive integral: it stays at
 * the reference), it is cap-bound and not limited, and its reach is the
 * rate under its cap. Reported the old way (the gate's wait taken for
 * pacing sleep) the loop winds the target up past the reference until
 * the overshoot itself marks the tenant limited (reach.h), which would
 * pull ESA's common rate down to 30 for everyone. When the cap is lifted
 * it is cap-bound no more and runs at its reference. */
static void test_cap_bound_no_wind_up(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	double ref = 60 * (1 + p.sla_margin);
	for (int old = 0; old < 2; old++) {
		struct core_gpu gpu = {0};
		struct core_tenant t = {.sla_fps = 60};
		double highest = 0.0;
		for (int i = 0; i < 300; i++) {
			core_controller_tick(&core_policy_sa, &p, &gpu, &t, 1);
			if (i > 10 && t.target_fps > highest)
				highest = t.target_fps;
			capped_plant(&t, 0.01, 400, 0.3, 0.3, old, p.epoch_s);
		}
		print_message("%s report: target %.1f (highest %.1f), "
		              "integral %.3f, reach %.1f\n",
		              old ? "old" : "gate", t.target_fps, highest,
		              t.pi.integral, t.reach_fps);
		if (old) {
			assert_false(t.cap_bound);
			assert_true(t.limited);
			assert_true(highest > ref * 1.05);
			continue;
		}
		assert_true(t.cap_bound);
		assert_false(t.limited);
		assert_true(t.pi.integral <= 0.0);
		assert_true(highest < ref * 1.001);
		assert_float_equal(t.reach_fps, 30.0, 1.5);
		assert_float_equal(t.fps, 30.0, 0.5);

		for (int i = 0; i < 50; i++) {
			core_controller_tick(&core_policy_sa, &p, &gpu, &t, 1);
			capped_plant(&t, 0.01, 400, 1.0, 0.3, false, p.epoch_s);
		}
		assert_false(t.cap_bound);
		assert_false(t.limited);
		assert_float_equal(t.fps, ref, ref * 0.02);
	}
}

/* cap_bound holds for reach_hold_s of epochs with frames and no gate
 * wait; an epoch without frames changes nothing. */
static void test_cap_bound_hold(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t = {.sla_fps = 30,
	                        .fps = 30,
	                        .frames = 3,
	                        .gpu_busy_s = 0.003,
	                        .gate_s = 0.05};
	core_controller_tick(&core_policy_none, &p, &gpu, &t, 1);
	assert_true(t.cap_bound);
	t.frames = 0;
	t.gate_s = 0.0;
	for (int i = 0; i < 20; i++) {
		core_controller_tick(&core_policy_none, &p, &gpu, &t, 1);
		assert_true(t.cap_bound);
	}
	/* a gate wait under a third of reach_tol of the span is jitter */
	t.frames = 3;
	t.gate_s = 0.1 * p.reach_tol / 3.0 * 0.9;
	int epochs = (int)lround(p.reach_hold_s / p.epoch_s);
	for (int i = 0; i < epochs - 1; i++) {
		core_controller_tick(&core_policy_none, &p, &gpu, &t, 1);
		assert_true(t.cap_bound);
	}
	core_controller_tick(&core_policy_none, &p, &gpu, &t, 1);
	assert_false(t.cap_bound);
}

/* ESA with one tenant held by its own cap (25 FPS of a common rate of
 * about 79): it is cap-bound, not limited, and the common rate stays
 * U / sum k, which the two others run at. Reported as a game bound
 * elsewhere (no gate wait), the same rates pull the common rate down to
 * 25 (test_esa_one_rate_whatever_the_bottleneck). */
static void test_esa_common_rate_ignores_cap_bound(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[3] = {
	    {.sla_fps = 20}, {.sla_fps = 20}, {.sla_fps = 20}};
	const double k = 0.004, ideal = 0.95 / (3 * k);
	for (int i = 0; i < 300; i++) {
		core_controller_tick(&core_policy_esa, &p, &gpu, t, 3);
		for (int j = 0; j < 3; j++)
			capped_plant(&t[j], k, 400, j == 1 ? 0.1 : 1.0, 0.3,
			             false, p.epoch_s);
	}
	print_message("common %.1f (ideal %.1f), fps %.1f %.1f %.1f\n",
	              gpu.common_fps, ideal, t[0].fps, t[1].fps, t[2].fps);
	assert_true(t[1].cap_bound);
	assert_false(t[1].limited);
	assert_float_equal(t[1].fps, 25.0, 0.5);
	assert_float_equal(gpu.esa_ceiling, 0.0, 0.0);
	assert_float_equal(gpu.common_fps, ideal, ideal * 0.01);
	for (int j = 0; j < 3; j += 2) {
		assert_false(t[j].cap_bound);
		assert_float_equal(t[j].fps, ideal, ideal * 0.05);
	}
}

/* Overload: the tenants at their SLAs need more than util_target. */
static void test_overload(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {.other_util = 0.1};
	struct core_tenant t[2] = {{.sla_fps = 30, .k = 0.01},
	                           {.sla_fps = 30, .fixed_fps = 40, .k = 0.01}};
	core_controller_tick(&core_policy_esa, &p, &gpu, t, 2);
	double need = 0.1 + 0.01 * 30 * (1 + p.sla_margin) + 0.01 * 40;
	assert_float_equal(gpu.sla_util, need, 1e-9);
	assert_false(gpu.overload);
	t[0].k = 0.02;
	core_controller_tick(&core_policy_sa, &p, &gpu, t, 2);
	assert_true(gpu.overload);
	/* a tenant without a coefficient (it never presented) is left out:
	 * it must not hide the others' demand */
	t[1].k = 0.0;
	core_controller_tick(&core_policy_sa, &p, &gpu, t, 2);
	assert_float_equal(gpu.sla_util, 0.1 + 0.02 * 30 * (1 + p.sla_margin),
	                   1e-9);
	assert_false(gpu.overload);
	/* unknown while no tenant has one */
	t[0].k = 0.0;
	core_controller_tick(&core_policy_sa, &p, &gpu, t, 2);
	assert_false(gpu.overload);
	assert_float_equal(gpu.sla_util, 0.0, 0.0);
}

/* A tenant's GPU times are its own report: one GPU cannot spend more than
 * the epoch on its frames, nor more per frame than the time between them,
 * whatever it claims. */
static void test_learned_cost_bounded_by_one_gpu(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	/* one frame in the epoch at 5 FPS claiming 9 s of GPU time: at most
	 * the epoch (0.1 s) */
	struct core_tenant t = {
	    .sla_fps = 30, .fps = 5, .frames = 1, .gpu_busy_s = 9.0};
	core_controller_tick(&core_policy_sa, &p, &gpu, &t, 1);
	assert_float_equal(t.k, p.epoch_s, 1e-12);
	/* 20 frames at 200 FPS claiming 0.09 s: 4.5 ms each, within the
	 * 5 ms between them: learnt as reported; 10 frames claiming the
	 * same, 9 ms each: bounded by the 5 ms interval */
	struct core_tenant u = {
	    .sla_fps = 30, .fps = 200, .frames = 20, .gpu_busy_s = 0.09};
	core_controller_tick(&core_policy_sa, &p, &gpu, &u, 1);
	assert_float_equal(u.k, 0.0045, 1e-12);
	struct core_tenant v = {
	    .sla_fps = 30, .fps = 200, .frames = 10, .gpu_busy_s = 0.09};
	core_controller_tick(&core_policy_sa, &p, &gpu, &v, 1);
	assert_float_equal(v.k, 1.0 / 200, 1e-12);
	/* so g = k * f never claims more than one GPU */
	assert_true(v.k * v.fps <= 1.0 + 1e-12);
	assert_true(t.k * t.fps <= 1.0 + 1e-12);
}

/* Whatever the policy and the loop decide, a paced game is never paced
 * under its SLA: a game measured far above its reference epoch after epoch
 * would otherwise have its target trimmed down to a quarter of it (the PI
 * loop's clamp). */
static void test_target_floored_at_the_sla(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t = {.sla_fps = 30, .k = 0.001};
	for (int i = 0; i < 200; i++) {
		t.fps = 120;
		t.frames = 12;
		t.gpu_busy_s = 0.012;
		t.paced_frames = 12;
		t.sleep_s = 0.05;
		core_controller_tick(&core_policy_sa, &p, &gpu, &t, 1);
		assert_true(t.target_fps >= 30.0 - 1e-9);
	}
	assert_float_equal(t.target_fps, 30.0, 1e-9);
	/* ESA with a budget rate under the SLA: the same floor */
	struct core_tenant u[2] = {{.sla_fps = 30, .k = 0.5, .fps = 2},
	                           {.sla_fps = 30, .k = 0.5, .fps = 2}};
	for (int i = 0; i < 50; i++) {
		core_controller_tick(&core_policy_esa, &p, &gpu, u, 2);
		u[0].fps = u[1].fps = 120;
		assert_true(u[0].target_fps >= 30.0 - 1e-9);
		assert_true(u[1].target_fps >= 30.0 - 1e-9);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_learns_gpu_seconds_per_frame),
	    cmocka_unit_test(test_targets),
	    cmocka_unit_test(test_sa_limited_tenant_is_reported_and_bounded),
	    cmocka_unit_test(test_esa_one_rate_whatever_the_bottleneck),
	    cmocka_unit_test(test_overload),
	    cmocka_unit_test(test_learned_cost_bounded_by_one_gpu),
	    cmocka_unit_test(test_target_floored_at_the_sla),
	    cmocka_unit_test(test_cap_bound_no_wind_up),
	    cmocka_unit_test(test_cap_bound_hold),
	    cmocka_unit_test(test_esa_common_rate_ignores_cap_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
