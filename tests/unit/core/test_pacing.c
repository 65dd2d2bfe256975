/* Pacing math (vGASA Eq. 1 and Baton's deadline grid) and the GPU-time
 * predictor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/pacing.h"
#include "core/predictor.h"

#define MS 1000000LL

static void test_relative_sleep_is_eq1(void **state)
{
	(void)state;
	/* 1000/30 - 12 - 9 ms */
	assert_float_equal(core_pacing_sleep_relative(30.0, 0.012, 0.009),
	                   1.0 / 30.0 - 0.021, 1e-12);
	assert_float_equal(core_pacing_sleep_relative(30.0, 0.030, 0.009), 0.0,
	                   0.0);
	assert_float_equal(core_pacing_sleep_relative(0.0, 0.001, 0.001), 0.0,
	                   0.0);
}

static void test_grid_holds_the_rate_despite_overshoot(void **state)
{
	(void)state;
	struct core_pacer p = {0};
	const int64_t period = 20 * MS, gpu = 3 * MS;
	int64_t now = 0, first_display = 0, display = 0;
	for (int k = 0; k < 100; k++) {
		now += 5 * MS; /* CPU work */
		int64_t wake = core_pacer_next_wake(&p, now, period, gpu);
		assert_true(wake >= now);
		now = wake + 400000; /* every sleep overshoots by 0.4 ms */
		display = p.deadline_ns;
		if (k == 0)
			first_display = display;
	}
	/* 99 periods later, exactly: the overshoot did not accumulate */
	assert_int_equal(display - first_display, 99 * period);
}

/* GPU-time noise inside the dead band does not move the wake-ups; a step
 * beyond it (a scene change) moves the grid's phase once. */
static void test_wake_ignores_prediction_noise(void **state)
{
	(void)state;
	struct core_pacer p = {0};
	const int64_t period = 20 * MS;
	int64_t now = 0, last = 0;
	for (int k = 0; k < 50; k++) {
		now += 2 * MS;
		/* 1.0 / 1.3 ms alternately: 0.3 ms of noise, band 0.5 ms */
		int64_t pred = k % 2 ? 1300000 : 1000000;
		int64_t wake = core_pacer_next_wake(&p, now, period, pred);
		if (k > 0)
			assert_int_equal(wake - last, period);
		last = now = wake;
	}
	assert_int_equal(p.offset_ns, 1000000);
	/* a step to 4 ms: that frame wakes 3 ms early, the next on the grid */
	now += 2 * MS;
	int64_t wake = core_pacer_next_wake(&p, now, period, 4 * MS);
	assert_int_equal(wake - last, period - 3 * MS);
	assert_int_equal(p.offset_ns, 4 * MS);
	last = now = wake;
	now += 2 * MS;
	/* within a quarter of 4 ms: held */
	wake = core_pacer_next_wake(&p, now, period, 4800000);
	assert_int_equal(wake - last, period);
	/* no prediction at all takes effect at once */
	last = now = wake;
	now += 2 * MS;
	wake = core_pacer_next_wake(&p, now, period, 0);
	assert_int_equal(wake - last, period + 4 * MS);
}

static void test_late_frame_reanchors_without_burst(void **state)
{
	(void)state;
	struct core_pacer p = {0};
	const int64_t period = 20 * MS;
	int64_t now = 0;
	core_pacer_next_wake(&p, now, period, 0);
	now = 20 * MS;
	assert_int_equal(core_pacer_next_wake(&p, now, period, 0), 20 * MS);
	/* a 55 ms hitch: late, so no sleep and the grid moves to now */
	now = 95 * MS;
	assert_int_equal(core_pacer_next_wake(&p, now, period, 0), now);
	assert_int_equal(p.deadline_ns, 95 * MS);
	/* the next frame is a full period later, not an instant catch-up */
	now = 96 * MS;
	assert_int_equal(core_pacer_next_wake(&p, now, period, 0), 115 * MS);
}

static void test_unpaced_passes_through(void **state)
{
	(void)state;
	struct core_pacer p = {0};
	core_pacer_next_wake(&p, 0, 10 * MS, 0);
	assert_int_equal(core_pacer_next_wake(&p, 7 * MS, 0, 0), 7 * MS);
	assert_false(p.anchored);
}

static void test_predictor_ignores_a_spike(void **state)
{
	(void)state;
	struct core_predictor p = {0};
	assert_float_equal(core_predictor_predict(&p), 0.0, 0.0);
	for (int i = 0; i < 10; i++)
		core_predictor_add(&p, 0.010);
	core_predictor_add(&p, 0.250); /* one shader-compile hitch */
	assert_float_equal(core_predictor_predict(&p), 0.010, 1e-12);
	/* a lasting change wins within half a window */
	for (int i = 0; i < 4; i++)
		core_predictor_add(&p, 0.020);
	assert_float_equal(core_predictor_predict(&p), 0.020, 1e-12);
	/* junk is ignored */
	core_predictor_add(&p, -1.0);
	core_predictor_add(&p, 1.0 / 0.0);
	assert_int_equal(p.n, CORE_PREDICTOR_WINDOW);
}

/* Where in (-period/2, period/2] wake falls from phase + m period. */
static int64_t phase_error(int64_t wake, int64_t phase, int64_t period)
{
	int64_t e = (wake - phase) % period;
	if (e < 0)
		e += period;
	return e > period / 2 ? e - period : e;
}

/* A game paced on its own grid, given a phase half a period away (either
 * side): each frame's wake moves by at most period / 32, always toward
 * it, never past it, the intervals stay within that step of the period,
 * and once on the phase the grid holds it with no move at all. */
static void test_steer_converges_in_small_steps(void **state)
{
	(void)state;
	const int64_t period = 33333333, step = period / CORE_PACER_STEER_DIV;
	const int64_t offsets[2] = {period / 2 - 3 * MS, -period / 2 + 3 * MS};
	for (int c = 0; c < 2; c++) {
		struct core_pacer p = {0};
		int64_t now = 5000 * MS, last = -1, prev_err = 0;
		int64_t phase = now + 10 * period + offsets[c];
		int lock = -1;
		for (int i = 0; i < 60; i++) {
			int64_t wake =
			    core_pacer_next_wake(&p, now, period, 2 * MS);
			int64_t s =
			    core_pacer_steer(&p, now, wake, period, phase);
			assert_true(s >= now);
			int64_t move = wake - s;
			assert_true(move <= step && move >= -step);
			int64_t err = phase_error(s, phase, period);
			if (i > 0) {
				assert_true(llabs(err) <= llabs(prev_err));
				assert_true(llabs((s - last) - period) <= step);
			}
			if (lock < 0 &&
			    llabs(err) <= CORE_PACER_STEER_DEADBAND_NS)
				lock = i;
			if (lock >= 0 && i > lock)
				assert_int_equal(move, 0);
			prev_err = err;
			last = s;
			now = s + 8 * MS; /* the frame's work after Present */
		}
		/* (period / 2 - 3 ms) at a step a frame: 14 frames and a bit */
		if (lock < 10 || lock > 18)
			fail_msg("case %d: on the phase after %d frames", c,
			         lock);
	}
}

/* No phase, an unanchored pacer, a phase far in the past or future, or
 * no period: the wake is left alone; on the phase (within the dead band)
 * too. Off it, by the step toward it, the grid with it, but never before
 * now. */
static void test_steer_leaves_alone(void **state)
{
	(void)state;
	const int64_t period = 20 * MS, step = period / CORE_PACER_STEER_DIV;
	struct core_pacer p = {0};
	assert_int_equal(
	    core_pacer_steer(&p, 100 * MS, 110 * MS, period, 105 * MS),
	    110 * MS); /* not anchored */
	int64_t now = 1000 * MS;
	int64_t wake = core_pacer_next_wake(&p, now, period, 0);
	now += 5 * MS;
	wake = core_pacer_next_wake(&p, now, period, 0);
	assert_int_equal(wake, 1020 * MS);
	assert_int_equal(core_pacer_steer(&p, now, wake, period, 0), wake);
	assert_int_equal(core_pacer_steer(&p, now, wake, 0, 1010 * MS), wake);
	assert_int_equal(
	    core_pacer_steer(&p, now, wake, period,
	                     wake + CORE_PACER_STEER_MAX_AGE_NS + 1),
	    wake);
	assert_int_equal(
	    core_pacer_steer(&p, now, wake, period,
	                     wake - CORE_PACER_STEER_MAX_AGE_NS - 1),
	    wake);
	assert_int_equal(
	    core_pacer_steer(&p, now, wake, period, wake - 7 * period + 200000),
	    wake); /* within the dead band */
	/* 5 ms late: earlier by the step, the grid with it */
	int64_t d = p.deadline_ns;
	int64_t s = core_pacer_steer(&p, now, wake, period, wake - 5 * MS);
	assert_int_equal(s, wake - step);
	assert_int_equal(p.deadline_ns, d - step);
	/* 5 ms early: later by the step */
	s = core_pacer_steer(&p, now, s, period, s + 5 * MS);
	assert_int_equal(s, wake);
	/* but never before now */
	s = core_pacer_steer(&p, wake - 100000, wake, period, wake - 5 * MS);
	assert_int_equal(s, wake - 100000);
}

static void test_predictor_even_count_median(void **state)
{
	(void)state;
	struct core_predictor p = {0};
	core_predictor_add(&p, 4.0);
	core_predictor_add(&p, 1.0);
	core_predictor_add(&p, 3.0);
	core_predictor_add(&p, 2.0);
	assert_float_equal(core_predictor_predict(&p), 2.5, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_relative_sleep_is_eq1),
	    cmocka_unit_test(test_grid_holds_the_rate_despite_overshoot),
	    cmocka_unit_test(test_wake_ignores_prediction_noise),
	    cmocka_unit_test(test_late_frame_reanchors_without_burst),
	    cmocka_unit_test(test_unpaced_passes_through),
	    cmocka_unit_test(test_predictor_ignores_a_spike),
	    cmocka_unit_test(test_predictor_even_count_median),
	    cmocka_unit_test(test_steer_converges_in_small_steps),
	    cmocka_unit_test(test_steer_leaves_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
