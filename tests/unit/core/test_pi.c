/* The PI controller against vGASA Sec. 3.1: the closed-loop pole of Eq. 7
 * recovered from simulated step responses, and the clamp / anti-windup. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "core/pi.h"

/* Fig. 4's loop: G'_p(z) = 1 and H(z) = 1 with no delay, so the output of
 * step k is the controller's output for the error of step k itself (an
 * algebraic loop). The controller is affine in the measured log rate
 * while unclamped, so two trial evaluations on copies of its state give the
 * line, and the loop's fixed point is where it meets y = x + d. d is a
 * disturbance the pacer does not know about (a biased plant), so the step
 * response has something to converge from. Returns the error sequence. */
static void delay_free_step_response(struct core_pi_gains g, double ref,
                                     double d, double *err, int steps)
{
	struct core_pi pi = {0};
	for (int k = 0; k < steps; k++) {
		struct core_pi a = pi, b = pi;
		double x0 = log(core_pi_update(&a, &g, ref, exp(0.0), true));
		double x1 = log(core_pi_update(&b, &g, ref, exp(1.0), true));
		double slope = x1 - x0; /* dx/dy */
		/* y = x(y) + d = x0 + slope * y + d */
		double y = (x0 + d) / (1.0 - slope);
		core_pi_update(&pi, &g, ref, exp(y), true);
		err[k] = log(ref) - y;
	}
}

static double fitted_pole(const double *err, int from, int to)
{
	/* least-squares slope of ln|e_k| over k */
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int n = 0;
	for (int k = from; k < to; k++) {
		double y = log(fabs(err[k]));
		sx += k;
		sy += y;
		sxx += (double)k * k;
		sxy += k * y;
		n++;
	}
	double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	return exp(slope);
}

static void test_pole_recovered_from_step_response(void **state)
{
	(void)state;
	const double ki[] = {0.5, 0.1, 0.05};
	const double expected[] = {0.6875, 0.9167, 0.9565}; /* Fig. 8c */
	for (int i = 0; i < 3; i++) {
		struct core_pi_gains g = {
		    .kp = 0.1, .ki = ki[i], .max_ratio = 100.0};
		double err[40];
		delay_free_step_response(g, 60.0, -0.4, err, 40);
		double pole = fitted_pole(err, 1, 40);
		assert_float_equal(pole, expected[i], 5e-4);
		assert_float_equal(core_pi_pole(&g), expected[i], 5e-4);
		/* and the error really goes to zero: integral action */
		assert_true(fabs(err[39]) < fabs(err[0]));
	}
}

static void test_proportional_only_leaves_steady_state_error(void **state)
{
	(void)state;
	/* vGASA Fig. 8a/8b: without ki the error does not vanish. */
	struct core_pi_gains g = {.kp = 0.1, .ki = 0.0, .max_ratio = 100.0};
	double err[30];
	delay_free_step_response(g, 60.0, -0.4, err, 30);
	/* e = -d / (1 + kp) */
	assert_float_equal(err[29], 0.4 / 1.1, 1e-9);
}

/* What the runtime really runs: F_out of step k is the result of the
 * command of step k-1 (a one-step delay) through a plant that loses 8%. */
static void test_delayed_loop_converges_to_reference(void **state)
{
	(void)state;
	struct core_pi_gains g = core_pi_default_gains();
	struct core_pi pi = {0};
	double cmd = 0.0, out = 0.0;
	for (int k = 0; k < 300; k++) {
		out = cmd * 0.92;
		cmd = core_pi_update(&pi, &g, 30.0, out, true);
	}
	assert_float_equal(out, 30.0, 0.01);
	assert_false(pi.saturated);
}

static void test_feed_forward_without_measurement(void **state)
{
	(void)state;
	struct core_pi_gains g = core_pi_default_gains();
	struct core_pi pi = {0};
	assert_float_equal(core_pi_update(&pi, &g, 45.0, 0.0, true), 45.0,
	                   1e-9);
	assert_float_equal(pi.integral, 0.0, 0.0);
	/* no reference: reset and 0 */
	assert_float_equal(core_pi_update(&pi, &g, 0.0, 30.0, true), 0.0, 0.0);
}

/* A reference step (FSA or ESA moving a game, or a game that was running
 * free) is not a plant error: with a plant that does what it is told, the
 * output follows the reference at once and nothing winds up. */
static void test_reference_step_is_not_an_error(void **state)
{
	(void)state;
	struct core_pi_gains g = core_pi_default_gains();
	struct core_pi pi = {0};
	double cmd = core_pi_update(&pi, &g, 60.0, 320.0, true); /* was free */
	assert_float_equal(cmd, 60.0, 1e-9);
	for (int k = 0; k < 10; k++)
		cmd = core_pi_update(&pi, &g, 60.0, cmd, true);
	cmd = core_pi_update(&pi, &g, 30.0, cmd, true); /* step down */
	assert_float_equal(cmd, 30.0, 1e-9);
	cmd = core_pi_update(&pi, &g, 30.0, cmd, true);
	assert_float_equal(cmd, 30.0, 1e-9);
	assert_float_equal(pi.integral, 0.0, 1e-12);
}

/* A game that stalls (kill -STOP, a loading screen) runs flat out: no frame
 * was delayed, so a higher command could not help and must not pile up. */
static void test_stalled_game_does_not_wind_up(void **state)
{
	(void)state;
	struct core_pi_gains g = core_pi_default_gains();
	struct core_pi pi = {0};
	double cmd = 0.0;
	for (int k = 0; k < 20; k++)
		cmd = core_pi_update(&pi, &g, 30.0, 30.0, true);
	/* one second stalled: F_out decays towards 1 FPS, nothing paced */
	for (int k = 0; k < 10; k++)
		cmd = core_pi_update(&pi, &g, 30.0, 1.0 + k, false);
	assert_float_equal(cmd, 30.0, 1e-9);
	assert_float_equal(pi.integral, 0.0, 1e-12);
	/* a game faster than its reference is still brought down */
	cmd = core_pi_update(&pi, &g, 30.0, 40.0, false);
	assert_true(cmd < 30.0);
}

static void test_clamp_and_anti_windup(void **state)
{
	(void)state;
	struct core_pi_gains g = core_pi_default_gains(); /* max_ratio 4 */
	struct core_pi pi = {0};
	double out = 0.0;
	/* A game that cannot reach its reference: the output saturates at
	 * 4x and the integral stops growing. */
	for (int k = 0; k < 1000; k++)
		out = core_pi_update(&pi, &g, 30.0, 10.0, true);
	assert_float_equal(out, 120.0, 1e-6);
	assert_true(pi.saturated);
	double wound = pi.integral;
	assert_true(wound * g.ki < log(4.0) + g.kp * log(3.0) + 1e-9);
	/* Once it can, it comes back to the reference at the loop's own pace
	 * (pole ~0.955 per step with the one-step delay: ~100 steps for a
	 * log-error of ln 4 to fall under 1%). Without anti-windup the 1000
	 * saturated steps would have piled up an integral of ~1100 and the
	 * output would stay clamped for over 20000 steps. */
	int k = 0;
	for (; k < 1000; k++) {
		out = core_pi_update(&pi, &g, 30.0, out, true);
		if (fabs(out - 30.0) < 0.3)
			break;
	}
	assert_true(k < 150);
	/* and the low side clamps at r / 4 */
	struct core_pi lo = {0};
	for (int j = 0; j < 1000; j++)
		out = core_pi_update(&lo, &g, 30.0, 1000.0, true);
	assert_float_equal(out, 7.5, 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pole_recovered_from_step_response),
	    cmocka_unit_test(test_proportional_only_leaves_steady_state_error),
	    cmocka_unit_test(test_delayed_loop_converges_to_reference),
	    cmocka_unit_test(test_feed_forward_without_measurement),
	    cmocka_unit_test(test_reference_step_is_not_an_error),
	    cmocka_unit_test(test_stalled_game_does_not_wind_up),
	    cmocka_unit_test(test_clamp_and_anti_windup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
