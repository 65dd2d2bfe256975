/* The harvesting slot (src/core/harvest_slot.c): the span of each frame
 * period in which every paced game waits, and the window a sub-launch may
 * use at a given time. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "assert_near.h"
#include "core/harvest_slot.h"
#include "paced_game.h"

#define EPS 1e-9

/* x and y are the same phase of a period. */
static void assert_same_phase(double x, double y, double period)
{
	double d = fmod(fabs(x - y), period);
	if (fmin(d, period - d) > 1e-9)
		fail_msg("%.9f and %.9f are %.9f apart in a %.3f period", x, y,
		         d, period);
}

static struct core_tenant game(double fps, double k, double wait,
                               double present)
{
	return paced_game(fps, k, wait, present);
}

/* One game: the span is its wait minus k at the start and the margin at
 * the end, before its next Present. */
static void test_one_game(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_tenant g = game(50, 0.004, 0.012, 100.000);
	struct core_harvest_slot s;
	assert_true(core_harvest_slot(&p, &g, 1, 100.005, &s));
	assert_near(s.period_s, 0.020, EPS);
	/* next Present 100.020: span [100.008 + 0.004, 100.020 - 0.001] */
	assert_near(s.start_s, 100.012, EPS);
	assert_near(s.len_s, 0.007, EPS);
	/* A tick that comes late by whole periods finds the next one. */
	assert_true(core_harvest_slot(&p, &g, 1, 100.071, &s));
	assert_near(s.start_s, 100.072, EPS);
	/* The gate's waits count as waiting. */
	g.sleep_s = 0.06;
	g.gate_s = 0.06;
	assert_true(core_harvest_slot(&p, &g, 1, 100.005, &s));
	assert_near(s.len_s, 0.007, EPS);
	/* Frames that reach the GPU after the wait (OpenGL): nothing drains
	 * in it, but the frame's own work is in the busy span, whose mean a
	 * long swap passes: the span is the wait less the margin at both
	 * ends. */
	g.work_after_wait = true;
	assert_true(core_harvest_slot(&p, &g, 1, 100.005, &s));
	assert_near(s.start_s, 100.009, EPS);
	assert_near(s.len_s, 0.010, EPS);
}

/* Two games at one period, phases apart: the spans' cyclic overlap, found
 * whichever period each game's next Present falls in. */
static void test_two_games_overlap(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	/* A: span [x + 0.008, x + 0.019] of each 20-ms period from 100.000;
	 * B: Presents 5 ms later, span [x + 0.013, x + 0.024]. */
	struct core_tenant g[2] = {game(50, 0.002, 0.014, 100.000),
	                           game(50, 0.002, 0.014, 100.005)};
	struct core_harvest_slot s;
	assert_true(core_harvest_slot(&p, g, 2, 100.001, &s));
	assert_near(s.len_s, 0.006, EPS);
	assert_same_phase(s.start_s, 100.013, 0.020);
	/* B just presented, A's next Present is a period ahead of B's
	 * next: the same slot. */
	struct core_harvest_slot s2;
	assert_true(core_harvest_slot(&p, g, 2, 100.0195, &s2));
	assert_near(s2.len_s, 0.006, EPS);
	assert_same_phase(s2.start_s, s.start_s, 0.020);
	/* Phases half a period apart: the spans miss, no slot. */
	g[1].present_s = 100.010;
	assert_false(core_harvest_slot(&p, g, 2, 100.001, &s));
	assert_near(s.len_s, 0.0, 0.0);
}

static void test_no_slot(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_tenant g[2] = {game(50, 0.002, 0.014, 100.0),
	                           game(50, 0.002, 0.014, 100.0)};
	struct core_harvest_slot s;
	assert_true(core_harvest_slot(&p, g, 2, 100.001, &s));
	/* Periods 3 % apart slide past each other. */
	g[1].target_fps = 50 * 1.03;
	assert_false(core_harvest_slot(&p, g, 2, 100.001, &s));
	/* 1.5 % apart still share one (the shorter period). */
	g[1].target_fps = 50 * 1.015;
	assert_true(core_harvest_slot(&p, g, 2, 100.001, &s));
	assert_near(s.period_s, 1.0 / (50 * 1.015), EPS);
	g[1].target_fps = 50;
	/* Alignment off; no games; a game unpaced, without a Present, a
	 * k, frames or a wait; a wait too short for k and the margin. */
	p.align = false;
	assert_false(core_harvest_slot(&p, g, 2, 100.001, &s));
	p.align = true;
	assert_false(core_harvest_slot(&p, g, 0, 100.001, &s));
	struct core_tenant b[6];
	for (int i = 0; i < 6; i++)
		b[i] = game(50, 0.002, 0.014, 100.0);
	b[0].target_fps = 0;
	b[1].present_s = 0;
	b[2].k = 0;
	b[3].frames = 0;
	b[4].sleep_s = 0;
	b[5].sleep_s = 10 * 0.0035; /* 3.5 - 2 - 1 = 0.5 ms < slot_min */
	for (int i = 0; i < 6; i++)
		assert_false(core_harvest_slot(&p, &b[i], 1, 100.001, &s));
	/* NaN and infinite inputs are no slot, never a NaN slot. */
	b[0] = game(NAN, 0.002, 0.014, 100.0);
	b[1] = game(50, INFINITY, 0.014, 100.0);
	b[2] = game(50, 0.002, NAN, 100.0);
	for (int i = 0; i < 3; i++)
		assert_false(core_harvest_slot(&p, &b[i], 1, 100.001, &s));
}

/* The window at a time: inside an occurrence, what is left of it (if at
 * least half of what is asked); else 0 and the next start. */
static void test_slot_window(void **state)
{
	(void)state;
	struct core_harvest_slot s = {
	    .start_s = 10.0, .len_s = 0.008, .period_s = 0.020};
	double next;
	assert_near(core_harvest_slot_window(&s, 0.005, 10.001, &next), 0.005,
	            EPS);
	/* 3 ms left of 8: a 5-ms window shrinks to 3 (>= 2.5). */
	assert_near(core_harvest_slot_window(&s, 0.005, 10.005, &next), 0.003,
	            1e-9);
	/* 2 ms left: less than half of 5, wait for 10.020. */
	assert_near(core_harvest_slot_window(&s, 0.005, 10.006, &next), 0.0,
	            0.0);
	assert_near(next, 10.020, 1e-9);
	/* Between occurrences, and several periods later. */
	assert_near(core_harvest_slot_window(&s, 0.005, 10.015, &next), 0.0,
	            0.0);
	assert_near(next, 10.020, 1e-9);
	assert_near(core_harvest_slot_window(&s, 0.005, 10.1005, &next), 0.005,
	            1e-9);
	/* A window longer than the slot is held to it. */
	assert_near(core_harvest_slot_window(&s, 0.030, 10.0201, &next), 0.0079,
	            1e-9);
	/* Before the start given (a tick's slot read early). */
	assert_near(core_harvest_slot_window(&s, 0.005, 9.981, &next), 0.005,
	            1e-9);
	/* No slot: the window as given; no window: 0. */
	struct core_harvest_slot none = {0};
	assert_near(core_harvest_slot_window(&none, 0.005, 10.006, &next),
	            0.005, 0.0);
	assert_near(core_harvest_slot_window(&s, 0.0, 10.001, &next), 0.0, 0.0);
}

/* The rest after a slot sub-launch: none while the slot's share of the
 * period is within the budget (the slot bounds the duty cycle); the
 * budget's where it is not, without a slot, and for a budget of 0 (the
 * negative "wait for the next tick"). */
static void test_slot_rest(void **state)
{
	(void)state;
	struct core_harvest_slot s = {
	    .start_s = 10.0, .len_s = 0.026, .period_s = 0.033};
	/* 26 / 33 = 0.788 of the period */
	assert_near(core_harvest_slot_rest(&s, 0.85, 0.0015), 0.0, 0.0);
	assert_near(core_harvest_slot_rest(&s, 0.78, 0.0015), 0.0015, 0.0);
	assert_near(core_harvest_slot_rest(&s, 0.40, 0.0127), 0.0127, 0.0);
	struct core_harvest_slot none = {0};
	assert_near(core_harvest_slot_rest(&none, 0.85, 0.0015), 0.0015, 0.0);
	assert_near(core_harvest_slot_rest(&s, 0.0, -1.0), -1.0, 0.0);
	assert_near(core_harvest_slot_rest(&s, 1.0, 0.0), 0.0, 0.0);
}

static void test_slot_piece(void **state)
{
	(void)state;
	struct core_harvest_slot s = {
	    .start_s = 10.0, .len_s = 0.0273, .period_s = 0.0333};
	/* 27.3 ms in pieces of 8.5 leaves 1.8 ms, under half a piece: four
	 * even pieces of 6.825 instead */
	assert_near(core_harvest_slot_piece(&s, 0.0085), 0.0273 / 4, 1e-12);
	double next;
	double at = 10.0;
	for (int i = 0; i < 4; i++) {
		double w = core_harvest_slot_window(
		    &s, core_harvest_slot_piece(&s, 0.0085), at, &next);
		assert_near(w, 0.0273 / 4, 1e-9);
		at += w;
	}
	/* exactly three pieces stay three; a window over the slot is one */
	s.len_s = 0.0255;
	assert_near(core_harvest_slot_piece(&s, 0.0085), 0.0085, 1e-12);
	assert_near(core_harvest_slot_piece(&s, 0.030), 0.0255, 1e-12);
	/* no slot, or no maximum: the maximum as given */
	struct core_harvest_slot none = {0};
	assert_near(core_harvest_slot_piece(&none, 0.0085), 0.0085, 0.0);
	assert_near(core_harvest_slot_piece(&s, 0.0), 0.0, 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_game),
	    cmocka_unit_test(test_two_games_overlap),
	    cmocka_unit_test(test_no_slot),
	    cmocka_unit_test(test_slot_window),
	    cmocka_unit_test(test_slot_rest),
	    cmocka_unit_test(test_slot_piece),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
