/* A tenant's epoch into the core's inputs (core/measure.h): F_out from the
 * intervals, the stalled game's decay, the cases with no rate, and every
 * input filled from the terms and the sample while the core's state is
 * left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/measure.h"

#define MS 1000000LL
#define S  1000000000LL

static void test_fps_from_intervals(void **state)
{
	(void)state;
	/* 3 intervals over 100 ms: 30 FPS, whatever the frame count. */
	struct core_epoch_sample s = {.now_ns = 10 * S,
	                              .frames = 3,
	                              .intervals = 3,
	                              .interval_sum_s = 0.1,
	                              .last_frame_ns = 10 * S - 5 * MS};
	assert_float_equal(core_epoch_fps(&s), 30.0, 1e-9);
}

static void test_stalled_game_decays(void **state)
{
	(void)state;
	/* No frame this epoch, the last one 250 ms ago: at most 4 FPS. */
	struct core_epoch_sample s = {.now_ns = 10 * S,
	                              .last_frame_ns = 10 * S - 250 * MS};
	assert_float_equal(core_epoch_fps(&s), 4.0, 1e-9);
	s.now_ns = 11 * S;
	assert_float_equal(core_epoch_fps(&s), 1.0 / 1.25, 1e-9);
}

static void test_no_rate(void **state)
{
	(void)state;
	/* Never presented. */
	struct core_epoch_sample s = {.now_ns = 10 * S};
	assert_true(core_epoch_fps(&s) == 0.0);
	/* Its first frame: no interval yet, and not stalled. */
	s.frames = 1;
	s.last_frame_ns = 10 * S - MS;
	assert_true(core_epoch_fps(&s) == 0.0);
	/* Intervals that sum to nothing are no rate either. */
	s.intervals = 2;
	assert_true(core_epoch_fps(&s) == 0.0);
	/* A last frame at or after the tick (another clock's rounding). */
	s = (struct core_epoch_sample){.now_ns = 10 * S,
	                               .last_frame_ns = 10 * S};
	assert_true(core_epoch_fps(&s) == 0.0);
}

static void test_fills_inputs_keeps_state(void **state)
{
	(void)state;
	struct core_tenant t = {.k = 0.004, .ref_fps = 42.0, .epochs = 7};
	struct core_tenant_terms terms = {.sla_fps = 30.0,
	                                  .fixed_fps = 0.0,
	                                  .cap = 0.25,
	                                  .work_conserving = true,
	                                  .work_after_wait = true,
	                                  .owner = 1000};
	struct core_epoch_sample s = {.now_ns = 2 * S,
	                              .frames = 6,
	                              .intervals = 6,
	                              .interval_sum_s = 0.2,
	                              .last_frame_ns = 2 * S - MS,
	                              .last_present_ns = 2 * S - 3 * MS,
	                              .paced = 5,
	                              .sleep_s = 0.05,
	                              .gate_s = 0.01,
	                              .gpu_s = 0.024,
	                              .gpu_bounded = true};
	core_tenant_measure(&t, &terms, &s);
	assert_float_equal(t.sla_fps, 30.0, 0.0);
	assert_float_equal(t.cap_initial, 0.25, 0.0);
	assert_true(t.work_conserving);
	assert_true(t.work_after_wait);
	assert_int_equal(t.owner, 1000);
	assert_float_equal(t.fps, 30.0, 1e-9);
	assert_int_equal(t.frames, 6);
	assert_int_equal(t.paced_frames, 5);
	assert_float_equal(t.sleep_s, 0.05, 0.0);
	assert_float_equal(t.gate_s, 0.01, 0.0);
	assert_float_equal(t.gpu_busy_s, 0.024, 0.0);
	assert_true(t.gpu_bounded);
	/* The Present's time, not the last frame's. */
	assert_float_equal(t.present_s, 1.997, 1e-12);
	/* The core's state is the core's. */
	assert_float_equal(t.k, 0.004, 0.0);
	assert_float_equal(t.ref_fps, 42.0, 0.0);
	assert_int_equal(t.epochs, 7);

	/* Terms changed (batond's `baton set`): the next epoch says so. */
	terms.fixed_fps = 60.0;
	terms.work_after_wait = false;
	s.gpu_bounded = false;
	core_tenant_measure(&t, &terms, &s);
	assert_float_equal(t.fixed_fps, 60.0, 0.0);
	assert_false(t.work_after_wait);
	assert_false(t.gpu_bounded);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fps_from_intervals),
	    cmocka_unit_test(test_stalled_game_decays),
	    cmocka_unit_test(test_no_rate),
	    cmocka_unit_test(test_fills_inputs_keeps_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
